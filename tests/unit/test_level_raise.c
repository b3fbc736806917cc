// SPDX-License-Identifier: GPL-2.0
/*
 * The slot accounting's level raised past the limit it was made for (bpf/account.h), driven on
 * the host: a raise, a hand-off freed after it, one judged free, a raise at attach, the cap, and a
 * plain take capped.
 */
#include "accfix.h"

/*
 * #41: a release judged free at rpc_stats_latency (backlog 1, one hand-off already pending) whose
 * request a waiter that queued meanwhile took after all: its hand-off took the other release's
 * credit and the table read 15 of 16. At the hand-off the kernel's num_reqs (16, every request
 * in use) puts the slot back as a pending hand-off; the other release's own hand-off then takes
 * it, and the full table's time stays at the limit.
 */
static void test_level_raise(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	for (int i = 0; i < 16; i++)
		account_acquire(x, ACQ_NEW, false, 0, 10, 1);
	account_release(x, true, 1, 100, 1);	/* R_k: kept for the one waiter */
	assert_int_equal(x->handing, 1);
	account_release(x, true, 1, 110, 1);	/* R_d: judged free, one credit already pending */
	assert_int_equal(x->in_use, 15);
	/* a waiter queued; R_d's xprt_free_slot() hands its request to it: 16 in use, num_reqs 16 */
	account_acquire(x, ACQ_NEW, true, 0, 120, 1);
	assert_int_equal(x->in_use, 15);	/* R_k's credit taken: the deficit moved on */
	assert_int_equal(level_raise(x, 16, 3, 120, 1), 1);
	assert_int_equal(x->in_use, 16);
	assert_int_equal(x->handing, 1);
	/* R_k's hand-off: its credit, no change */
	account_acquire(x, ACQ_NEW, true, 0, 130, 1);
	assert_int_equal(level_raise(x, 16, 3, 130, 1), 0);
	assert_int_equal(x->in_use, 16);
	assert_int_equal(x->handing, 0);
	assert_int_equal(x->peak, 16);
	/* at 15 only the 10 ns between R_d's release and its hand-off */
	assert_int_equal(lvl(x, LEVEL_BUCKETS - 1, 200), 110 - 10 + 200 - 120);
	assert_int_equal(level_sum(x, 200), 200);
	/* never above num_reqs, never above the limit, never from a word read before a change */
	assert_int_equal(level_raise(x, 12, 3, 140, 1), 0);
	assert_int_equal(level_raise(x, 17, 3, 140, 1), 0);
	assert_int_equal(x->in_use, 16);
	free(x);
}

/*
 * A raise and a freed release's own hand-off meet: level_raise() at another hand-off counts R_d's
 * request (allocated, on its way to its hand-off) as a pending hand-off; R_d's hand-off then finds
 * the level at num_reqs and takes that credit rather than count its slot again. Without the cap
 * (num_reqs 0: RDMA) the level would read 17 of 16.
 */
static void test_raise_then_freed_handoff(void **state)
{
	for (int capped = 0; capped < 2; capped++) {
		struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);
		__u32 cap = capped ? 16 : 0;

		(void)state;
		for (int i = 0; i < 16; i++)
			account_acquire(x, ACQ_NEW, ACQ_PLAIN, 0, 10, 1);
		assert_true(account_release(x, true, 2, 100, 1));	/* R_k: kept */
		assert_false(account_release(x, true, 1, 110, 1));	/* R_d: judged free */
		assert_int_equal(x->in_use, 15);
		account_acquire(x, ACQ_NEW, ACQ_HANDED, cap, 120, 1);	/* R_k's hand-off: its credit */
		assert_int_equal(x->handing, 0);
		/* two wait: R_d's request is allocated, num_reqs 16 */
		assert_int_equal(level_raise(x, 16, 2, 120, 1), 1);
		assert_int_equal(x->in_use, 16);
		account_acquire(x, ACQ_NEW, ACQ_HANDED_FREED, cap, 130, 1);	/* R_d's own */
		assert_int_equal(x->in_use, capped ? 16 : 17);
		assert_int_equal(x->peak, capped ? 16 : 17);
		assert_int_equal(x->handing, capped ? 0 : 1);
		free(x);
	}
}

/*
 * The same race, removed at its cause: R_d's own hand-off knows its release was counted as a free
 * (ACQ_HANDED_FREED), counts the slot again and leaves R_k's credit for R_k. No correction is
 * needed, and the credits stay paired with the releases that made them: a 3-deep backlog served
 * by two kept releases and a freed one never reads one slot low. The old pairing (ACQ_HANDED for
 * all) leaves the level at 15 until the last hand-off finds no credit.
 */
static void test_handoff_judged_free(void **state)
{
	for (int old = 0; old < 2; old++) {
		struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);
		enum acq_via freed = old ? ACQ_HANDED : ACQ_HANDED_FREED;

		(void)state;
		for (int i = 0; i < 16; i++)
			account_acquire(x, ACQ_NEW, ACQ_PLAIN, 0, 10, 1);
		assert_true(account_release(x, true, 2, 100, 1));	/* R_k1, two waiting */
		assert_true(account_release(x, true, 2, 100, 1));	/* R_k2 */
		assert_false(account_release(x, true, 2, 110, 1));	/* R_d: judged free */
		assert_int_equal(x->in_use, 15);
		/* a third waiter queued; R_d reaches xprt_free_slot() first and hands to it */
		account_acquire(x, ACQ_NEW, freed, 0, 120, 1);
		assert_int_equal(x->in_use, old ? 15 : 16);
		account_acquire(x, ACQ_NEW, ACQ_HANDED, 0, 130, 1);	/* R_k1's */
		account_acquire(x, ACQ_NEW, ACQ_HANDED, 0, 140, 1);	/* R_k2's */
		assert_int_equal(x->in_use, 16);
		assert_int_equal(x->handing, 0);
		assert_int_equal(x->n.handoffs, 3);
		/* at 15: R_d's 10 ns, and under the old pairing until R_k2's hand-off found no credit */
		assert_int_equal(lvl(x, LEVEL_BUCKETS - 1, 200), old ? 200 - 10 - 30 : 200 - 10 - 10);
		assert_int_equal(level_sum(x, 200), 200);
		free(x);
	}
}

/*
 * Attached while the table was full: the 16 requests in flight are not counted, and the gap to
 * num_reqs is theirs, not hand-offs to come. Only as many slots as the waiters left can take are
 * put back (handing_heal() would take more off at once, and again at every hand-off).
 */
static void test_level_raise_attach(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	account_acquire(x, ACQ_NEW, true, 0, 10, 1);	/* a request taken before attach, handed on */
	assert_int_equal(x->in_use, 1);
	assert_int_equal(level_raise(x, 16, 2, 10, 1), 2);
	assert_int_equal(x->in_use, 3);
	assert_int_equal(x->handing, 2);
	handing_heal(x, 2, 20, 1);
	assert_int_equal(x->in_use, 3);
	/* as many pending as waiting: nothing more to put back */
	account_acquire(x, ACQ_NEW, true, 0, 30, 1);	/* takes a credit */
	assert_int_equal(level_raise(x, 16, 1, 30, 1), 0);
	assert_int_equal(x->in_use, 3);
	assert_int_equal(level_raise(x, 16, 0, 30, 1), 0);
	free(x);
	/* --max-inflight full: an untracked take, and the level is of the tracked requests alone */
	x = new_xprt(IDENT_TCP, 16, 0, 0);
	account_acquire(x, ACQ_NEW, false, 0, 10, 1);
	account_acquire(x, ACQ_UNTRACKED, false, 0, 11, 1);
	assert_true(x->flags & XF_UNTRACKED);
	account_acquire(x, ACQ_NEW, true, 0, 12, 1);
	assert_int_equal(x->in_use, 2);
	assert_int_equal(level_raise(x, 16, 8, 12, 1), 0);
	assert_int_equal(x->in_use, 2);
	free(x);
}

/*
 * A plain take: the level holds at most the requests the kernel has allocated, this one not yet
 * counted. Credits beyond that (requests freed, not handed) go; requests counted never do.
 */
static void test_level_cap(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	for (int i = 0; i < 16; i++)
		account_acquire(x, ACQ_NEW, false, 0, 10, 1);
	account_release(x, true, 3, 100, 1);
	account_release(x, true, 3, 100, 1);
	assert_int_equal(x->in_use, 16);
	assert_int_equal(x->handing, 2);
	/* both were freed after all (their waiters gone); a take allocates: num_reqs 15 */
	assert_int_equal(level_cap(x, x->occ, x->handing, 15, true, 150, 1), 2);
	assert_int_equal(x->in_use, 14);
	assert_int_equal(x->handing, 0);
	account_acquire(x, ACQ_NEW, false, 0, 150, 1);
	assert_int_equal(x->in_use, 15);
	/* no credit pending: a level over num_reqs is left alone (nothing says which count is off) */
	assert_int_equal(level_cap(x, x->occ, x->handing, 10, true, 160, 1), 0);
	assert_int_equal(x->in_use, 15);
	/* a request already counted (ACQ_KNOWN) is its own: level <= num_reqs */
	account_release(x, true, 1, 170, 1);
	assert_int_equal(x->handing, 1);
	assert_int_equal(level_cap(x, x->occ, x->handing, 15, false, 180, 1), 0);
	assert_int_equal(level_cap(x, x->occ, x->handing, 14, false, 180, 1), 1);
	assert_int_equal(x->in_use, 14);
	assert_int_equal(x->handing, 0);
	/* a level read before a change since: nothing is taken, the credit given back */
	account_release(x, true, 1, 185, 1);
	{
		__u64 w = x->occ;

		account_acquire(x, ACQ_NEW, false, 0, 186, 1);
		assert_int_equal(level_cap(x, w, x->handing, 10, false, 187, 1), 0);
		assert_int_equal(x->handing, 1);
		assert_int_equal(x->in_use, 15);
		account_release(x, true, 0, 190, 1);
		handing_heal(x, 0, 195, 1);
	}
	assert_int_equal(level_sum(x, 200), 200);
	free(x);
}

/*
 * level_cap()'s swap lost to a change on another CPU: the plain take that follows finds the level
 * already at num_reqs (its own request counted by a raise's pending credit) and takes that credit
 * instead of adding: never one past the kernel's count (6.12, tracepoints: a peak of 17 of 16).
 * With no credit pending it adds, as a level over num_reqs then says nothing of which count is off.
 */
static void test_plain_take_capped(void **state)
{
	struct xprt_stats *x = new_xprt(IDENT_TCP, 16, 0, 0);

	(void)state;
	for (int i = 0; i < 15; i++)
		account_acquire(x, ACQ_NEW, ACQ_PLAIN, 16, 10, 1);
	/* a hand-off's raise counts the 16th request, allocated but not yet announced */
	assert_int_equal(level_raise(x, 16, 2, 20, 1), 1);
	assert_int_equal(x->in_use, 16);
	assert_int_equal(x->handing, 1);
	/* the 16th's own take, its level_cap() lost (not called): at num_reqs, it takes the credit */
	account_acquire(x, ACQ_NEW, ACQ_PLAIN, 16, 30, 1);
	assert_int_equal(x->in_use, 16);
	assert_int_equal(x->handing, 0);
	assert_int_equal(x->peak, 16);
	assert_int_equal(x->n.acquires, 16);
	/* no credit: the take adds, whatever num_reqs says */
	account_acquire(x, ACQ_NEW, ACQ_PLAIN, 16, 40, 1);
	assert_int_equal(x->in_use, 17);
	/* without num_reqs (RDMA: cap 0) nothing is judged */
	x->handing = 1;
	account_acquire(x, ACQ_NEW, ACQ_PLAIN, 0, 50, 1);
	assert_int_equal(x->in_use, 18);
	assert_int_equal(x->handing, 1);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_raise),
		cmocka_unit_test(test_handoff_judged_free),
		cmocka_unit_test(test_raise_then_freed_handoff),
		cmocka_unit_test(test_level_raise_attach),
		cmocka_unit_test(test_level_cap),
		cmocka_unit_test(test_plain_take_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
