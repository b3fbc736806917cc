/* SPDX-License-Identifier: GPL-2.0 */
/* What limits a transport's throughput, with the numbers behind it and the knob that moves it. */
#ifndef SLOTSCOPE_VERDICT_H
#define SLOTSCOPE_VERDICT_H

#include "model/view.h"

/*
 * the verdict on transport @x over view @v; knobs named from v->tun. model_build() calls it,
 * after the transport's op sums (op_count, exec_ns, ...) it reads are made.
 */
void verdict_for(const struct view *v, const struct xprt_view *x, struct verdict *out);

#endif
