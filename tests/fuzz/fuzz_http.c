// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: --listen's request parser, on every prefix a server may hold (heads arrive in pieces) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "run/httpreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	struct http_req r;

	if (size > HTTP_HEAD_MAX)
		size = HTTP_HEAD_MAX;
	/* exactly the bytes read, unterminated: ASan sees any read past them */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (size_t n = 0; n <= size; n += 1 + n / 8) {
		int got = http_parse(buf, n, &r);

		if (got > 0 && (size_t)got > n)
			abort();
		/* the credentials kept lie inside the head */
		if (got > 0 && r.auth && (r.auth < buf || r.auth + r.auth_len > buf + got))
			abort();
	}
	http_parse(buf, size, &r);
	free(buf);
	return 0;
}
