// SPDX-License-Identifier: GPL-2.0
/*
 * Which transports serve a mount: mount_xprt_of() and mount_xprt_match() (mounts.h), the one rule
 * behind --mount's filter and the textfile's mount labels, and the filter as model_build() applies
 * it. IPv4, IPv6 (proto=tcp6: once compared verbatim with "tcp", so an IPv6 mount kept no
 * transport), nconnect's several transports to one server, and mounts that share transports.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "modelfix.h"

static struct nfs_mount mnt(const char *source, const char *opts)
{
	return (struct nfs_mount){ .mountpoint = "/mnt/x", .fstype = "nfs", .source = (char *)source,
				   .opts = (char *)opts };
}

static void test_mount_xprt_of(void **state)
{
	struct nfs_mount m;
	struct mount_xprt mx;

	(void)state;
	m = mnt("10.0.0.1:/export", "rw,vers=3,proto=tcp,nconnect=4,addr=10.0.0.1");
	assert_int_equal(mount_xprt_of(&m, &mx), 0);
	assert_string_equal(mx.addr, "10.0.0.1");
	assert_string_equal(mx.proto, "tcp");
	m = mnt("[fd00::1]:/export", "rw,vers=3,proto=tcp6,addr=fd00::1");
	assert_int_equal(mount_xprt_of(&m, &mx), 0);
	assert_string_equal(mx.addr, "fd00::1");
	assert_string_equal(mx.proto, "tcp");
	m = mnt("[fd00::2]:/export", "rw,vers=4.1,proto=rdma6,port=20049,addr=fd00::2");
	assert_int_equal(mount_xprt_of(&m, &mx), 0);
	assert_string_equal(mx.proto, "rdma");
	/* no addr= (an old kernel's options): the source's host; no proto=: any */
	m = mnt("[fd00::3]:/export", "rw,vers=3");
	assert_int_equal(mount_xprt_of(&m, &mx), 0);
	assert_string_equal(mx.addr, "fd00::3");
	assert_string_equal(mx.proto, "");
	assert_true(mount_xprt_match(&mx, "fd00::3", "rdma"));
	m = mnt("nowhere", "rw");
	assert_int_equal(mount_xprt_of(&m, &mx), -ENOENT);
}

static void test_mount_xprt_match(void **state)
{
	struct mount_xprt v4 = { "10.0.0.1", "tcp" }, v6 = { "fd00::1", "tcp" };

	(void)state;
	assert_true(mount_xprt_match(&v4, "10.0.0.1", "tcp"));
	assert_false(mount_xprt_match(&v4, "10.0.0.1", "rdma"));
	assert_false(mount_xprt_match(&v4, "10.0.0.10", "tcp"));
	assert_true(mount_xprt_match(&v6, "fd00::1", "tcp"));
	assert_false(mount_xprt_match(&v6, "fd00::10", "tcp"));
}

/* the transports model_build() keeps under @nf filters, as ids in view order */
static void kept(const struct snapfix *a, const struct snapfix *b, const struct mount_xprt *f, size_t nf,
		 char *out, size_t len)
{
	struct model_in in = { .span = SPAN_INTERVAL, .from = &a->s, .to = &b->s, .nfilters = nf,
			       .filters = f, .tun = { .tcp_max_slots = 16, .rdma_slots = 128 } };
	struct model_out m;
	size_t o = 0;

	assert_int_equal(model_build(&in, &m), 0);
	out[0] = 0;
	for (size_t i = 0; i < m.view.nxprts && o + 4 < len; i++)
		o += snprintf(out + o, len - o, "%s%u", i ? "," : "", m.view.xprts[i].id);
	model_out_free(&m);
}

/* two snapshots of one node: nconnect=2 to 10.0.0.1, RDMA to it too, IPv6 TCP, another server */
static void node(struct snapfix *a, struct snapfix *b)
{
	for (int k = 0; k < 2; k++) {
		struct snapfix *f = k ? b : a;

		fx_init(f, k ? 2000000000ull : 1000000000ull);
		fx_xprt(f, 0x1000, 1, IDENT_TCP, "10.0.0.1", 16);
		fx_xprt(f, 0x2000, 2, IDENT_TCP, "10.0.0.1", 16);
		fx_xprt(f, 0x3000, 3, IDENT_RDMA, "10.0.0.1", 128);
		fx_xprt(f, 0x4000, 4, IDENT_TCP, "fd00::1", 16);
		fx_xprt(f, 0x5000, 5, IDENT_TCP, "10.0.0.2", 16);
		fx_op(f, 0x4000, 7, 7, "WRITE", 10 * k, 1000, 900);
	}
}

static void test_model_filter(void **state)
{
	struct snapfix a, b;
	struct mount_xprt f[2];
	struct nfs_mount m;
	char ids[64];

	(void)state;
	node(&a, &b);
	kept(&a, &b, NULL, 0, ids, sizeof(ids));
	assert_string_equal(ids, "1,2,3,4,5");
	/* nconnect: both TCP transports to the server, not its RDMA one, not another server's */
	m = mnt("10.0.0.1:/export", "rw,vers=3,proto=tcp,nconnect=2,addr=10.0.0.1");
	assert_int_equal(mount_xprt_of(&m, &f[0]), 0);
	kept(&a, &b, f, 1, ids, sizeof(ids));
	assert_string_equal(ids, "1,2");
	/* IPv6: proto=tcp6 is a TCP transport */
	m = mnt("[fd00::1]:/export", "rw,vers=3,proto=tcp6,addr=fd00::1");
	assert_int_equal(mount_xprt_of(&m, &f[0]), 0);
	kept(&a, &b, f, 1, ids, sizeof(ids));
	assert_string_equal(ids, "4");
	/* two mounts sharing the server's RDMA transport, and one more: each transport once */
	m = mnt("10.0.0.1:/a", "rw,vers=3,proto=rdma,port=20049,addr=10.0.0.1");
	assert_int_equal(mount_xprt_of(&m, &f[0]), 0);
	m = mnt("10.0.0.1:/b", "rw,vers=3,proto=rdma,port=20049,addr=10.0.0.1");
	assert_int_equal(mount_xprt_of(&m, &f[1]), 0);
	kept(&a, &b, f, 2, ids, sizeof(ids));
	assert_string_equal(ids, "3");
	m = mnt("10.0.0.2:/c", "rw,vers=3,proto=tcp,addr=10.0.0.2");
	assert_int_equal(mount_xprt_of(&m, &f[1]), 0);
	kept(&a, &b, f, 2, ids, sizeof(ids));
	assert_string_equal(ids, "3,5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_xprt_of),
		cmocka_unit_test(test_mount_xprt_match),
		cmocka_unit_test(test_model_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
