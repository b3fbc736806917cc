// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model/whatif.h"

/*
 * the kernel's ceilings: RPC_MAX_SLOT_TABLE_LIMIT, RPCRDMA_MAX_SLOT_TABLE, NFS_MAX_CONNECTIONS,
 * NFS4_MAX_SLOT_TABLE. nconnect's is the stack's (struct tunables): 16 in the kernel's nfs since
 * nconnect came (5.3), 64 in VAST NFS (its fs/nfs/internal.h).
 */
#define TCP_SLOTS_MAX	65536u
#define RDMA_SLOTS_MAX	256u
#define NCONNECT_MAX	(v->tun.nconnect_max > 0 ? (unsigned int)v->tun.nconnect_max : 16u)
#define SESSION_MAX	1024u

static double bucket_mid(unsigned int b, __u32 limit)
{
	unsigned int lo, hi;

	level_bucket_range(b, limit, &lo, &hi);
	return (lo + hi) / 2.0;
}

/*
 * A weighted least-squares line through the buckets' mean RTTs (each weighs its RPCs), and the
 * slope's standard error from the scatter about it: a bucket's mean over w RPCs varies as 1/w.
 * The range is one standard error either side, never below flat. Past proportional (the RTT
 * growing as fast as the RPCs in flight: a server at its limit) the curve cannot say more than
 * that throughput stops growing, so the steep end stops there unless the fit itself is steeper.
 */
void curve_fit(const struct curve_view *c, __u32 limit, struct curve_fit *f)
{
	double w = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, res = 0, prop;

	memset(f, 0, sizeof(*f));
	for (unsigned int b = 1; b < LEVEL_BUCKETS; b++) {
		double n = (double)c->rpcs[b], x = bucket_mid(b, limit);

		if (!c->rpcs[b])
			continue;
		f->points++;
		w += n;
		sx += n * x;
		sy += n * c->rtt_mean_ns[b];
	}
	f->rpcs = w;
	if (w <= 0)
		return;
	f->level = sx / w;
	f->rtt_ns = sy / w;
	for (unsigned int b = 1; b < LEVEL_BUCKETS; b++) {
		double n = (double)c->rpcs[b], dx = bucket_mid(b, limit) - f->level;

		if (!c->rpcs[b])
			continue;
		sxx += n * dx * dx;
		sxy += n * dx * (c->rtt_mean_ns[b] - f->rtt_ns);
	}
	prop = f->level > 0 ? f->rtt_ns / f->level : 0;
	/*
	 * A slope needs three levels: through two, one of them a handful of RPCs (the one that
	 * took the last free slot as the window opened), a line says nothing of the scatter
	 */
	if (f->points < 3 || sxx <= 0) {
		f->slope_lo_ns = 0;
		f->slope_hi_ns = prop;
		return;
	}
	f->known = true;
	f->slope_ns = sxy / sxx;
	for (unsigned int b = 1; b < LEVEL_BUCKETS; b++) {
		double n = (double)c->rpcs[b], dx = bucket_mid(b, limit) - f->level;
		double e = c->rtt_mean_ns[b] - f->rtt_ns - f->slope_ns * dx;

		if (c->rpcs[b])
			res += n * e * e;
	}
	{
		double se = sqrt(res / (f->points - 2) / sxx);
		double hi = f->slope_ns + se, lo = f->slope_ns - se, first = 0, secant;

		/*
		 * A server that answers faster per RPC as more arrive (batching, a busier poll) grows
		 * its RTT less than a line through the top of the curve says: the gentle end is also
		 * no steeper than the climb from the lowest level to the mean
		 */
		for (unsigned int b = 1; b < LEVEL_BUCKETS && !first; b++)
			if (c->rpcs[b])
				first = b;
		if (first && bucket_mid(first, limit) < f->level) {
			secant = (f->rtt_ns - c->rtt_mean_ns[(unsigned int)first]) /
				 (f->level - bucket_mid(first, limit));
			if (secant < lo)
				lo = secant;
		}
		f->slope_lo_ns = lo > 0 ? lo : 0;
		if (hi > prop)
			hi = f->slope_ns > prop ? f->slope_ns : prop;
		f->slope_hi_ns = hi > f->slope_lo_ns ? hi : f->slope_lo_ns;
	}
}

/* throughput with @n RPCs in flight if the RTT grows by @slope ns per RPC more */
static double at(const struct load *ld, const struct curve_fit *f, double n, double slope)
{
	double client_ns = ld->hold_ns > f->rtt_ns ? ld->hold_ns - f->rtt_ns : 0;
	double rtt = f->rtt_ns + slope * (n - f->level);
	double hold;

	if (rtt < f->rtt_ns && n >= f->level)
		rtt = f->rtt_ns;
	hold = (rtt > 0 ? rtt : 0) + client_ns;
	/*
	 * More in flight never holds each RPC shorter than now: the fitted line read below the
	 * level it was fitted at (credits in flight under the slots the curve saw) would promise
	 * more than proportional gain (x3.6 for 32 -> 64 credits).
	 */
	if (hold < ld->hold_ns)
		hold = ld->hold_ns;
	if (hold <= 0 || ld->in_use <= 0)
		return ld->Bps;
	return ld->Bps * (n / ld->in_use) * (ld->hold_ns / hold);
}

void whatif_predict(const struct load *ld, const struct curve_fit *f, double n_next, double cap_Bps,
		    double cap_n, const char *cap_name, const char *same, struct what_if *w)
{
	double n = n_next, mid_rtt;
	const char *next = same;

	if (cap_n > 0 && cap_n < n) {
		n = cap_n;
		next = cap_name;
	}
	if (ld->demand < n) {
		n = ld->demand;
		next = verdict_names[V_CLIENT];
	}
	if (n <= ld->in_use || f->rpcs <= 0) {
		/* no more would be in flight: nothing changes, and what stops it is named */
		w->low_Bps = w->high_Bps = ld->Bps;
		w->next_limit = next;
		return;
	}
	w->high_Bps = at(ld, f, n, f->slope_lo_ns);
	w->low_Bps = at(ld, f, n, f->slope_hi_ns);
	if (w->low_Bps < ld->Bps)
		w->low_Bps = ld->Bps;
	if (w->high_Bps < w->low_Bps)
		w->high_Bps = w->low_Bps;
	/* the RTT half again what it is at the fitted slope: the server's answer time sets the pace */
	mid_rtt = f->rtt_ns + (f->known ? f->slope_ns : (f->slope_lo_ns + f->slope_hi_ns) / 2) * (n - f->level);
	if (next == same && f->known && mid_rtt >= 1.5 * f->rtt_ns)
		next = verdict_names[V_SERVER];
	if (cap_Bps > 0 && w->high_Bps > cap_Bps) {
		w->high_Bps = cap_Bps;
		if (w->low_Bps > cap_Bps)
			w->low_Bps = cap_Bps;
		next = verdict_names[V_LINK];
	}
	w->next_limit = next;
}

/*
 * Transport @x's load while busy; @cap (0: none) bounds the RPCs in flight below the slots in use
 * (credits granted); @waits the kinds of wait for the limit the knob moves (a mask of 1 << kind).
 */
static bool load_of(const struct xprt_view *x, double cap, unsigned int waits, struct load *ld)
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
	return ld->Bps > 0;
}

/*
 * @from's next sensible values up to @max: twice, four times, the power of two that would have
 * let the most RPCs that ever wanted a place at once (@peak) all into flight, and @now, what the
 * knob is set to today if that is more (a transport made before it was raised: a remount's worth)
 */
static size_t next_values(__u32 from, __u32 max, double peak, long now, __u32 *out)
{
	__u32 c[4] = { from * 2, from * 4, 1, now > 0 && now < (long)max ? (__u32)now : 0 }, n = 0;

	while (c[2] < peak && c[2] < max)
		c[2] *= 2;
	for (int i = 0; i < 4; i++) {
		__u32 v = c[i] > max ? max : c[i];
		bool dup = v <= from;

		for (__u32 j = 0; j < n && !dup; j++)
			dup = out[j] == v;
		if (!dup)
			out[n++] = v;
	}
	/* ascending */
	for (__u32 i = 1; i < n; i++)
		for (__u32 j = i; j > 0 && out[j] < out[j - 1]; j--) {
			__u32 t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void add(struct verdict *d, const char *knob, __u32 from, __u32 to, const struct load *ld,
		const struct curve_fit *f, double n_next, double cap_Bps, double cap_n, const char *cap_name,
		const char *same)
{
	struct what_if *w;

	if (d->nwhat_if >= WHAT_IFS)
		return;
	w = &d->what_if[d->nwhat_if++];
	memset(w, 0, sizeof(*w));
	w->knob = knob;
	w->from = from;
	w->to = to;
	whatif_predict(ld, f, n_next, cap_Bps, cap_n, cap_name, same, w);
}

/*
 * nconnect's transports (nconnect_group: the server's, or a multipath mount's over its addresses)
 * as one: their loads summed, the server's RTT per RPC. *@links_Bps: the links they cross, each
 * netdev's rate once (VAST's localports= spreads a mount's transports over several local ports,
 * so its ceiling is theirs together); 0 when one of them is unknown.
 */
static bool group_load(const struct view *v, const struct xprt_view *x, unsigned int *conns, struct load *g,
		       double *links_Bps)
{
	const char *seen[NCONNECT_MAX];
	struct nconnect_group ng;
	double rpcs = 0, hold = 0;
	size_t nseen = 0;
	bool unknown = false;

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
		if (!load_of(y, 0, 1u << WAIT_SLOT, &ld))
			continue;
		g->Bps += ld.Bps;
		g->in_use += ld.in_use;
		g->demand += ld.demand;
		hold += ld.hold_ns * (double)y->curve.total;
		rpcs += (double)y->curve.total;
	}
	g->hold_ns = rpcs > 0 ? hold / rpcs : 0;
	if (unknown)
		*links_Bps = 0;
	return *conns > 0 && g->Bps > 0;
}

/*
 * The slots a new transport will have at TO slots. An RDMA pool with slack keeps it at the new
 * value: "xprtrdma: Add request-pool slack for delayed recycling" (mainline 7.2; 6.1.189,
 * 6.12.111) makes max_reqs + DIV_ROUND_UP(max_reqs, 8) requests, so 16 slots are 18 and 64 are
 * 72. Slack of another size (the most seen in use) is taken as the same share of the table.
 */
static double pool_for(const struct xprt_view *x, unsigned to)
{
	if (!x->max_reqs || x->limit <= x->max_reqs)
		return to;
	if (x->limit == x->max_reqs + (x->max_reqs + 7) / 8)
		return to + (to + 7) / 8;
	return (double)to * x->limit / x->max_reqs;
}

void whatif_monotone(struct what_if *w, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (w[i].low_Bps < w[i - 1].low_Bps)
			w[i].low_Bps = w[i - 1].low_Bps;
		if (w[i].high_Bps < w[i - 1].high_Bps)
			w[i].high_Bps = w[i - 1].high_Bps;
		if (w[i].high_Bps < w[i].low_Bps)
			w[i].high_Bps = w[i].low_Bps;
	}
}

/*
 * Connection-bound: the RPCs queue for the transport's one connection, which sends them one after
 * another. What holds a send is either the connection itself (its window or send buffer against
 * the round trip, the CPU that copies), which each added connection has again, or what all of them
 * share: the server's receive window where the server's pace sets it, or a congested path. tcp_info
 * says what share of the busy time the peer's window held the data back (@r); a connection that
 * retransmitted one segment in a hundred met congestion, which more connections share (@r taken as
 * 1; one retransmission in the VM's loopback is no such thing). At worst that share
 * does not shrink at all while the rest does with the connections (the low end, Amdahl's law:
 * X / ((1 - r) N / M + r)); at best the server's window is its socket's buffer, which each added
 * connection has again too (proportional). Under the RPCs' own pace: their execute time without
 * the send queue (Little on the RPCs themselves; the slots' mean in use is read from buckets a
 * 2,048th of a 65,536-slot table wide). In the VM, at 100 ms with a 512 KiB send buffer (r 0.01
 * or 0): nconnect 1 -> 2 moved 1.91-2.17x against 1.98-2x. Read over a baseline tick only (no
 * busy time summed yet), or with no answer, the range is flat..proportional and the class stays.
 */
static void conn_whatif(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	double links_Bps, busy = 0, rwnd = 0, sndbuf = 0, rpcs = 0, waited = 0, exec = 0, r, share, hi, lo;
	struct what_if *w = &d->what_if[0];
	struct nconnect_group ng;
	unsigned int conns, to;
	unsigned long long retrans = 0, segs = 0;
	bool known = true, congested;
	struct load g;

	if (x->ident != IDENT_TCP) {
		snprintf(d->what_if_why, sizeof(d->what_if_why), "a connection's limits are read for TCP only");
		return;
	}
	if (!group_load(v, x, &conns, &g, &links_Bps) || conns >= NCONNECT_MAX)
		return;
	nconnect_group(v, x, &ng);
	for (size_t i = 0; i < v->nxprts; i++) {
		const struct xprt_view *y = &v->xprts[i];

		if (!nconnect_member(&ng, y))
			continue;
		known = known && y->link.tcp.known;
		busy += y->link.tcp.busy_s;
		rwnd += y->link.tcp.rwnd_s;
		sndbuf += y->link.tcp.sndbuf_s;
		retrans += y->link.tcp.retrans;
		segs += y->link.tcp.segs_out;
		waited += (double)y->waits[WAIT_SEND].sum_ns;
		rpcs += (double)y->curve.total;
		for (unsigned int b = 0; b < LEVEL_BUCKETS; b++)
			exec += (double)y->curve.exec_ns[b];
	}
	to = conns * 2 > NCONNECT_MAX ? NCONNECT_MAX : conns * 2;
	/* read over a baseline tick only, no busy time yet: as unread */
	known = known && busy > 0;
	congested = known && retrans && retrans * 100 >= segs;
	share = known ? rwnd / busy : 0;
	if (share > 1)
		share = 1;
	/* what may not grow with the connections: the server's window's share, or all when unsure */
	r = known && !congested ? share : 1;
	hi = g.Bps * to / conns;
	lo = g.Bps / ((1 - r) * conns / to + r);
	d->nwhat_if = 1;
	memset(w, 0, sizeof(*w));
	w->knob = "nconnect";
	w->from = conns;
	w->to = to;
	w->next_limit = known && !congested && share >= 0.5 ? verdict_names[V_SERVER] : verdict_names[V_SEND];
	/* an RPC's own time less its wait for the connection: how fast the writers could go */
	if (rpcs > 0 && exec > waited) {
		double cap = g.Bps * exec / (exec - waited);

		if (cap < hi) {
			hi = cap;
			w->next_limit = verdict_names[V_CLIENT];
		}
	}
	if (links_Bps <= 0)
		links_Bps = d->link_Bps;
	if (links_Bps > 0 && links_Bps < hi) {
		hi = links_Bps > g.Bps ? links_Bps : g.Bps;
		w->next_limit = verdict_names[V_LINK];
	}
	w->high_Bps = hi;
	w->low_Bps = lo < g.Bps ? g.Bps : lo > hi ? hi : lo;
	if (congested)
		snprintf(d->what_if_why, sizeof(d->what_if_why), "the connection retransmitted %llu of "
			 "%llu segments: a congested path, which more connections share: flat..proportional",
			 retrans, segs);
	else if (known)
		snprintf(d->what_if_why, sizeof(d->what_if_why), "the connection busy %.1f s, held by the "
			 "server's window %.0f %% of it (by its send buffer %.0f %%), %.1f ms an RPC in the "
			 "send queue", busy, 100 * share, 100 * sndbuf / busy,
			 rpcs > 0 ? waited / rpcs / 1e6 : 0);
	else
		snprintf(d->what_if_why, sizeof(d->what_if_why), "the connection's limits unread (no "
			 "sock_diag answer for it, or read at one tick only): flat..proportional");
}

void whatif_for(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	const char *slot = verdict_names[V_SLOT];
	bool borrowed = false;
	struct curve_fit f;
	struct load ld;
	__u32 to[4];
	size_t n, first;

	d->nwhat_if = 0;
	d->what_if_why[0] = 0;
	if (d->cls == V_SEND) {
		conn_whatif(v, x, d);
		return;
	}
	if (d->cls != V_SLOT && d->cls != V_CREDIT && d->cls != V_SESSION)
		return;
	curve_fit(&x->curve, x->limit, &f);
	if (f.rpcs <= 0) {
		snprintf(d->what_if_why, sizeof(d->what_if_why), "no RPC on the in-flight curve");
		return;
	}
	if (!f.known) {
		/* every RPC at one level (the table full throughout): the slope since first seen,
		 * whose ramps up and down saw the other levels, around this record's point */
		struct curve_fit all;

		curve_fit(&x->curve_all, x->limit, &all);
		if (all.known) {
			/*
			 * Those levels all lie below this one: how fast the RTT grew on the way up
			 * bounds the steep end, but says nothing of whether it goes on growing past
			 * the top, so the gentle end is flat. Under emulation, the first fill's
			 * lowest levels answered faster than the server's pace (+86 ms per 10
			 * borrowed over 1-18 in flight; +26 seen from 18 to 72): the range's top then
			 * sat 22 % under what 64 slots moved.
			 */
			f.known = borrowed = true;
			f.slope_ns = all.slope_ns;
			f.slope_lo_ns = 0;
			f.slope_hi_ns = all.slope_hi_ns;
		}
	}
	if (f.known)
		snprintf(d->what_if_why, sizeof(d->what_if_why), "RTT %.2f ms at %.0f in flight, %+.3f ms "
			 "per 10 more (%+.3f..%+.3f)%s", f.rtt_ns / 1e6, f.level, f.slope_ns * 10 / 1e6,
			 f.slope_lo_ns * 10 / 1e6, f.slope_hi_ns * 10 / 1e6,
			 borrowed ? ", the slope since first seen" : "");
	else
		snprintf(d->what_if_why, sizeof(d->what_if_why), "RTT %.2f ms at %.0f in flight, its slope "
			 "unseen (every RPC at one level): flat..proportional", f.rtt_ns / 1e6, f.level);
	if (d->cls == V_SLOT && !d->v41) {
		bool rdma = x->ident == IDENT_RDMA;
		double peak = (double)x->interval_peak + x->backlog_max;

		/*
		 * An RDMA client asks the server for as many credits as it has slots, so a grant of
		 * that many says nothing of the server's limit; one below it is the server's own.
		 */
		double credit_cap = rdma && x->cwnd && x->cwnd < x->max_reqs ? x->cwnd : 0;

		if (!load_of(x, 0, 1u << WAIT_SLOT, &ld))
			return;
		n = next_values(x->max_reqs, rdma ? RDMA_SLOTS_MAX : TCP_SLOTS_MAX,
				peak > ld.demand ? peak : ld.demand,
				rdma ? v->tun.rdma_slots : v->tun.tcp_max_slots, to);
		first = d->nwhat_if;
		for (size_t i = 0; i < n; i++)
			/* an RDMA pool keeps its slack over max_reqs; the server's credits bound it */
			add(d, rdma ? "rdma_slot_table_entries" : "tcp_max_slot_table_entries", x->max_reqs,
			    to[i], &ld, &f, pool_for(x, to[i]), d->link_Bps, credit_cap, verdict_names[V_CREDIT],
			    slot);
		whatif_monotone(&d->what_if[first], d->nwhat_if - first);
	} else if (d->cls == V_CREDIT) {
		if (!load_of(x, x->cwnd, 1u << WAIT_SLOT | 1u << WAIT_SEND, &ld))
			return;
		n = next_values(x->cwnd, TCP_SLOTS_MAX, ld.demand, 0, to);
		for (size_t i = 0; i < n && i < 2; i++)
			add(d, "max_requests", x->cwnd, to[i], &ld, &f, to[i], d->link_Bps, x->limit, slot,
			    verdict_names[V_CREDIT]);
		whatif_monotone(d->what_if, d->nwhat_if);
		return;
	} else if (d->cls == V_SESSION) {
		__u32 slots = 0;

		for (size_t i = 0; i < v->nsessions; i++)
			if (v->sessions[i].xprt == x->key && v->sessions[i].s.max_slots > slots)
				slots = v->sessions[i].s.max_slots;
		if (!slots || !load_of(x, 0, 1u << WAIT_SLOT | 1u << WAIT_SESSION, &ld))
			return;
		n = next_values(slots, SESSION_MAX, ld.demand, v->tun.max_session_slots, to);
		for (size_t i = 0; i < n && i < 2; i++)
			add(d, "max_session_slots", slots, to[i], &ld, &f, to[i], d->link_Bps, x->limit, slot,
			    verdict_names[V_SESSION]);
		whatif_monotone(d->what_if, d->nwhat_if);
		return;
	}
	/* slot-bound: more transports to the server, each with its own slots */
	{
		struct curve_fit g = f;
		unsigned int conns;
		double links_Bps;

		if (!group_load(v, x, &conns, &ld, &links_Bps) || conns >= NCONNECT_MAX)
			return;
		/* every transport's RPCs load the one server: its RTT grows with all of them */
		g.level *= conns;
		g.slope_ns /= conns;
		g.slope_lo_ns /= conns;
		g.slope_hi_ns /= conns;
		/* the group's links together bound it; where one is unknown, this transport's link */
		add(d, "nconnect", conns, conns * 2 > NCONNECT_MAX ? NCONNECT_MAX : conns * 2, &ld, &g,
		    (double)x->limit * (conns * 2 > NCONNECT_MAX ? NCONNECT_MAX : conns * 2),
		    links_Bps > 0 ? links_Bps : d->link_Bps, 0, NULL, slot);
	}
}
