/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs' time by cause (#46): a window's, per job, from the kernel's counts of each job's READ and
 * WRITE time (struct job_io's ns, counted to the job whose process moved the file's bytes:
 * bpf/jobtime.bpf.h); and, per window kind, the totals over windows that the exposition counts.
 */
#ifndef SLOTSCOPE_JOBTIME_H
#define SLOTSCOPE_JOBTIME_H

#include "jobs.h"

/*
 * Each of @w's jobs (jobs_of_window()'s) gets its RPCs and their time by cause from @in's
 * counts, and the window's @secs shared out by cause as that time is.
 */
void jobs_time_of_window(struct win_jobs *w, const struct jobs_in *in, double secs);

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
