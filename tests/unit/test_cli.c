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

#ifndef SLOTSCOPE_BIN
#define SLOTSCOPE_BIN "build/slotscope"
#endif

/* run slotscope as @uid (-1: as we are); return its exit status, stderr in @err */
static int run(int uid, char *err, size_t len, const char *a1, const char *a2)
{
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		if (uid >= 0 && (setgid((gid_t)uid) || setuid((uid_t)uid)))
			_exit(125);
		execl(SLOTSCOPE_BIN, "slotscope", a1, a2, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	/* stderr is unbuffered: the line may come in several writes */
	size_t got = 0;

	while (got < len - 1 && (n = read(pipefd[0], err + got, len - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
