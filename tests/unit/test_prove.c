// SPDX-License-Identifier: GPL-2.0
/*
 * Transports as the programs read them, against sunrpc's sysfs in a tree made here: the right
 * layout is proven (and not read again), a wrong max_reqs or class is refused naming the field
 * on the second look running (one look may meet an id reused after its transport left sysfs,
 * before the programs saw it destroyed), an id the kernel does not publish, or publishes for
 * another server, is refused on the second look while nothing was proven (a transport just
 * made joins sysfs a moment after), and an unreadable xprt_info (a disconnected transport)
 * decides nothing. A kernel without the files proves and refuses nothing, and says so. A TCP
 * transport's level past the requests the kernel holds for it (num_reqs) twice running is refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "engine/prove.h"

static char root[64];

static void put_xprt(unsigned int sw, unsigned int id, const char *proto, const char *info)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel/sunrpc/xprt-switches/switch-%u/xprt-%u-%s && "
		 "echo 10.0.0.1 >%s/sys/kernel/sunrpc/xprt-switches/switch-%u/xprt-%u-%s/dstaddr",
		 root, sw, id, proto, root, sw, id, proto);
	assert_int_equal(system(path), 0);

	if (!info)
		return;
	snprintf(path, sizeof(path), "%s/sys/kernel/sunrpc/xprt-switches/switch-%u/xprt-%u-%s/xprt_info",
		 root, sw, id, proto);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(info, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-prove-XXXXXX");
	assert_non_null(mkdtemp(root));
	put_xprt(0, 3, "tcp", "last_used=1\nmax_num_slots=128\nmin_num_slots=2\nnum_reqs=9\n");
	put_xprt(0, 4, "rdma", "max_num_slots=32\nmin_num_slots=32\n");
	/* disconnected: the file reads -ENOTCONN */
	put_xprt(1, 5, "tcp", NULL);
	/* rpcbind's AF_UNIX transport (XPRT_TRANSPORT_LOCAL) */
	put_xprt(2, 6, "local", "max_num_slots=16\nmin_num_slots=2\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct xprt_snap xp(__u64 key, __u32 id, __u32 ident, __u32 max, __u32 min)
{
	struct xprt_snap x = { .key = key };

	x.s.id = id;
	x.s.ident = ident;
	x.s.max_reqs = max;
	x.s.min_reqs = min;
	x.s.first_seen_ns = key * 10;
	snprintf(x.s.addr, sizeof(x.s.addr), "10.0.0.1");
	snprintf(x.s.port, sizeof(x.s.port), "2049");
	return x;
}

static int run(struct proof *p, struct xprt_snap *x, size_t n, char *why)
{
	struct snapshot s = { .xprts = x, .nxprts = n };

	why[0] = '\0';
	return proof_check(p, &s, root, why, 300);
}

static void test_right_layout(void **state)
{
	struct xprt_snap x[] = { xp(1, 3, IDENT_TCP, 128, 2), xp(2, 4, IDENT_RDMA, 32, 32),
				 xp(3, 5, IDENT_TCP, 77, 1), xp(4, 6, 257, 16, 2) };
	struct proof p = { 0 };
	char why[300];

	(void)state;
	assert_int_equal(run(&p, x, 4, why), 0);
	/* the disconnected one is not decided */
	assert_int_equal(p.proven, 3);
	assert_int_equal(run(&p, x, 4, why), 0);
	assert_int_equal(p.proven, 3);
	proof_free(&p);
}

static void test_wrong_field(void **state)
{
	struct xprt_snap max[] = { xp(1, 3, IDENT_TCP, 65536, 2) }, cls[] = { xp(1, 3, IDENT_RDMA, 128, 2) };
	struct proof p = { 0 };
	char why[300];

	(void)state;
	/* one look may meet a reused id: not reported; the second refuses */
	assert_int_equal(run(&p, max, 1, why), 1);
	assert_int_equal(run(&p, max, 1, why), -EPROTO);
	assert_non_null(strstr(why, "max_reqs/min_reqs read 65536/2"));
	assert_non_null(strstr(why, "max_num_slots=128"));
	proof_free(&p);
	assert_int_equal(run(&p, cls, 1, why), 1);
	assert_int_equal(run(&p, cls, 1, why), -EPROTO);
	assert_non_null(strstr(why, "xprt-3-tcp"));
	proof_free(&p);
	/* seen otherwise once, then destroyed (its id reused meanwhile): nothing refused */
	assert_int_equal(run(&p, max, 1, why), 1);
	max[0].s.destroyed_ns = 1;
	assert_int_equal(run(&p, max, 1, why), 0);
	proof_free(&p);
}

static void test_unpublished_id(void **state)
{
	struct xprt_snap garbage[] = { xp(1, 1017165832, 0, 0, 0) }, both[] = { xp(2, 3, IDENT_TCP, 128, 2),
									   xp(1, 99, IDENT_TCP, 16, 2) };
	struct proof p = { 0 };
	char why[300];

	(void)state;
	assert_int_equal(run(&p, garbage, 1, why), 1);
	assert_int_equal(run(&p, garbage, 1, why), -EPROTO);
	assert_non_null(strstr(why, "transport 1017165832"));
	proof_free(&p);
	/* an id the kernel publishes for another server (reused, or read wrong): not found */
	{
		struct xprt_snap other[] = { xp(1, 3, IDENT_TCP, 128, 2) };

		snprintf(other[0].s.addr, sizeof(other[0].s.addr), "10.9.9.9");
		assert_int_equal(run(&p, other, 1, why), 1);
		assert_int_equal(run(&p, other, 1, why), -EPROTO);
		assert_non_null(strstr(why, "no transport of that id and server"));
		proof_free(&p);
	}
	/* another network namespace's transport, once one of ours is proven: not refused */
	assert_int_equal(run(&p, both, 2, why), 0);
	assert_int_equal(run(&p, both, 2, why), 0);
	assert_int_equal(run(&p, both, 2, why), 0);
	proof_free(&p);
}

static void test_no_sysfs(void **state)
{
	struct xprt_snap garbage[] = { xp(1, 1017165832, 0, 0, 0) };
	struct proof p = { 0 };
	struct snapshot s = { .xprts = garbage, .nxprts = 1 };
	char why[300];

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_int_equal(proof_check(&p, &s, "/nonexistent", why, sizeof(why)), 0);
	/* said by the caller, once: nothing here is proven */
	assert_true(p.no_sysfs);
	proof_free(&p);
}

/*
 * The level against num_reqs (9 for transport 3): at most num_reqs + the CPUs (2) + the pending
 * hand-offs; over twice running, with a take between, is refused; an idle transport is not
 * looked at again; RDMA's level (its own pool) is not held to num_reqs
 */
static void test_level_held(void **state)
{
	struct xprt_snap x[] = { xp(1, 3, IDENT_TCP, 128, 2), xp(2, 4, IDENT_RDMA, 32, 32) };
	struct proof p = { .cpus = 2 };
	char why[300];

	(void)state;
	x[0].s.in_use = 11;
	x[0].s.n.acquires = 5;
	x[1].s.in_use = 40;
	x[1].s.n.acquires = 5;
	assert_int_equal(run(&p, x, 2, why), 0);
	/* one over: reported (a level may be caught mid-move), the next look decides */
	x[0].s.in_use = 12;
	x[0].s.n.acquires = 6;
	assert_int_equal(run(&p, x, 2, why), 0);
	/* within again (hand-offs pending count apart): the run starts over */
	x[0].s.handing = 3;
	x[0].s.n.acquires = 7;
	assert_int_equal(run(&p, x, 2, why), 0);
	x[0].s.handing = 0;
	x[0].s.n.acquires = 8;
	assert_int_equal(run(&p, x, 2, why), 0);
	/* idle: not looked at, however often */
	for (int i = 0; i < 3; i++)
		assert_int_equal(run(&p, x, 2, why), 0);
	x[0].s.n.acquires = 9;
	assert_int_equal(run(&p, x, 2, why), -EPROTO);
	assert_non_null(strstr(why, "transport 3: 12 slots counted in use"));
	assert_non_null(strstr(why, "holds 9 requests"));
	proof_free(&p);
}

/* a live transport the kernel leaves out of sysfs look after look (VAST's RDMA) is said, once */
static void test_unpublished(void **state)
{
	struct xprt_snap x[] = { xp(1, 3, IDENT_TCP, 128, 2), xp(2, 41, IDENT_RDMA, 128, 128) };
	struct proof p = { .cpus = 2 };
	char why[300];

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(run(&p, x, 2, why), 0);
		assert_int_equal(p.unpublished[0], 0);
	}
	assert_int_equal(run(&p, x, 2, why), 0);
	assert_non_null(strstr(p.unpublished, "transport 41 (rdma 10.0.0.1:2049) is not in sunrpc's sysfs"));
	proof_free(&p);
}

static __u64 released_since;

/* the map after the sysfs read: @released_since more releases booked than the snapshot's */
static int now_more(void *ctx, const struct xprt_snap *c, struct xprt_stats *out)
{
	(void)ctx;
	*out = c->s;
	out->n.releases += released_since;
	return 0;
}

/* requests freed between the snapshot and the sysfs read (a stalled tick) are no fault */
static void test_level_stalled(void **state)
{
	struct xprt_snap x[] = { xp(1, 3, IDENT_TCP, 128, 2) };
	struct proof p = { .cpus = 2, .now = now_more };
	char why[300];

	(void)state;
	/* 16 in use at the snapshot, 9 left when sysfs was read: 5 freed meanwhile, booked since */
	released_since = 5;
	x[0].s.in_use = 16;
	for (int i = 1; i <= 3; i++) {
		x[0].s.n.acquires = (__u64)i;
		assert_int_equal(run(&p, x, 1, why), 0);
	}
	/* with none booked since, the same is refused on the second look */
	released_since = 0;
	x[0].s.n.acquires = 4;
	assert_int_equal(run(&p, x, 1, why), 0);
	x[0].s.n.acquires = 5;
	assert_int_equal(run(&p, x, 1, why), -EPROTO);
	proof_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_layout),
		cmocka_unit_test(test_wrong_field),
		cmocka_unit_test(test_unpublished_id),
		cmocka_unit_test(test_no_sysfs),
		cmocka_unit_test(test_level_held),
		cmocka_unit_test(test_level_stalled),
		cmocka_unit_test(test_unpublished),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
