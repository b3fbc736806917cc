// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "lib/fmt.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

static char dir[] = "/tmp/test_util.XXXXXX";

static const struct {
	const char *name, *text;
} files[] = {
	{ "value", "12345\nsecond line\n" },
	{ "hex", "0x1f\n" },
	{ "field", "7 of 9\n" },
	{ "neg", "-1\n" },
	{ "big", "18446744073709551616\n" },
	{ "text", "N/A (no PMA)\n" },
	{ "empty", "" },
};

static const char *at(const char *name)
{
	static char path[64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(at(files[i].name), "w");

		if (!f || fputs(files[i].text, f) < 0 || fclose(f))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(at(files[i].name));
	return rmdir(dir);
}

static void test_root_path(void **state)
{
	char buf[64], small[22];

	(void)state;
	/* "/" and NULL are the real root, not a "//" prefix */
	assert_int_equal(root_path(buf, sizeof(buf), "/", "/proc/net/route"), 0);
	assert_string_equal(buf, "/proc/net/route");
	assert_int_equal(root_path(buf, sizeof(buf), NULL, "/sys/class/net/%s/speed", "eth0"), 0);
	assert_string_equal(buf, "/sys/class/net/eth0/speed");
	assert_int_equal(root_path(buf, sizeof(buf), "/fix", "/sys/class/infiniband/%s/ports/%u",
				   "mlx5_0", 1u), 0);
	assert_string_equal(buf, "/fix/sys/class/infiniband/mlx5_0/ports/1");
	/* exactly full, then one byte short; the root alone overflowing too */
	assert_int_equal(root_path(small, sizeof(small), "/fix", "/proc/self/mounts"), 0);
	assert_string_equal(small, "/fix/proc/self/mounts");
	assert_int_equal(root_path(small, sizeof(small) - 1, "/fix", "/proc/self/mounts"),
			 -ENAMETOOLONG);
	assert_int_equal(root_path(small, sizeof(small), "/a/fixture/root/that/is/long", "/proc"),
			 -ENAMETOOLONG);
	assert_int_equal(root_path(small, 0, "/", "/proc"), -ENAMETOOLONG);
	/* what the readers build on: a fixture tree */
	assert_int_equal(root_path(buf, sizeof(buf), FIXTURES, "/proc/net/route"), 0);
	assert_int_equal(access(buf, R_OK), 0);
}

static void test_read_line(void **state)
{
	char buf[32], tiny[4];

	(void)state;
	/* the first line only, without its newline */
	assert_int_equal(read_line(at("value"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "12345");
	assert_int_equal(read_line(at("value"), tiny, sizeof(tiny)), 0);
	assert_string_equal(tiny, "123");
	assert_int_equal(read_line(at("empty"), buf, sizeof(buf)), -ENODATA);
	assert_int_equal(read_line(at("missing"), buf, sizeof(buf)), -ENOENT);
}

static void test_read_u64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(read_u64(at("value"), &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(read_u64(at("hex"), &v), 0);
	assert_int_equal(v, 31);
	/* the first field */
	assert_int_equal(read_u64(at("field"), &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(read_u64(at("text"), &v), -EINVAL);
	assert_int_equal(read_u64(at("neg"), &v), -EINVAL);
	assert_int_equal(read_u64(at("big"), &v), -EINVAL);
	assert_int_equal(read_u64(at("empty"), &v), -ENODATA);
	assert_int_equal(read_u64(at("missing"), &v), -ENOENT);
	assert_int_equal(parse_u64("12x", &v), -EINVAL);
	assert_int_equal(parse_u64("", &v), -EINVAL);
}

static void test_read_long(void **state)
{
	long v = 0;

	(void)state;
	assert_int_equal(read_long(at("value"), &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(read_long(at("neg"), &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(read_long(at("text"), &v), -EINVAL);
	assert_int_equal(read_long(at("big"), &v), -EINVAL);
	assert_int_equal(read_long(at("empty"), &v), -ENODATA);
	assert_int_equal(read_long(at("missing"), &v), -ENOENT);
}

static void test_grow(void **state)
{
	size_t cap = 0, cap2 = 0;
	int *a = NULL, *b = NULL, *old;

	(void)state;
	/* nothing until an element is needed, then @first, then doubling */
	assert_int_equal(GROW(a, cap, 0, 8), 0);
	assert_null(a);
	assert_int_equal(cap, 0);
	assert_int_equal(GROW(a, cap, 1, 8), 0);
	assert_non_null(a);
	assert_int_equal(cap, 8);
	for (int i = 0; i < 8; i++)
		a[i] = i;
	old = a;
	assert_int_equal(GROW(a, cap, 8, 8), 0);
	assert_ptr_equal(a, old);
	assert_int_equal(cap, 8);
	assert_int_equal(GROW(a, cap, 9, 8), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(GROW(a, cap, 100, 8), 0);
	assert_int_equal(cap, 128);
	for (int i = 0; i < 8; i++)
		assert_int_equal(a[i], i);
	/* a first need past @first doubles from it */
	assert_int_equal(GROW(b, cap2, 10, 4), 0);
	assert_int_equal(cap2, 16);
	free(b);
	/* a size that wraps, by the element size or by doubling, leaves the array as it was */
	old = a;
	assert_int_equal(GROW(a, cap, SIZE_MAX / 2, 8), -ENOMEM);
	assert_int_equal(grow(&a, &cap, SIZE_MAX, 2, 8), -ENOMEM);
	assert_ptr_equal(a, old);
	assert_int_equal(cap, 128);
	for (int i = 0; i < 8; i++)
		assert_int_equal(a[i], i);
	free(a);
}

/* what a job's path is on: the mount or below it; an NFS root holds all; no mount holds none */
static void test_path_under(void **state)
{
	(void)state;
	assert_true(path_under("/mnt/a", "/mnt/a"));
	assert_true(path_under("/mnt/a/ckpt/x", "/mnt/a"));
	assert_false(path_under("/mnt/ab", "/mnt/a"));
	assert_false(path_under("/mnt", "/mnt/a"));
	assert_true(path_under("/home/x", "/"));
	assert_true(path_under("/", "/"));
	assert_false(path_under("/home/x", ""));
	assert_false(path_under("/home/x", NULL));
	assert_false(path_under("socket:[123]", "/"));
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void same_as_printf(double v)
{
	char want[64], got[64];

	snprintf(want, sizeof(want), "%.9g", v);
	fmt_g9(got, v);
	if (strcmp(want, got))
		fail_msg("%%.9g of %a: printf \"%s\", fmt_g9 \"%s\"", v, want, got);
}

/* fmt_g9 is printf's %.9g, byte for byte: random bits at every magnitude, and the hard cases */
static void test_fmt_g9(void **state)
{
	static const double edge[] = { 0, -0.0, 1e-4, 9.99999999e-5, 0.0001000000005, 1e9,
				       999999999.4, 999999999.5, 999999999.6, 99999999.95, 9.999999995,
				       0.5, 1.5, 2.5, 0.125, 1e8, 123456789.5, 12345678.45, 1.00000001,
				       0.30000000000000004, 1.0 / 3, 2.0 / 3, 1e-5, 1e15, 5e-324,
				       1.7976931348623157e308 };
	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		same_as_printf(edge[i]);
		same_as_printf(-edge[i]);
	}
	/* uniform bits over [2^-16, 2^32): every decade the fast path takes and its borders */
	for (int i = 0; i < 2000000; i++) {
		uint64_t r = next_rand();
		double v = ldexp(1.0 + (double)(r >> 12) / 4503599627370496.0, (int)(r % 48) - 16);

		same_as_printf(i & 1 ? -v : v);
	}
	/* decimals with few digits and their halves: the near-ties */
	for (int i = 0; i < 1000000; i++) {
		uint64_t r = next_rand();
		double v = (double)(r % 2000000000u) / 2.0 / (double)(1ull << (r >> 60)) /
			   (double)((r >> 32) % 1000 + 1);

		same_as_printf(v);
		same_as_printf((double)(r % 1000000000000ull) / 1e3);
		same_as_printf((double)(r % 1000000000000ull) * 1e-12);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_path),
		cmocka_unit_test(test_path_under),
		cmocka_unit_test(test_read_line),
		cmocka_unit_test(test_read_u64),
		cmocka_unit_test(test_read_long),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_fmt_g9),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
