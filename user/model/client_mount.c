// SPDX-License-Identifier: GPL-2.0
/* The mount an RPC client serves, from the clients the programs placed on superblocks. */
#include "model/client_mount.h"

/* a client without a superblock of its own belongs to the mount of the client it was made from */
const char *mountpoint_of(const struct snapshot *s, const struct mount_table *mt, __u32 clid)
{
	const struct nfs_mount *m;

	/* the chain is short (ACL client -> mount's client -> nfs_client's): a bound, not a walk */
	for (int depth = 0; depth < 4; depth++) {
		const struct client_info *ci = NULL;

		for (size_t i = 0; i < s->nclients && !ci; i++)
			if (s->clients[i].clid == clid)
				ci = &s->clients[i].ci;
		if (!ci)
			return NULL;
		if (ci->dev) {
			m = mt ? mounts_by_kdev(mt, ci->dev) : NULL;
			return m ? m->mountpoint : NULL;
		}
		/* 0 is no parent: clid 0 is the first client made, so never one made from another */
		if (!ci->parent)
			return NULL;
		clid = ci->parent;
	}
	return NULL;
}
