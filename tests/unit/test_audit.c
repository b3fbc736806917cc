// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "host/audit.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif
#define ROOT FIXTURES "/audit"

static const struct audit_mount *am(const struct audit *a, const char *mnt)
{
	for (size_t i = 0; i < a->nm; i++)
		if (!strcmp(a->m[i].m->mountpoint, mnt))
			return &a->m[i];
	return NULL;
}

static bool warned(const struct audit *a, const char *needle)
{
	for (size_t i = 0; i < a->nwarn; i++)
		if (strstr(a->warn[i], needle))
			return true;
	return false;
}

static void test_options(void **state)
{
	char v[32];

	(void)state;
	assert_true(mount_option("rw,vers=4.1,rsize=1048576,nconnect=2", "vers", v, sizeof(v)));
	assert_string_equal(v, "4.1");
	assert_true(mount_option("rw,vers=4.1,rsize=1048576,nconnect=2", "nconnect", v, sizeof(v)));
	assert_string_equal(v, "2");
	assert_false(mount_option("rw,vers=4.1", "rsize", v, sizeof(v)));
	/* a key that is a prefix of another does not match it */
	assert_false(mount_option("rw,mountvers=3", "vers", v, sizeof(v)));
	assert_true(mount_option("rw,hard", "hard", v, sizeof(v)));
}

static void test_audit(void **state)
{
	struct mount_table mt;
	struct audit a;
	const struct audit_mount *m;

	(void)state;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = ROOT, .pid = "self" }, &mt), 0);
	assert_int_equal(audit_load(&a, ROOT, &(struct mount_src){ .procfs_root = ROOT, .pid = "self" }, &mt), 0);
	assert_true(a.have_sysfs);
	assert_int_equal(a.nx, 5);
	assert_int_equal(a.tcp_max_slots, 65536);
	assert_int_equal(a.rdma_slots, 64);
	assert_int_equal(a.max_session_slots, 64);
	/* v3 over TCP: its own transport, 16 slots, by source port */
	m = am(&a, "/mnt/a");
	assert_int_equal(m->xprts, 1);
	assert_int_equal(m->max_slots, 16);
	assert_int_equal(m->wsize, 262144);
	/* v4.1 with nconnect=2 to the same server: the other switch, both transports */
	m = am(&a, "/mnt/b");
	assert_string_equal(m->vers, "4.1");
	assert_int_equal(m->xprts, 2);
	assert_int_equal(m->max_slots, 65536);
	assert_int_equal(m->nconnect, 2);
	/* RDMA: created with 128, sysctl now 64: needs a remount */
	m = am(&a, "/mnt/r");
	assert_int_equal(m->max_slots, 128);
	assert_true(warned(&a, "/mnt/r: transport has 128 slots but rdma_slot_table_entries is now 64"));
	/* nconnect=2 over RDMA but one transport */
	assert_true(warned(&a, "/mnt/r: nconnect=2 but 1 transport"));
	/* TCP created with 128, sysctl now 65536 */
	assert_true(warned(&a, "/mnt/c: transport has 128 slots but tcp_max_slot_table_entries is now 65536"));
	/* /mnt/a: 16 against 65536 too; v4.1 is never told about the TCP sysctl */
	assert_true(warned(&a, "/mnt/a:"));
	assert_false(warned(&a, "/mnt/b"));
	audit_free(&a);
	mounts_free(&mt);
}

/*
 * VAST NFS: the stack named by its sunrpc's nfs_bundle_version, nconnect's ceiling 64, and a
 * remoteports= mount's transports found over every address of its range (and no other
 * server's, whatever its source port): four of nconnect=4 over its two addresses, no warning
 */
static void test_vastnfs(void **state)
{
	const char *root = FIXTURES "/audit-vast";
	struct mount_src src = { .procfs_root = root, .pid = "self" };
	struct mount_table mt;
	struct audit a;
	const struct audit_mount *m;

	(void)state;
	assert_int_equal(mounts_load(&src, &mt), 0);
	assert_int_equal(audit_load(&a, root, &src, &mt), 0);
	assert_string_equal(a.stack, "vastnfs");
	assert_string_equal(a.stack_version, "4.0.33");
	assert_int_equal(a.nconnect_max, 64);
	m = am(&a, "/mnt/v");
	assert_int_equal(m->nconnect, 4);
	assert_int_equal(m->xprts, 4);
	assert_int_equal(m->naddrs, 2);
	assert_string_equal(m->remoteports, "10.0.0.1-10.0.0.2");
	assert_string_equal(m->localports, "");
	assert_int_equal(m->max_slots, 128);
	assert_false(warned(&a, "nconnect"));
	audit_free(&a);
	mounts_free(&mt);
	/* the kernel's own stack */
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = ROOT, .pid = "self" }, &mt), 0);
	assert_int_equal(audit_load(&a, ROOT, &(struct mount_src){ .procfs_root = ROOT, .pid = "self" }, &mt), 0);
	assert_string_equal(a.stack, "kernel");
	assert_int_equal(a.nconnect_max, 16);
	audit_free(&a);
	mounts_free(&mt);
}

static void test_no_sysfs(void **state)
{
	struct mount_table mt = { 0 };
	struct audit a;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(audit_load(&a, FIXTURES "/nonexistent", &(struct mount_src){ .procfs_root = FIXTURES "/nonexistent", .pid = "self" }, &mt), 0);
	assert_false(a.have_sysfs);
	assert_int_equal(a.tcp_max_slots, -1);
	audit_print(f, &a);
	fclose(f);
	assert_non_null(strstr(buf, "no NFS mounts"));
	free(buf);
	audit_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_audit),
		cmocka_unit_test(test_vastnfs),
		cmocka_unit_test(test_no_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
