// SPDX-License-Identifier: GPL-2.0
/* A transport's credits in a view: time against the server's grant in force at each moment. */
#include <string.h>
#include "model.h"
#include "uhist.h"

/*
 * @c at the view's end, @o at its start (NULL: the transport is new in it). No time is known
 * where either end's copy was torn (bucket LEVEL_BUCKETS) or no credit moved by the end; one
 * that had none at the start starts from nothing (its stamps were all 0).
 */
void credit_view(struct credit_view *v, const struct credit_levels *c, const struct credit_levels *o)
{
	memset(v, 0, sizeof(*v));
	if (!c->limit)
		return;
	v->limit = c->limit;
	v->level = c->level;
	v->peak = c->peak;
	v->limit_min = c->limit_min;
	v->limit_max = c->limit_max;
	v->limit_changes = delta_u64(c->limit_changes, o ? o->limit_changes : 0);
	v->known = c->bucket < LEVEL_BUCKETS && (!o || !o->limit || o->bucket < LEVEL_BUCKETS);
	for (int b = 1; v->known && b < LEVEL_BUCKETS; b++) {
		__u64 ns = delta_u64(c->level_ns[b], o && o->limit ? o->level_ns[b] : 0);

		v->busy_ns += ns;
		if (b == LEVEL_BUCKETS - 1)
			v->at_limit_ns = ns;
	}
	v->at_limit_pct = v->busy_ns ? 100.0 * (double)v->at_limit_ns / (double)v->busy_ns : 0;
}
