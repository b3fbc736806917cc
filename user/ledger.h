/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The textfile's counters: running sums of interval views, kept per series (a transport's labels,
 * a mount's path), not per kernel object. Prometheus reads a counter that goes down as a reset;
 * made from two snapshots, a cumulative view would go down whenever the kernel takes something
 * away under a series: a transport reaped (its id then reused by the next), a mount unmounted
 * while its transport lives on, a device number or client id reused by another mount. Each
 * interval's figures are added to the series they belonged to then, and stay added.
 */
#ifndef SLOTSCOPE_LEDGER_H
#define SLOTSCOPE_LEDGER_H

#include "view.h"

/* series remembered; past it, the one idle longest goes (it restarts from 0 if it returns) */
#define LEDGER_MAX_XPRTS 1024
#define LEDGER_MAX_MOUNTS 256
/* a series no longer in the cumulative view stays in the file this long after its last change */
#define LEDGER_KEEP_S 900.0

/* a transport series (server, protocol, kernel id): x's counters summed, the rest the newest's */
struct xprt_sum {
	double last_s;
	struct xprt_view x;
};

struct mount_sum {
	double last_s;
	struct mount_total total;	/* total.mountpoint: owned; "" for ops of no known mount */
	size_t nops, capops;
	struct mount_op *ops;		/* ops[i].mountpoint is total.mountpoint */
};

struct ledger {
	size_t nx, capx, nm, capm;
	struct xprt_sum *x;
	struct mount_sum *m;
};

/* add a finished interval view; 0 or -ENOMEM (what found no room is not counted) */
int ledger_add(struct ledger *l, const struct view *iv);
/*
 * @out: @cum with its transports and per-mount figures replaced by the sums (series in @cum, and
 * those changed in the last LEDGER_KEEP_S seconds), for the textfile. It points into @l and @cum;
 * free with ledger_view_free() before either changes. 0 or -ENOMEM.
 */
int ledger_view(const struct ledger *l, const struct view *cum, struct view *out);
void ledger_view_free(struct view *out);
void ledger_free(struct ledger *l);

#endif
