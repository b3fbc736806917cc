/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a change of the verdict's knob would buy: Little's law over the in-flight curve. The
 * curve says how the RTT grew with the slots in use; the load says what the transport moved
 * while busy, how many RPCs held a slot, how long each held it and how many more wanted one.
 * A new limit lets min(limit, those that want one) into flight, each holding its slot for the
 * RTT the curve extrapolates plus what it spends on the client; a range comes from the slopes the
 * curve allows. Pure: tests/unit/test_whatif.c feeds it recorded curves.
 */
#ifndef SLOTSCOPE_WHATIF_H
#define SLOTSCOPE_WHATIF_H

#include <stdbool.h>
#include "model/view.h"

/* the curve read as RTT against slots in use */
struct curve_fit {
	double rpcs;			/* RPCs on the curve */
	double level, rtt_ns;		/* their mean level (slots in use when taken) and mean RTT */
	double slope_ns;		/* fitted ns of RTT per slot more in use */
	double slope_lo_ns, slope_hi_ns;	/* the range the curve allows (>= 0) */
	unsigned int points;		/* level buckets with RPCs */
	bool known;			/* false: under three levels, no slope; the range spans flat..proportional */
};

void curve_fit(const struct curve_view *c, __u32 limit, struct curve_fit *f);

/* where a prediction starts: a transport or, for nconnect, its server's transports together */
struct load {
	double Bps;			/* payload per busy second */
	double in_use;			/* mean RPCs in flight while busy, under the limit the knob moves */
	double hold_ns;			/* mean time an RPC holds its place (Little: in_use / rate) */
	double demand;			/* RPCs that want a place while busy: in flight + waiting */
	/*
	 * The most RPCs in flight the curve is read to: twice in_use (0: no bound). Past
	 * it nothing the client reads says where the server's pace ends (its CPU, disks, receive
	 * window): a step that goes further is a range up to the unknown.
	 */
	double reach;
	/*
	 * What the step's connections can carry at most: each one's send buffer (as large as it can
	 * grow) over its least round trip (whatif_conn_cap); 0 unknown. A group's load has it per
	 * connection in conn_each_Bps.
	 */
	double conn_Bps, conn_each_Bps;
	/* what the node's CPUs carry at today's work per byte with all their time at work (whatif_cpu_Bps); 0 unknown */
	double cpu_Bps;
};

/*
 * The rate at which the node's CPUs would be at work all the time, at the work per byte they did
 * in @v while a transport moved @Bps for @busy_ns (their work taken as all done in that busy
 * time: the least room); 0 unread. Their time, not the curve, then says what more in flight buys:
 * the client's copies and softirqs (and, on a node that serves itself, the server's threads)
 * queue for them. Under emulation a soft-RoCE server on the client's own two CPUs (90 % at
 * work) went 25 -> 16 MB/s for credits 64 -> 128, where its curve had said +6 %.
 */
double whatif_cpu_Bps(const struct view *v, double Bps, double busy_ns);

/*
 * A range @w that runs past @cpu_Bps is unknown from there: at least the lower of its low end
 * and that rate (never under today's @Bps), at most WHATIF_UNKNOWN_SPAN times that; w->cpu_Bps
 * records it
 */
void whatif_cpu_cut(double Bps, double cpu_Bps, struct what_if *w);

/* an unknown step's range is at most this many times its low end: wider says nothing to act on */
#define WHATIF_UNKNOWN_SPAN 4.0

/*
 * The throughput with up to @n_next RPCs in flight, into @w's range and next limit (past
 * @ld->reach: at least the reach's low end, at most the least of the caps, the curve's gentle end
 * and WHATIF_UNKNOWN_SPAN times that low end, then unknown); @cap_Bps (0: none) is the link's rate; @cap_n (0: none) a second limit on the RPCs in flight, named
 * @cap_name when it binds; @same names the limit that stays when nothing else does.
 */
void whatif_predict(const struct load *ld, const struct curve_fit *f, double n_next, double cap_Bps,
		    double cap_n, const char *cap_name, const char *same, struct what_if *w);

/*
 * @n predictions of one knob, by ascending value: each range made no lower than the one before
 * (a knob raised further never buys less; the RTT line fitted far from the level measured can
 * say otherwise).
 */
void whatif_monotone(struct what_if *w, size_t n);

/*
 * nconnect's ceiling, the stack's (struct tunables): 16 in the kernel's nfs since nconnect came
 * (5.3), 64 in VAST NFS (its fs/nfs/internal.h)
 */
#define WHATIF_NCONNECT_MAX(v) ((v)->tun.nconnect_max > 0 ? (unsigned int)(v)->tun.nconnect_max : 16u)

/*
 * Transport @x's load while busy into *@ld; @cap (0: none) bounds the RPCs in flight below the
 * slots in use (credits granted); @waits the kinds of wait for the limit the knob moves (a mask
 * of 1 << kind). False without busy time, RPCs or bytes.
 */
bool whatif_load(const struct xprt_view *x, double cap, unsigned int waits, struct load *ld);

/*
 * @x's nconnect group (nconnect_group()) as one load *@g, *@conns transports; *@links_Bps the
 * links they cross, each netdev once (0: one unknown). False with none busy.
 */
bool whatif_group_load(const struct view *v, const struct xprt_view *x, unsigned int *conns, struct load *g,
		       double *links_Bps);

/*
 * The most a TCP connection to @x's server can carry, as last read (tcpdiag.h): the send buffer
 * it can grow to (net.ipv4.tcp_wmem's largest, or what it was seen at if more) over the least
 * round trip to that server; 0 unread or not TCP
 */
double whatif_conn_cap(const struct view *v, const struct xprt_view *x);

/* a connection-bound verdict's nconnect steps, from what held the connection back (tcp_info) */
void whatif_conn(const struct view *v, const struct xprt_view *x, struct verdict *d);

/* the predictions for the verdict @d on transport @x of view @v (verdict_for's last step) */
void whatif_for(const struct view *v, const struct xprt_view *x, struct verdict *d);

#endif
