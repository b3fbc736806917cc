/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_OUTPUT_H
#define SLOTSCOPE_OUTPUT_H

#include <stdio.h>
#include "view.h"

/* One JSON line: {"type":"interval"|"summary", ...} as documented in README.md. */
void out_json(FILE *f, const struct view *v);
/* The terminal table of an interval (idle transports left out) or the summary. */
void out_text(FILE *f, const struct view *v);

#endif
