/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs' time by cause (#46): a window's, per job, from the kernel's counts of each job's READ and
 * WRITE time (struct job_io's ns, counted to the job whose process moved the file's bytes:
 * bpf/jobtime.bpf.h); and, per window kind, the totals over windows that the exposition counts.
 */
#ifndef SLOTSCOPE_JOBTIME_H
#define SLOTSCOPE_JOBTIME_H

#include "model/jobs.h"

/*
 * When each cgroup's READs or WRITEs were under way in a window, interval by interval: from the
 * start of the first interval in which some ended (or a wait of theirs did) to the end of the
 * last. A job that wrote in part of a window stood on its RPCs for that part, not for the
 * window; an interval in which all of its RPCs still waited (none ended) is inside that span.
 */
struct job_active {
	__u64 cgid;
	__u64 first_ns, last_ns;	/* snapshots' CLOCK_MONOTONIC */
};

struct job_active_set {
	struct job_active *a;
	size_t n, cap;
	uint32_t *idx;			/* open addressing over a by cgid: index + 1, 0 empty */
	size_t capidx;			/* a power of two, at least twice n */
};

/*
 * The interval @prev .. @cur of an open window of direction @dir: each cgroup whose RPC time in
 * that direction grew in it is active through it. 0 or -ENOMEM.
 */
int job_active_track(struct job_active_set *s, __u32 dir, const struct snapshot *prev,
		     const struct snapshot *cur);
void job_active_reset(struct job_active_set *s);
void job_active_free(struct job_active_set *s);

/*
 * Each of @w's jobs (jobs_of_window()'s) gets its RPCs and their time by cause from @in's
 * counts, and its time in the window (from its cgroups' first active interval to their last, in
 * @act; at most the window's @secs) shared out by cause as that time is.
 */
void jobs_time_of_window(struct win_jobs *w, const struct jobs_in *in, const struct job_active_set *act,
			 double secs);

/* the jobs the exposition counts per window kind, the ones in a window last kept */
#define JOB_TOTALS_MAX 8

struct job_total {
	struct job_id id;
	double cause_s[JS_CAUSES];	/* summed over the windows it was in */
	uint64_t seq;			/* the window it was last in (struct job_totals' seq) */
};

struct job_totals {
	struct job_total t[JOB_TOTALS_MAX];
	size_t n;
	uint64_t seq;			/* windows added */
};

/* a completed window's jobs (@w: the first JOB_TOTALS_MAX, largest first) added to @t */
void job_totals_add(struct job_totals *t, const struct win_jobs *w);

#endif
