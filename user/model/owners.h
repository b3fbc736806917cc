/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_OWNERS_H
#define SLOTSCOPE_OWNERS_H

#include "model/prom_mounts.h"
#include "model/view.h"

/*
 * Each transport of @v's textfile mount (row_mount, the first in path order of the shown mounts
 * it serves: by its ops' clients, then by @mt), whether it is hidden (row_hidden: every mount it
 * serves filtered out by @pm) and its server as the mount names it (row_server). @ix: @v's index.
 */
void prom_owners(struct view *v, const struct mount_table *mt, const struct prom_mounts *pm,
		 const struct xprt_index *ix);

#endif
