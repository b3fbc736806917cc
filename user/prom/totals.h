/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The textfile's own view, built after the model's and from it: every series' sums since
 * attach with this interval added (ledger.h), and the links' counters since attach. The model
 * ends at the interval's view; what only the textfile needs is made here, by its own call.
 */
#ifndef SLOTSCOPE_TOTALS_H
#define SLOTSCOPE_TOTALS_H

#include "prom/ledger.h"

struct textfile_in {
	const struct ledger *sums;		/* the sums before this interval */
	const struct view *iv;			/* the interval's view (model_build's) */
	const struct mount_table *mounts;	/* the one the interval's view was built with */
	const struct prom_mounts *prom;		/* NULL: every mount, per transport */
	const struct link_sample *lstart, *lto;	/* the links at attach and now; NULL: not sampled */
};

/*
 * 0 or -ENOMEM (then @out holds nothing to free). @out points into in->sums, which ledger_add()
 * may change: render it first.
 */
int textfile_totals(const struct textfile_in *in, struct view *out);
void textfile_totals_free(struct view *out);

#endif
