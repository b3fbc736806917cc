// SPDX-License-Identifier: GPL-2.0
/*
 * The slot accounting the BPF programs run (bpf/account.h), driven on the host: occupancy and
 * time per level, handoffs, releases of slots taken before attach, interval peaks across epoch
 * rollover, a transport's teardown and the reuse of its entry, and the RDMA pool raised from use.
 * The VM tests then confirm against the kernel what these establish.
 */
#include <pthread.h>
#include "accfix.h"

/* time goes to the level occupancy was at; the levels add up to the time covered */
static void test_levels(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	account_acquire(x, ACQ_NEW, false, 0, 10, 1);
	account_acquire(x, ACQ_NEW, false, 0, 20, 1);
	account_release(x, true, 0, 50, 1);
	account_release(x, true, 0, 60, 1);
	assert_int_equal(x->in_use, 0);
	assert_int_equal(x->peak, 2);
	assert_int_equal(x->n.acquires, 2);
	assert_int_equal(x->n.releases, 2);
	assert_int_equal(lvl(x, 0, 60), 10);
	assert_int_equal(lvl(x, 1, 60), 10 + 10);
	assert_int_equal(lvl(x, 2, 60), 30);
	assert_int_equal(level_sum(x, 60), 60);
	/* read later, the open stretch (level 0 since 60) grows to the read */
	assert_int_equal(lvl(x, 0, 100), 10 + 40);
	assert_int_equal(level_sum(x, 100), 100);
	free(x);
}

/*
 * A release seen while a task waits on the backlog is followed, later, by xprt_free_slot()
 * handing the request to that task: the table never looks less than full in between.
 */
static void test_handoff(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 2, 0, 0);

	(void)state;
	account_acquire(x, ACQ_NEW, false, 0, 0, 1);
	account_acquire(x, ACQ_NEW, false, 0, 0, 1);		/* full from t=0 */
	account_release(x, true, 1, 100, 1);		/* rpc_stats_latency, one task backlogged ... */
	assert_int_equal(x->in_use, 2);
	assert_int_equal(x->handing, 1);
	account_acquire(x, ACQ_NEW, true, 0, 130, 1);		/* ... __xprt_set_rq hands the request on */
	account_acquire(x, ACQ_KNOWN, false, 0, 150, 1);	/* the woken task's own xprt_reserve: counted */
	account_release(x, true, 0, 300, 1);
	account_release(x, true, 0, 300, 1);
	assert_int_equal(x->n.handoffs, 1);
	assert_int_equal(x->n.acquires, 3);
	assert_int_equal(x->n.releases, 3);
	assert_int_equal(x->handing, 0);
	assert_int_equal(x->peak, 2);
	assert_int_equal(x->in_use, 0);
	assert_int_equal(lvl(x, LEVEL_BUCKETS - 1, 300), 300);
	assert_int_equal(level_sum(x, 300), 300);
	free(x);
}

/*
 * --max-inflight N splits into the array and the hash: N in all, the array a power of two no
 * larger than half of N or MAX_MARKS, and off below 4.
 */
static void test_inflight_split(void **state)
{
	static const struct { __u32 n, marks, hashed; } cases[] = {
		{ MAX_INFLIGHT, MAX_MARKS, MAX_INFLIGHT - MAX_MARKS },
		{ 4194304, MAX_MARKS, 4194304 - MAX_MARKS },
		{ 8192, 4096, 4096 }, { 8191, 2048, 6143 }, { 100, 32, 68 },
		{ 4, 2, 2 }, { 3, 0, 3 }, { 1, 0, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u32 m, h;

		inflight_split(cases[i].n, &m, &h);
		assert_int_equal(m, cases[i].marks);
		assert_int_equal(h, cases[i].hashed);
		assert_int_equal(m + h, cases[i].n);
	}
}

/*
 * A change whose clock was read before the change it follows (another CPU, or a vCPU descheduled
 * between its clock read and its change, as on a loaded host): its time is off by that lateness
 * and no more, and the levels still add up to the time covered.
 */
static void test_late_clock(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 100);

	(void)state;
	account_acquire(x, ACQ_NEW, false, 0, 100, 1);	/* 0 -> 1 */
	account_acquire(x, ACQ_NEW, false, 0, 150, 1);	/* 1 -> 2 */
	account_release(x, true, 0, 120, 1);		/* 2 -> 1, its clock read at 120 */
	account_acquire(x, ACQ_NEW, false, 0, 200, 1);	/* 1 -> 2 */
	account_release(x, true, 0, 260, 1);		/* 2 -> 1 */
	assert_int_equal(x->in_use, 1);
	/* at 1: 100..150 and 120..200 and from 260; at 2: 150..120 (-30) and 200..260 */
	assert_int_equal(lvl(x, 1, 300), 50 + 80 + 40);
	assert_int_equal(lvl(x, 2, 300), 60 - 30);
	assert_int_equal(level_sum(x, 300), 300 - 100);
	free(x);
}

/*
 * CPUs racing, each change stamped by its own clock read just before it, as the handlers do: a
 * table held at 8 through a long quiet stretch, then threads giving back and taking slots around
 * it. The quiet stretch is level 8's whichever change ends it (a chain of stamps could give it
 * to the level a racing change saw), levels never visited keep their time, and all add up.
 */
static __u64 race_clock;
static int race_iters;
static pthread_barrier_t race_start;

static void *racer(void *arg)
{
	struct xprt_stats *x = arg;

	pthread_barrier_wait(&race_start);
	for (int i = 0; i < race_iters; i++) {
		account_release(x, true, 0, __sync_add_and_fetch(&race_clock, 1), 1);
		account_acquire(x, ACQ_NEW, false, 0, __sync_add_and_fetch(&race_clock, 1), 1);
	}
	return NULL;
}

/* the table at 8 since a quiet stretch, then 4 threads x @iters changes; the time at the end */
static __u64 race(struct xprt_stats *x, int iters)
{
	pthread_t th[4];

	for (int i = 1; i <= 8; i++)
		account_acquire(x, ACQ_NEW, false, 0, i, 1);
	race_clock = 8 + 1000000;
	race_iters = iters;
	assert_int_equal(pthread_barrier_init(&race_start, NULL, 4), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, racer, x), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&race_start);
	assert_int_equal(x->in_use, 8);
	return race_clock + 1;
}

static void test_racing_changes(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);
	__u64 end;

	(void)state;
	/*
	 * The stretch's end raced by one release and one take a thread: whichever lands first, the
	 * stretch is level 8's. A change whose stamp is older than one landed before it moves that
	 * skew between two buckets, and here the clock moves by 8 in all: 8 changes, 8 each at most.
	 */
	end = race(x, 1);
	assert_int_equal(level_sum_raw(x, end), (__s64)end);
	assert_true(lvl(x, 8, end) >= 1000001 - 8 * 8);
	for (int b = 0; b < 4; b++)
		assert_int_equal(lvl(x, b, end), 1);
	free(x);
	/*
	 * 800,000 changes racing. Exact before the clamp; per bucket only up to the skews: a thread
	 * preempted between its clock read and its change (4 threads on fewer CPUs, a loaded host,
	 * ASan) lands a stamp hundreds of thousands old, so level 8 is not asserted here, and a
	 * rarely visited level's bucket can go below 0, which counts as 0 (test_late_clock): the sum
	 * is then that much over, never under.
	 */
	x = new_xprt(IDENT_TCP, 16, 0, 0);
	end = race(x, 200000);
	assert_int_equal(level_sum_raw(x, end), (__s64)end);
	assert_true(level_sum(x, end) >= end);
	for (int b = 0; b < 4; b++)
		assert_int_equal(lvl(x, b, end), 1);
	for (int b = 9; b < LEVEL_BUCKETS; b++)
		assert_int_equal(lvl(x, b, end), 0);
	free(x);
}

/*
 * Two CPUs: A's fetch-and-add made (1 -> 2 at 20), its adds not landed yet; B's change (2 -> 3
 * at 30) whole. A copy read then is torn (level 2's bucket closed but never opened: ~+2^62) and
 * must be read again; once A's adds land, it is whole and right. A half-landed change (the close
 * in, the open not) leaves no bucket open: torn too. Teardown: whole with none open.
 */
static void test_torn_copy(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);
	__u64 l[LEVEL_BUCKETS];

	(void)state;
	assert_true(levels_whole(x->level_ns, false));
	assert_false(levels_whole(x->level_ns, true));
	account_acquire(x, ACQ_NEW, false, 0, 10, 1);
	__sync_fetch_and_add(&x->occ, 1ull << 32);		/* A: 1 -> 2, its adds pending */
	account_acquire(x, ACQ_NEW, false, 0, 30, 1);		/* B: 2 -> 3 */
	assert_false(levels_whole(x->level_ns, false));
	memcpy(l, x->level_ns, sizeof(l));
	assert_true(l[2] > LEVEL_T_BIAS);
	level_shift(x, 1, 2, 20);				/* A's adds land */
	assert_true(levels_whole(x->level_ns, false));
	assert_int_equal(lvl(x, 1, 40), 10);
	assert_int_equal(lvl(x, 2, 40), 10);
	assert_int_equal(lvl(x, 3, 40), 10);
	/* half landed: 3's bucket closed at 50, 2's not yet opened */
	__sync_fetch_and_add(&x->occ, -(1ull << 32));
	__sync_fetch_and_add(&x->level_ns[3], 50 + LEVEL_T_BIAS);
	assert_false(levels_whole(x->level_ns, false));
	__sync_fetch_and_add(&x->level_ns[2], -(50 + LEVEL_T_BIAS));
	assert_true(levels_whole(x->level_ns, false));
	account_destroy(x, 60);
	assert_true(levels_whole(x->level_ns, true));
	assert_int_equal(level_sum(x, 60), 60);
	free(x);
}

/*
 * The inflight map full (--max-inflight): a hand-off to a task whose request cannot be tracked
 * takes the kept slot out of the count, so occupancy never exceeds what is tracked.
 */
static void test_handoff_untracked(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	for (int i = 0; i < 4; i++)
		account_acquire(x, ACQ_NEW, false, 0, 0, 1);	/* the map holds 4: all tracked */
	account_release(x, true, 3, 100, 1);		/* kept for a hand-off */
	assert_int_equal(x->in_use, 4);
	account_acquire(x, ACQ_UNTRACKED, true, 0, 120, 1);	/* its taker is not tracked */
	assert_int_equal(x->in_use, 3);
	assert_int_equal(x->handing, 0);
	account_acquire(x, ACQ_NEW, false, 0, 130, 1);	/* a tracked one takes the freed entry */
	assert_int_equal(x->in_use, 4);
	assert_int_equal(x->peak, 4);
	/* nothing pending: an untracked hand-off changes nothing */
	account_acquire(x, ACQ_UNTRACKED, true, 0, 140, 1);
	assert_int_equal(x->in_use, 4);
	assert_int_equal(level_sum(x, 140), 140);
	assert_int_equal(lvl(x, 4, 140), 120 + 10);
	assert_int_equal(lvl(x, 3, 140), 10);
	free(x);
}

/*
 * Two releases race for one waiter: the first keeps its slot for the hand-off, the second frees
 * its own. A hand-off that does not come (the waiter was killed) is healed at the next event that
 * sees the backlog shorter than the hand-offs pending; a hand-off nobody announced (the task
 * queued after the release was seen) takes a slot as any acquire does.
 */
static void test_handoff_races(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 4, 0, 0);

	(void)state;
	for (int i = 0; i < 4; i++)
		account_acquire(x, ACQ_NEW, false, 0, 0, 1);
	account_release(x, true, 1, 100, 1);
	account_release(x, true, 1, 110, 1);
	assert_int_equal(x->in_use, 3);
	assert_int_equal(x->handing, 1);
	account_acquire(x, ACQ_NEW, true, 0, 120, 1);
	assert_int_equal(x->in_use, 3);
	assert_int_equal(lvl(x, LEVEL_BUCKETS - 1, 120), 110);
	assert_int_equal(lvl(x, 3, 120), 10);

	/* a hand-off announced, its waiter gone: healed at t=200, when the backlog reads 0 */
	account_release(x, true, 1, 150, 1);
	assert_int_equal(x->in_use, 3);
	handing_heal(x, 0, 200, 1);
	assert_int_equal(x->handing, 0);
	assert_int_equal(x->in_use, 2);
	assert_int_equal(lvl(x, 3, 200), 200 - 110);

	/* a hand-off with nothing pending: a slot taken */
	account_acquire(x, ACQ_NEW, true, 0, 250, 1);
	assert_int_equal(x->in_use, 3);
	assert_int_equal(lvl(x, 2, 250), 50);
	assert_int_equal(level_sum(x, 250), 250);
	assert_int_equal(x->n.handoffs, 2);
	assert_int_equal(x->n.acquires, 6);
	assert_int_equal(x->n.releases, 3);
	free(x);
}

/* a slot taken before attach is released: counted apart, occupancy never below zero */
static void test_preattach_release(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	account_release(x, false, 0, 10, 1);
	account_acquire(x, ACQ_NEW, false, 0, 20, 1);
	account_release(x, false, 0, 30, 1);
	assert_int_equal(x->n.preattach_releases, 2);
	assert_int_equal(x->n.releases, 0);
	assert_int_equal(x->in_use, 1);
	assert_int_equal(lvl(x, 0, 30), 20);
	assert_int_equal(lvl(x, 1, 30), 10);
	free(x);
}

/*
 * Interval peaks live in the slot of the epoch's parity: a new epoch starts from the level it
 * inherits, and a slot two epochs old is restarted, not maxed with stale numbers.
 */
static void test_epoch_rollover(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	for (int i = 0; i < 5; i++)
		account_acquire(x, ACQ_NEW, false, 0, 10 + i, 6);
	assert_int_equal(x->epoch_of[0], 6);
	assert_int_equal(x->epoch_peak[0], 5);
	/* epoch 7: 5 in use carried in, one released: the interval still saw 5 */
	account_release(x, true, 0, 100, 7);
	assert_int_equal(x->epoch_of[1], 7);
	assert_int_equal(x->epoch_peak[1], 5);
	/* epoch 8 reuses slot 0: restarted from the 4 in use, not 6's 5 */
	account_release(x, true, 0, 200, 8);
	account_acquire(x, ACQ_NEW, false, 0, 210, 8);
	assert_int_equal(x->epoch_of[0], 8);
	assert_int_equal(x->epoch_peak[0], 4);
	assert_int_equal(x->peak, 5);
	/* epoch 9 with nothing above 3: 3 -> 2 */
	account_release(x, true, 0, 300, 9);
	account_release(x, true, 0, 310, 9);
	assert_int_equal(x->epoch_peak[1], 4);
	assert_int_equal(x->epoch_of[1], 9);
	free(x);
}

/* teardown closes the last stretch; the entry a reused address gets starts from nothing */
static void test_destroy_and_reuse(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 1000);

	(void)state;
	account_acquire(x, ACQ_NEW, false, 0, 1100, 1);
	account_release(x, true, 0, 1200, 1);
	account_destroy(x, 1500);
	assert_true(x->flags & XF_DESTROYED);
	assert_int_equal(x->destroyed_ns, 1500);
	/* closed: a read at any time after says the same */
	assert_int_equal(level_sum(x, 1500), 1500 - 1000);
	assert_int_equal(level_sum(x, 9000), 1500 - 1000);
	assert_int_equal(lvl(x, 0, 9000), 100 + 300);
	/* a second teardown event closes nothing twice */
	account_destroy(x, 1600);
	assert_int_equal(level_sum(x, 9000), 1500 - 1000);
	/* what get_xprt() does with a destroyed entry: a new one, whole, in its place */
	memset(x, 0, sizeof(*x));
	x->ident = IDENT_TCP;
	x->max_reqs = x->limit = 16;
	x->first_seen_ns = 2000;
	levels_open(x, 2000);
	account_acquire(x, ACQ_NEW, false, 0, 2100, 2);
	assert_int_equal(x->n.acquires, 1);
	assert_int_equal(x->peak, 1);
	assert_int_equal(level_sum(x, 2100), 100);
	assert_false(x->flags & XF_DESTROYED);
	free(x);
}

/* an RDMA pool assumed to be max_reqs is raised the moment more are in use, never below a peak */
static void test_rdma_pool_raise(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_RDMA, 128, XF_LIMIT_ASSUMED, 0);
	struct xprt_stats *t = new_xprt(IDENT_TCP, 128, 0, 0);
	struct xprt_stats *c = new_xprt(IDENT_RDMA, 128, XF_LIMIT_COUNTED, 0);

	(void)state;
	for (int i = 0; i < 128; i++)
		account_acquire(x, ACQ_NEW, false, 0, 10, 1);
	assert_int_equal(x->limit, 128);
	assert_false(x->flags & XF_LIMIT_INFERRED);
	/* the 129th: the pool has slack; the stretch it ends (128 in use) is measured against it */
	account_acquire(x, ACQ_NEW, false, 0, 20, 1);
	assert_int_equal(x->limit, 144);		/* 128 + DIV_ROUND_UP(128, 8) */
	assert_true(x->flags & XF_LIMIT_INFERRED);
	assert_int_equal(lvl(x, LEVEL_BUCKETS - 1, 20), 0);
	assert_int_equal(lvl(x, level_bucket(128, 144), 20), 10);
	assert_int_equal(level_sum(x, 20), 20);
	for (int i = 0; i < 15; i++)
		account_acquire(x, ACQ_NEW, false, 0, 30, 1);
	/* 144 from 30: at the limit; then raised level by level, each stretch at the limit until the next */
	for (int i = 0; i < 5; i++)
		account_acquire(x, ACQ_NEW, false, 0, 100 + 10 * i, 1);
	assert_int_equal(x->in_use, 149);
	assert_int_equal(x->limit, 149);
	assert_true(x->peak <= x->limit);
	/* 144..148 were never at the (raised) limit: 10 each in the buckets below; 149 from 140 */
	assert_int_equal(lvl(x, LEVEL_BUCKETS - 1, 150), 10);
	assert_int_equal(level_sum(x, 150), 150);
	assert_int_equal(level_sum(x, 200), 200);
	/* no longer over the limit: nothing to raise */
	rdma_pool_raise(x, 148, 50);
	assert_int_equal(x->limit, 149);
	/* max_reqs 100: the slack rounds up (13, not 12) */
	struct xprt_stats *y = new_xprt(IDENT_RDMA, 100, XF_LIMIT_ASSUMED, 0);

	for (int i = 0; i < 101; i++)
		account_acquire(y, ACQ_NEW, false, 0, 10, 1);
	assert_int_equal(y->limit, 113);
	assert_int_equal(y->in_use, 101);
	free(y);
	/* a counted pool and TCP are never raised: they are what the kernel built */
	for (int i = 0; i < 129; i++) {
		account_acquire(t, ACQ_NEW, false, 0, 10, 1);
		account_acquire(c, ACQ_NEW, false, 0, 10, 1);
	}
	assert_int_equal(t->limit, 128);
	assert_int_equal(c->limit, 128);
	free(x);
	free(t);
	free(c);
}

/*
 * The in-flight curve: each acquire says the level bucket its request holds its slot at (its own
 * slot included); a hand-off that keeps the slot in use takes it at today's level; a request
 * already tracked says nothing; the release adds its RTT and execute there.
 */
static void test_curve_levels(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 4, 0, 0);
	__u32 b[4];

	(void)state;
	for (int i = 0; i < 4; i++)
		b[i] = account_acquire(x, ACQ_NEW, false, 0, 10 + i, 1);
	assert_int_equal(b[0], level_bucket(1, 4));
	assert_int_equal(b[1], level_bucket(2, 4));
	assert_int_equal(b[3], LEVEL_BUCKETS - 1);		/* the last slot: at the limit */
	account_release(x, true, 1, 20, 1);			/* kept for the one waiting */
	assert_int_equal(account_acquire(x, ACQ_NEW, true, 0, 21, 1), LEVEL_BUCKETS - 1);
	assert_int_equal(account_acquire(x, ACQ_KNOWN, false, 0, 22, 1), LEVEL_BUCKETS);
	assert_int_equal(account_acquire(x, ACQ_UNTRACKED, false, 0, 23, 1), LEVEL_BUCKETS);
	account_release(x, true, 0, 30, 1);
	assert_int_equal(account_acquire(x, ACQ_NEW, true, 0, 31, 1), LEVEL_BUCKETS - 1);	/* no hand-off pending: 3 -> 4 */
	curve_add(x, b[0], 1000, 1500);
	curve_add(x, b[0], 3000, -1);				/* a negative time counts as 0 */
	curve_add(x, LEVEL_BUCKETS, 5000, 5000);		/* no level noted: not on the curve */
	assert_int_equal(x->curve[b[0]].rpcs, 2);
	assert_int_equal(x->curve[b[0]].rtt_ns, 4000);
	assert_int_equal(x->curve[b[0]].exec_ns, 1500);
	free(x);
}

/*
 * An RDMA release kept in use for a hand-off whose request went back to the pool instead
 * (delayed recycling) and was taken the plain way: with the pool all in use that acquire takes
 * the hand-off, so the level never passes the pool. Over TCP, or against an assumed pool, the
 * plain take counts.
 */
static void test_handoff_recycled(void **state)
{
	static const struct { __u32 ident, flags; int in_use, handing; } cases[] = {
		{ IDENT_RDMA, 0, 2, 0 },
		{ IDENT_TCP, 0, 3, 1 },
		{ IDENT_RDMA, XF_LIMIT_ASSUMED, 3, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xprt_stats *x = new_xprt(cases[i].ident, 2, cases[i].flags, 0);

		account_acquire(x, ACQ_NEW, false, 0, 0, 1);
		account_acquire(x, ACQ_NEW, false, 0, 0, 1);		/* the pool all in use */
		account_release(x, true, 1, 100, 1);		/* kept for the backlogged task */
		account_acquire(x, ACQ_NEW, false, 0, 120, 1);	/* which took it back from the pool */
		assert_int_equal(x->in_use, cases[i].in_use);
		assert_int_equal(x->handing, cases[i].handing);
		assert_int_equal(x->n.acquires, 3);
		free(x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_curve_levels),
		cmocka_unit_test(test_handoff),
		cmocka_unit_test(test_handoff_recycled),
		cmocka_unit_test(test_handoff_races),
		cmocka_unit_test(test_handoff_untracked),
		cmocka_unit_test(test_late_clock),
		cmocka_unit_test(test_racing_changes),
		cmocka_unit_test(test_torn_copy),
		cmocka_unit_test(test_inflight_split),
		cmocka_unit_test(test_preattach_release),
		cmocka_unit_test(test_epoch_rollover),
		cmocka_unit_test(test_destroy_and_reuse),
		cmocka_unit_test(test_rdma_pool_raise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
