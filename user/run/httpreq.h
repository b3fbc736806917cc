/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The head of an HTTP/1.x request, as --listen reads it: the method, the path and the version,
 * and the credentials of --web-config's basic auth; nothing else (the answer is the same
 * exposition whatever the headers ask). Pure, fuzzed (tests/fuzz/fuzz_http.c).
 */
#ifndef SLOTSCOPE_HTTPREQ_H
#define SLOTSCOPE_HTTPREQ_H

#include <stddef.h>

/* the longest head read: Prometheus sends ~300 bytes; more is refused (431) */
#define HTTP_HEAD_MAX 4096

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER_METHOD };
enum http_path { HTTP_METRICS, HTTP_HEALTHZ, HTTP_OTHER_PATH };

struct http_req {
	enum http_method method;
	enum http_path path;
	const char *auth;	/* the Authorization header's value, in the head read; NULL: none */
	size_t auth_len;
};

/*
 * @buf[0..@len) as read so far: the head's length (through its blank line) when it is whole,
 * and *@r filled; 0 when more must be read; -EBADMSG for a malformed request line or header
 * (or two Authorization headers), -EPROTONOSUPPORT for a version other than HTTP/1.0 or 1.1,
 * -E2BIG when @len reaches HTTP_HEAD_MAX with no end in sight.
 */
int http_parse(const char *buf, size_t len, struct http_req *r);

#endif
