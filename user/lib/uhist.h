/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_UHIST_H
#define SLOTSCOPE_UHIST_H

#include <stdint.h>
#include <linux/types.h>
#include "hist.h"

/* lower bound of log2 latency bucket @b, in ns: bucket 0 holds 0 and 1 */
static inline uint64_t lat_bucket_lo(unsigned int b)
{
	return b == 0 ? 0 : b >= 64 ? UINT64_MAX : (uint64_t)1 << b;
}

/* upper bound (exclusive) of log2 latency bucket @b, in ns */
static inline uint64_t lat_bucket_hi(unsigned int b)
{
	return b >= 63 ? UINT64_MAX : (uint64_t)1 << (b + 1);
}

uint64_t hist_total(const __u64 *buckets, unsigned int n);
/* @q-quantile (0..1) of a log2 histogram in ns, interpolated inside the bucket; 0 if empty */
double hist_quantile(const __u64 *buckets, unsigned int n, double q);
void hist_p50_p99(const __u64 *buckets, unsigned int n, double *p50, double *p99);
/*
 * @cur - @prev of a counter that only grows, 0 when it went down. A map read is not atomic:
 * fields two CPUs store in one order may be read in the other, and a decrease read as unsigned
 * would be 1.8e19.
 */
static inline uint64_t delta_u64(uint64_t cur, uint64_t prev)
{
	return cur > prev ? cur - prev : 0;
}

/* out[i] = a[i] - b[i] (b may be NULL), never below 0 */
void hist_sub(__u64 *out, const __u64 *a, const __u64 *b, unsigned int n);

#endif
