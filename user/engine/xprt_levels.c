// SPDX-License-Identifier: GPL-2.0
/* A transport's level times, its slots' and its credits', read whole from the map. */
#include <string.h>
#include <bpf/bpf.h>
#include "account.h"
#include "engine/engine_int.h"
#include "lib/log.h"

/* the credits' levels are whole, or none was seen yet (no limit: nothing is open) */
static bool credits_whole(const struct credit_levels *c)
{
	return !c->limit || levels_whole(c->level_ns, false);
}

/*
 * The levels of @x whole (levels_whole()): read again while a change's adds are still landing.
 * Still torn after a few reads (a vCPU descheduled between a change's fetch-and-add and its
 * adds), none are taken: the last snapshot's stand (level_marks_apply()) and this interval
 * counts no time for the transport; the next one counts it. The credits' levels likewise, torn
 * marked by an impossible bucket: their interval and the next count no credit time. Each set is
 * taken from a read only while it is torn: a read that tears the other set leaves it as it was.
 */
void levels_settle(struct engine *e, struct xprt_snap *x)
{
	int fd = bpf_map__fd(e->skel->maps.xprts);
	bool slots = levels_whole(x->s.level_ns, x->s.destroyed_ns), credits = credits_whole(&x->s.credit);

	for (int i = 0; i < 4 && (!slots || !credits); i++) {
		struct xprt_stats v;

		if (x->slot)
			memcpy(&v, &e->xtab[x->slot - 1], sizeof(v));
		else if (bpf_map_lookup_elem(fd, &x->key, &v))
			break;
		if (v.first_seen_ns != x->s.first_seen_ns)
			break;
		if (!slots && levels_whole(v.level_ns, v.destroyed_ns)) {
			memcpy(x->s.level_ns, v.level_ns, sizeof(v.level_ns));
			x->s.destroyed_ns = v.destroyed_ns;
			slots = true;
		}
		if (!credits && credits_whole(&v.credit)) {
			x->s.credit = v.credit;
			credits = true;
		}
	}
	if (!slots) {
		pr_debug("transport %u: its levels read torn five times: this interval counts none of "
			 "its time\n", x->s.id);
		memset(x->s.level_ns, 0, sizeof(x->s.level_ns));
	}
	if (!credits) {
		pr_debug("transport %u: its credit levels read torn: this interval and the next count "
			 "none of their time\n", x->s.id);
		memset(x->s.credit.level_ns, 0, sizeof(x->s.credit.level_ns));
		x->s.credit.bucket = LEVEL_BUCKETS;
	}
}
