// SPDX-License-Identifier: GPL-2.0
/*
 * The textfile's directory follows its path: removed and made anew, writes resume there; moved
 * aside and replaced, nothing more is written into the moved one and a second writer in the new
 * one keeps the first out; gone, a write fails and says so. A lock file another user left is told
 * apart from the directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "lib/outfile.h"

static char root[64], dir[128], path[192];

static int put(FILE *f, const void *arg)
{
	fputs(arg, f);
	return 0;
}

static char *slurp(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-outfile-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/textfile", root);
	snprintf(path, sizeof(path), "%s/slotscope.prom", dir);
	return mkdir(dir, 0755);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_recreated(void **state)
{
	struct outfile o;
	char cmd[256];

	(void)state;
	assert_int_equal(outfile_open(&o, path, true), 0);
	assert_int_equal(outfile_write(&o, put, "one\n"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(outfile_write(&o, put, "two\n"), -ENOENT);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(outfile_write(&o, put, "three\n"), 0);
	assert_string_equal(slurp(path), "three\n");
	outfile_close(&o);
}

static void test_moved_aside(void **state)
{
	struct outfile a, b;
	char old[160], oldfile[224];

	(void)state;
	snprintf(old, sizeof(old), "%s.old", dir);
	snprintf(oldfile, sizeof(oldfile), "%s/slotscope.prom", old);
	assert_int_equal(outfile_open(&a, path, true), 0);
	assert_int_equal(outfile_write(&a, put, "a1\n"), 0);
	assert_int_equal(rename(dir, old), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	/* the path's new directory: the write lands there, the moved one keeps what it had */
	assert_int_equal(outfile_write(&a, put, "a2\n"), 0);
	assert_string_equal(slurp(path), "a2\n");
	assert_string_equal(slurp(oldfile), "a1\n");
	/* moved again, and a second writer takes the new directory first: the first stays out */
	snprintf(old, sizeof(old), "%s.old2", dir);
	assert_int_equal(rename(dir, old), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(outfile_open(&b, path, true), 0);
	assert_int_equal(outfile_write(&b, put, "b1\n"), 0);
	assert_int_equal(outfile_write(&a, put, "a3\n"), -EBUSY);
	assert_int_equal(a.lock_pid, getpid());
	assert_string_equal(slurp(path), "b1\n");
	outfile_close(&b);
	/* the second gone, the first takes its place back */
	assert_int_equal(outfile_write(&a, put, "a4\n"), 0);
	assert_string_equal(slurp(path), "a4\n");
	outfile_close(&a);
}

/* a lock file root left, which another user cannot open: told apart from the directory */
static void test_foreign_lock(void **state)
{
	char lock[224];
	pid_t pid;
	int fd, status;

	(void)state;
	if (getuid() != 0)
		skip();
	snprintf(lock, sizeof(lock), "%s/.slotscope.prom.lock", dir);
	fd = open(lock, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(root, 0755), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	pid = fork();
	if (pid == 0) {
		struct outfile o;
		int err;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		err = outfile_open(&o, path, true);
		_exit(err == -EACCES && o.lock_failed ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recreated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_lock, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
