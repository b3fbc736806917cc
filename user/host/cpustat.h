/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node's CPUs, from /proc/stat's first line: how much of their time went to work. A CPU that
 * runs the NFS client's copies, its softirqs and (on a node that serves itself) the server's
 * threads sets a pace past which more RPCs in flight only queue for it: the what-if reads no
 * curve beyond what it saw when they were busy throughout. A leaf.
 */
#ifndef SLOTSCOPE_CPUSTAT_H
#define SLOTSCOPE_CPUSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_stat {
	bool known;
	/* clock ticks since boot over every CPU: at work (all but idle and iowait), and in all */
	uint64_t busy, total;
};

/* ROOT/proc/stat's "cpu" line into @c: 0, -errno, or -EPROTO for a line not in its format */
int cpustat_read(const char *procfs_root, struct cpu_stat *c);

/* the share of @a..@b's CPU time at work, in percent; -1 when either is unknown or no tick passed */
double cpustat_busy_pct(const struct cpu_stat *a, const struct cpu_stat *b);

#endif
