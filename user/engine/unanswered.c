// SPDX-License-Identifier: GPL-2.0
/*
 * Requests sent and awaiting their reply, counted from the marks the programs keep (a request's
 * first transmission and its transport beside its slot's mark): what a silent server leaves,
 * read with no event needed, for a silent server sends none (#59).
 */
#include "engine/engine.h"

static struct xprt_snap *live_xprt(struct snapshot *snap, __u64 key, struct xprt_snap *hint)
{
	struct xprt_snap *dead = NULL;

	if (hint && hint->key == key && !(hint->s.flags & XF_DESTROYED))
		return hint;
	for (size_t i = 0; i < snap->nxprts; i++) {
		struct xprt_snap *x = &snap->xprts[i];

		if (x->key != key)
			continue;
		if (!(x->s.flags & XF_DESTROYED))
			return x;
		dead = x;
	}
	return dead;
}

void unanswered_tally(struct snapshot *snap, const __u64 *marks, const __u64 *sent, const __u64 *xprt,
		      size_t n)
{
	struct xprt_snap *hint = NULL;

	for (size_t i = 0; i < snap->nxprts; i++) {
		snap->xprts[i].unanswered = 0;
		snap->xprts[i].oldest_sent_ns = 0;
	}
	for (size_t i = 0; i < n; i++) {
		__u64 t = __atomic_load_n(&sent[i], __ATOMIC_ACQUIRE), key, rq;
		struct xprt_snap *x;

		if (!t)
			continue;
		key = __atomic_load_n(&xprt[i], __ATOMIC_RELAXED);
		rq = __atomic_load_n(&marks[i], __ATOMIC_RELAXED);
		/* cleared or taken again meanwhile: the pair read may be torn */
		if (!rq || !key || __atomic_load_n(&sent[i], __ATOMIC_ACQUIRE) != t)
			continue;
		x = live_xprt(snap, key, hint);
		if (!x)
			continue;
		hint = x;
		x->unanswered++;
		if (!x->oldest_sent_ns || t < x->oldest_sent_ns)
			x->oldest_sent_ns = t;
	}
}
