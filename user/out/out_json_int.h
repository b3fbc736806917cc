/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON lines' parts in files of their own (out_json.c writes the rest and the order). */
#ifndef SLOTSCOPE_OUT_JSON_INT_H
#define SLOTSCOPE_OUT_JSON_INT_H

#include "out/json.h"
#include "model/view.h"

/* a transport's "answer" object (#59, out_json_answer.c) */
void answer_json(struct jw *w, const struct answer *a);
/* an interval's "answers": one per mount and server, with who is stuck */
void answers_json(struct jw *w, const struct view *v);

#endif
