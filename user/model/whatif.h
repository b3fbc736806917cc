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
};

/*
 * The throughput with up to @n_next RPCs in flight, into @w's range and next limit; @cap_Bps (0:
 * none) is the link's rate; @cap_n (0: none) a second limit on the RPCs in flight, named
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

/* the predictions for the verdict @d on transport @x of view @v (verdict_for's last step) */
void whatif_for(const struct view *v, const struct xprt_view *x, struct verdict *d);

#endif
