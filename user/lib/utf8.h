/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names the kernel or a user hands over as bytes (mount points, device names, cgroup and user
 * names), made into text every output can carry.
 */
#ifndef SLOTSCOPE_UTF8_H
#define SLOTSCOPE_UTF8_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* longest text name_next() makes of one character: \xC2\x9B */
#define NAME_CHAR_MAX 9

/*
 * The one rule by which every output writes a name, injective so that no two names read alike:
 * a byte that does not start well-formed UTF-8 is the four characters \xHH; so is a control
 * character (C0, DEL; C1 as the \xHH of both of its bytes), which would otherwise reach a
 * terminal (ESC, OSC, CR), a textfile line or an SVG that XML forbids it in; a backslash is two,
 * so a name holding the characters "\xE9" reads "\\xE9", never the byte 0xE9. The text of the
 * next character of *@p goes to @out (NUL-terminated); *@p moves past it.
 */
static inline void name_next(const unsigned char **p, char out[NAME_CHAR_MAX + 1])
{
	const unsigned char *c = *p;
	size_t n = utf8_seq_len(c);

	if (!n || *c < 0x20 || *c == 0x7f) {
		snprintf(out, NAME_CHAR_MAX + 1, "\\x%02X", *c);
		*p = c + 1;
	} else if (n == 2 && c[0] == 0xc2 && c[1] < 0xa0) {
		snprintf(out, NAME_CHAR_MAX + 1, "\\x%02X\\x%02X", c[0], c[1]);
		*p = c + 2;
	} else if (*c == '\\') {
		snprintf(out, NAME_CHAR_MAX + 1, "\\\\");
		*p = c + 1;
	} else {
		for (size_t i = 0; i < n; i++)
			out[i] = (char)c[i];
		out[n] = 0;
		*p = c + n;
	}
}

/* @s by name_next() into @buf (cut at a character, NUL-terminated): for printf's %s */
static inline const char *name_str(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!len)
		return "";
	buf[0] = 0;
	while (*p) {
		char ch[NAME_CHAR_MAX + 1];
		size_t n;

		name_next(&p, ch);
		n = strlen(ch);
		if (o + n >= len)
			break;
		memcpy(buf + o, ch, n + 1);
		o += n;
	}
	return buf;
}

/* @s by name_next(), with '\\' and '"' escaped: a JSON string's or a label value's inside */
static inline void put_name_quoted(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		char ch[NAME_CHAR_MAX + 1];
		size_t run = 0;

		/* printable ASCII that needs no escape, the whole of nearly every name: one write */
		while (p[run] >= 0x20 && p[run] < 0x7f && p[run] != '\\' && p[run] != '"')
			run++;
		if (run) {
			fwrite_unlocked(p, 1, run, f);
			p += run;
			continue;
		}
		name_next(&p, ch);
		for (const char *c = ch; *c; c++) {
			if (*c == '\\' || *c == '"')
				putc_unlocked('\\', f);
			putc_unlocked(*c, f);
		}
	}
}

#endif
