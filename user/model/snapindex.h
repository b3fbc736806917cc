/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_SNAPINDEX_H
#define SLOTSCOPE_SNAPINDEX_H

#include "model/view.h"

/*
 * A snapshot's transports and ops sorted by key (then by place), for the lookups made per op:
 * each finds what a walk of the snapshot in its order finds first, by a binary search. Without
 * memory (NULL arrays) the lookups walk.
 */
struct snap_index {
	const struct snapshot *s;
	struct view_arena *arena;
	struct xprt_index_entry *x;
	struct op_entry {
		struct op_key k;
		size_t i;
	} *o;
};

/* index @s (its ops too with @ops); without memory the lookups walk */
void snap_index_make(struct snap_index *ix, const struct snapshot *s, bool ops, struct view_arena *a);
void snap_index_free(struct snap_index *ix);
/* snapshot_find_xprt(): the transport of @key first seen at @first_seen, or NULL */
const struct xprt_snap *snap_index_xprt(const struct snap_index *ix, __u64 key, __u64 first_seen);
/* the op @k's entry in @prev if it is the same op (not a new transport at the old one's address) */
const struct op_snap *snap_index_prev_op(const struct snap_index *prev, const struct snap_index *cur,
					 const struct op_key *k);

#endif
