/* SPDX-License-Identifier: GPL-2.0 */
/* The exposition's parts in files of their own (out_prom.c writes the rest and the order). */
#ifndef SLOTSCOPE_OUT_PROM_INT_H
#define SLOTSCOPE_OUT_PROM_INT_H

#include <stdio.h>
#include "out/output.h"

/* a label value, escaped as the text format wants */
void prom_lv(FILE *f, const char *s);
/* a family's HELP and TYPE lines; @name without the slotscope_ prefix */
void prom_family(FILE *f, const char *name, const char *type, const char *help);
/* each mount's server, answering or not, and who is stuck behind it (out_prom_answer.c, #59) */
void prom_answers(FILE *f, const struct prom_input *in);
/* windows per kind, their last job, and their jobs' time by cause (out_prom_win.c) */
void prom_windows(FILE *f, const struct prom_input *in);

#endif
