// SPDX-License-Identifier: GPL-2.0
/*
 * Destroyed transports reaped from the maps with everything that refers to them, and job counts
 * whose cgroup is gone forgotten: what the engine deletes, where engine_read.c only reads.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "engine/engine_int.h"
#include "lib/log.h"
#include "lib/util.h"

static bool reaped(const struct snapshot *snap, const bool *dead, __u64 key)
{
	for (size_t i = 0; i < snap->nxprts; i++)
		if (dead[i] && snap->xprts[i].key == key)
			return true;
	return false;
}

/*
 * Transports destroyed by @snap's time go, with everything that refers to them: their ops, the
 * sessions whose main transport they were, and the clients seen only on them. Their last
 * numbers were in the views made from @snap. An entry is deleted only if it is still the one
 * @snap saw (a new transport may have taken the address since).
 */
/*
 * A reaped op's per-CPU slot (1 + its index in op_pcpu) is zeroed, then given back: the next op
 * to take it starts from 0. The op's entry is gone first, so no RPC counts into it meanwhile.
 */
static void free_op_slot(struct engine *e, __u32 p)
{
	struct slotscope_bpf__bss *b = e->skel->bss;
	size_t n = (size_t)e->ncpu;
	__u32 k = p - 1;
	void *zero;

	if (!p || p > e->op_slots)
		return;
	zero = calloc(n, sizeof(struct op_counts));
	/* not zeroed, not given back: the slot stays taken (a few KiB) rather than hand on counts */
	if (!zero || bpf_map_update_elem(bpf_map__fd(e->skel->maps.op_pcpu), &k, zero, 0)) {
		free(zero);
		return;
	}
	free(zero);
	/* the kept copy too: the slot's next op may be summed before its first stamp is read */
	if (e->pcpu)
		memset(&e->pcpu[(size_t)k * n], 0, n * sizeof(*e->pcpu));
	/* the ring's one producer: the slot first, then the tail that publishes it */
	b->op_free[b->op_free_tail & (MAX_OP_SLOTS - 1)] = k;
	__atomic_store_n(&b->op_free_tail, b->op_free_tail + 1, __ATOMIC_RELEASE);
}

/*
 * The slot of destroyed transport @x is freed if it still holds that transport (the same key
 * and first sighting): its mark in xprt_tab_used cleared, its key set to 1 (no address: a
 * program finding it goes to the hash), every other byte zeroed, then the key 0, which a new
 * transport's claim then takes. A claim makes the entry whole in place, where more than one CPU
 * may count on it at once (get_xprt()): its counters must be zero before it is free. No program
 * writes a destroyed entry.
 */
static bool free_tab_slot(struct engine *e, const struct xprt_snap *x)
{
	size_t i = x->slot - 1;
	struct xprt_stats *t;
	__u64 k = x->key;

	if (i >= XPRT_SLOTS)
		return false;
	t = &e->xtab[i];
	if (__atomic_load_n(&t->first_seen_ns, __ATOMIC_ACQUIRE) != x->s.first_seen_ns)
		return false;
	__atomic_fetch_and(&e->skel->bss->xprt_tab_used[i / 64], ~(1ull << (i % 64)), __ATOMIC_SEQ_CST);
	if (__atomic_compare_exchange_n(&t->key, &k, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		memset(t, 0, offsetof(struct xprt_stats, key));
		__atomic_store_n(&t->key, 0, __ATOMIC_RELEASE);
		return true;
	}
	/* not ours to free after all: its mark goes back */
	__atomic_fetch_or(&e->skel->bss->xprt_tab_used[i / 64], 1ull << (i % 64), __ATOMIC_SEQ_CST);
	return false;
}

int engine_reap(struct engine *e, const struct snapshot *snap, size_t *nreaped)
{
	int xfd = bpf_map__fd(e->skel->maps.xprts);
	struct xprt_stats now;
	bool *dead;
	size_t n = 0;

	*nreaped = 0;
	if (!snap->nxprts)
		return 0;
	dead = calloc(snap->nxprts, sizeof(*dead));
	if (!dead)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_snap *x = &snap->xprts[i];

		if (!(x->s.flags & XF_DESTROYED))
			continue;
		if (x->slot) {
			dead[i] = free_tab_slot(e, x);
			n += dead[i];
			continue;
		}
		if (bpf_map_lookup_elem(xfd, &x->key, &now) || now.first_seen_ns != x->s.first_seen_ns)
			continue;
		dead[i] = !bpf_map_delete_elem(xfd, &x->key);
		n += dead[i];
	}
	for (size_t i = 0; n && i < snap->nops; i++) {
		const struct op_snap *o = &snap->ops[i];
		bool live = false;

		if (!reaped(snap, dead, o->k.xprt))
			continue;
		bpf_map_delete_elem(bpf_map__fd(e->skel->maps.ops), &o->k);
		free_op_slot(e, o->s.pslot);
		/* a client with ops on a transport still there stays */
		for (size_t j = 0; j < snap->nops && !live; j++)
			live = snap->ops[j].k.clid == o->k.clid && !reaped(snap, dead, snap->ops[j].k.xprt);
		if (!live)
			bpf_map_delete_elem(bpf_map__fd(e->skel->maps.clients), &o->k.clid);
	}
	for (size_t i = 0; n && i < snap->nsessions; i++)
		if (reaped(snap, dead, snap->sessions[i].s.xprt))
			bpf_map_delete_elem(bpf_map__fd(e->skel->maps.sessions), &snap->sessions[i].key);
	if (n)
		drop_copies(e);
	free(dead);
	*nreaped = n;
	return 0;
}

int engine_cgroup_path(void *ctx, __u64 id, char *path, size_t len)
{
	struct engine *e = ctx;
	struct cg_name n;
	size_t at = 0;

	if (!e->skel || bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.cg_names), &id, &n))
		return -ENOENT;
	if (n.depth & CG_NAME_TRUNC || n.depth > CG_DEPTH)
		return -E2BIG;
	if (!n.depth)
		return snprintf(path, len, "/") < (int)len ? 0 : -E2BIG;
	/* from the root down: the leaf is comp[0] */
	for (int i = (int)n.depth - 1; i >= 0; i--) {
		int w;

		n.comp[i][CG_COMP - 1] = '\0';
		/* a name with a slash is no directory's: not a path to trust */
		if (!n.comp[i][0] || strchr(n.comp[i], '/'))
			return -ENOENT;
		w = snprintf(path + at, len - at, "/%s", n.comp[i]);
		if (w < 0 || (size_t)w >= len - at)
			return -E2BIG;
		at += (size_t)w;
	}
	return 0;
}

size_t engine_forget_jobio(struct engine *e, const struct jobio_snap *gone, size_t n, __u64 still_ns)
{
	int fd = bpf_map__fd(e->skel->maps.jobio);
	size_t deleted = 0;

	/* the tick may have reused its copy: a late count it did not see keeps the entry */
	for (size_t i = 0; i < n; i++) {
		struct job_io v;

		if (bpf_map_lookup_elem(fd, &gone[i].k, &v) || !jobret_matches(&e->retired, &gone[i], &v))
			continue;
		/* room first: counts deleted and not kept would vanish from every later snapshot */
		if (jobret_reserve(&e->retired, 1))
			break;
		if (bpf_map_delete_elem(fd, &gone[i].k))
			continue;
		jobret_add(&e->retired, &gone[i].k, &v, still_ns);
		deleted++;
	}
	jobret_commit(&e->retired);
	if (deleted)
		e->jobio_copy.valid = false;
	return deleted;
}

int engine_xprt_now(const struct engine *e, const struct xprt_snap *c, struct xprt_stats *out)
{
	if (c->slot) {
		const struct xprt_stats *t;

		if (c->slot > e->xtab_len)
			return -ENOENT;
		t = &e->xtab[c->slot - 1];
		if (__atomic_load_n(&t->key, __ATOMIC_ACQUIRE) != c->key)
			return -ENOENT;
		memcpy(out, t, sizeof(*out));
		return out->first_seen_ns == c->s.first_seen_ns ? 0 : -ENOENT;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.xprts), &c->key, out))
		return -ENOENT;
	return out->first_seen_ns == c->s.first_seen_ns ? 0 : -ENOENT;
}

size_t engine_jobio_capacity(const struct engine *e)
{
	return bpf_map__max_entries(e->skel->maps.jobio);
}

bool engine_jobio_forgotten(const struct engine *e, const struct jobio_snap *s)
{
	return jobret_only(&e->retired, s);
}

static bool in_jobio(void *ctx, const struct job_key *k)
{
	struct engine *e = ctx;
	struct job_io v;

	return !bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.jobio), k, &v);
}

size_t engine_jobio_trim(struct engine *e, __u64 held_ns)
{
	if (jobret_trim(&e->retired, held_ns, in_jobio, e))
		e->jobio_copy.valid = false;
	return e->retired.n;
}
