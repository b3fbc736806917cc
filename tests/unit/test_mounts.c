// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mount.h>
#include <cmocka.h>
#include "host/mounts.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

static void test_fixture(void **state)
{
	struct mount_table t;
	const struct nfs_mount *m;

	(void)state;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &t), 0);
	assert_int_equal(t.n, 3);	/* tmpfs and proc are not NFS */
	m = mounts_by_path(&t, "/mnt/a");
	assert_non_null(m);
	assert_string_equal(m->fstype, "nfs");
	assert_string_equal(m->source, "127.0.0.11:/export");
	assert_int_equal(m->major, 0);
	assert_int_equal(m->minor, 32);
	/* octal escapes are undone; optional fields before "-" are skipped */
	m = mounts_by_path(&t, "/mnt/with space");
	assert_non_null(m);
	assert_string_equal(m->fstype, "nfs4");
	/* a kernel dev_t (major << 20 | minor), as the BPF side reads it from the superblock */
	assert_ptr_equal(mounts_by_kdev(&t, 33), m);
	assert_ptr_equal(mounts_by_kdev(&t, (259u << 20) | 1048575u), mounts_by_path(&t, "/mnt/big"));
	assert_null(mounts_by_kdev(&t, 34));
	mounts_free(&t);
}

static void test_malformed(void **state)
{
	static const char bad[] = "37 1 0:32 / /mnt/a rw,relatime nfs 127.0.0.11:/export rw\n";
	struct mount_table t;
	FILE *f = fmemopen((void *)bad, sizeof(bad) - 1, "r");

	(void)state;
	assert_int_equal(mounts_parse(f, &t), -22);
	assert_int_equal(t.n, 0);
	fclose(f);
}

static void test_missing_root(void **state)
{
	struct mount_table t;

	(void)state;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = "/nonexistent-root", .pid = "self" }, &t), -2);
}

/* --mounts-of 1: a container reading the host's mount table through the host's /proc */
static void test_mounts_of_pid(void **state)
{
	struct mount_table t;
	char fstype[16];

	(void)state;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "1" }, &t), 0);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.m[0].mountpoint, "/scratch/ckpt");
	assert_int_equal(mounts_fstype(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "1" }, "/scratch/ckpt", fstype, sizeof(fstype)), 0);
	assert_string_equal(fstype, "nfs");
	mounts_free(&t);
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &t), 0);
	assert_true(t.n > 1);
	mounts_free(&t);
}

/*
 * A fixture's plain file is read every tick; procfs's kept mountinfo only after a mount or an
 * unmount, each seen once. The mount is made in a mount namespace of the test's own (root only).
 */
static void test_changed(void **state)
{
	struct mount_src fx = { .procfs_root = FIXTURES, .pid = "self" };
	struct mount_src src = { .procfs_root = "/", .pid = "self" };
	char dir[] = "/tmp/test_mounts.XXXXXX";

	(void)state;
	assert_int_equal(mounts_keep_open(&fx), 0);
	assert_true(mounts_changed(&fx));
	assert_true(mounts_changed(&fx));
	mounts_close(&fx);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mounts_keep_open(&src), 0);
	assert_false(mounts_changed(&src));
	assert_int_equal(mount("none", dir, "tmpfs", 0, NULL), 0);
	assert_true(mounts_changed(&src));
	assert_false(mounts_changed(&src));
	assert_int_equal(umount(dir), 0);
	assert_true(mounts_changed(&src));
	assert_false(mounts_changed(&src));
	mounts_close(&src);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_missing_root),
		cmocka_unit_test(test_mounts_of_pid),
		cmocka_unit_test(test_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
