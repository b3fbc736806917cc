// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <string.h>
#include "lib/uhist.h"

uint64_t hist_total(const __u64 *buckets, unsigned int n)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < n; i++)
		t += buckets[i];
	return t;
}

static double quantile_of(const __u64 *buckets, unsigned int n, uint64_t total, double q)
{
	uint64_t seen = 0;
	double rank;

	if (!total)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = q * (double)total;
	for (unsigned int i = 0; i < n; i++) {
		double lo, hi;

		if (!buckets[i] || (double)(seen + buckets[i]) < rank) {
			seen += buckets[i];
			continue;
		}
		lo = (double)lat_bucket_lo(i);
		hi = (double)lat_bucket_hi(i);
		if (i == n - 1)	/* open-ended: report its lower edge, not a made-up upper one */
			return lo;
		return lo + (hi - lo) * ((rank - (double)seen) / (double)buckets[i]);
	}
	return (double)lat_bucket_lo(n - 1);
}

double hist_quantile(const __u64 *buckets, unsigned int n, double q)
{
	return quantile_of(buckets, n, hist_total(buckets, n), q);
}

/* p50 and p99 over one total: the model asks for both of every histogram, every tick */
void hist_p50_p99(const __u64 *buckets, unsigned int n, double *p50, double *p99)
{
	uint64_t total = hist_total(buckets, n);

	*p50 = quantile_of(buckets, n, total, 0.50);
	*p99 = quantile_of(buckets, n, total, 0.99);
}

/*
 * Every op's three histograms and every wait's, every tick: no branch on @b per bucket, and the
 * arrays never overlap (a view's from two snapshots'), so the compiler may do several at once
 */
void hist_sub(__u64 *restrict out, const __u64 *restrict a, const __u64 *restrict b, unsigned int n)
{
	if (!b) {
		memcpy(out, a, n * sizeof(*out));
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		out[i] = delta_u64(a[i], b[i]);
}
