// SPDX-License-Identifier: GPL-2.0
/*
 * The wait bookkeeping the BPF programs run (bpf/waits.h), driven on the host: which queue names
 * which wait, when a wait ends (a dead task's entry, the kind asked about, a send that has not
 * gone out), what it adds to its transport, and the open-wait counts the function hooks keep.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>
#include "waits.h"

static void test_queue_names(void **state)
{
	char n[24];

	(void)state;
	snprintf(n, sizeof(n), "ForeChannel Slot table");
	assert_int_equal(wait_kind_of_name(n), WAIT_SESSION);
	snprintf(n, sizeof(n), "delayq");
	assert_int_equal(wait_kind_of_name(n), WAIT_DELAY);
	/* a longer name that starts alike is another queue */
	snprintf(n, sizeof(n), "delayqueue");
	assert_int_equal(wait_kind_of_name(n), WAIT_KINDS);
	snprintf(n, sizeof(n), "BackChannel Slot table");
	assert_int_equal(wait_kind_of_name(n), WAIT_KINDS);
	memset(n, 0, sizeof(n));
	assert_int_equal(wait_kind_of_name(n), WAIT_KINDS);
}

static void test_sent_at(void **state)
{
	(void)state;
	assert_int_equal(wait_sent_at(100, 150, 200), 150);
	/* stamped before the wait began: the request has not gone out since */
	assert_int_equal(wait_sent_at(100, 100, 200), 0);
	assert_int_equal(wait_sent_at(100, 0, 200), 0);
	/* never after the end asked about */
	assert_int_equal(wait_sent_at(100, 300, 200), 200);
}

static void test_close(void **state)
{
	struct waiter w = { .start_ns = 100, .task_start = 7, .kind = WAIT_SLOT };
	__u64 end = 0;

	(void)state;
	assert_int_equal(wait_close(&w, 8, WAIT_KINDS, false, 0, 500, &end), WAIT_STALE);
	assert_int_equal(wait_close(&w, 7, WAIT_DELAY, false, 0, 500, &end), WAIT_GOES_ON);
	assert_int_equal(wait_close(&w, 7, WAIT_SLOT, false, 0, 500, &end), WAIT_ENDED);
	assert_int_equal(end, 500);
	w.kind = WAIT_SEND;
	end = 0;
	/* not sent yet: goes on, unless the RPC is over */
	assert_int_equal(wait_close(&w, 7, WAIT_KINDS, false, 0, 500, &end), WAIT_GOES_ON);
	assert_int_equal(wait_close(&w, 7, WAIT_KINDS, true, 0, 500, &end), WAIT_ENDED);
	assert_int_equal(end, 500);
	assert_int_equal(wait_close(&w, 7, WAIT_KINDS, false, 300, 500, &end), WAIT_ENDED);
	assert_int_equal(end, 300);
	/* sent and the RPC over: the send still ends when the request went out */
	assert_int_equal(wait_close(&w, 7, WAIT_KINDS, true, 300, 500, &end), WAIT_ENDED);
	assert_int_equal(end, 300);
	/* a dead task's entry is dropped even when another kind is asked about (__rpc_atrun) */
	assert_int_equal(wait_close(&w, 8, WAIT_DELAY, false, 300, 500, &end), WAIT_STALE);
	assert_int_equal(wait_close(&w, 8, WAIT_SEND, true, 0, 500, &end), WAIT_STALE);
}

static void test_account(void **state)
{
	struct xprt_stats *x = calloc(1, sizeof(*x));
	struct waiter w = { .start_ns = 1000, .kind = WAIT_SLOT };

	(void)state;
	assert_non_null(x);
	wait_account(x, &w, 1000 + 3000000);
	wait_account(x, &w, 1000 + 1000);
	/* an end before its start (clocks of two CPUs) adds nothing */
	wait_account(x, &w, 500);
	assert_int_equal(x->waits[WAIT_SLOT].count, 2);
	assert_int_equal(x->waits[WAIT_SLOT].sum_ns, 3001000);
	assert_int_equal(x->waits[WAIT_SLOT].max_ns, 3000000);
	assert_int_equal(x->waits[WAIT_SLOT].buckets[lat_bucket(3000000)], 1);
	assert_int_equal(x->waits[WAIT_SLOT].buckets[lat_bucket(1000)], 1);
	/* no kind: nothing */
	w.kind = WAIT_KINDS;
	wait_account(x, &w, 5000);
	for (int k = 0; k < WAIT_KINDS; k++)
		assert_true(x->waits[k].count == (k == WAIT_SLOT ? 2 : 0));
	free(x);
}

/*
 * Where a wait's length lands: bucket i holds [2^i, 2^(i+1)) ns (0 holds 1 too), the last from
 * 2^(LAT_BUCKETS-1) ns up; an empty wait (end at its start) is not one. Count, sum and max follow.
 */
static void test_account_edges(void **state)
{
	static const struct { __u64 ns; __u32 bucket; } cases[] = {
		{ 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 1023, 9 }, { 1024, 10 },
		{ (1ull << 32) - 1, 31 }, { 1ull << 32, 32 },
		{ (1ull << (LAT_BUCKETS - 1)) - 1, LAT_BUCKETS - 2 },
		{ 1ull << (LAT_BUCKETS - 1), LAT_BUCKETS - 1 },
		{ 1ull << 50, LAT_BUCKETS - 1 },
	};
	const __u64 start = 1ull << 60;
	struct xprt_stats *x = calloc(1, sizeof(*x));
	struct waiter w = { .start_ns = start, .kind = WAIT_DELAY };
	struct wait_hist *h = &x->waits[WAIT_DELAY];
	__u64 sum = 0, n = 0;

	(void)state;
	assert_non_null(x);
	wait_account(x, &w, start);
	assert_int_equal(h->count, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wait_hist before = *h;

		wait_account(x, &w, start + cases[i].ns);
		sum += cases[i].ns;
		n++;
		for (int b = 0; b < LAT_BUCKETS; b++)
			assert_int_equal(h->buckets[b] - before.buckets[b], b == (int)cases[i].bucket);
	}
	assert_int_equal(h->count, n);
	assert_int_equal(h->sum_ns, sum);
	assert_int_equal(h->max_ns, 1ull << 50);
	/* a shorter wait after the longest leaves the max alone; an end far behind adds nothing */
	wait_account(x, &w, start + 5);
	wait_account(x, &w, 1);
	assert_int_equal(h->max_ns, 1ull << 50);
	assert_int_equal(h->count, n + 1);
	assert_int_equal(h->sum_ns, sum + 5);
	/* only the wait's own kind moves, and no delay without a request in hand is a slot held idle */
	for (int k = 0; k < WAIT_KINDS; k++)
		if (k != WAIT_DELAY)
			assert_int_equal(x->waits[k].count, 0);
	assert_int_equal(x->n.held_idle + x->n.held_idle_ns, 0);
	free(x);
}

/*
 * A delay sat out with a request in hand (the backlog stall): counted as a delay and as a slot
 * held idle, both with its whole length; one that ends before it began adds to neither.
 */
static void test_held_idle(void **state)
{
	struct xprt_stats *x = calloc(1, sizeof(*x));
	struct waiter held = { .start_ns = 1000, .kind = WAIT_DELAY, .flags = WF_HELD };
	struct waiter bare = { .start_ns = 1000, .kind = WAIT_DELAY };

	(void)state;
	assert_non_null(x);
	wait_account(x, &held, 1000 + 250000000);
	wait_account(x, &bare, 1000 + 3000000);
	wait_account(x, &held, 1000 + 251000000);
	wait_account(x, &held, 999);
	assert_int_equal(x->waits[WAIT_DELAY].count, 3);
	assert_int_equal(x->waits[WAIT_DELAY].sum_ns, 504000000);
	assert_int_equal(x->n.held_idle, 2);
	assert_int_equal(x->n.held_idle_ns, 501000000);
	free(x);
}

/* a send-queue wait from its sleep to its end, as wait_end() runs it: the end is when it went out */
static void test_send_wait(void **state)
{
	struct xprt_stats *x = calloc(1, sizeof(*x));
	struct waiter w = { .start_ns = 1000, .task_start = 3, .kind = WAIT_SEND };
	__u64 end = 0, sent;

	(void)state;
	assert_non_null(x);
	/* stamped by an earlier transmission: not gone out yet, nothing counted */
	sent = wait_sent_at(w.start_ns, 900, 1500);
	assert_int_equal(wait_close(&w, 3, WAIT_KINDS, false, sent, 1500, &end), WAIT_GOES_ON);
	/* a stamp past the event (another CPU's clock) ends it at the event */
	sent = wait_sent_at(w.start_ns, 2600, 2500);
	assert_int_equal(wait_close(&w, 3, WAIT_KINDS, false, sent, 2500, &end), WAIT_ENDED);
	assert_int_equal(end, 2500);
	wait_account(x, &w, end);
	assert_int_equal(x->waits[WAIT_SEND].count, 1);
	assert_int_equal(x->waits[WAIT_SEND].sum_ns, 1500);
	assert_int_equal(x->waits[WAIT_SEND].buckets[10], 1);	/* [1024, 2048) */
	free(x);
}

static void test_queued(void **state)
{
	struct xprt_stats *x = calloc(1, sizeof(*x));

	(void)state;
	assert_non_null(x);
	wait_queued(x, WAIT_SLOT, 40);
	wait_queued(x, WAIT_SLOT, 12);
	assert_int_equal(x->backlog_now, 12);
	assert_int_equal(x->backlog_max, 40);
	wait_queued(x, WAIT_SEND, 3);
	wait_queued(x, WAIT_SEND, 2);
	assert_int_equal(x->sending_max, 3);
	wait_queued(x, WAIT_SESSION, 99);
	assert_int_equal(x->backlog_now, 12);
	free(x);
}

static void test_waiting_counts(void **state)
{
	__s64 n[WAIT_KINDS] = { 0 };

	(void)state;
	waiting_move(n, WAIT_KINDS, WAIT_SLOT);
	waiting_move(n, WAIT_KINDS, WAIT_SLOT);
	waiting_move(n, WAIT_SLOT, WAIT_SEND);		/* queued again, for another thing */
	waiting_move(n, WAIT_SEND, WAIT_KINDS);
	waiting_move(n, WAIT_KINDS, WAIT_KINDS);
	assert_int_equal(n[WAIT_SLOT], 1);
	assert_int_equal(n[WAIT_SEND], 0);
	assert_int_equal(n[WAIT_SESSION] + n[WAIT_DELAY], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_names),
		cmocka_unit_test(test_sent_at),
		cmocka_unit_test(test_close),
		cmocka_unit_test(test_account),
		cmocka_unit_test(test_account_edges),
		cmocka_unit_test(test_held_idle),
		cmocka_unit_test(test_send_wait),
		cmocka_unit_test(test_queued),
		cmocka_unit_test(test_waiting_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
