// SPDX-License-Identifier: GPL-2.0
/* Transports as the programs read them, against sunrpc's own sysfs files. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/prove.h"
#include "lib/util.h"
#include "host/xprtinfo.h"

static const char *ident_name(__u32 ident)
{
	switch (ident) {
	case IDENT_TCP: return "tcp";
	case IDENT_UDP: return "udp";
	case IDENT_RDMA: return "rdma";
	/* XPRT_TRANSPORT_LOCAL: the AF_UNIX transport rpcbind registrations use */
	case 257: return "local";
	default: return NULL;
	}
}

/* looks at a live transport its kernel does not publish before that is said */
#define UNPUBLISHED_LOOKS 5

static bool is_done(const struct proof *p, __u64 key, __u64 first_seen)
{
	for (size_t i = 0; i + 1 < p->ndone; i += 2)
		if (p->done[i] == key && p->done[i + 1] == first_seen)
			return true;
	return false;
}

/* the published transport of id @id under @xs (the xprt-switches directory): 1 found, 0 not */
static int published(const char *xs, __u32 id, struct audit_xprt *x)
{
	char pat[640];
	glob_t g;
	int found = 0;

	snprintf(pat, sizeof(pat), "%s/switch-*/xprt-%u-*", xs, id);
	if (glob(pat, 0, NULL, &g))
		return 0;
	if (g.gl_pathc) {
		const char *dash = strrchr(g.gl_pathv[0], '-');

		memset(x, 0, sizeof(*x));
		snprintf(x->proto, sizeof(x->proto), "%s", dash ? dash + 1 : "");
		xprt_info_read(g.gl_pathv[0], x);
		found = 1;
	}
	globfree(&g);
	return found;
}

/* 0: @s matches @x (or xprt_info was unreadable: undecided, *@decided false); -EPROTO with @why */
static bool any_published(const char *xs)
{
	char pat[600];
	glob_t g;
	bool any;

	snprintf(pat, sizeof(pat), "%s/switch-*/xprt-*-*", xs);
	any = !glob(pat, 0, NULL, &g) && g.gl_pathc > 0;
	globfree(&g);
	return any;
}

static int compare(const struct xprt_stats *s, const struct audit_xprt *x, bool *decided, char *why,
		   size_t len)
{
	const char *id = ident_name(s->ident);

	*decided = false;
	/* a class this build has no name for (a later kernel's) is not judged by it */
	if (id && strcmp(id, x->proto)) {
		snprintf(why, len, "transport %u: class %u read, the kernel publishes xprt-%u-%s", s->id,
			 s->ident, s->id, x->proto);
		return -EPROTO;
	}
	/* xprt_info is -ENOTCONN while the transport is not connected: judged later */
	if (!x->max_slots)
		return 0;
	*decided = true;
	if (s->max_reqs != x->max_slots || s->min_reqs != x->min_slots) {
		snprintf(why, len, "transport %u: max_reqs/min_reqs read %u/%u, the kernel publishes "
			 "max_num_slots=%u min_num_slots=%u", s->id, s->max_reqs, s->min_reqs, x->max_slots,
			 x->min_slots);
		return -EPROTO;
	}
	return 0;
}

static int mark_done(struct proof *p, __u64 key, __u64 first_seen)
{
	if (grow(&p->done, &p->done_cap, p->ndone + 2, sizeof(*p->done), 32))
		return -ENOMEM;
	p->done[p->ndone++] = key;
	p->done[p->ndone++] = first_seen;
	p->proven++;
	return 0;
}

/* @key's consecutive checks that found it published with other values; counted up, or reset */
static int bad_run(struct proof *p, __u64 key, __u64 first_seen, bool bad)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->seen[i].key == key && p->seen[i].first_seen == first_seen)
			return p->seen[i].misses = bad ? p->seen[i].misses + 1 : 0;
	if (!bad)
		return 0;
	if (grow(&p->seen, &p->cap, p->n + 1, sizeof(*p->seen), 16))
		return -ENOMEM;
	p->seen[p->n].key = key;
	p->seen[p->n].first_seen = first_seen;
	p->seen[p->n].misses = 1;
	return p->seen[p->n++].misses;
}

/* @c's entry among the levels looked at; p->nlv when it has none yet */
static size_t lv_of(const struct proof *p, const struct xprt_snap *c)
{
	size_t i;

	for (i = 0; i < p->nlv; i++)
		if (p->lv[i].key == c->key && p->lv[i].first_seen == c->s.first_seen_ns)
			break;
	return i;
}

/* a TCP or UDP transport that took a slot since its level was last looked at */
static bool level_due(const struct proof *p, const struct xprt_snap *c)
{
	size_t i;

	if (c->s.ident != IDENT_TCP && c->s.ident != IDENT_UDP)
		return false;
	i = lv_of(p, c);
	return i == p->nlv || p->lv[i].acquires != c->s.n.acquires;
}

/*
 * The level held against the kernel's own count (#64). Over TCP and UDP every slot in use is a
 * request xprt_dynamic_alloc_slot() counted in num_reqs, and the programs book a take after its
 * allocation and a release before its free (bpf/account.h's level_cap()), so the level, less the
 * hand-offs it holds pending (@handing: releases to a backlog whose waiter has not taken them
 * yet), never passes num_reqs but by the releases not yet freed at the snapshot (at most one a
 * CPU) and the frees made between the snapshot and this read of xprt_info. A level past that,
 * or by the releases whose programs the kernel skipped (bpf_prog_info.recursion_misses), twice
 * running, is a level read wrong (a release's hook or layout missed). Looked at only where the transport took a slot
 * since the last look: an idle one's level was looked at when it last moved. Not RDMA's: its
 * pool is its own (rpcrdma_buffer_get()), and num_reqs stays as the transport was made. 1 over
 * (a first look), 0 within, -EPROTO with @why, -ENOMEM.
 */
static int level_held(struct proof *p, const struct xprt_snap *c, const struct audit_xprt *x, __u64 skipped,
		      char *why, size_t len)
{
	const struct xprt_stats *s = &c->s;
	struct xprt_stats a;
	long over, freed = 0;
	size_t i;

	if ((s->ident != IDENT_TCP && s->ident != IDENT_UDP) || !x->max_slots)
		return 0;
	/*
	 * xprt_info is read after the snapshot, and a loaded machine can stall between the two: the
	 * requests freed meanwhile each had its release booked before its free (at most one a CPU
	 * still unbooked at the snapshot), so they are at most the releases booked between the
	 * snapshot and a look at the map after the read
	 */
	if (p->now && !p->now(p->now_ctx, c, &a) && a.n.releases > s->n.releases)
		freed = (long)(a.n.releases - s->n.releases);
	/* a release whose program the kernel skipped leaves the level one high until its request's
	 * next use: as many as the kernel skipped (since attach) */
	over = (long)s->in_use - (long)s->handing - (long)x->num_reqs - freed - (long)p->cpus -
	       (long)(skipped > 1000000 ? 1000000 : skipped);
	i = lv_of(p, c);
	if (i == p->nlv) {
		if (GROW(p->lv, p->lv_cap, p->nlv + 1, 16))
			return -ENOMEM;
		memset(&p->lv[p->nlv++], 0, sizeof(*p->lv));
		p->lv[i].key = c->key;
		p->lv[i].first_seen = s->first_seen_ns;
	} else if (p->lv[i].acquires == s->n.acquires) {
		return 0;
	}
	p->lv[i].acquires = s->n.acquires;
	p->lv[i].over = over > 0 ? p->lv[i].over + 1 : 0;
	if (!p->lv[i].over)
		return 0;
	if (p->lv[i].over < 2)
		return 1;
	snprintf(why, len, "transport %u: %d slots counted in use (%u of them hand-offs pending), and "
		 "the kernel holds %u requests for it (num_reqs; %ld freed since, %u CPUs, %llu runs "
		 "skipped)", s->id, s->in_use, s->handing, x->num_reqs, freed, p->cpus,
		 (unsigned long long)skipped);
	return -EPROTO;
}

/*
 * A transport's sysfs directory may go before the programs see it destroyed (its switch's goes
 * with the client, and xprt_destroy runs from a work queue later), and its id may then be
 * reused: one look proves nothing wrong. Refused are the same values read differently twice
 * running, or, twice running, no live transport published at all while the kernel publishes
 * some and none was ever proven (a layout read wrong reads every id and address wrong).
 */
int proof_check(struct proof *p, const struct snapshot *snap, const char *sysfs_root, char *why,
		size_t len)
{
	char xs[512], missing[200] = "";
	size_t found = 0;
	bool suspect = false;

	if (root_path(xs, sizeof(xs), sysfs_root, "/sys/kernel/sunrpc/xprt-switches") || access(xs, F_OK)) {
		p->no_sysfs = true;
		return 0;
	}
	p->no_sysfs = false;
	if (!p->cpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		p->cpus = n > 0 ? (unsigned int)n : 1;
	}
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_stats *s = &snap->xprts[i].s;
		__u64 key = snap->xprts[i].key;
		struct audit_xprt x;
		bool decided, done;
		int err, m;

		if (s->destroyed_ns)
			continue;
		done = is_done(p, key, s->first_seen_ns);
		/* a proven transport is read again only for its level, and only once it moved */
		if (done && !level_due(p, &snap->xprts[i]))
			continue;
		/* another transport of a reused id has another server, as a garbled read has */
		if (!published(xs, s->id, &x) || (x.dstaddr[0] && strcmp(x.dstaddr, s->addr))) {
			if (!done && !missing[0])
				snprintf(missing, sizeof(missing), "transport %u (%s:%s) is read, and the "
					 "kernel publishes no transport of that id and server", s->id, s->addr,
					 s->port);
			/* one the kernel leaves out while it lives (another network namespace's): said once */
			m = bad_run(p, key ^ ~0ull, s->first_seen_ns, true);
			if (m < 0)
				return m;
			if (m == UNPUBLISHED_LOOKS && !p->unpublished[0])
				snprintf(p->unpublished, sizeof(p->unpublished), "transport %u (%s %s:%s) is "
					 "not in sunrpc's sysfs: its class, slot limit and level are reported as "
					 "read, not proven", s->id, ident_name(s->ident) ? ident_name(s->ident) : "?",
					 s->addr, s->port);
			continue;
		}
		found++;
		if (bad_run(p, key ^ ~0ull, s->first_seen_ns, false) < 0)
			return -ENOMEM;
		/* a first look over is reported: the level, unlike a layout, may be caught mid-move */
		err = level_held(p, &snap->xprts[i], &x, snap->counters[CNT_RECURSION_MISSES], why, len);
		if (err < 0)
			return err;
		if (done)
			continue;
		err = compare(s, &x, &decided, why, len);
		m = bad_run(p, key, s->first_seen_ns, err != 0);
		if (m < 0)
			return m;
		if (err && m >= 2)
			return err;
		suspect |= err != 0;
		if (!err && decided && mark_done(p, key, s->first_seen_ns))
			return -ENOMEM;
	}
	if (found || !missing[0] || p->proven || !any_published(xs)) {
		p->none_found = 0;
		return suspect;
	}
	if (++p->none_found < 2)
		return 1;
	snprintf(why, len, "%s", missing);
	return -EPROTO;
}

void proof_free(struct proof *p)
{
	free(p->seen);
	free(p->done);
	free(p->lv);
	memset(p, 0, sizeof(*p));
}
