// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA/UDP credits against the grant in force (#46): bpf/credit.bpf.h's handler driven on the
 * host over a replay of xprt_get_cong/xprt_put_cong with the kernel's cong and cwnd as they
 * stand at each, and credit_view() over the levels it leaves. The time at the limit is checked
 * against a count made here from the same replay by hand; the VM test session_limit's RDMA
 * sibling (rdma_credits) checks it against bpftrace on a real server.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <sys/cdefs.h>
#include <linux/types.h>
#include <cmocka.h>
#include "account.h"
#include "model/model.h"

/* what the handler needs of its program's world: the fields it reads, a clock, one entry */
struct rpc_xprt {
	unsigned long cong, cwnd;
};
#define RPC_CWNDSHIFT		8
#define FN(n)			n
#define RD(s, f)		((s)->f)
#define ARMED_OR_RETURN()	do { } while (0)
static __u32 credit_levels = 1;
static struct xprt_stats entry;
static __u64 clock_ns;

static struct xprt_stats *find_xprt(struct rpc_xprt *x)
{
	return x ? &entry : NULL;
}

static __u64 bpf_ktime_get_ns(void)
{
	return clock_ns;
}

#include "credit.bpf.h"

/* the view of the levels as user space closes them at @now, from @o's (NULL: attach) */
static struct credit_view view_at(const struct credit_levels *o, __u64 now)
{
	struct credit_levels c = entry.credit;
	struct credit_view v;

	assert_true(levels_whole(c.level_ns, false));
	levels_close(c.level_ns, now);
	credit_view(&v, &c, o);
	return v;
}

static void at(__u64 t)
{
	clock_ns = t;
}

/*
 * A grant of 4, taken at 100, 200, 200, 300 (the fifth, at 400, finds the window full and takes
 * none); the grant drops to 1 with the 4 still held (a reply granting 0, which the client floors
 * to 1; seen at 500), then comes back as the server's 2; given back at 800, 900, 950, 1000. At the limit: [300, 950) (4 of 4, 4 of
 * 1, 3 then 2 of 2); busy [100, 1000).
 */
static void test_grant_in_force(void **state)
{
	static const __u64 takes[] = { 100, 200, 200, 300 };
	struct rpc_xprt k = { .cwnd = 4 << 8 };
	struct credit_view v;

	(void)state;
	memset(&entry, 0, sizeof(entry));
	for (int i = 0; i < 4; i++) {
		at(takes[i]);
		handle_get_cong(&k);
		k.cong += 1 << 8;
	}
	assert_int_equal(entry.credit.level, 4);
	at(400);
	handle_get_cong(&k);	/* full: no credit taken, the level stays */
	assert_int_equal(entry.credit.level, 4);
	/* the grant floored to one credit, seen at the next event */
	k.cwnd = 1 << 8;
	at(500);
	handle_get_cong(&k);
	assert_int_equal(entry.credit.limit, 1);
	k.cwnd = 2 << 8;
	at(800);
	k.cong -= 1 << 8;
	handle_put_cong(&k);
	at(900);
	k.cong -= 1 << 8;
	handle_put_cong(&k);
	at(950);
	k.cong -= 1 << 8;
	handle_put_cong(&k);
	at(1000);
	k.cong -= 1 << 8;
	handle_put_cong(&k);
	v = view_at(NULL, 1200);
	assert_true(v.known);
	assert_int_equal(v.limit, 2);
	assert_int_equal(v.limit_min, 1);
	assert_int_equal(v.limit_max, 4);
	assert_int_equal(v.limit_changes, 2);
	assert_int_equal(v.peak, 4);
	assert_int_equal(v.level, 0);
	assert_int_equal(v.busy_ns, 900);
	assert_int_equal(v.at_limit_ns, 650);
}

/* UDP's window moves by fractions of a credit: a request goes while cong < cwnd, so 1.5 allows 2 */
static void test_fractional_window(void **state)
{
	struct rpc_xprt k = { .cwnd = 384 };

	(void)state;
	memset(&entry, 0, sizeof(entry));
	at(10);
	handle_get_cong(&k);
	k.cong = 256;
	assert_int_equal(entry.credit.limit, 2);
	assert_int_equal(entry.credit.level, 1);
	at(20);
	handle_get_cong(&k);
	k.cong = 512;
	assert_int_equal(entry.credit.level, 2);
	at(30);
	handle_get_cong(&k);	/* 512 >= 384: full */
	assert_int_equal(entry.credit.level, 2);
	assert_int_equal(entry.credit.bucket, LEVEL_BUCKETS - 1);
}

/* one hook alone would drift: nothing is counted until user space says both are on */
static void test_off_without_both(void **state)
{
	struct rpc_xprt k = { .cwnd = 4 << 8 };
	struct credit_view v;

	(void)state;
	memset(&entry, 0, sizeof(entry));
	credit_levels = 0;
	handle_get_cong(&k);
	credit_levels = 1;
	assert_int_equal(entry.credit.limit, 0);
	credit_view(&v, &entry.credit, NULL);
	assert_false(v.known);
}

/* an interval's share, and none where its start was read torn (bucket LEVEL_BUCKETS) */
static void test_interval_and_torn(void **state)
{
	struct credit_levels o = { .limit = 8, .bucket = 2, .limit_changes = 1 };
	struct credit_levels c = { .limit = 8, .bucket = 3, .limit_changes = 4 };
	struct credit_view v;

	(void)state;
	o.level_ns[0] = 100, o.level_ns[2] = 50, o.level_ns[LEVEL_BUCKETS - 1] = 10;
	c.level_ns[0] = 150, c.level_ns[2] = 90, c.level_ns[LEVEL_BUCKETS - 1] = 70;
	credit_view(&v, &c, &o);
	assert_true(v.known);
	assert_int_equal(v.busy_ns, 100);
	assert_int_equal(v.at_limit_ns, 60);
	assert_int_equal(v.limit_changes, 3);
	o.bucket = LEVEL_BUCKETS;
	credit_view(&v, &c, &o);
	assert_false(v.known);
	/* before the first credit moved the start had no stamps: counted from nothing */
	memset(&o, 0, sizeof(o));
	credit_view(&v, &c, &o);
	assert_true(v.known);
	assert_int_equal(v.busy_ns, 160);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grant_in_force),
		cmocka_unit_test(test_fractional_window),
		cmocka_unit_test(test_off_without_both),
		cmocka_unit_test(test_interval_and_torn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
