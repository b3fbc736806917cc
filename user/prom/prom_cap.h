/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exposition's series cap (--prom-max-series): a node whose mounts would take the textfile
 * (and /metrics) past it shows the mounts it saw first, as many as fit, and leaves the others out
 * whole, as --prom-mount-exclude would: their transports (or rows), ops and totals. A mount keeps
 * its place in that order while it is mounted, so the same ones are shown tick after tick and no
 * series comes and goes with the load; one unmounted makes room for the next. The node's own
 * series are always there, however few the cap leaves.
 */
#ifndef SLOTSCOPE_PROM_CAP_H
#define SLOTSCOPE_PROM_CAP_H

#include <stddef.h>
#include "out/output.h"

struct prom_cap {
	size_t max;			/* series; 0: no cap */
	char **order;			/* mount points ("": of no known mount), first seen first */
	size_t n, capn;
	size_t left_out;		/* mounts the last exposition left out */
	bool said;			/* a warning says when the cap starts to bite, once a run */
};

/* series (sample lines) in an exposition of @len bytes */
size_t prom_series_in(const char *text, size_t len);

/*
 * The exposition of @in (whose cum is @in->cum's mounts in full) within the cap: 0 with *@text
 * (malloc'd, *@len bytes) rendered once, or twice when over the cap (then from a view of the
 * mounts that fit, @in->mounts_capped set); -ENOMEM.
 */
int prom_cap_render(struct prom_cap *c, struct prom_input *in, char **text, size_t *len);

void prom_cap_free(struct prom_cap *c);

#endif
