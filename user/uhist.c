// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include "uhist.h"

uint64_t hist_total(const __u64 *buckets, unsigned int n)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < n; i++)
		t += buckets[i];
	return t;
}

double hist_quantile(const __u64 *buckets, unsigned int n, double q)
{
	uint64_t total = hist_total(buckets, n), seen = 0;
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

void hist_sub(__u64 *out, const __u64 *a, const __u64 *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		out[i] = delta_u64(a[i], b ? b[i] : 0);
}
