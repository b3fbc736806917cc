/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the run adds to the model's answers (#59), from files the model must not read: which
 * transports the kernel shows not connected (sunrpc's sysfs), and who is stuck behind a mount
 * whose server does not answer (procfs, the jobs' cgroups).
 */
#ifndef SLOTSCOPE_SILENCE_H
#define SLOTSCOPE_SILENCE_H

#include <stddef.h>
#include "engine/engine.h"
#include "model/jobs.h"
#include "host/mounts.h"
#include "model/view.h"

/*
 * Transports of @cur that hold slots or await replies and got no reply since @prev, which sysfs
 * (xprt-switches/switch-N/xprt-ID-PROTO/xprt_state) shows not connected: their keys into @out (at
 * most @max); how many. Healthy transports cost nothing: their replies moved.
 */
size_t silence_disconnected(const char *sysfs_root, const struct snapshot *prev,
			    const struct snapshot *cur, __u64 *out, size_t max);
/* CONNECTED among xprt_state's flags: 1, 0, or -errno (no sysfs: before 5.14) */
int xprt_state_connected(const char *sysfs_root, __u32 id, const char *proto);
/* the same, of the transport directory @dir itself (a walk of xprt-switches has it already) */
int xprt_state_connected_at(const char *dir);

/* a thread of process @pid in uninterruptible sleep (D); its command into @comm */
bool task_in_d_state(const char *procfs_root, int pid, char *comm, size_t len);

struct stuck_in {
	const char *procfs_root;
	const struct mount_table *mounts;
	const struct snapshot *snap;		/* its jobio: which cgroups did I/O on which mount */
	const struct task_seen *tasks;		/* processes seen doing NFS file I/O, and their cgroup */
	size_t ntasks;
	const struct cgroups *cg;
};

/*
 * Each row of @v whose server does not answer (or is being reconnected to): the processes of
 * cgroups that did I/O on its mount, with a thread in uninterruptible sleep (D) now, and their
 * jobs. Reads only world-readable files: it works after the privilege drop.
 */
void silence_stuck(struct view *v, const struct stuck_in *in);

#endif
