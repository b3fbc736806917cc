// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "lib/fmt.h"
#include "model/whatif.h"

#define NCONNECT_MAX WHATIF_NCONNECT_MAX(v)

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
 * Past twice today's connections (the reach) nothing read says where the server's pace ends: the
 * range runs from the reach's low end up to the least of the caps, proportional and
 * WHATIF_UNKNOWN_SPAN times that low end, then unknown.
 */

/* what the step to @to connections buys, from @conns: Amdahl on the share @r that stays */
struct conn_step {
	double Bps, r, cap_client, cap_links;	/* today's; the share; the writers' pace, the links (0: none) */
	unsigned int conns;
	double cpu_Bps;				/* what the node's CPUs carry (whatif_cpu_Bps); 0 unread */
	const char *same;			/* connection- or server-bound: what stays with no cap */
	const char *paced;			/* the verdict at the writers' pace (whatif.c's writers_pace) */
};

static void step_at(const struct conn_step *c, unsigned int to, struct what_if *w)
{
	double hi = c->Bps * to / c->conns, lo = c->Bps / ((1 - c->r) * c->conns / to + c->r);

	w->next_limit = c->same;
	if (c->cap_client > 0 && c->cap_client < hi) {
		hi = c->cap_client;
		w->next_limit = c->paced;
	}
	if (c->cap_links > 0 && c->cap_links < hi) {
		hi = c->cap_links > c->Bps ? c->cap_links : c->Bps;
		w->next_limit = verdict_names[V_LINK];
	}
	w->high_Bps = hi;
	w->low_Bps = lo < c->Bps ? c->Bps : lo > hi ? hi : lo;
}

/* the writers' pace or the links under what @to connections would carry in proportion */
static bool capped(const struct conn_step *c, unsigned int to)
{
	double prop = c->Bps * to / c->conns;

	return (c->cap_client > 0 && c->cap_client <= prop) || (c->cap_links > 0 && c->cap_links <= prop);
}

static void add_step(const struct conn_step *c, unsigned int to, struct verdict *d)
{
	struct what_if *w = &d->what_if[d->nwhat_if++];
	unsigned int reach = 2 * c->conns;

	memset(w, 0, sizeof(*w));
	w->knob = "nconnect";
	w->from = c->conns;
	w->to = to;
	w->in_flight = to;
	w->reach = reach;
	step_at(c, to < reach ? to : reach, w);
	/*
	 * Past the reach, unless the writers' pace or the links already stop the reach itself:
	 * then they stop any step past it, for sure. A range that is a point at the reach (the
	 * server's window never held the connection: Amdahl is proportional) is no such stop.
	 */
	if (to > reach && !capped(c, reach)) {
		struct what_if far;

		step_at(c, to, &far);
		w->high_Bps = far.high_Bps < WHATIF_UNKNOWN_SPAN * w->low_Bps ? far.high_Bps :
			      WHATIF_UNKNOWN_SPAN * w->low_Bps;
		if (w->high_Bps < w->low_Bps)
			w->high_Bps = w->low_Bps;
		w->next_limit = whatif_unknown;
	}
	whatif_cpu_cut(c->Bps, c->cpu_Bps, w);
}

void whatif_conn(const struct view *v, const struct xprt_view *x, struct verdict *d)
{
	double links_Bps, busy = 0, rwnd = 0, sndbuf = 0, rpcs = 0, waited = 0, exec = 0, share, rtt = 0, all = 0;
	struct nconnect_group ng;
	struct conn_step c;
	unsigned int conns;
	unsigned long long retrans = 0, segs = 0;
	bool known = true, congested;
	struct load g;

	if (x->ident != IDENT_TCP) {
		snprintf(d->what_if_why, sizeof(d->what_if_why), "a connection's limits are read for TCP only");
		return;
	}
	if (!whatif_group_load(v, x, &conns, &g, &links_Bps) || conns >= NCONNECT_MAX)
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
		rtt += (double)y->rtt_ns;
		all += (double)y->exec_ns;
		rpcs += (double)y->curve.total;
		for (unsigned int b = 0; b < LEVEL_BUCKETS; b++)
			exec += (double)y->curve.exec_ns[b];
	}
	/* read over a baseline tick only, no busy time yet: as unread */
	known = known && busy > 0;
	congested = known && retrans && retrans * 100 >= segs;
	share = known ? rwnd / busy : 0;
	if (share > 1)
		share = 1;
	memset(&c, 0, sizeof(c));
	c.Bps = g.Bps;
	c.conns = conns;
	c.cpu_Bps = whatif_cpu_Bps(v, g.Bps, x->busy_ns);
	/* what may not grow with the connections: the server's window's share, or all when unsure */
	c.r = known && !congested ? share : 1;
	c.same = known && !congested && share >= 0.5 ? verdict_names[V_SERVER] : verdict_names[V_SEND];
	/* an RPC's own time less its wait for the connection: how fast the writers could go */
	if (rpcs > 0 && exec > waited)
		c.cap_client = g.Bps * exec / (exec - waited);
	/* at it, the verdict's own rule: the round trip half an RPC's time (its wait gone) or more */
	c.paced = rtt_paced(rtt, all - waited) ? verdict_names[V_SERVER] : verdict_names[V_CLIENT];
	c.cap_links = links_Bps > 0 ? links_Bps : d->link_Bps;
	/* every doubling up to the stack's ceiling, and the ceiling itself: what users ask first */
	d->nwhat_if = 0;
	for (unsigned int to = conns * 2; d->nwhat_if < WHAT_IFS; to *= 2) {
		add_step(&c, to < NCONNECT_MAX ? to : NCONNECT_MAX, d);
		if (to >= NCONNECT_MAX)
			break;
	}
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
	if (d->nwhat_if > 1) {
		size_t o = strlen(d->what_if_why);

		snprintf(d->what_if_why + o, sizeof(d->what_if_why) - o, "; read to %u connections (twice "
			 "today's), unknown past them", 2 * conns);
	}
	for (size_t i = 0; i < d->nwhat_if; i++)
		if (d->what_if[i].cpu_Bps > 0) {
			size_t o = strlen(d->what_if_why);
			char r[32];

			snprintf(d->what_if_why + o, sizeof(d->what_if_why) - o, "; the node's CPUs %.0f%% at "
				 "work: all of them at %s at that work per byte, unknown past it", v->cpu_busy_pct,
				 fmt_rate(r, sizeof(r), c.cpu_Bps, c.cpu_Bps));
			break;
		}
}
