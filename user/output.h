/* SPDX-License-Identifier: GPL-2.0 */
/* Renderers: every one writes to a FILE *. */
#ifndef SLOTSCOPE_OUTPUT_H
#define SLOTSCOPE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include "audit.h"
#include "ckpt.h"
#include "view.h"

/* One JSON line: {"type":"interval"|"summary", ...} as documented in README.md. */
void out_json(FILE *f, const struct view *v);
/* {"type":"checkpoint", ...}: the burst's view and link use while saturated */
void out_ckpt_json(FILE *f, const struct view *v, const struct ckpt_view *c);
/* {"type":"audit", ...} */
void out_audit_json(FILE *f, const struct audit *a);

/* What a textfile is made of; renderers only format it. */
struct prom_input {
	const struct view *cum;		/* since attach, ledger applied; NULL: not tracing yet */
	const struct view *iv;		/* the last interval: gauges and info */
	const struct ckpt *ck;		/* windows, [WIN_KINDS]; NULL: none */
	double now_wall;
	bool detail;			/* --prom-detail: every op, stage and wait kind; RDMA hw counters */
	const char *version, *kernel;
};

/* Prometheus text exposition of @in (README "Metrics"); 0 (write errors: see ferror(@f)) */
int out_prom(FILE *f, const struct prom_input *in);
/* out_prom into PATH whole (outfile.h: no symlink, temporary file, fsync, rename); 0 or -errno */
int prom_write(const char *path, const struct prom_input *in);

/* One slot-wait histogram per interval, for the heat map. */
struct heat_column {
	double wall;
	__u64 buckets[LAT_BUCKETS];
};

/* folded stacks: server;mountpoint;op;stage;latency-bucket weight-in-us */
void out_folded(FILE *f, const struct view *v);
/* a self-contained SVG: icicle chart of the folded stacks, and a slot-wait heat map */
void out_svg(FILE *f, const struct view *v, const struct heat_column *cols, size_t ncols);

/* The terminal table of an interval (idle transports left out) or the summary, <= 100 columns. */
void out_text(FILE *f, const struct view *v);
void out_ckpt_text(FILE *f, const struct view *v, const struct ckpt_view *c);
void out_xprt_row(FILE *f, const struct view *v, const struct xprt_view *x, bool with_verdict);
void print_wrapped(FILE *f, const char *prefix, const char *text);

#endif
