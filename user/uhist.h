/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_UHIST_H
#define SLOTSCOPE_UHIST_H

#include <stdint.h>
#include <linux/types.h>
#include "hist.h"

/* upper bound (exclusive) of log2 latency bucket @b, in ns */
static inline uint64_t lat_bucket_hi(unsigned int b)
{
	return b >= 63 ? UINT64_MAX : (uint64_t)1 << (b + 1);
}

uint64_t hist_total(const __u64 *buckets, unsigned int n);
/* @q-quantile (0..1) of a log2 histogram in ns, interpolated inside the bucket; 0 if empty */
double hist_quantile(const __u64 *buckets, unsigned int n, double q);
/* out[i] = a[i] - b[i] (b may be NULL) */
void hist_sub(__u64 *out, const __u64 *a, const __u64 *b, unsigned int n);

#endif
