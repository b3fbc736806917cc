/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_JOBRETIRE_H
#define SLOTSCOPE_JOBRETIRE_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/engine.h"

/*
 * NFS file I/O counts of gone cgroups, deleted from the kernel's map while windows were open
 * (#63): a window that counts a job from a snapshot before the deletion must still find the job's
 * counts in the snapshots after it, so every snapshot has them merged in (added to an entry the
 * map holds again for that key: a gone cgroup's pages written back after its deletion), until no
 * snapshot a window holds is older than the moment the counts last stood still. The map then
 * holds the live jobs, whatever window is open; user space holds what retired within the longest
 * window (--window-max) and its lead-in.
 */
struct jobio_retired {
	struct jobio_gone {
		struct jobio_snap e;
		__u64 still_ns;		/* the snapshot from which its counts stood still */
	} *r;				/* by key (jobio_key_cmp) up to nsorted, then as added */
	size_t n, cap, nsorted;
};

/* at most this many retired at once: past it the map keeps them until some go */
#define JOBIO_RETIRED_MAX 65536

/* @a's counters plus @b's (@a's uid kept unless it has none) */
void job_io_add(struct job_io *a, const struct job_io *b);
/* @k's retired counts; NULL: none */
const struct job_io *jobret_find(const struct jobio_retired *t, const struct job_key *k);
/* whether @seen (a merged snapshot's entry) is @map (the map's entry now) plus the retired part */
bool jobret_matches(const struct jobio_retired *t, const struct jobio_snap *seen, const struct job_io *map);
/* whether @seen is all retired: the map held none of it when it was taken */
bool jobret_only(const struct jobio_retired *t, const struct jobio_snap *seen);
/* room for @extra more keys; 0, -ENOSPC (JOBIO_RETIRED_MAX) or -ENOMEM */
int jobret_reserve(struct jobio_retired *t, size_t extra);
/* @v, deleted from the map under @k, added to what is retired (room reserved: cannot fail then);
 * 0, -ENOSPC or -ENOMEM */
int jobret_add(struct jobio_retired *t, const struct job_key *k, const struct job_io *v, __u64 still_ns);
/* what was added since put in key order (each add keeps a new key at the end until then) */
void jobret_commit(struct jobio_retired *t);
/* the retired counts merged into @snap's jobio (sorted by key on return); 0 or -ENOMEM */
int jobret_merge(struct jobio_retired *t, struct snapshot *snap);
/*
 * Those still since @held_ns or before go, unless @in_map (NULL: none) says the map holds their
 * key again; how many went
 */
size_t jobret_trim(struct jobio_retired *t, __u64 held_ns, bool (*in_map)(void *ctx, const struct job_key *k),
		   void *ctx);
void jobret_free(struct jobio_retired *t);

#endif
