// SPDX-License-Identifier: GPL-2.0
/*
 * The node's CPUs from /proc/stat under a root: at work is all but idle and iowait, guest time
 * not counted twice, steal counted; a kernel's line without the later fields still read; a line
 * not in the format, or no file, an error; the share over two reads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "host/cpustat.h"

static char root[64];

static void put(const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/proc/stat", root);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char p[128];

	(void)state;
	strcpy(root, "/tmp/test_cpustat.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(p, sizeof(p), "%s/proc", root);
	return mkdir(p, 0755);
}

static int teardown(void **state)
{
	char p[128];

	(void)state;
	snprintf(p, sizeof(p), "%s/proc/stat", root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/proc", root);
	rmdir(p);
	rmdir(root);
	return 0;
}

static void test_read(void **state)
{
	struct cpu_stat a, b;

	(void)state;
	assert_int_equal(cpustat_read(root, &a), -ENOENT);
	assert_false(a.known);
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	put("cpu  100 10 50 800 20 5 5 10 40 0\ncpu0 50 5 25 400 10 2 3 5 20 0\nintr 1\n");
	assert_int_equal(cpustat_read(root, &a), 0);
	assert_true(a.known);
	assert_int_equal(a.busy, 180);
	assert_int_equal(a.total, 1000);
	put("cpu  1100 10 50 900 20 5 5 10 40 0\n");
	assert_int_equal(cpustat_read(root, &b), 0);
	assert_true(cpustat_busy_pct(&a, &b) > 90.9 && cpustat_busy_pct(&a, &b) < 90.91);
	/* no tick between, or the same read twice: unknown */
	assert_true(cpustat_busy_pct(&b, &b) < 0);
	assert_true(cpustat_busy_pct(&b, &a) < 0);
	/* the four fields of the oldest kernels */
	put("cpu  1 2 3 4\n");
	assert_int_equal(cpustat_read(root, &a), 0);
	assert_int_equal(a.busy, 6);
	assert_int_equal(a.total, 10);
	put("intr 1 2 3\n");
	assert_int_equal(cpustat_read(root, &a), -EPROTO);
	assert_false(a.known);
	put("");
	assert_int_equal(cpustat_read(root, &a), -EPROTO);
	a.known = false;
	assert_true(cpustat_busy_pct(&a, &b) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
