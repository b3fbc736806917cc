/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model: one call from everything a view needs to the finished view. Its inputs are read
 * only; it reads no file and no clock, so a test gives it recorded snapshots and gets what the
 * running trace would print. The caller gathers the inputs (maps, links, mounts, link paths).
 * The textfile's sums over intervals are not the model's: prom/totals.h makes them from its view.
 */
#ifndef SLOTSCOPE_MODEL_H
#define SLOTSCOPE_MODEL_H

#include "model/client_mount.h"
#include "model/prom_mounts.h"
#include "links/linkmap.h"
#include "model/view.h"

/* --mount: a server address and protocol whose transports are shown */
/* a transport's highest slots in use over a window, as its detector saw them interval by interval */
struct window_peak {
	__u64 key;
	__u32 peak;
};

struct model_in {
	struct view_arena *arena;		/* the caller's, for the view's arrays; NULL: malloc */
	enum view_span span;
	const struct snapshot *from, *to;	/* from: an empty snapshot at the start */
	const struct link_sample *lfrom, *lto;	/* NULL: links not sampled (--no-rdma) */
	const struct link_sample *tfrom, *tto;	/* the same samples, for their TCP connections only */
	const struct mount_table *mounts;	/* NULL: no mount known */
	const struct linkmap *paths;		/* each transport's link path; NULL: none known */
	size_t nfilters;
	const struct mount_xprt *filters;	/* none: every transport */
	struct tunables tun;
	double wall;				/* CLOCK_REALTIME at @to, for display */
	struct self_cost cost;
	size_t npeaks;
	const struct window_peak *peaks;	/* SPAN_WINDOW */
	/* the textfile's mounts, whose rows the answers follow too; NULL: every one, per transport */
	const struct prom_mounts *prom;
	/* #59: --silent-after (0: SILENT_AFTER_S); transports sysfs shows not connected, by key */
	double silent_after_s;
	size_t ndisconnected;
	const __u64 *disconnected;
};

/* the textfile's own view is prom/totals.h's, made from this one */
struct model_out {
	struct view view;
};

/* 0 or -ENOMEM (then @out holds nothing to free). The views point into in->mounts and @out. */
int model_build(const struct model_in *in, struct model_out *out);
void model_out_free(struct model_out *out);

/* answer_view.c: each transport's answer and each mount's row (an interval view, after prom_owners) */
int answer_view(struct view *v, const struct model_in *in);
/* credit_view.c: a transport's credits at @c since @o (NULL: since attach); level_share() */
double level_share(const __u64 *c, const __u64 *o, __u64 *busy_ns, __u64 *at_limit_ns);
void credit_view(struct credit_view *v, const struct credit_levels *c, const struct credit_levels *o);
/* session_view.c: each session of @cur, its figures since @prev's */
void sessions_view(struct view *v, const struct snapshot *prev, const struct snapshot *cur,
		   const struct mount_table *mt);

#endif
