// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lib/fmt.h"
#include "model/whatif.h"

/*
 * the kernel's ceilings: RPC_MAX_SLOT_TABLE_LIMIT, RPCRDMA_MAX_SLOT_TABLE (256 until "xprtrdma:
 * Boost client's max slot table size to match Linux server", 5.4: 16384 in every kernel slotscope
 * runs on), NFS4_MAX_SLOT_TABLE; nconnect's, the stack's: whatif.h
 */
#define TCP_SLOTS_MAX	65536u
#define RDMA_SLOTS_MAX	16384u
#define NCONNECT_MAX	WHATIF_NCONNECT_MAX(v)
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


/*
 * Every RPC that wants a place has one at @n: what the transport's verdict then says, by its own
 * rule (verdict.c): server-bound where the round trip is half an RPC's time or more (the writers
 * wait on the server), else client-bound (they wait on themselves)
 */
static const char *writers_pace(const struct load *ld, const struct curve_fit *f, double n)
{
	double client_ns = ld->hold_ns > f->rtt_ns ? ld->hold_ns - f->rtt_ns : 0;
	double slope = f->known ? f->slope_ns : (f->slope_lo_ns + f->slope_hi_ns) / 2;
	double rtt = f->rtt_ns + (slope > 0 && n > f->level ? slope * (n - f->level) : 0);

	return rtt_paced(rtt, rtt + client_ns) ? verdict_names[V_SERVER] : verdict_names[V_CLIENT];
}

/* the lower of the link's rate @link_Bps and what the connections carry, *@name the one it is */
static double cap_of(const struct load *ld, double link_Bps, const char **name)
{
	*name = verdict_names[V_LINK];
	if (ld->conn_Bps > 0 && (link_Bps <= 0 || ld->conn_Bps < link_Bps)) {
		*name = verdict_names[V_SEND];
		return ld->conn_Bps;
	}
	return link_Bps;
}

/*
 * @w's range at @n in flight, cut by the link's rate @cap_Bps and the connections' most; @next
 * names what stops it there
 */
static void range_at(const struct load *ld, const struct curve_fit *f, double n, double cap_Bps,
		     const char *next, const char *same, struct what_if *w)
{
	const char *cap_name;
	double mid_rtt;

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
	cap_Bps = cap_of(ld, cap_Bps, &cap_name);
	if (cap_Bps > 0 && w->high_Bps > cap_Bps) {
		w->high_Bps = cap_Bps;
		if (w->low_Bps > cap_Bps)
			w->low_Bps = cap_Bps;
		next = cap_name;
	}
	w->next_limit = next;
}

/*
 * Where two limits stop the RPCs in flight at the same number, the one an RPC meets first binds:
 * a session slot (nfs41_sequence_prepare runs before call_reserve), then a transport slot, then
 * a credit (asked for by a slot's holder, at the send). So a credit grant raised to the slots a
 * client asks for (an RDMA client asks for as many as it has) leaves it slot-bound.
 */
static int taken_order(const char *limit)
{
	if (!strcmp(limit, verdict_names[V_SESSION]))
		return 0;
	if (!strcmp(limit, verdict_names[V_SLOT]))
		return 1;
	return 2;
}

static void predict(const struct load *ld, const struct curve_fit *f, double n_next, double cap_Bps,
		    double cap_n, const char *cap_name, const char *same, struct what_if *w)
{
	double n = n_next, top;
	const char *next = same, *bound;

	if (cap_n > 0 && (cap_n < n || (cap_n == n && taken_order(cap_name) < taken_order(same)))) {
		n = cap_n;
		next = cap_name;
	}
	if (ld->demand < n) {
		n = ld->demand;
		next = writers_pace(ld, f, n);
	}
	w->in_flight = n;
	w->reach = ld->reach;
	if (ld->reach <= 0 || n <= ld->reach || n <= ld->in_use || f->rpcs <= 0) {
		range_at(ld, f, n, cap_Bps, next, same, w);
		return;
	}
	/*
	 * Past the reach: what the curve says up to it is the least the step buys (a knob raised
	 * further never buys less); what it says at the step with its gentle slope is the most,
	 * and no more than WHATIF_UNKNOWN_SPAN times the least. A cap under the least binds for sure.
	 */
	range_at(ld, f, ld->reach, cap_Bps, same, same, w);
	cap_Bps = cap_of(ld, cap_Bps, &bound);
	if (w->next_limit == bound && w->high_Bps <= w->low_Bps)
		return;
	top = at(ld, f, n, f->slope_lo_ns);
	if (top > WHATIF_UNKNOWN_SPAN * w->low_Bps)
		top = WHATIF_UNKNOWN_SPAN * w->low_Bps;
	if (cap_Bps > 0 && top > cap_Bps)
		top = cap_Bps;
	if (top > w->high_Bps)
		w->high_Bps = top;
	w->next_limit = whatif_unknown;
}

void whatif_predict(const struct load *ld, const struct curve_fit *f, double n_next, double cap_Bps,
		    double cap_n, const char *cap_name, const char *same, struct what_if *w)
{
	predict(ld, f, n_next, cap_Bps, cap_n, cap_name, same, w);
	whatif_cpu_cut(ld->Bps, ld->cpu_Bps, w);
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

/* a step stopped by the writers or the links for sure: no larger one buys more */
static bool capped(const struct what_if *w, const struct load *ld)
{
	return w->in_flight >= ld->demand ||
	       (w->next_limit == verdict_names[V_LINK] && w->low_Bps >= w->high_Bps);
}

/*
 * the basis says where the curve stops being read, when a step goes past it, and what one
 * connection carries at most where that comes within twice a step's top (a local server's least
 * round trip of 0.24 ms put it at 283 GB/s)
 */
static void reach_note(const struct view *v, struct verdict *d, const struct xprt_view *x)
{
	double reach = 0, top = 0, cpu = 0;
	char r[32];
	size_t o;

	o = strlen(d->what_if_why);
	/* only where it could bind: a bound a hundred times any step's top says nothing */
	for (size_t i = 0; i < d->nwhat_if; i++)
		if (d->what_if[i].high_Bps > top)
			top = d->what_if[i].high_Bps;
	if (x->link.tcp.most_Bps > 0 && x->link.tcp.most_Bps <= 2 * top && o < sizeof(d->what_if_why))
		o += (size_t)snprintf(d->what_if_why + o, sizeof(d->what_if_why) - o, "; a connection at "
				      "most %s (a %.0f KiB send buffer over %.1f ms)",
				      fmt_rate(r, sizeof(r), x->link.tcp.most_Bps, x->link.tcp.most_Bps),
				      x->link.tcp.most_Bps * x->link.tcp.min_rtt_s / 1024, x->link.tcp.min_rtt_s * 1e3);

	for (size_t i = 0; i < d->nwhat_if; i++)
		if (d->what_if[i].next_limit == whatif_unknown && d->what_if[i].reach > reach)
			reach = d->what_if[i].reach;
	for (size_t i = 0; i < d->nwhat_if; i++)
		if (d->what_if[i].cpu_Bps > cpu)
			cpu = d->what_if[i].cpu_Bps;
	if (reach > 0 && o < sizeof(d->what_if_why))
		o += (size_t)snprintf(d->what_if_why + o, sizeof(d->what_if_why) - o, "; read to %.0f in "
				      "flight (twice what it had), unknown past it", reach);
	if (cpu > 0 && o < sizeof(d->what_if_why))
		snprintf(d->what_if_why + o, sizeof(d->what_if_why) - o, "; the node's CPUs %.0f%% at work: "
			 "all of them at %s at that work per byte, unknown past it", v->cpu_busy_pct,
			 fmt_rate(r, sizeof(r), cpu, cpu));
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
		whatif_conn(v, x, d);
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
	if (f.known && f.slope_ns < f.slope_lo_ns)
		/* a line through RTTs that fell as more went in flight is not read past its data */
		snprintf(d->what_if_why, sizeof(d->what_if_why), "RTT %.2f ms at %.0f in flight, falling as "
			 "more went in flight (fitted %+.3f ms per 10 more), read as %+.3f..%+.3f%s",
			 f.rtt_ns / 1e6, f.level, f.slope_ns * 10 / 1e6, f.slope_lo_ns * 10 / 1e6,
			 f.slope_hi_ns * 10 / 1e6, borrowed ? ", the slope since first seen" : "");
	else if (f.known)
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

		if (!whatif_load(x, 0, 1u << WAIT_SLOT, &ld))
			return;
		ld.cpu_Bps = whatif_cpu_Bps(v, ld.Bps, x->busy_ns);
		/* however many slots, one connection carries them */
		ld.conn_Bps = x->link.tcp.most_Bps;
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
		if (!whatif_load(x, x->cwnd, 1u << WAIT_SLOT | 1u << WAIT_SEND, &ld))
			return;
		ld.cpu_Bps = whatif_cpu_Bps(v, ld.Bps, x->busy_ns);
		n = next_values(x->cwnd, TCP_SLOTS_MAX, ld.demand, 0, to);
		for (size_t i = 0; i < n && i < 2; i++)
			/* no grant exceeds what the client asks for: its max_reqs, not the pool's slack */
			add(d, "max_requests", x->cwnd, to[i], &ld, &f, to[i], d->link_Bps,
			    x->max_reqs ? x->max_reqs : x->limit, slot, verdict_names[V_CREDIT]);
		whatif_monotone(d->what_if, d->nwhat_if);
	} else if (d->cls == V_SESSION) {
		__u32 slots = 0;

		for (size_t i = 0; i < v->nsessions; i++)
			if (v->sessions[i].xprt == x->key && v->sessions[i].s.max_slots > slots)
				slots = v->sessions[i].s.max_slots;
		if (!slots || !whatif_load(x, 0, 1u << WAIT_SLOT | 1u << WAIT_SESSION, &ld))
			return;
		/* no more RPCs in flight on the session than its slots */
		if (ld.reach > 2.0 * slots)
			ld.reach = 2.0 * slots;
		ld.cpu_Bps = whatif_cpu_Bps(v, ld.Bps, x->busy_ns);
		n = next_values(slots, SESSION_MAX, ld.demand, v->tun.max_session_slots, to);
		for (size_t i = 0; i < n && i < 2; i++)
			add(d, "max_session_slots", slots, to[i], &ld, &f, to[i], d->link_Bps, x->limit, slot,
			    verdict_names[V_SESSION]);
		whatif_monotone(d->what_if, d->nwhat_if);
	}
	/* slot-bound: more transports to the server, each with its own slots */
	if (d->cls == V_SLOT) {
		struct curve_fit g = f;
		unsigned int conns;
		double links_Bps;

		if (!whatif_group_load(v, x, &conns, &ld, &links_Bps) || conns >= NCONNECT_MAX) {
			reach_note(v, d, x);
			return;
		}
		ld.cpu_Bps = whatif_cpu_Bps(v, ld.Bps, x->busy_ns);
		/* every transport's RPCs load the one server: its RTT grows with all of them */
		g.level *= conns;
		g.slope_ns /= conns;
		g.slope_lo_ns /= conns;
		g.slope_hi_ns /= conns;
		/*
		 * The group's links together bound it; where one is unknown, this transport's link.
		 * Doublings up to the stack's ceiling, as many as the record holds.
		 */
		first = d->nwhat_if;
		for (unsigned int c = conns * 2; d->nwhat_if < WHAT_IFS; c *= 2) {
			unsigned int to_c = c < NCONNECT_MAX ? c : NCONNECT_MAX;

			/* each connection added carries as much as those read */
			ld.conn_Bps = ld.conn_each_Bps * to_c;
			add(d, "nconnect", conns, to_c, &ld, &g, (double)x->limit * to_c,
			    links_Bps > 0 ? links_Bps : d->link_Bps, 0, NULL, slot);
			/* the writers or the links stop it: more connections buy nothing more */
			if (c >= NCONNECT_MAX || capped(&d->what_if[d->nwhat_if - 1], &ld))
				break;
		}
		whatif_monotone(&d->what_if[first], d->nwhat_if - first);
	}
	reach_note(v, d, x);
}
