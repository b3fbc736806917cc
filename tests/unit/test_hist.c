// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/uhist.h"

/* 0 and the limit have buckets of their own whatever the limit */
static void test_level_bucket_edges(void **state)
{
	static const unsigned int limits[] = { 2, 16, 33, 34, 128, 1000, 65536 };

	(void)state;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		unsigned int l = limits[i];

		assert_int_equal(level_bucket(0, l), 0);
		assert_int_equal(level_bucket(l, l), LEVEL_BUCKETS - 1);
		assert_int_equal(level_bucket(l + 5, l), LEVEL_BUCKETS - 1);
		assert_true(level_bucket(1, l) >= 1);
		assert_true(level_bucket(l - 1, l) <= LEVEL_BUCKETS - 2);
	}
}

/* small limits: one bucket per level, so time per level is exact */
static void test_level_bucket_exact_small(void **state)
{
	(void)state;
	for (unsigned int lvl = 0; lvl <= 16; lvl++)
		assert_int_equal(level_bucket(lvl, 16), lvl == 16 ? LEVEL_BUCKETS - 1 : lvl);
}

/* bucket_low is the inverse: every level lies in [low(b), low(b+1)) of its bucket */
static void test_level_bucket_low_inverse(void **state)
{
	static const unsigned int limits[] = { 16, 33, 34, 128, 1000, 65536 };

	(void)state;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		unsigned int l = limits[i], prev = 0;

		for (unsigned int lvl = 0; lvl <= l; lvl++) {
			unsigned int b = level_bucket(lvl, l);

			assert_true(b >= prev);	/* monotonic */
			prev = b;
			assert_true(level_bucket_low(b, l) <= lvl);
			if (b + 1 < LEVEL_BUCKETS && level_bucket_low(b + 1, l) <= l)
				assert_true(lvl < level_bucket_low(b + 1, l));
			assert_int_equal(level_bucket(level_bucket_low(b, l), l), b);
		}
	}
}

/*
 * The multiply (level_bucket_recip) gives the divide's bucket: every level of every limit from
 * LEVEL_BUCKETS to 4096, and of the limits where the bound is tightest (2^17 and just under),
 * every level; a 2^17 + 1 limit is not given a reciprocal.
 */
static void test_level_bucket_recip(void **state)
{
	static const unsigned int big[] = { 1u << 16, (1u << 16) + 1, 65536 + 8192, (1u << 17) - 1, 1u << 17 };

	(void)state;
	for (unsigned int limit = LEVEL_BUCKETS; limit <= 4096; limit++) {
		unsigned long long r = level_recip(limit);

		assert_int_equal(r & LEVEL_RECIP_LIMIT_MASK, limit);
		for (unsigned int level = 1; level < limit; level++)
			if (level_bucket_recip(level, r) != level_bucket(level, limit))
				fail_msg("limit %u level %u: %u != %u", limit, level,
					 level_bucket_recip(level, r), level_bucket(level, limit));
	}
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		unsigned long long r = level_recip(big[i]);

		assert_true(big[i] <= LEVEL_RECIP_MAX_LIMIT);
		assert_true((r >> 20) < (1ull << 34));
		for (unsigned int level = 1; level < big[i]; level++)
			if (level_bucket_recip(level, r) != level_bucket(level, big[i]))
				fail_msg("limit %u level %u", big[i], level);
	}
}

static void test_lat_bucket(void **state)
{
	(void)state;
	assert_int_equal(lat_bucket(0), 0);
	assert_int_equal(lat_bucket(1), 0);
	assert_int_equal(lat_bucket(2), 1);
	assert_int_equal(lat_bucket(3), 1);
	assert_int_equal(lat_bucket(1024), 10);
	assert_int_equal(lat_bucket(2047), 10);
	assert_int_equal(lat_bucket(1000000000ull), 29);
	assert_int_equal(lat_bucket(UINT64_MAX), LAT_BUCKETS - 1);
	for (unsigned int b = 1; b < LAT_BUCKETS - 1; b++) {
		assert_int_equal(lat_bucket((uint64_t)1 << b), b);
		assert_int_equal(lat_bucket(((uint64_t)1 << (b + 1)) - 1), b);
	}
	/* the table against the highest bit found by hand: every edge of every bit, and a spread */
	for (unsigned int k = 0; k < 64; k++) {
		uint64_t p = (uint64_t)1 << k, v[] = { p - 1, p, p + 1, p | (p >> 1), p | (p - 1) };

		for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			unsigned int hi = 0;

			for (uint64_t x = v[i]; x > 1; x >>= 1)
				hi++;
			if (lat_bucket(v[i]) != (hi < LAT_BUCKETS ? hi : LAT_BUCKETS - 1))
				fail_msg("lat_bucket(%llu) = %u, its highest bit %u", (unsigned long long)v[i],
					 lat_bucket(v[i]), hi);
		}
	}
}

static void test_quantile(void **state)
{
	__u64 h[LAT_BUCKETS] = { 0 };

	(void)state;
	assert_true(hist_quantile(h, LAT_BUCKETS, 0.5) == 0);
	/* 100 samples in [1024, 2048): the median interpolates to the middle */
	h[10] = 100;
	assert_true(hist_quantile(h, LAT_BUCKETS, 0.5) > 1500 && hist_quantile(h, LAT_BUCKETS, 0.5) < 1550);
	/* 99 fast, 1 slow: p50 stays fast, p99 lands on the fast bucket's top, p100 on the slow one */
	h[10] = 99;
	h[20] = 1;
	assert_true(hist_quantile(h, LAT_BUCKETS, 0.5) < 2048);
	assert_true(hist_quantile(h, LAT_BUCKETS, 0.99) <= 2048);
	assert_true(hist_quantile(h, LAT_BUCKETS, 1.0) >= 1 << 20);
	assert_int_equal(hist_total(h, LAT_BUCKETS), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_bucket_edges),
		cmocka_unit_test(test_level_bucket_exact_small),
		cmocka_unit_test(test_level_bucket_low_inverse),
		cmocka_unit_test(test_level_bucket_recip),
		cmocka_unit_test(test_lat_bucket),
		cmocka_unit_test(test_quantile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
