/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots made by hand, and views made of them the one way the running trace makes them:
 * model_build(). A test states what the BPF maps and the machine would hold, never a view's
 * figures.
 */
#ifndef SLOTSCOPE_MODELFIX_H
#define SLOTSCOPE_MODELFIX_H

#include <stdio.h>
#include <string.h>
#include "hist.h"
#include "model/model.h"

#define FX_XPRTS 16
#define FX_OPS 64

struct snapfix {
	struct snapshot s;
	struct xprt_snap x[FX_XPRTS];
	struct op_snap o[FX_OPS];
	struct client_snap c[16];
	struct session_snap ss[4];
};

static inline void fx_init(struct snapfix *f, __u64 ts_ns)
{
	memset(f, 0, sizeof(*f));
	f->s.ts_ns = ts_ns;
	f->s.xprts = f->x;
	f->s.ops = f->o;
	f->s.clients = f->c;
	f->s.sessions = f->ss;
}

/* a transport at @key: the caller fills what the test is about */
static inline struct xprt_stats *fx_xprt(struct snapfix *f, __u64 key, __u32 id, __u32 ident,
					 const char *addr, __u32 limit)
{
	struct xprt_snap *x = &f->x[f->s.nxprts++];

	x->key = key;
	x->s.id = id;
	x->s.ident = ident;
	x->s.limit = x->s.max_reqs = limit;
	x->s.first_seen_ns = 1;
	snprintf(x->s.addr, sizeof(x->s.addr), "%s", addr);
	snprintf(x->s.port, sizeof(x->s.port), "2049");
	return &x->s;
}

/* @count calls of op @name by client @clid on transport @xprt, each taking @exec_ns (RTT @rtt_ns) */
static inline struct op_counts *fx_op(struct snapfix *f, __u64 xprt, __u32 clid, __u32 proc,
				     const char *name, __u64 count, __u64 exec_ns, __u64 rtt_ns)
{
	struct op_snap *o = &f->o[f->s.nops++];

	o->k = (struct op_key){ .xprt = xprt, .clid = clid, .prog = 100003, .vers = 3, .proc = proc };
	snprintf(o->s.name, sizeof(o->s.name), "%s", name);
	o->s.c.count = o->s.c.ntrans = count;
	o->s.c.sum_ns[STAGE_EXECUTE] = count * exec_ns;
	o->s.c.sum_ns[STAGE_RTT] = count * rtt_ns;
	o->s.c.hist[STAGE_EXECUTE][lat_bucket(exec_ns)] = count;
	o->s.c.hist[STAGE_RTT][lat_bucket(rtt_ns)] = count;
	return &o->s.c;
}

/* client @clid serves the superblock @dev (MAJOR << 20 | MINOR), or was made from @parent */
static inline void fx_client(struct snapfix *f, __u32 clid, __u32 dev, __u32 parent)
{
	struct client_snap *c = &f->c[f->s.nclients++];

	c->clid = clid;
	c->ci.dev = dev;
	c->ci.parent = parent;
}

/* @busy_ns with a slot in use, @full_pct of it with every slot in use */
static inline void fx_levels(struct xprt_stats *x, double busy_ns, double full_pct)
{
	x->level_ns[LEVEL_BUCKETS - 1] = (__u64)(busy_ns * full_pct / 100);
	x->level_ns[1] = (__u64)busy_ns - x->level_ns[LEVEL_BUCKETS - 1];
}

/* the view of @a .. @b as an interval (@span) with the knobs most tests assume */
static inline int fx_model(struct model_out *m, enum view_span span, const struct snapfix *a,
			   const struct snapfix *b, const struct mount_table *mt)
{
	struct model_in in = { .span = span, .from = &a->s, .to = &b->s, .mounts = mt,
			       .tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 } };

	return model_build(&in, m);
}

#endif
