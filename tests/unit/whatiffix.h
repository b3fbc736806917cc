/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The what-if tests' recorded curves and views: a ramp of RPCs over the levels, a flat 200 ms
 * round trip, a slot-bound transport as the model makes it, and a step looked up by knob.
 */
#ifndef SLOTSCOPE_WHATIFFIX_H
#define SLOTSCOPE_WHATIFFIX_H

#include <string.h>
#include "model/verdict.h"
#include "model/whatif.h"

/* a curve of @limit slots: @n RPCs at each level 1..limit with RTT rtt(level) */
static inline void curve_make(struct curve_view *c, __u32 limit, const __u64 *n_at, double (*rtt)(unsigned int))
{
	memset(c, 0, sizeof(*c));
	for (unsigned int l = 1; l <= limit; l++) {
		unsigned int b = level_bucket(l, limit);

		c->rpcs[b] += n_at[l];
		c->rtt_ns[b] += (__u64)(n_at[l] * rtt(l));
		c->exec_ns[b] += (__u64)(n_at[l] * (rtt(l) + 1e6));
	}
	curve_finish(c, limit);
}

/* a write with 96 writers on 16 slots: the ramp sees each level once, the rest runs at the limit */
static inline void ramp(__u64 *n_at, __u32 limit, __u64 at_limit)
{
	memset(n_at, 0, sizeof(*n_at) * (limit + 1));
	for (unsigned int l = 1; l < limit; l++)
		n_at[l] = 2;
	n_at[limit] = at_limit;
}

static inline double flat_200ms(unsigned int l)
{
	/* netem's fixed delay, a few hundred microseconds of jitter */
	return 200e6 + (l % 3) * 300e3;
}

/* @d's step of @knob to @to, or NULL */
static inline const struct what_if *step(const struct verdict *d, const char *knob, __u32 to)
{
	for (size_t i = 0; i < d->nwhat_if; i++)
		if (!strcmp(d->what_if[i].knob, knob) && d->what_if[i].to == to)
			return &d->what_if[i];
	return NULL;
}

/* a slot-bound TCP transport as the model makes it: 16 slots full for 10 s of a 200 ms RTT */
static inline void slot_bound_view(struct view *v, struct xprt_view *x, __u32 ident, __u32 cwnd)
{
	__u64 n_at[17];

	memset(v, 0, sizeof(*v));
	memset(x, 0, sizeof(*x));
	v->xprts = x;
	v->nxprts = 1;
	x->ident = ident;
	x->limit = x->max_reqs = 16;
	x->cwnd = cwnd;
	strcpy(x->addr, "10.0.0.1");
	strcpy(x->port, "2049");
	x->busy_ns = x->span_ns = 10e9;
	x->mean_in_use = 16;
	x->level_ns[LEVEL_BUCKETS - 1] = 10000000000ull;
	ramp(n_at, 16, 784);
	curve_make(&x->curve, 16, n_at, flat_200ms);
	x->bytes_written = x->curve.total * 65536;
	/* 80 writers more wait all the time */
	x->waits[WAIT_SLOT].sum_ns = 800000000000ull;
	x->verdict.cls = V_SLOT;
}

#endif
