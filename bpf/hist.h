/* SPDX-License-Identifier: GPL-2.0 */
/* Bucket math shared by the BPF programs and user space (and unit-tested on the host). */
#ifndef SLOTSCOPE_HIST_H
#define SLOTSCOPE_HIST_H

/*
 * Occupancy levels: bucket 0 is exactly "no slot in use", the last bucket exactly "at (or over)
 * the limit", and the levels in between are spread linearly over the rest. With a limit up to
 * LEVEL_BUCKETS - 1 every level has a bucket of its own; with 65536 a bucket spans ~2000 levels,
 * but "at the limit" stays exact.
 */
#define LEVEL_BUCKETS 34

static inline unsigned int level_bucket(unsigned int level, unsigned int limit)
{
	if (level == 0)
		return 0;
	if (limit == 0 || level >= limit)
		return LEVEL_BUCKETS - 1;
	if (limit - 1 <= LEVEL_BUCKETS - 2)
		return level;
	return 1 + (unsigned int)(((unsigned long long)(level - 1) * (LEVEL_BUCKETS - 2)) / (limit - 1));
}

/*
 * level_bucket() by a multiply where the limit is above LEVEL_BUCKETS - 1 (where it divides):
 * level_recip(@limit) packs m = ceil(2^39 / (limit - 1)) above the limit's 20 bits, and
 * 1 + ((level - 1) * (LEVEL_BUCKETS - 2) * m >> 39) is level_bucket()'s quotient exactly. With
 * n = (level - 1) * 32 < 32 * d, d = limit - 1, m * d - 2^39 < d: the multiply's excess over
 * n / d is n * (m * d - 2^39) / (d * 2^39) < 32 * d^2 / (d * 2^39) <= 1/d for d <= 2^17, and
 * floor(n / d + e) = floor(n / d) when e < 1/d. m < 2^34 and n * m < 2^56: no overflow. Larger
 * limits divide (level_bucket()).
 */
#define LEVEL_RECIP_MAX_LIMIT	(1u << 17)
#define LEVEL_RECIP_LIMIT_MASK	((1ull << 20) - 1)

static inline unsigned long long level_recip(unsigned int limit)
{
	unsigned long long d = limit - 1;

	return (((1ull << 39) + d - 1) / d) << 20 | limit;
}

static inline unsigned int level_bucket_recip(unsigned int level, unsigned long long recip)
{
	return 1 + (unsigned int)(((unsigned long long)(level - 1) * (LEVEL_BUCKETS - 2) * (recip >> 20)) >> 39);
}

/* Lowest level that falls into @bucket (for labelling buckets). */
static inline unsigned int level_bucket_low(unsigned int bucket, unsigned int limit)
{
	if (bucket == 0)
		return 0;
	if (limit == 0 || bucket >= LEVEL_BUCKETS - 1)
		return limit;
	if (limit - 1 <= LEVEL_BUCKETS - 2)
		return bucket;
	/* smallest level with 1 + (level-1)*(B-2)/(limit-1) >= bucket */
	return 1 + (unsigned int)(((unsigned long long)(bucket - 1) * (limit - 1) + (LEVEL_BUCKETS - 3)) /
				  (LEVEL_BUCKETS - 2));
}

/*
 * Latencies and waits: log2 buckets of nanoseconds. Bucket i holds [2^i, 2^(i+1)) ns, bucket 0
 * also holds 0; the last bucket holds everything from 2^(LAT_BUCKETS-1) ns (~34 s) up.
 */
#define LAT_BUCKETS 36

/*
 * Without a branch: @ns with every bit below its highest set is 2^(b+1) - 1 for its bucket b,
 * and that times the de Bruijn constant below has top 6 bits of its own for each b (0 and 1
 * share 0). They index the bucket, clamped, in LAT_BUCKET_OF. The 6 halvings with a compare
 * each it replaces took ~50 guest instructions an RPC's stage (make bench-insn-lines), 3 stages
 * and every wait, each a branch TCG ends a block at.
 */
#define LAT_DEBRUIJN 0x03f79d71b4cb0a89ull

static const unsigned char LAT_BUCKET_OF[64] = {
	0, 35, 1, 35, 35, 27, 2, 35, 35, 35, 35, 35, 28, 16, 3, 35,
	35, 35, 35, 35, 35, 35, 21, 35, 35, 32, 29, 23, 17, 11, 4, 35,
	35, 35, 26, 35, 35, 35, 15, 35, 34, 35, 20, 35, 31, 22, 10, 35,
	25, 35, 14, 33, 19, 30, 9, 24, 13, 18, 8, 12, 7, 6, 5, 35,
};

static inline unsigned int lat_bucket(unsigned long long ns)
{
	unsigned int b;

	ns |= ns >> 1;
	ns |= ns >> 2;
	ns |= ns >> 4;
	ns |= ns >> 8;
	ns |= ns >> 16;
	ns |= ns >> 32;
	b = LAT_BUCKET_OF[(ns * LAT_DEBRUIJN) >> 58];
	/*
	 * The verifier knows a byte of the table only as 0..255, and the compiler, which knows
	 * them all below LAT_BUCKETS, would drop every caller's check: hidden from it, one stays
	 */
	__asm__ volatile("" : "+r"(b));
	return b < LAT_BUCKETS ? b : LAT_BUCKETS - 1;
}

#endif
