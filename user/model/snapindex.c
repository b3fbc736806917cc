// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot's transports and ops by key (snapindex.h): the lookups model_build() makes per op,
 * each a binary search that finds what a walk of the snapshot in its order finds first.
 */
#include <stdlib.h>
#include <string.h>
#include "model/snapindex.h"

static int op_entry_cmp(const void *a, const void *b)
{
	const struct op_entry *x = a, *y = b;
	int c = memcmp(&x->k, &y->k, sizeof(x->k));

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

void snap_index_make(struct snap_index *ix, const struct snapshot *s, bool ops, struct view_arena *a)
{
	memset(ix, 0, sizeof(*ix));
	ix->s = s;
	ix->arena = a;
	ix->x = view_alloc(a, s->nxprts + 1, sizeof(*ix->x), false);
	if (ix->x) {
		for (size_t i = 0; i < s->nxprts; i++)
			ix->x[i] = (struct xprt_index_entry){ .key = s->xprts[i].key, .i = i };
		xprt_entries_sort(ix->x, s->nxprts);
	}
	ix->o = ops ? view_alloc(a, s->nops + 1, sizeof(*ix->o), false) : NULL;
	if (ix->o) {
		for (size_t i = 0; i < s->nops; i++)
			ix->o[i] = (struct op_entry){ .k = s->ops[i].k, .i = i };
		qsort(ix->o, s->nops, sizeof(*ix->o), op_entry_cmp);
	}
}

void snap_index_free(struct snap_index *ix)
{
	view_release(ix->arena, ix->x);
	view_release(ix->arena, ix->o);
	memset(ix, 0, sizeof(*ix));
}

/* where the entries of @key begin in ix->x (ix->s->nxprts: none) */
static size_t xprt_run(const struct snap_index *ix, __u64 key)
{
	return xprt_entry_first(ix->x, ix->s->nxprts, key);
}

/* the transport's first sight under @key, or 0 when the snapshot has none */
static __u64 first_seen_of(const struct snap_index *ix, __u64 key)
{
	const struct snapshot *s = ix->s;
	size_t r;

	if (!ix->x) {
		for (size_t i = 0; i < s->nxprts; i++)
			if (s->xprts[i].key == key && !(s->xprts[i].s.flags & XF_DESTROYED))
				return s->xprts[i].s.first_seen_ns;
		for (size_t i = 0; i < s->nxprts; i++)
			if (s->xprts[i].key == key)
				return s->xprts[i].s.first_seen_ns;
		return 0;
	}
	r = xprt_run(ix, key);
	if (r == s->nxprts)
		return 0;
	/* the run is in the snapshot's order: its first live entry, else its first */
	for (size_t j = r; j < s->nxprts && ix->x[j].key == key; j++)
		if (!(s->xprts[ix->x[j].i].s.flags & XF_DESTROYED))
			return s->xprts[ix->x[j].i].s.first_seen_ns;
	return s->xprts[ix->x[r].i].s.first_seen_ns;
}

/* snapshot_find_xprt() by the index */
const struct xprt_snap *snap_index_xprt(const struct snap_index *ix, __u64 key, __u64 first_seen)
{
	const struct snapshot *s = ix->s;

	if (!ix->x)
		return snapshot_find_xprt(s, key, first_seen);
	for (size_t j = xprt_run(ix, key); j < s->nxprts && ix->x[j].key == key; j++)
		if (s->xprts[ix->x[j].i].s.first_seen_ns == first_seen)
			return &s->xprts[ix->x[j].i];
	return NULL;
}

/* snapshot_find_op() by the index */
static const struct op_snap *find_op(const struct snap_index *ix, const struct op_key *k)
{
	const struct snapshot *s = ix->s;
	size_t lo = 0, hi = s->nops;

	if (!ix->o)
		return snapshot_find_op(s, k);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(&ix->o[mid].k, k, sizeof(*k)) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nops && !memcmp(&ix->o[lo].k, k, sizeof(*k)) ? &s->ops[ix->o[lo].i] : NULL;
}

/*
 * The op's entry in @prev, if it is the same op: after a reap the kernel may put a new transport
 * at the address of the old, whose ops start from zero under the same key.
 */
const struct op_snap *snap_index_prev_op(const struct snap_index *prev, const struct snap_index *cur,
					 const struct op_key *k)
{
	const struct op_snap *p = find_op(prev, k);

	if (p && first_seen_of(prev, k->xprt) != first_seen_of(cur, k->xprt))
		return NULL;
	return p;
}
