// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's counters summed only over the ticks its transport's RPCs queued for it (send
 * waits of a tenth of the tick or more) and whose tick before was read too; sock_diag asked only
 * then, for the transports' server port where no source port is known; a transport gone takes its
 * sums with it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include "links/tcpwatch.h"

static struct tcp_conn_stat conn;	/* what the fake sock_diag answers */
static int dumps;
static unsigned int asked_port;
static bool asked_v6;

static int fake_sample(int *fd, const unsigned int *sports, size_t nsports, unsigned int dport, bool v6,
		       struct tcp_conn_stat **out, size_t *n, size_t *cap)
{
	(void)cap;
	(void)sports;
	assert_int_equal(nsports, 0);	/* no path known: no source port to ask by */
	*fd = -1;
	dumps++;
	asked_port = dport;
	asked_v6 = v6;
	free(*out);
	*out = malloc(sizeof(**out));
	if (!*out)
		return -ENOMEM;
	**out = conn;
	*n = 1;
	return 0;
}

/* a tick of 1 s at which the transport's send waits total @waited_ms */
static void tick(struct tcp_watch *w, struct snapshot *snap, __u64 waited_ms, __u64 busy_ms, __u64 rwnd_ms,
		 struct link_sample *l)
{
	snap->ts_ns += 1000000000ull;
	snap->xprts[0].s.waits[WAIT_SEND].sum_ns = waited_ms * 1000000;
	conn.busy_us = busy_ms * 1000;
	conn.rwnd_us = rwnd_ms * 1000;
	assert_int_equal(tcp_watch_tick(w, snap, NULL, true, l), 0);
}

/* transport @x to 10.0.0.1:2049, and its connection from port 709 as the fake dump answers it */
static void setup(struct xprt_snap *x)
{
	memset(x, 0, sizeof(*x));
	x->key = 0xffff1000;
	x->s.ident = IDENT_TCP;
	x->s.first_seen_ns = 5;
	strcpy(x->s.addr, "10.0.0.1");
	strcpy(x->s.port, "2049");
	memset(&conn, 0, sizeof(conn));
	conn.family = AF_INET;
	inet_pton(AF_INET, "10.0.0.1", conn.daddr);
	conn.dport = 2049;
	conn.sport = 709;
}

static void test_watch(void **state)
{
	struct xprt_snap x;
	struct snapshot snap = { .nxprts = 1, .xprts = &x };
	struct tcp_watch w = { .sample = fake_sample };
	struct link_sample l = { 0 };

	(void)state;
	setup(&x);

	/* the first tick has no span; then no send wait, or less than a tenth of the tick: nothing asked */
	tick(&w, &snap, 0, 1, 0, &l);
	tick(&w, &snap, 0, 1, 0, &l);
	tick(&w, &snap, 90, 1, 0, &l);
	assert_int_equal(dumps, 0);
	assert_int_equal(l.ntcp, 0);
	/* waits took a tenth: read, a baseline only */
	tick(&w, &snap, 600, 1000, 100, &l);
	assert_int_equal(dumps, 1);
	assert_int_equal(asked_port, 2049);
	assert_false(asked_v6);
	assert_int_equal(l.ntcp, 1);
	assert_int_equal(l.tcp[0].busy_us, 0);
	assert_int_equal(l.tcp[0].sport, 709);
	assert_true(l.tcp[0].key == x.key && l.tcp[0].first_seen == 5);
	/* again: what it did since */
	tick(&w, &snap, 1400, 3000, 400, &l);
	assert_int_equal(l.tcp[0].busy_us, 2000000);
	assert_int_equal(l.tcp[0].rwnd_us, 300000);
	/* over the one tick summed: a second of the connection's life (the baseline's is not) */
	assert_int_equal(l.tcp[0].read_us, 1000000);
	/* a tick without: not asked, the sums kept */
	tick(&w, &snap, 1400, 5000, 400, &l);
	assert_int_equal(dumps, 2);
	assert_int_equal(l.tcp[0].busy_us, 2000000);
	/* queued again: the tick before was not read, so a baseline again, then on */
	tick(&w, &snap, 2000, 9000, 500, &l);
	assert_int_equal(l.tcp[0].busy_us, 2000000);
	tick(&w, &snap, 2900, 9500, 650, &l);
	assert_int_equal(l.tcp[0].busy_us, 2500000);
	assert_int_equal(l.tcp[0].rwnd_us, 450000);
	/* the unread tick and the new baseline's not covered: two summed ticks of five */
	assert_int_equal(l.tcp[0].read_us, 2000000);
	/* a reconnect from the same port: tcp_info starts over, read as a baseline, then on */
	conn.segs_out = 4294967000u;
	tick(&w, &snap, 3500, 200, 0, &l);
	assert_int_equal(l.tcp[0].busy_us, 2500000);
	assert_int_equal(l.tcp[0].segs_out, 0);
	/* its 32-bit segment count wraps: 596 more, not 4 billion fewer */
	conn.segs_out = 300;
	tick(&w, &snap, 4100, 700, 0, &l);
	assert_int_equal(l.tcp[0].busy_us, 3000000);
	assert_int_equal(l.tcp[0].segs_out, 596);
	/* destroyed: its sums kept while it is reported, and never asked for */
	x.s.destroyed_ns = 1;
	tick(&w, &snap, 5000, 900, 0, &l);
	assert_int_equal(dumps, 6);
	assert_int_equal(l.ntcp, 1);
	assert_int_equal(l.tcp[0].busy_us, 3000000);
	x.s.destroyed_ns = 0;
	/* the same transport pointer made again (another first_seen): its own sums */
	x.s.first_seen_ns = 6;
	tick(&w, &snap, 3500, 9600, 650, &l);
	assert_int_equal(l.tcp[0].busy_us, 0);
	/* off the live machine: never asked */
	dumps = 0;
	snap.ts_ns += 1000000000ull;
	snap.xprts[0].s.waits[WAIT_SEND].sum_ns += 900000000ull;
	assert_int_equal(tcp_watch_tick(&w, &snap, NULL, false, &l), 0);
	assert_int_equal(dumps, 0);
	/* gone */
	snap.nxprts = 0;
	assert_int_equal(tcp_watch_tick(&w, &snap, NULL, true, &l), 0);
	assert_int_equal(l.ntcp, 0);
	assert_int_equal(w.n, 0);
	link_sample_free(&l);
	tcp_watch_free(&w);
}

/*
 * #62: a slot-bound transport (slot waits a tenth of the tick, none for the connection) has its
 * connection read for what bounds it past the slots, not summed: the window, the send buffer
 * and the round trip (the most, the most, the least seen); queued later, a baseline first
 */
static void test_slotted(void **state)
{
	struct xprt_snap x;
	struct snapshot snap = { .nxprts = 1, .xprts = &x };
	struct tcp_watch w = { .sample = fake_sample };
	struct link_sample l = { 0 };

	(void)state;
	setup(&x);
	conn.wnd_max = 65535u << 7;
	conn.sndbuf = 1 << 20;
	conn.min_rtt_us = 200000;
	dumps = 0;
	tick(&w, &snap, 0, 1, 0, &l);
	snap.xprts[0].s.waits[WAIT_SLOT].sum_ns = 800000000ull;
	tick(&w, &snap, 0, 1000, 0, &l);
	assert_int_equal(dumps, 1);
	assert_int_equal(l.ntcp, 1);
	assert_false(l.tcp[0].watched);
	assert_int_equal(l.tcp[0].busy_us, 0);
	assert_int_equal(l.tcp[0].wnd_max, 65535u << 7);
	assert_int_equal(l.tcp[0].min_rtt_us, 200000);
	/* read once in ten ticks: nine slot-bound ticks more ask nothing */
	for (int i = 0; i < 9; i++) {
		snap.xprts[0].s.waits[WAIT_SLOT].sum_ns += 800000000ull;
		tick(&w, &snap, 0, 1000, 0, &l);
	}
	assert_int_equal(dumps, 1);
	/* the buffer grew, the round trip was seen lower once, then higher: the most, the least */
	conn.sndbuf = 4 << 20;
	conn.min_rtt_us = 150000;
	snap.xprts[0].s.waits[WAIT_SLOT].sum_ns += 800000000ull;
	tick(&w, &snap, 0, 2000, 0, &l);
	assert_int_equal(dumps, 2);
	conn.min_rtt_us = 300000;
	for (int i = 0; i < 10; i++) {
		snap.xprts[0].s.waits[WAIT_SLOT].sum_ns += 800000000ull;
		tick(&w, &snap, 0, 3000, 0, &l);
	}
	assert_int_equal(dumps, 3);
	assert_int_equal(l.tcp[0].sndbuf, 4 << 20);
	assert_int_equal(l.tcp[0].min_rtt_us, 150000);
	assert_int_equal(l.tcp[0].busy_us, 0);
	/* queued now: the first queued tick is a baseline, the next summed */
	tick(&w, &snap, 600, 4000, 0, &l);
	assert_true(l.tcp[0].watched);
	assert_int_equal(l.tcp[0].busy_us, 0);
	tick(&w, &snap, 1400, 5000, 0, &l);
	assert_int_equal(l.tcp[0].busy_us, 1000000);
	link_sample_free(&l);
	tcp_watch_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_slotted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
