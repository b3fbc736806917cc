/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_JOBREAP_H
#define SLOTSCOPE_JOBREAP_H

#include "run/run_int.h"

/*
 * Entries of the kernel's job map whose counts stood still over the last tick (@prev to @cur),
 * deleted from it, window open or not, their counts kept in user space until no snapshot a window
 * holds (the oldest at @held_ns) is older than their last change (#63): those of gone cgroups,
 * every 30 s; and, while the map is crowded (past half its entries), those of live cgroups too,
 * at every tick. A user's 20,000 cgroups that each read once, or a week of short steps under a
 * window that never closes, leave room for the next job. At most JOBIO_REAP_MAX a tick.
 */
void jobs_reap(struct run *r, const struct snapshot *prev, const struct snapshot *cur, __u64 held_ns);

#define JOBIO_REAP_MAX 4096

#endif
