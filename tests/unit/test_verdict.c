// SPDX-License-Identifier: GPL-2.0
/* Every verdict class from a hand-made view: the inputs that select it, the knob it names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "verdict.h"

struct row {
	const char *what;
	__u32 ident;
	double exec_ms, rtt_ms;		/* per op, 100 WRITEs of 1 MB */
	double slot_ms, send_ms, session_ms;	/* wait totals per op */
	double full_pct;
	double link_util_pct;
	__u32 cwnd, cong_max;
	bool v41, no_ops;
	enum verdict_class want;
	const char *knob;		/* a piece the knob must hold */
};

static const struct row rows[] = {
	{ "nothing completed", IDENT_TCP, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, true, V_IDLE, NULL },
	{ "link at 90 %", IDENT_RDMA, 10, 2, 5, 0, 0, 90, 90, 0, 0, false, false, V_LINK, "faster link" },
	{ "session-slot waits", IDENT_TCP, 10, 2, 0, 0, 5, 0, 0, 0, 0, true, false, V_SESSION,
	  "max_session_slots (nfs module, now 64" },
	{ "TCP slots full", IDENT_TCP, 10, 2, 5, 0, 0, 60, 0, 0, 0, false, false, V_SLOT,
	  "raise tcp_max_slot_table_entries (now 16)" },
	{ "RDMA slots full", IDENT_RDMA, 10, 2, 5, 0, 0, 60, 10, 64, 10, false, false, V_SLOT,
	  "raise rdma_slot_table_entries (now 128" },
	{ "NFSv4.1 slots full", IDENT_TCP, 10, 2, 5, 0, 0, 60, 0, 0, 0, true, false, V_SLOT,
	  "tcp_max_slot_table_entries does not apply to NFSv4.1+" },
	{ "slot waits, rarely full: not slot-bound", IDENT_TCP, 10, 8, 5, 0, 0, 10, 0, 0, 0, false, false,
	  V_SERVER, "look at the server" },
	{ "RDMA credits all in use", IDENT_RDMA, 10, 2, 0, 5, 0, 0, 10, 64, 64, false, false, V_CREDIT,
	  "grants 64 credits" },
	{ "RDMA send waits, credits to spare", IDENT_RDMA, 10, 2, 0, 5, 0, 0, 10, 64, 20, false, false,
	  V_SEND, "spread them over more" },
	{ "TCP send queue", IDENT_TCP, 10, 2, 0, 5, 0, 0, 0, 0, 0, false, false, V_SEND, "nconnect=N" },
	{ "RTT is most of the time", IDENT_TCP, 10, 6, 0.5, 0, 0, 5, 0, 0, 0, false, false, V_SERVER,
	  "the RTT (6.00 ms)" },
	{ "neither waits nor RTT", IDENT_TCP, 10, 1, 0.5, 0, 0, 5, 0, 0, 0, false, false, V_CLIENT,
	  "the writer itself" },
};

static void test_every_class(void **state)
{
	bool seen[VERDICTS] = { false };

	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *w = &rows[r];
		struct xprt_view x = { .key = 1, .id = 3, .ident = w->ident, .limit = 16, .max_reqs = 16,
				       .full_pct = w->full_pct, .cwnd = w->cwnd, .cong_max = w->cong_max,
				       .bytes_written = 100000000 };
		struct op_view op = { .k = { .xprt = 1, .clid = 2 }, .count = 100, .bytes_sent = 100000000 };
		struct session_view s = { .xprt = 1 };
		struct view v = { .interval_s = 1, .nxprts = 1, .xprts = &x, .ops = &op, .nops = 1,
				  .tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 } };
		struct verdict d;

		strcpy(x.addr, "10.0.0.1");
		strcpy(x.port, "2049");
		strcpy(op.name, "WRITE");
		op.sum_ns[STAGE_EXECUTE] = (__u64)(w->exec_ms * 1e6 * 100);
		op.sum_ns[STAGE_RTT] = (__u64)(w->rtt_ms * 1e6 * 100);
		x.waits[WAIT_SLOT].sum_ns = (__u64)(w->slot_ms * 1e6 * 100);
		x.waits[WAIT_SLOT].count = w->slot_ms > 0 ? 100 : 0;
		x.waits[WAIT_SEND].sum_ns = (__u64)(w->send_ms * 1e6 * 100);
		x.waits[WAIT_SESSION].sum_ns = (__u64)(w->session_ms * 1e6 * 100);
		x.link.rate_gbps = 100;
		x.link.tx_util_pct = w->link_util_pct;
		if (w->v41) {
			v.sessions = &s;
			v.nsessions = 1;
		}
		if (w->no_ops) {
			v.nops = 0;
			x.bytes_written = 0;
		}
		/* the way every view gets its verdict: the figures first (the link's busier side) */
		view_finish(&v);
		d = x.verdict;
		free(v.mops);
		free(v.mounts);
		print_message("%s: %s (%s)\n", w->what, verdict_names[d.cls], d.knob);
		assert_int_equal(d.cls, w->want);
		if (w->knob)
			assert_non_null(strstr(d.knob, w->knob));
		assert_true(d.full_pct == w->full_pct);
		seen[d.cls] = true;
	}
	for (int c = 0; c < VERDICTS; c++)
		assert_true(seen[c]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
