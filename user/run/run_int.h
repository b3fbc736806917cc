/* SPDX-License-Identifier: GPL-2.0 */
/* A run's state, shared by its rooms: run.c (start), tick.c (the trace), outputs.c (the files). */
#ifndef SLOTSCOPE_RUN_INT_H
#define SLOTSCOPE_RUN_INT_H

#include "engine/engine.h"
#include "model/jobs.h"
#include "prom/ledger.h"
#include "links/linkmap.h"
#include "model/model.h"
#include "host/mounts.h"
#include "lib/outfile.h"
#include "out/output.h"
#include "engine/prove.h"
#include "links/rdma.h"
#include "links/tcpwatch.h"
#include "prom/prom_cap.h"
#include "run/run.h"
#include "run/serve.h"
#include "lib/buildinfo.h"
#include "model/window.h"

enum out_kind { OUT_PROM, OUT_FOLDED, OUT_SVG, OUTS };

struct run {
	struct run_opts o;
	struct engine *e;
	struct proof proof;		/* transports proven against sunrpc's sysfs */
	bool said_unproven;		/* that the kernel publishes none was said */
	bool said_unpublished;		/* that one transport is not published was said */
	struct tunables tun;		/* from the audit: the knobs the verdicts name */
	double startup_cpu_s;
	struct link_sampler link_sampler;	/* ports kept between samples: state and rate (verbs too), counter files */
	size_t nfilters;		/* --mount: the transports shown */
	struct mount_xprt filters[MAX_MOUNT_FILTERS];
	struct mount_src msrc;		/* whose mount table: --procfs-root, --mounts-of */
	/*
	 * A mount may come or go at any time: the table is read again at the first tick after a
	 * mount or unmount, and every view of that tick (interval, textfile, window) points into
	 * it, so views are freed before the next read.
	 */
	struct mount_table mounts_now;
	struct view_arena arena;	/* the views' arrays, kept from tick to tick (view.h) */
	bool mounts_ok;		/* mounts_now was read whole, and stands until mounts_changed() */
	int prom_err;			/* the textfile's last error, said once until it changes */
	bool out_gone;			/* stdout closed (EPIPE): nothing more printed */
	struct ledger ledger;		/* the textfile's counters: sums over intervals */
	struct linkmap links;		/* each transport's link, asked of the kernel */
	struct tcp_watch tw;		/* TCP transports' connections while they queue (tcpwatch.h) */
	struct outfile out[OUTS];	/* by enum out_kind; dirfd -1 when not asked for */
	struct build_ident build;	/* what this binary is (buildinfo.h): asked once, labels every exposition */
	struct served served;		/* --listen's server (serve.h); served.h NULL when not asked for */
	struct prom_cap cap;		/* --prom-max-series: the mounts shown, first seen first */
	char kernel[65];		/* uname release, for slotscope_build_info */
	struct heat_map heat;		/* for --svg */
	struct cgroups cg;		/* cgroup v2 ids to paths, for the windows' jobs */
	double jobio_reaped;		/* CLOCK_MONOTONIC s idle entries were last deleted from the map */
	__u64 jobio_forgotten;		/* entries that stood still deleted from the map, over the run */
	size_t jobio_kept;		/* of those, kept in user space for the windows now */
};

/* the exposition is made: a textfile, --listen, or both */
static inline bool run_prom(const struct run *r)
{
	return r->o.prom_file || r->o.listen;
}

/* an exposition and no command: left running on a node, where NFS comes and goes with the jobs */
static inline bool run_exporter(const struct run *r)
{
	return run_prom(r) && !r->o.command;
}

/* tick.c: take the start, trace until the options' end, report; -errno (said), *rc the command's */
int run_trace(struct run *r, int *rc);

/* outputs.c */
/* Output files before anything is loaded: directories opened, the textfile locked; an exit code. */
int outputs_open(struct run *r);
/* after the privilege drop: the directories must still be writable by who we are now; -errno */
int outputs_check(const struct run *r);
/*
 * The textfile from the interval view and the textfile's view of the sums (both NULL while
 * waiting for NFS): a failure is said once (until it changes), tracing goes on.
 */
void outputs_prom(struct run *r, const struct view *totals, const struct view *iv,
		  const struct window *w /* [WIN_KINDS] or NULL */);
/* --folded and --svg at exit, whole or not at all; -EIO when one was not written (said) */
int outputs_files(struct run *r, const struct view *summary);
void outputs_close(struct run *r);

#endif
