/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows: checkpoints (write bursts) and restores (read bursts) found in the interval views. A
 * burst starts with an interval moving at least its kind's threshold and ends after a number of
 * quieter intervals (hysteresis); its summary is the view between the snapshots around it, plus
 * link use while slots were full and the jobs whose processes did the I/O. Each kind has its own
 * detector; a window in which the other kind's threshold was also crossed is "mixed".
 */
#ifndef SLOTSCOPE_WINDOW_H
#define SLOTSCOPE_WINDOW_H

#include <stdbool.h>
#include "engine/engine.h"
#include "model/jobs.h"
#include "model/jobtime.h"
#include "links/rdma.h"
#include "model/model.h"

enum win_kind { WIN_CHECKPOINT, WIN_RESTORE, WIN_KINDS };

extern const char *const win_kind_names[WIN_KINDS];	/* "checkpoint", "restore" */

struct window_opts {
	double threshold_Bps;		/* write rate that starts a checkpoint */
	double restore_threshold_Bps;	/* read rate that starts a restore */
	unsigned int quiet_intervals;	/* intervals below it that end one */
	/*
	 * A window this long (s) ends at its next busy interval and the next one opens with the
	 * interval after (cut): a loader busy for a week is 168 windows of an hour, each reported
	 * and each letting go of what it kept; 0: no bound
	 */
	double max_s;
	bool no_jobs;			/* do not name the jobs behind a window */
};

#define WINDOW_SAT_MAX 64

struct window_sat {
	__u64 key;			/* transport */
	double secs;			/* time in intervals the transport spent mostly at its limit */
	double link_bits;		/* link bits moved in those intervals */
	double link_rate_bps;
	__u32 peak;			/* highest slots in use in the burst */
};

/* windows as rate-able sums: grown interval by interval while a window is open */
struct window_sums {
	double secs, bytes;
	double slot_bound_secs;		/* intervals in which some transport read slot-bound */
};

struct window {
	struct window_opts o;
	enum win_kind kind;
	double threshold_Bps, other_Bps;	/* this kind's, and the other's (mixed) */
	bool mixed;			/* the open (or last) window crossed the other threshold too */
	bool cut;			/* the last one ended at max_s, busy (the next goes on from it) */
	bool quiet_other;		/* ...in its quiet tail, which counts if it turns busy again */
	struct win_jobs ended_jobs;	/* the last completed window's (its caller names them) */
	struct job_totals job_totals;	/* its jobs' time by cause, over the windows (jobtime.h) */
	struct job_active_set job_active;	/* the open (or last) one's cgroups' active time */
	__u64 started;			/* windows begun, the open one included */
	struct window_sums total;		/* over every window, the open one's busy part included */
	struct window_sums cur;		/* the open (or last) window */
	struct window_sums quiet_sums;	/* its quiet tail: counted if it turns busy again */
	struct window_sums ended;		/* the last completed window */
	double ended_wall;		/* its end; 0: none yet */
	bool active;
	unsigned int quiet;
	unsigned int n;			/* bursts completed */
	double start_wall, end_wall;	/* CLOCK_REALTIME, for display */
	double start_mono, end_mono;	/* CLOCK_MONOTONIC: durations, whatever the wall clock does */
	struct snapshot start, last;	/* around the burst */
	/*
	 * The NFS file I/O counts (jobio) and clock a window's jobs count from and to. A burst's
	 * write calls come before its RPCs, and a slow start's in quiet intervals before the first
	 * busy one: from where this kind's I/O last stood still for an interval (lead), if within
	 * WINDOW_LEAD_MAX intervals of the start, else the snapshot one interval before it. To the
	 * quiet tail's last interval that moved any (jobs_to), else the last busy one. ts_ns 0:
	 * none kept (start's and last's stand).
	 */
	struct snapshot jobs_from, jobs_to, lead;
	unsigned int lead_n;		/* intervals since lead, each with this kind's I/O */
	struct link_sample lstart, llast;
	size_t nsat;
	struct window_sat sat[WINDOW_SAT_MAX];
};

enum window_event { WIN_NONE, WIN_STARTED, WIN_ENDED };

#define WINDOW_LEAD_MAX 8

/*
 * After window_step() returned @ev for the interval @prev .. @cur: where the window's jobs count
 * from and to (@before: the snapshot before @prev, ts 0 if none). 0 or -ENOMEM (the window's
 * bounds stand in).
 */
int window_jobs_track(struct window *c, enum window_event ev, const struct snapshot *before,
		      const struct snapshot *prev, const struct snapshot *cur);

void window_init(struct window *c, const struct window_opts *o, enum win_kind kind);
/*
 * Feed one interval: @v is the view from @prev to @cur (with links from @lprev to @lcur, which
 * may be NULL). WIN_ENDED means the burst's window is in c->start .. c->last until the next call.
 */
enum window_event window_step(struct window *c, const struct view *v, const struct snapshot *prev,
			  const struct snapshot *cur, const struct link_sample *lprev,
			  const struct link_sample *lcur, double now_wall);
/*
 * the trace ends at @now_wall: an open burst ends with it, its jobs counted to the caller's last
 * snapshot (c->last); true when there is one to report
 */
bool window_finish(struct window *c, double now_wall, double now_mono);
/* link utilization (%) of a transport while it was saturated; -1 when never saturated or no rate */
double window_sat_util(const struct window *c, __u64 key, double *secs);
/*
 * A burst's view (c->start .. c->last) has no interval peak of its own: each transport's highest
 * over the burst's intervals, into @out (WINDOW_SAT_MAX entries); how many.
 */
size_t window_peaks(const struct window *c, struct window_peak *out);
/* A finished window as its renderers show it: every figure computed here, once. */
struct window_sat_view {
	__u64 key;
	__u32 xprt_id, peak;
	double secs;			/* mostly at the limit */
	double util_pct;		/* link use meanwhile; < 0 unknown */
};

struct window_view {
	enum win_kind kind;
	unsigned int n;
	bool mixed;
	bool cut;			/* ended at --window-max, still busy */
	double start_wall, end_wall, secs, bytes_written, bytes_read;
	double GBps;			/* of the kind's direction */
	const struct win_jobs *jobs;	/* NULL: not looked for (--no-jobs) */
	size_t nsat;
	struct window_sat_view sat[WINDOW_SAT_MAX];
};

/* @v: the window's finished view (c->start .. c->last, with window_peaks) */
void window_view(const struct window *c, const struct view *v, struct window_view *cv);
const struct window_sat_view *window_view_sat(const struct window_view *cv, __u64 key);
void window_free(struct window *c);

#endif
