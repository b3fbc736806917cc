// SPDX-License-Identifier: GPL-2.0
/* A transport's credits in a view: time against the server's grant in force at each moment. */
#include <string.h>
#include "model/model.h"
#include "lib/uhist.h"

/*
 * Busy time (a level above 0) and time at the limit (the top bucket) between two copies of
 * levels closed at their snapshots (@o NULL: from nothing), and the share at the limit: the one
 * reading of level times against a limit in force, for sessions and credits alike.
 */
double level_share(const __u64 *c, const __u64 *o, __u64 *busy_ns, __u64 *at_limit_ns)
{
	*busy_ns = *at_limit_ns = 0;
	for (int b = 1; b < LEVEL_BUCKETS; b++) {
		__u64 ns = delta_u64(c[b], o ? o[b] : 0);

		*busy_ns += ns;
		if (b == LEVEL_BUCKETS - 1)
			*at_limit_ns = ns;
	}
	return *busy_ns ? 100.0 * (double)*at_limit_ns / (double)*busy_ns : 0;
}

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
	if (v->known)
		v->at_limit_pct = level_share(c->level_ns, o && o->limit ? o->level_ns : NULL, &v->busy_ns,
					      &v->at_limit_ns);
}
