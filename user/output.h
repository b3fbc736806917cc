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
void out_ckpt_json(FILE *f, const struct view *v, const struct ckpt *c);
/* {"type":"audit", ...} */
void out_audit_json(FILE *f, const struct audit *a);

/* The terminal table of an interval (idle transports left out) or the summary, <= 100 columns. */
void out_text(FILE *f, const struct view *v);
void out_ckpt_text(FILE *f, const struct view *v, const struct ckpt *c);
void out_xprt_row(FILE *f, const struct view *v, const struct xprt_view *x, bool with_verdict);
void print_wrapped(FILE *f, const char *prefix, const char *text);

#endif
