// SPDX-License-Identifier: GPL-2.0
/*
 * The textfile's owner of each transport (owners.h): the mount its series count under, and the
 * server named with it. The model asks it every interval; the renderers read what it set.
 */
#include <string.h>
#include "model/owners.h"

/* @m serves @x by the mount table: its server and protocol ("tcp6" is tcp), as -m reads them */
static bool mount_serves(const struct nfs_mount *m, const struct xprt_view *x)
{
	struct mount_xprt mx;

	return !mount_xprt_of(m, &mx) && mount_xprt_match(&mx, x->addr, proto_name(x->ident));
}

/* the first of two mount points in path order; NULL comes last */
static const char *first_path(const char *a, const char *b)
{
	return !a || (b && strcmp(b, a) < 0) ? b : a;
}

/*
 * The mount each transport counts under in the textfile, and whether the filters leave it in. A
 * transport serves the mounts whose clients' ops it has carried (the ops map holds them since
 * attach; a freed client's, whose id a new mount's client may have taken, not) and those the
 * mount table says were mounted from its server over its protocol; of
 * those shown, it counts under the first in path order, so a transport two mounts share counts
 * once, under the same mount tick after tick. One whose every mount is filtered out is hidden;
 * one serving no known mount counts under "" and its own server.
 */
void prom_owners(struct view *v, const struct mount_table *mt, const struct prom_mounts *pm,
		 const struct xprt_index *ix)
{

	/* row_hidden stands for "some mount known" until the last pass */
	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *o = &v->ops[i];
		struct xprt_view *x = (struct xprt_view *)xprt_index_find(ix, o->k.xprt);

		if (!x || !o->mountpoint || !o->client_done)
			continue;
		x->row_hidden = true;
		if (prom_mount_shown(pm, o->mountpoint))
			x->row_mount = first_path(x->row_mount, o->mountpoint);
	}
	for (size_t i = 0; i < v->nxprts; i++) {
		struct xprt_view *x = &v->xprts[i];
		const struct nfs_mount *m = NULL;

		for (size_t j = 0; mt && j < mt->n; j++) {
			if (!mount_serves(&mt->m[j], x))
				continue;
			x->row_hidden = true;
			if (prom_mount_shown(pm, mt->m[j].mountpoint))
				x->row_mount = first_path(x->row_mount, mt->m[j].mountpoint);
		}
		x->row_hidden = x->row_hidden ? !x->row_mount : !prom_mount_shown(pm, NULL);
		if (x->row_mount && mt)
			m = mounts_by_path(mt, x->row_mount);
		if (m)
			mount_server(m, x->row_server, sizeof(x->row_server));
		if (!x->row_server[0])
			memcpy(x->row_server, x->addr, sizeof(x->row_server));
	}
}
