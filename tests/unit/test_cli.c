// SPDX-License-Identifier: GPL-2.0
/* The binary's exit codes and one-line errors on this host (no VM needed). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "runbin.h"

/* run slotscope as @uid (-1: as we are) with up to two arguments */
static int run(int uid, char *err, size_t len, const char *a1, const char *a2)
{
	const char *const argv[] = { "slotscope", a1, a2, NULL };

	return run_slotscope(uid, err, len, argv);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_usage(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run(-1, err, sizeof(err), "--duration=-5", NULL), 64);
	assert_non_null(strstr(err, "invalid --duration '-5'"));
	assert_int_equal(run(-1, err, sizeof(err), "2", "x"), 64);
	assert_non_null(strstr(err, "invalid COUNT 'x'"));
	assert_int_equal(run(-1, err, sizeof(err), "--prom-max-series=1.5", NULL), 64);
	assert_non_null(strstr(err, "invalid --prom-max-series '1.5'"));
	assert_int_equal(run(-1, err, sizeof(err), "--prom-max-series=-1", NULL), 64);
	assert_int_equal(run(-1, err, sizeof(err), "--ckpt-threshold", "fast"), 64);
	assert_int_equal(run(-1, err, sizeof(err), "--bogus", NULL), 64);
	assert_int_equal(run(-1, err, sizeof(err), "--version", NULL), 0);
}

static void test_not_root(void **state)
{
	char err[4096];

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(run(65534, err, sizeof(err), "-d", "1"), 77);
	assert_non_null(strstr(err, "missing CAP_BPF: "));
	assert_int_equal(lines(err), 1);
}

/* this host's kernel has BPF and BTF but no sunrpc */
static void test_no_sunrpc(void **state)
{
	char err[4096];

	(void)state;
	if (geteuid() != 0 || access("/sys/kernel/btf/sunrpc", F_OK) == 0)
		skip();
	assert_int_equal(run(-1, err, sizeof(err), "-d", "1"), 77);
	assert_non_null(strstr(err, "sunrpc is not loaded"));
	assert_int_equal(lines(err), 1);
}

/* --mount is checked before anything is loaded: a usage error, even where BPF could not load */
static void test_mount_checked_first(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run(-1, err, sizeof(err), "--mount=/no/such/mount", NULL), 64);
	assert_non_null(strstr(err, "--mount /no/such/mount: not a mount point"));
	assert_int_equal(lines(err), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_no_sunrpc),
		cmocka_unit_test(test_mount_checked_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
