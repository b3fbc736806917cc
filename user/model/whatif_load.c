// SPDX-License-Identifier: GPL-2.0
/*
 * Where a prediction starts: a transport's load while busy, or its server's transports' together
 * (whatif.h's struct load), with how far the curve is read: twice the RPCs in flight; and the
 * rate the node's CPUs would carry with all their time at work.
 */
#include <string.h>
#include "model/whatif.h"

#define NCONNECT_MAX WHATIF_NCONNECT_MAX(v)

bool whatif_load(const struct xprt_view *x, double cap, unsigned int waits, struct load *ld)
{
	/* slot-ns held: the model's mean over the span, times the span */
	double held = x->mean_in_use * x->span_ns, rpcs = (double)x->curve.total, waiting = 0;

	memset(ld, 0, sizeof(*ld));
	if (x->busy_ns <= 0 || rpcs <= 0 || held <= 0)
		return false;
	for (int k = 0; k < WAIT_KINDS; k++)
		if (waits & (1u << k))
			waiting += (double)x->waits[k].sum_ns;
	ld->Bps = (double)(x->bytes_written + x->bytes_read) / (x->busy_ns / 1e9);
	ld->in_use = held / x->busy_ns;
	ld->demand = ld->in_use + waiting / x->busy_ns;
	if (cap > 0 && ld->in_use > cap)
		ld->in_use = cap;
	ld->hold_ns = ld->in_use * x->busy_ns / rpcs;
	/*
	 * the server's pace was seen at the load it carried, not at a moment's peak (a table full
	 * for one tick of a hundred): the curve is read to twice the RPCs it had in flight
	 */
	ld->reach = 2 * ld->in_use;
	return ld->Bps > 0;
}

double whatif_conn_cap(const struct view *v, const struct xprt_view *x)
{
	const struct tcp_limits *t = &x->link.tcp;
	double buf = v->tun.tcp_wmem_max > 0 ? (double)v->tun.tcp_wmem_max : 0;

	if (x->ident != IDENT_TCP || t->min_rtt_s <= 0)
		return 0;
	if (t->sndbuf_bytes > buf)
		buf = t->sndbuf_bytes;
	/*
	 * The send buffer holds every byte not yet acknowledged: what can be in flight. Not the
	 * server's window: a step makes a new connection, whose window scale the server chooses
	 * anew from buffers it may have raised since (the demo's 8 MiB became 64 MiB)
	 */
	return buf > 0 ? buf / t->min_rtt_s : 0;
}

/*
 * nconnect's transports (the server's, or a multipath mount's over its addresses) as one: their
 * loads summed, the server's RTT per RPC, each netdev's rate once (VAST's localports= spreads a
 * mount's transports over several local ports, so its ceiling is theirs together)
 */
bool whatif_group_load(const struct view *v, const struct xprt_view *x, unsigned int *conns, struct load *g,
		       double *links_Bps)
{
	const char *seen[NCONNECT_MAX];
	struct nconnect_group ng;
	double rpcs = 0, hold = 0, cap;
	size_t nseen = 0;
	bool unknown = false, capped = true;

	memset(g, 0, sizeof(*g));
	*conns = 0;
	*links_Bps = 0;
	nconnect_group(v, x, &ng);
	for (size_t i = 0; i < v->nxprts; i++) {
		const struct xprt_view *y = &v->xprts[i];
		struct load ld;
		size_t j;

		if (!nconnect_member(&ng, y))
			continue;
		++*conns;
		if (!y->link.known || y->link.rate_gbps <= 0 || !y->link.netdev[0])
			unknown = true;
		for (j = 0; !unknown && j < nseen && strcmp(seen[j], y->link.netdev); j++)
			;
		if (!unknown && j == nseen && nseen < NCONNECT_MAX) {
			seen[nseen++] = y->link.netdev;
			*links_Bps += y->link.rate_gbps * 1e9 / 8;
		}
		if (!whatif_load(y, 0, 1u << WAIT_SLOT, &ld))
			continue;
		cap = y->link.tcp.most_Bps;
		if (!cap)
			capped = false;
		else if (cap > g->conn_each_Bps)
			g->conn_each_Bps = cap;
		g->Bps += ld.Bps;
		g->reach += ld.reach;
		g->in_use += ld.in_use;
		g->demand += ld.demand;
		hold += ld.hold_ns * (double)y->curve.total;
		rpcs += (double)y->curve.total;
	}
	g->hold_ns = rpcs > 0 ? hold / rpcs : 0;
	/* a connection not read bounds nothing: neither does the group */
	if (!capped)
		g->conn_each_Bps = 0;
	g->conn_Bps = g->conn_each_Bps * *conns;
	if (unknown)
		*links_Bps = 0;
	return *conns > 0 && g->Bps > 0;
}

/* the node's CPUs: the rate they would carry at today's work per byte with all their time at work */
double whatif_cpu_Bps(const struct view *v, double Bps, double busy_ns)
{
	double share;

	if (v->cpu_busy_pct <= 0 || busy_ns <= 0 || v->interval_s <= 0)
		return 0;
	share = v->cpu_busy_pct / 100 * v->interval_s / (busy_ns / 1e9);
	return Bps / (share < 1 ? share : 1);
}

void whatif_cpu_cut(double Bps, double cpu_Bps, struct what_if *w)
{
	double least = cpu_Bps > Bps ? cpu_Bps : Bps;

	if (cpu_Bps <= 0 || w->high_Bps <= cpu_Bps)
		return;
	w->cpu_Bps = cpu_Bps;
	if (w->low_Bps > least)
		w->low_Bps = least;
	if (w->high_Bps > WHATIF_UNKNOWN_SPAN * w->low_Bps)
		w->high_Bps = WHATIF_UNKNOWN_SPAN * w->low_Bps;
	w->next_limit = whatif_unknown;
}
