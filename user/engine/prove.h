/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout the programs read transports through, proven as they run against what sunrpc
 * itself publishes for each one (net/sunrpc/sysfs.c, 5.14 on): a transport of that id, its
 * transport class, its slot table's max_reqs and min_reqs. BTF made from DWARF or given by the
 * user is proven this way; the kernel's own is checked the same way.
 */
#ifndef SLOTSCOPE_PROVE_H
#define SLOTSCOPE_PROVE_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/engine.h"

struct proof {
	/* transports found with other values: consecutive checks so (misses) */
	struct { __u64 key, first_seen; int misses; } *seen;
	int none_found;			/* consecutive checks that found no live transport published */
	size_t n, cap;
	size_t proven;			/* transports proven so far */
	__u64 *done;			/* their keys and first_seen, pairs */
	size_t ndone, done_cap;
	/*
	 * The levels held against num_reqs: each TCP or UDP transport's takes at the last look (a
	 * transport that took none since is not looked at) and its consecutive looks over it
	 */
	struct { __u64 key, first_seen, acquires; int over; } *lv;
	size_t nlv, lv_cap;
	unsigned int cpus;		/* CPUs that may take or free a slot meanwhile; 0: the machine's */
	/* a transport as the map holds it now, after its xprt_info was read; NULL: the snapshot's */
	int (*now)(void *ctx, const struct xprt_snap *c, struct xprt_stats *out);
	void *now_ctx;
	bool no_sysfs;			/* the kernel publishes no transports: nothing is proven */
	/* the first live transport left out of sysfs look after look: the caller says it, once */
	char unpublished[200];
};

/*
 * The transports of @snap not yet proven, against ROOT/sys/kernel/sunrpc: 0, or -EPROTO with
 * @why naming the transport and the field that differs (twice running), or that no live
 * transport is published (twice running, while none has been proven and the kernel publishes
 * some: sysfs shows our network namespace's only), or that a TCP or UDP transport's level
 * passes the requests the kernel holds for it (num_reqs, twice running). 1: the first of such
 * looks: the sample is not to be reported, the next look decides. A kernel without the sysfs
 * files proves nothing and refuses nothing (@p->no_sysfs: the caller says so, once). -ENOMEM
 * when out of memory.
 */
int proof_check(struct proof *p, const struct snapshot *snap, const char *sysfs_root, char *why,
		size_t len);
void proof_free(struct proof *p);

#endif
