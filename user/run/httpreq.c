// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <strings.h>
#include "run/httpreq.h"

/* RFC 9110's tchar: what a method and a header's name are made of */
static int is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* the end of the line starting at @p (its CR or LF), or NULL when not read yet */
static const char *line_end(const char *p, const char *end)
{
	for (const char *q = p; q < end; q++)
		if (*q == '\n')
			return q > p && q[-1] == '\r' ? q - 1 : q;
	return NULL;
}

/* past the line ending at @e (CRLF or a bare LF, which RFC 9112 lets a server take) */
static const char *next_line(const char *e)
{
	return *e == '\r' ? e + 2 : e + 1;
}

static int request_line(const char *p, const char *e, struct http_req *r)
{
	const char *sp1, *sp2, *target, *q;
	size_t mlen, plen;

	for (sp1 = p; sp1 < e && is_tchar((unsigned char)*sp1); sp1++)
		;
	if (sp1 == p || sp1 >= e || *sp1 != ' ')
		return -EBADMSG;
	mlen = (size_t)(sp1 - p);
	target = sp1 + 1;
	for (sp2 = target; sp2 < e && *sp2 != ' '; sp2++)
		if ((unsigned char)*sp2 <= 0x20 || *sp2 == 0x7f)
			return -EBADMSG;
	if (sp2 >= e || sp2 == target || *target != '/')
		return -EBADMSG;
	if ((size_t)(e - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7))
		return (size_t)(e - sp2 - 1) >= 5 && !memcmp(sp2 + 1, "HTTP/", 5) ? -EPROTONOSUPPORT : -EBADMSG;
	if (sp2[8] != '0' && sp2[8] != '1')
		return -EPROTONOSUPPORT;
	r->method = mlen == 3 && !memcmp(p, "GET", 3) ? HTTP_GET :
		    mlen == 4 && !memcmp(p, "HEAD", 4) ? HTTP_HEAD : HTTP_OTHER_METHOD;
	/* a query (Prometheus's params:) does not change the answer */
	for (q = target; q < sp2 && *q != '?'; q++)
		;
	plen = (size_t)(q - target);
	r->path = plen == 8 && !memcmp(target, "/metrics", 8) ? HTTP_METRICS :
		  plen == 8 && !memcmp(target, "/healthz", 8) ? HTTP_HEALTHZ : HTTP_OTHER_PATH;
	return 0;
}

/*
 * name ":" value, the name a token with no space before the colon (RFC 9112 5.1); an
 * Authorization header's value kept (its surrounding blanks trimmed), two of them refused
 */
static int header_line(const char *p, const char *e, struct http_req *r)
{
	const char *c, *v, *ve;

	for (c = p; c < e && is_tchar((unsigned char)*c); c++)
		;
	if (c == p || c >= e || *c != ':')
		return -EBADMSG;
	for (v = c + 1; v < e; v++)
		if (((unsigned char)*v < 0x20 && *v != '\t') || *v == 0x7f)
			return -EBADMSG;
	if (c - p != 13 || strncasecmp(p, "authorization", 13))
		return 0;
	if (r->auth)
		return -EBADMSG;
	for (v = c + 1; v < e && (*v == ' ' || *v == '\t'); v++)
		;
	for (ve = e; ve > v && (ve[-1] == ' ' || ve[-1] == '\t'); ve--)
		;
	r->auth = v;
	r->auth_len = (size_t)(ve - v);
	return 0;
}

int http_parse(const char *buf, size_t len, struct http_req *r)
{
	const char *end = buf + len, *p = buf, *e;
	int err;

	/* one empty line before the request line is tolerated (RFC 9112 2.2) */
	if (len >= 2 && buf[0] == '\r' && buf[1] == '\n')
		p += 2;
	else if (len >= 1 && buf[0] == '\n')
		p++;
	e = line_end(p, end);
	if (!e)
		return len >= HTTP_HEAD_MAX ? -E2BIG : 0;
	r->auth = NULL;
	r->auth_len = 0;
	err = request_line(p, e, r);
	if (err)
		return err;
	for (p = next_line(e); ; p = next_line(e)) {
		e = line_end(p, end);
		if (!e)
			return len >= HTTP_HEAD_MAX ? -E2BIG : 0;
		if (e == p)
			break;
		/* obsolete line folding is refused (RFC 9112 5.2: a server may reject it) */
		if (*p == ' ' || *p == '\t')
			return -EBADMSG;
		err = header_line(p, e, r);
		if (err)
			return err;
	}
	if ((size_t)(next_line(e) - buf) > HTTP_HEAD_MAX)
		return -E2BIG;
	return (int)(next_line(e) - buf);
}
