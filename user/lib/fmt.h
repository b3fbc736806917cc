/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writers' hot path: the textfile and --json write thousands of integers and fixed strings a
 * tick. printf's format parsing was a fifth of their CPU (perf, bench-prom); these write the
 * digits and the bytes directly. Every stream slotscope writes is its own thread's alone: the
 * unlocked calls skip stdio's lock per character.
 */
#ifndef SLOTSCOPE_FMT_H
#define SLOTSCOPE_FMT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline void put_s(FILE *f, const char *s)
{
	fwrite_unlocked(s, 1, strlen(s), f);
}

/* the digits of @v at @out (at least 20 bytes, not terminated): how many */
static inline int fmt_u64(char *out, uint64_t v)
{
	char b[20];
	int i = (int)sizeof(b);

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(out, b + i, sizeof(b) - (size_t)i);
	return (int)sizeof(b) - i;
}

static inline void put_u64(FILE *f, uint64_t v)
{
	char b[20];

	fwrite_unlocked(b, 1, (size_t)fmt_u64(b, v), f);
}

static inline void put_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', f);
		put_u64(f, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(f, (uint64_t)v);
	}
}

/*
 * printf's "%.9g" of @v into @out (at least 24 bytes), without printf for the values the writers
 * mostly have (1e-4 <= |v| < 1e9): its float path is multi-precision arithmetic, a third of a
 * --json tick's formatting. The nine digits are v scaled by an exact power of ten (10^k, k <= 12,
 * is exact in a double) and rounded: the product is within 2^-53 of the truth, under 1.2e-7 at
 * these magnitudes, so when its fraction is farther than 1e-6 from a half the rounding is the
 * exact one. Nearer a half (a tie printf breaks on the exact binary value), a carry to ten digits,
 * other magnitudes, -0 and non-finite values: snprintf itself. test_util checks it against
 * snprintf over millions of values.
 */
static inline int fmt_g9(char *out, double v)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
				      1e11, 1e12 };
	double a = v < 0 ? -v : v, scaled, q, frac;
	uint64_t d, div;
	int e, n = 0, len;
	char dig[12];

	if (!(a >= 1e-4 && a < 1e9))
		return snprintf(out, 24, "%.9g", v);
	for (e = 8; e > -4 && a < (e >= 0 ? p10[e] : 1.0 / p10[-e]); e--)
		;
	scaled = a * p10[8 - e];
	q = (double)(uint64_t)scaled;
	frac = scaled - q;
	if (frac > 0.5 - 1e-6 && frac < 0.5 + 1e-6)
		return snprintf(out, 24, "%.9g", v);
	d = (uint64_t)q + (frac > 0.5);
	if (d < 100000000u || d >= 1000000000u)
		return snprintf(out, 24, "%.9g", v);
	if (v < 0)
		out[n++] = '-';
	/* d * 10^(e - 8): the integer part, then the fraction without its trailing zeros */
	div = (uint64_t)p10[8 - e];
	if (e >= 0)
		n += fmt_u64(out + n, d / div);
	else
		out[n++] = '0';
	d %= div;
	if (d) {
		len = 8 - e;
		while (d % 10 == 0) {
			d /= 10;
			len--;
		}
		out[n++] = '.';
		for (int i = len - 1; i >= 0; i--, d /= 10)
			dig[i] = (char)('0' + d % 10);
		memcpy(out + n, dig, (size_t)len);
		n += len;
	}
	out[n] = 0;
	return n;
}

static inline void put_g9(FILE *f, double v)
{
	char b[32];
	int n = fmt_g9(b, v);

	fwrite_unlocked(b, 1, n > 0 ? (size_t)n : 0, f);
}

/*
 * A rate for people: "LOW..HIGH MB/s", one figure when they agree to 0.5 % (a single rate:
 * LOW = HIGH), in the unit of the higher; GB/s from 1e9 B/s. The verdict and the text alike.
 */
static inline const char *fmt_rate(char *buf, size_t len, double lo, double hi)
{
	double unit = hi >= 1e9 ? 1e9 : 1e6;
	const char *u = hi >= 1e9 ? "GB/s" : "MB/s";
	int prec = hi >= 1e9 ? 2 : 1;

	if (hi - lo <= 0.005 * hi)
		snprintf(buf, len, "%.*f %s", prec, hi / unit, u);
	else
		snprintf(buf, len, "%.*f..%.*f %s", prec, lo / unit, prec, hi / unit, u);
	return buf;
}

#endif
