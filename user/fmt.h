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

static inline void put_u64(FILE *f, uint64_t v)
{
	char b[20];
	int i = (int)sizeof(b);

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(b + i, 1, sizeof(b) - (size_t)i, f);
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
