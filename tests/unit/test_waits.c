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
		cmocka_unit_test(test_queued),
		cmocka_unit_test(test_waiting_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
