// SPDX-License-Identifier: GPL-2.0
/* NFSv4.1 sessions in a view: slots taken, and their time against the limit in force. */
#include "model/model.h"
#include "lib/uhist.h"

/*
 * A session is its nfs_client's, whose RPC client no superblock names (a mount's client, made
 * from it, keeps no link back once its superblock is known): the mount is that of the ops on
 * the session's transport (the first: the mounts of one server share it).
 */
static const char *session_mountpoint(const struct view *v, const struct snapshot *s,
				      const struct mount_table *mt, __u32 clid, __u64 xprt)
{
	const char *m = mountpoint_of(s, mt, clid);

	for (size_t i = 0; !m && i < v->nops; i++)
		if (v->ops[i].k.xprt == xprt)
			m = v->ops[i].mountpoint;
	return m;
}

void sessions_view(struct view *v, const struct snapshot *prev, const struct snapshot *cur,
		   const struct mount_table *mt)
{
	for (size_t i = 0; i < cur->nsessions; i++) {
		struct session_view *s = &v->sessions[v->nsessions++];
		const struct session_stats *p = NULL;

		s->key = cur->sessions[i].key;
		s->s = cur->sessions[i].s;
		s->xprt = s->s.xprt;
		s->clid = s->s.clid;
		s->mountpoint = session_mountpoint(v, cur, mt, s->clid, s->xprt);
		/* a session made anew at a reused address starts its own count */
		for (size_t j = 0; j < prev->nsessions; j++)
			if (prev->sessions[j].key == s->key && prev->sessions[j].s.first_ns == s->s.first_ns)
				p = &prev->sessions[j].s;
		s->sequences = delta_u64(s->s.sequences, p ? p->sequences : 0);
		s->limit_changes = delta_u64(s->s.limit_changes, p ? p->limit_changes : 0);
		/* time at each level against the limit in force: none where either end's is not known */
		s->levels_known = s->s.bucket < LEVEL_BUCKETS && (!p || p->bucket < LEVEL_BUCKETS);
		if (s->levels_known)
			s->at_limit_pct = level_share(s->s.level_ns, p ? p->level_ns : NULL, &s->busy_ns,
						      &s->at_limit_ns);
	}
}
