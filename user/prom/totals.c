// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "links/rdma.h"
#include "prom/totals.h"

int textfile_totals(const struct textfile_in *in, struct view *out)
{
	struct links_view *l = &out->links;
	int err = ledger_view(in->sums, in->iv, in->mounts, in->prom, out);

	if (err)
		return err;
	memset(l, 0, sizeof(*l));
	if (!in->lstart || !in->lto)
		return 0;
	l->sampled = true;
	snprintf(l->why_empty, sizeof(l->why_empty), "%s", in->lto->why_empty);
	err = link_delta(in->lstart, in->lto, &l->ports, &l->nports);
	if (!err)
		err = netdev_delta(in->lstart, in->lto, &l->nds, &l->nnds);
	if (err)
		textfile_totals_free(out);
	return err;
}

void textfile_totals_free(struct view *out)
{
	free(out->links.ports);
	free(out->links.nds);
	out->links.ports = NULL;
	out->links.nds = NULL;
	ledger_view_free(out);
}
