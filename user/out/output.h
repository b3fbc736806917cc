/* SPDX-License-Identifier: GPL-2.0 */
/* Renderers: every one writes to a FILE *. */
#ifndef SLOTSCOPE_OUTPUT_H
#define SLOTSCOPE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include "host/audit.h"
#include "model/window.h"
#include "model/view.h"

/* One JSON line: {"type":"interval"|"summary", ...} as documented in docs/json.md. */
void out_json(FILE *f, const struct view *v);
/* {"type":"checkpoint", ...}: the burst's view and link use while saturated */
void out_window_json(FILE *f, const struct view *v, const struct window_view *c);
/* {"type":"audit", ...} */
void out_audit_json(FILE *f, const struct audit *a);

/* What a textfile is made of; renderers only format it. */
struct prom_input {
	const struct view *cum;		/* since attach, ledger applied; NULL: not tracing yet */
	const struct view *iv;		/* the last interval: gauges and info */
	const struct window *windows;		/* windows, [WIN_KINDS]; NULL: none */
	double now_wall;
	bool detail;			/* --prom-detail: every op, stage and wait kind; RDMA hw counters */
	bool rollup;			/* --prom-rollup: cum->rows instead of its transports */
	bool user;			/* --prom-user: the jobs' uids and user names in labels */
	size_t mounts_capped;		/* mounts the series cap left out of cum (prom_cap.h) */
	const char *version, *kernel;
	/* slotscope_build_info's other labels (buildinfo.h); NULL: left out. design: "" while waiting */
	const char *revision, *libbpf, *arch, *design;
};

/* Prometheus text exposition of @in (docs/metrics.md); 0 (write errors: see ferror(@f)) */
int out_prom(FILE *f, const struct prom_input *in);
/* out_prom into PATH whole (outfile.h: no symlink, temporary file, fsync, rename); 0 or -errno */
int prom_write(const char *path, const struct prom_input *in);
/* out_prom as outfile_write's writer: @arg is the struct prom_input */
int out_prom_fn(FILE *f, const void *arg);

/* One slot-wait histogram per interval (or, on a long trace, per run of intervals). */
struct heat_column {
	double wall;
	__u64 buckets[LAT_BUCKETS];
};

/* the heat map's state: bounded, however long the trace */
struct heat_map {
	struct heat_column *cols;
	size_t n, cap;
	unsigned int span, fill;	/* intervals per column, in the last one */
};

/* add interval view @v's slot waits; 0 or -ENOMEM (the interval is left out) */
int heat_add(struct heat_map *h, const struct view *v);
void heat_free(struct heat_map *h);

/* folded stacks: server;mountpoint;op;stage;latency-bucket weight-in-us */
void out_folded(FILE *f, const struct view *v);
/* a self-contained SVG: icicle chart of the folded stacks, and a slot-wait heat map */
void out_svg(FILE *f, const struct view *v, const struct heat_map *heat);

/* The terminal table of an interval (idle transports left out) or the summary, <= 100 columns. */
void out_text(FILE *f, const struct view *v);
void out_window_text(FILE *f, const struct view *v, const struct window_view *c);
void out_xprt_row(FILE *f, const struct xprt_view *x, bool with_verdict);
/* an interval's mounts whose server does not answer, and who is stuck (out_text_answer.c, #59) */
void out_answers_text(FILE *f, const struct view *v);

#endif
