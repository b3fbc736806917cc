/* SPDX-License-Identifier: GPL-2.0 */
/* UTF-8 checks for names the kernel hands over as bytes (mount points, device names). */
#ifndef SLOTSCOPE_UTF8_H
#define SLOTSCOPE_UTF8_H

#include <stddef.h>

/*
 * Length of the well-formed UTF-8 sequence at @p (RFC 3629: no overlongs, no surrogates, at
 * most U+10FFFF), or 0 when the byte at @p does not start one. @p is NUL-terminated.
 */
static inline size_t utf8_seq_len(const unsigned char *p)
{
	size_t n;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

#endif
