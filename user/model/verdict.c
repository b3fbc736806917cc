// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "lib/fmt.h"
#include "lib/uhist.h"
#include "model/verdict.h"
#include "model/whatif.h"

static void flag(struct verdict *d, const char *msg)
{
	if (d->nflags < sizeof(d->flags) / sizeof(d->flags[0]))
		snprintf(d->flags[d->nflags++], sizeof(d->flags[0]), "%s", msg);
}

static void pathologies(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	char msg[200];

	/*
	 * a721035477fb: after -ENOMEM from xprt_rdma_alloc_slot, call_reserveresult() sleeps HZ/4
	 * although the woken task already has its slot: the held-idle count, not a guess from the
	 * delays' median, says when (below the backlog-stall verdict's tenth too)
	 */
	if (x->ident == IDENT_RDMA && x->n.held_idle) {
		snprintf(msg, sizeof(msg), "%llu delays held a slot idle, %.1f%% of the slot-time "
			 "(a721035477fb; fixed by \"xprtrdma: Avoid 250 ms delay on backlog wakeup\")",
			 (unsigned long long)x->n.held_idle, 100 * d->held_idle_share);
		flag(d, msg);
	}
	if (x->ident == IDENT_RDMA && x->cwnd && x->cwnd <= 1 && x->waits[WAIT_SEND].count) {
		snprintf(msg, sizeof(msg), "the server grants %u credit: one RPC in flight per "
			 "connection (a grant of 0 is floored to 1)", x->cwnd);
		flag(d, msg);
	}
	if (!v->final && v->interval_s >= 1 && x->backlog_now && x->in_use >= 0 &&
	    (__u32)x->in_use < x->limit && !x->n.acquires && !x->n.releases) {
		snprintf(msg, sizeof(msg), "%u tasks wait on the backlog while %u of %u slots are free "
			 "(a lost wake-up: \"xprtrdma: Close lost-wakeup race\")", x->backlog_now,
			 x->limit - (__u32)x->in_use, x->limit);
		flag(d, msg);
	}
}

/* the figures every class is judged on: rates, Little's-law ceilings, the waits' shares */
static void figures(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	double exec = x->exec_ns, n = x->op_count, data_ops = x->data_ops;
	double data_bytes = (double)(x->bytes_written + x->bytes_read), data_rtt = x->data_rtt_ns;

	memset(d, 0, sizeof(*d));
	d->secs = x->rate_s;
	for (size_t i = 0; i < v->nsessions; i++)
		if (v->sessions[i].xprt == x->key)
			d->v41 = true;
	if (d->secs > 0)
		d->achieved_Bps = x->write_Bps + x->read_Bps;
	d->rtt_ms = n ? x->rtt_ns / n / 1e6 : 0;
	/*
	 * Little's law over the data ops' own round trip: a COMMIT or LOOKUP that takes longer says
	 * nothing about how fast slots carrying WRITEs come back
	 */
	if (data_ops && data_rtt > 0)
		d->ceiling_Bps = (double)x->limit * (data_bytes / data_ops) / (data_rtt / data_ops / 1e9);
	/*
	 * A slot held idle through a delay stretches its cycle from the RTT to the RTT and the
	 * delay: the same Little's law with the idle time in the slots' busy time
	 */
	if (x->n.held_idle_ns && x->mean_in_use > 0 && x->span_ns > 0)
		d->held_idle_share = (double)x->n.held_idle_ns / (x->mean_in_use * x->span_ns);
	if (x->n.held_idle_ns && data_ops && data_rtt > 0)
		d->stall_ceiling_Bps = (double)x->limit * data_bytes * 1e9 / (data_rtt + (double)x->n.held_idle_ns);
	d->link_Bps = x->link.rate_gbps * 1e9 / 8;
	d->link_util_pct = x->link.util_pct;
	d->full_pct = x->full_pct;
	for (int k = 0; k < WAIT_KINDS; k++)
		d->wait_share[k] = exec > 0 ? (double)x->waits[k].sum_ns / exec : 0;
}

/* more transports, as this mount can have them: its nconnect group, or the option itself */
static void nconnect_advice(const struct view *v, const struct xprt_view *x, char *nc, size_t len)
{
	struct nconnect_group ng;

	nconnect_group(v, x, &ng);
	if (ng.mountpoint)
		snprintf(nc, len, "a higher nconnect (%u transports over %u addresses now; every "
			 "mount of it unmounted first)", ng.n, ng.naddrs);
	else if (ng.n > 1)
		snprintf(nc, len, "a higher nconnect (%u transports to %s now; every mount of it "
			 "unmounted first)", ng.n, x->addr);
	else
		snprintf(nc, len, "nconnect=N");
}

/*
 * Little's law keeps what moved under the limit over the RTT (each slot held at least a round
 * trip) but for two things, and a ceiling under what moved says which: more in flight than the
 * limit at times (a pool's slack, a limit that moved), or a span of few round trips, into which
 * RPCs sent before it completed
 */
static void ceiling_note(const struct xprt_view *x, struct verdict *d)
{
	size_t o = strlen(d->why);
	double trips = d->rtt_ms > 0 ? d->secs * 1e3 / d->rtt_ms : 0;

	if (d->ceiling_Bps <= 0 || d->achieved_Bps <= d->ceiling_Bps * 1.005 || o >= sizeof(d->why))
		return;
	if (x->interval_peak > x->limit)
		snprintf(d->why + o, sizeof(d->why) - o, " (under what moved: up to %u in flight, more "
			 "than the limit)", x->interval_peak);
	else
		snprintf(d->why + o, sizeof(d->why) - o, " (under what moved: a span of %.1f round trips, "
			 "into which RPCs sent before it completed)", trips);
}

/* the line every busy transport's verdict starts from, before a class says more */
static void summary_why(const struct xprt_view *x, struct verdict *d)
{
	char a[32], b[32];

	snprintf(d->why, sizeof(d->why), "all %u slots in use %.0f%% of the busy time; waits: slot %.0f%%, "
		 "send/credit %.0f%%, session %.0f%% of op time; RTT %.2f ms; %s of ceiling %s",
		 x->limit, d->full_pct, 100 * d->wait_share[WAIT_SLOT],
		 100 * d->wait_share[WAIT_SEND], 100 * d->wait_share[WAIT_SESSION], d->rtt_ms,
		 fmt_rate(a, sizeof(a), d->achieved_Bps, d->achieved_Bps),
		 d->ceiling_Bps > 0 ? fmt_rate(b, sizeof(b), d->ceiling_Bps, d->ceiling_Bps) : "?");
	ceiling_note(x, d);
}

/*
 * A tenth of the slot-time in use held idle in delays: the slots are not short, they sit
 * idle. On RDMA each is the 250 ms after a hand-off from the backlog: the kernel's fix
 * removes it; until then, only keeping the backlog from forming (more slots) avoids it.
 */
static void stall(const struct tunables *t, const struct xprt_view *x, struct verdict *d)
{
	const struct wait_view *dw = &x->waits[WAIT_DELAY];
	char a[32], b[32], c[32];

	d->cls = V_STALL;
	snprintf(d->why, sizeof(d->why), "%llu delays held a slot idle (p50 %.0f ms): %.0f%% of "
		 "the slot-time in use; all %u slots in use %.0f%% of the busy time; %s of ceiling %s "
		 "with the delays, %s without", (unsigned long long)x->n.held_idle, dw->p50_ns / 1e6,
		 100 * d->held_idle_share, x->limit, d->full_pct,
		 fmt_rate(a, sizeof(a), d->achieved_Bps, d->achieved_Bps),
		 d->stall_ceiling_Bps > 0 ? fmt_rate(b, sizeof(b), d->stall_ceiling_Bps, d->stall_ceiling_Bps) : "?",
		 d->ceiling_Bps > 0 ? fmt_rate(c, sizeof(c), d->ceiling_Bps, d->ceiling_Bps) : "?");
	if (x->ident == IDENT_RDMA)
		snprintf(d->knob, sizeof(d->knob), "a kernel with \"xprtrdma: Avoid 250 ms delay on "
			 "backlog wakeup\" (6.1.178, 6.12.97, 7.1); until then raise "
			 "rdma_slot_table_entries (now %ld), or nconnect (proto=rdma: ~6.9)",
			 t->rdma_slots);
	else
		snprintf(d->knob, sizeof(d->knob), "tasks sit out rpc_delay() with a slot in hand (the "
			 "kernel's retry after -ENOMEM, -ENOBUFS or a refused connection): look at "
			 "the client's memory and the connection");
}

/* every slot in use and RPCs waiting for one: which limit to raise, as this transport was made */
static void slot_knob(const struct tunables *t, const struct xprt_view *x, const char *nc, struct verdict *d)
{
	if (x->ident == IDENT_RDMA)
		snprintf(d->knob, sizeof(d->knob), "raise rdma_slot_table_entries (now %ld; read when a "
			 "transport is created) and remount, or %s (proto=rdma: b326df4a8ec6, "
			 "~6.9)", t->rdma_slots, nc);
	else if (d->v41)
		snprintf(d->knob, sizeof(d->knob), "add transports: %s; "
			 "tcp_max_slot_table_entries does not apply to NFSv4.1+", nc);
	else if (t->tcp_max_slots > (long)x->max_reqs)
		/* the sysctl was raised after this transport was made: only a new one gets it */
		snprintf(d->knob, sizeof(d->knob), "tcp_max_slot_table_entries is already %ld but this "
			 "transport was created with %u: unmount every mount of %s and remount; or "
			 "%s", t->tcp_max_slots, x->max_reqs, x->addr, nc);
	else
		snprintf(d->knob, sizeof(d->knob), "raise tcp_max_slot_table_entries (now %ld), then "
			 "unmount every mount of %s and remount; or %s", t->tcp_max_slots, x->addr, nc);
}

static void credit_knob(const struct xprt_view *x, struct verdict *d)
{
	const char *proto = proto_name(x->ident);

	if (x->credit.known)
		snprintf(d->knob, sizeof(d->knob), "the server grants %u credits per %s connection "
			 "(all in use %.0f%% of the time any was): raise its limit (Linux nfsd: "
			 "/proc/sys/sunrpc/svc_rdma/max_requests) or add connections",
			 x->credit.limit, proto, x->credit.at_limit_pct);
	else
		snprintf(d->knob, sizeof(d->knob), "the server grants %u credits per %s connection: "
			 "raise its limit (Linux nfsd: /proc/sys/sunrpc/svc_rdma/max_requests) or add "
			 "connections", x->cwnd, proto);
}

/* the wait that takes the largest share of the ops' time */
static int dominant_wait(const struct verdict *d)
{
	int dom = WAIT_SLOT;

	for (int k = WAIT_SEND; k <= WAIT_SESSION; k++)
		if (d->wait_share[k] > d->wait_share[dom])
			dom = k;
	return dom;
}

/* the class: the first of these that holds, in order, with its knob */
static void classify(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	const struct tunables *t = &v->tun;
	char c[32], nc[128];
	int dom;

	figures(v, x, d);
	pathologies(v, x, d);
	nconnect_advice(v, x, nc, sizeof(nc));
	if (!x->op_count && !x->waits[WAIT_SLOT].count && !x->waits[WAIT_SESSION].count) {
		d->cls = V_IDLE;
		snprintf(d->why, sizeof(d->why), "no RPC completed");
		return;
	}
	summary_why(x, d);
	if (d->link_Bps > 0 && d->link_util_pct >= 80) {
		d->cls = V_LINK;
		snprintf(d->why, sizeof(d->why), "the link carries %.0f%% of its %s", d->link_util_pct,
			 fmt_rate(c, sizeof(c), d->link_Bps, d->link_Bps));
		snprintf(d->knob, sizeof(d->knob), "the network is the limit: a faster link or more ports");
		return;
	}
	if (d->held_idle_share >= 0.1) {
		stall(t, x, d);
		return;
	}
	dom = dominant_wait(d);
	if (d->wait_share[dom] >= 0.1 && dom == WAIT_SESSION) {
		d->cls = V_SESSION;
		snprintf(d->knob, sizeof(d->knob), "raise max_session_slots (nfs module, now %ld; the server "
			 "caps it too), then remount; tcp_max_slot_table_entries does not apply to NFSv4.1+",
			 t->max_session_slots);
		return;
	}
	if (d->wait_share[dom] >= 0.1 && dom == WAIT_SLOT && d->full_pct >= 20) {
		d->cls = V_SLOT;
		slot_knob(t, x, nc, d);
		return;
	}
	/*
	 * every credit in use: measured against the grant in force where both cong hooks are on, for
	 * a fifth of the credit-busy time as slots are (a reconnect's grant of one until the first
	 * reply puts every interval with one at the limit for a moment)
	 */
	if (d->wait_share[dom] >= 0.1 && dom == WAIT_SEND && x->ident != IDENT_TCP && x->cwnd &&
	    (x->credit.known ? x->credit.at_limit_pct >= 20 : x->cong_max >= x->cwnd)) {
		d->cls = V_CREDIT;
		credit_knob(x, d);
		return;
	}
	if (d->wait_share[dom] >= 0.1 && dom == WAIT_SEND) {
		d->cls = V_SEND;
		/*
		 * A full socket is also a server that reads slowly: then more connections gain nothing
		 * (VM, 96 writers, nconnect 1 -> 2 -> 4: 27.6, 24.6, 26.1 MB/s, the RTT 82 -> 700 ms).
		 * The what-if tells the two apart from the connection's own counters (whatif.c).
		 */
		snprintf(d->knob, sizeof(d->knob), "RPCs queue to get onto the connection (its socket "
			 "or send queue is full): spread them over more with %s, unless the server's "
			 "window holds it (the what-if's basis): a server that reads slowly gains nothing", nc);
		return;
	}
	if (rtt_paced(x->rtt_ns, x->exec_ns)) {
		d->cls = V_SERVER;
		snprintf(d->knob, sizeof(d->knob), "slots are not the limit: the RTT (%.2f ms) is; look at "
			 "the server (nfsd threads, its storage) or the round trip", d->rtt_ms);
		return;
	}
	d->cls = V_CLIENT;
	snprintf(d->knob, sizeof(d->knob), "neither slots, credits nor RTT dominate: the writer itself "
		 "(CPU, page cache, its I/O pattern)");
}

void verdict_for(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	classify(v, x, d);
	whatif_for(v, x, d);
}
