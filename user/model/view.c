// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model/view.h"
#include "lib/uhist.h"
#include "lib/util.h"

const char *const wait_kind_names[WAIT_KINDS] = { "slot", "send", "session", "delay" };
const char *const verdict_names[VERDICTS] = {
	"idle", "client-bound", "slot-bound", "credit-bound", "session-slot-bound",
	"connection-bound", "server-bound", "link-bound", "backlog-stall",
};

/* a what-if step's next limit past its reach: below the what-if's objects, which all name it */
const char whatif_unknown[] = "unknown";
const char *const stage_names[STAGES] = { "queue", "rtt", "execute" };
const char *const op_part_names[OP_PARTS] = { "slot-wait", "queue", "rtt", "other" };
const char *const counter_names[NCOUNTERS] = {
	"inflight_full", "waiters_full", "xprts_full", "ops_full", "clients_full", "sessions_full",
	"jobs_full",
	"preattach_release", "backchannel_release", "level_corrections", "recursion_misses",
};

const char *limit_source_name(__u32 flags)
{
	if (flags & XF_LIMIT_INFERRED)
		return "inferred";
	if (flags & XF_LIMIT_COUNTED)
		return "counted";
	if (flags & XF_LIMIT_BTF)
		return "btf";
	if (flags & XF_LIMIT_ASSUMED)
		return "assumed";
	return "max_reqs";
}

const char *proto_name(__u32 ident)
{
	switch (ident) {
	case IDENT_TCP: return "tcp";
	case IDENT_UDP: return "udp";
	case IDENT_RDMA: return "rdma";
	default: return "other";
	}
}

const char *const xprt_count_names[XPRT_COUNTS] = {
	"acquires", "handoffs", "releases", "preattach_releases", "sends", "connects", "held_idle",
	"held_idle_ns", "recvs",
};

/* the counts as the array they are: every member a __u64, in order */
_Static_assert(sizeof(struct xprt_counts) == XPRT_COUNTS * sizeof(__u64), "xprt_counts: __u64 members only");

__u64 xprt_count(const struct xprt_counts *n, size_t i)
{
	__u64 v[XPRT_COUNTS];

	memcpy(v, n, sizeof(v));
	return i < XPRT_COUNTS ? v[i] : 0;
}

void xprt_counts_delta(struct xprt_counts *d, const struct xprt_counts *cur, const struct xprt_counts *prev)
{
	__u64 c[XPRT_COUNTS], p[XPRT_COUNTS] = { 0 };

	memcpy(c, cur, sizeof(c));
	if (prev)
		memcpy(p, prev, sizeof(p));
	for (size_t i = 0; i < XPRT_COUNTS; i++)
		c[i] = delta_u64(c[i], p[i]);
	memcpy(d, c, sizeof(c));
}

void xprt_counts_add(struct xprt_counts *dst, const struct xprt_counts *src)
{
	__u64 a[XPRT_COUNTS], b[XPRT_COUNTS];

	memcpy(a, dst, sizeof(a));
	memcpy(b, src, sizeof(b));
	for (size_t i = 0; i < XPRT_COUNTS; i++)
		a[i] += b[i];
	memcpy(dst, a, sizeof(a));
}

__u64 counters_drops(const __u64 *counters)
{
	__u64 n = 0;

	for (int c = CNT_INFLIGHT_FULL; c <= CNT_JOBS_FULL; c++)
		n += counters[c];
	return n;
}

enum op_class op_class(const char *name)
{
	/* NFS READ, WRITE and COMMIT in every version share the name */
	if (!strcmp(name, "READ"))
		return OPC_READ;
	if (!strcmp(name, "WRITE"))
		return OPC_WRITE;
	if (!strcmp(name, "COMMIT"))
		return OPC_COMMIT;
	return OPC_OTHER;
}

void op_payload(const char *name, __u64 bytes_sent, __u64 bytes_recv, __u64 *written, __u64 *read)
{
	enum op_class c = op_class(name);

	*written = c == OPC_WRITE ? bytes_sent : 0;
	*read = c == OPC_READ ? bytes_recv : 0;
}

void level_bucket_range(unsigned int b, __u32 limit, unsigned int *lo, unsigned int *hi)
{
	*lo = level_bucket_low(b, limit);
	*hi = b + 1 < LEVEL_BUCKETS ? level_bucket_low(b + 1, limit) - 1 : *lo;
	if (*hi < *lo)
		*hi = *lo;
}

/* the quarter of the limit level bucket @b falls in, by its lowest level; the limit itself apart */
static unsigned int curve_group_of(unsigned int b, __u32 limit)
{
	unsigned int lo, hi, q;

	if (b == LEVEL_BUCKETS - 1 || limit < 2)
		return 4;
	level_bucket_range(b, limit, &lo, &hi);
	q = (unsigned int)(((unsigned long long)(lo - 1) * 4) / (limit - 1));
	return q < 4 ? q : 3;
}

void curve_group_means(struct curve_group *g)
{
	g->rtt_mean_ns = g->rpcs ? g->rtt_sum_ns / (double)g->rpcs : 0;
	g->exec_mean_ns = g->rpcs ? g->exec_sum_ns / (double)g->rpcs : 0;
}

void curve_finish(struct curve_view *c, __u32 limit)
{
	struct curve_group g[5] = {};

	c->total = 0;
	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		c->total += c->rpcs[b];
		c->rtt_mean_ns[b] = c->rpcs[b] ? (double)c->rtt_ns[b] / (double)c->rpcs[b] : 0;
		c->exec_mean_ns[b] = c->rpcs[b] ? (double)c->exec_ns[b] / (double)c->rpcs[b] : 0;
	}
	for (unsigned int b = 1; b < LEVEL_BUCKETS; b++) {
		unsigned int lo, hi, q;

		if (!c->rpcs[b])
			continue;
		q = curve_group_of(b, limit);
		level_bucket_range(b, limit, &lo, &hi);
		if (!g[q].rpcs || lo < g[q].lo)
			g[q].lo = lo;
		if (hi > g[q].hi)
			g[q].hi = hi;
		g[q].rpcs += c->rpcs[b];
		g[q].rtt_sum_ns += (double)c->rtt_ns[b];
		g[q].exec_sum_ns += (double)c->exec_ns[b];
	}
	c->ngroups = 0;
	for (int q = 0; q < 5; q++) {
		if (!g[q].rpcs)
			continue;
		curve_group_means(&g[q]);
		g[q].quarter = q;
		c->groups[c->ngroups++] = g[q];
	}
}

/*
 * Arrays released, kept for the next views: a tick's views, indexes and the textfile's take ~15.
 * They follow the load, not its peak: one not taken again within VIEW_CACHE_TICKS ticks is freed,
 * and one more than twice the size asked for (past 16 KiB) is left for a larger request or to age
 * out, the request given its own size. Without both, the cache held the largest arrays ever made
 * (a tick where many transports were dying at once, a burst of mounts) for the rest of the run,
 * or kept one of them in use for small requests: memory that moved in steps with the timing of
 * ticks against mounts, and stayed.
 */
#define VIEW_CACHE_TICKS 8
#define VIEW_OVERSIZE_MIN (16 << 10)

static void kept_drop(struct view_arena *a, size_t i)
{
	free(a->kept[i].p);
	a->kept[i] = a->kept[--a->n];
}

void *view_alloc(struct view_arena *a, size_t n, size_t size, bool zero)
{
	size_t bytes, best;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	best = a ? a->n : 0;
	/* the smallest kept array that holds @bytes */
	for (size_t i = 0; a && i < a->n; i++)
		if (a->kept[i].cap >= bytes && (best == a->n || a->kept[i].cap < a->kept[best].cap))
			best = i;
	if (a && best < a->n && a->kept[best].cap > VIEW_OVERSIZE_MIN && a->kept[best].cap / 2 > bytes)
		best = a->n;
	if (!a || best == a->n)
		return zero ? calloc(n ? n : 1, size ? size : 1) : malloc(bytes ? bytes : 1);
	p = a->kept[best].p;
	a->kept[best] = a->kept[--a->n];
	if (zero)
		memset(p, 0, bytes);
	return p;
}

static void kept_put(struct view_arena *a, size_t i, void *p, size_t cap)
{
	a->kept[i].p = p;
	a->kept[i].cap = cap;
	a->kept[i].tick = a->tick;
}

void view_release(struct view_arena *a, void *p)
{
	size_t cap, small = 0;

	if (!p)
		return;
	if (!a) {
		free(p);
		return;
	}
	cap = malloc_usable_size(p);
	if (a->n < VIEW_ARENA_KEPT) {
		kept_put(a, a->n++, p, cap);
		return;
	}
	/* full: the smallest goes, this one or a kept one */
	for (size_t i = 1; i < a->n; i++)
		if (a->kept[i].cap < a->kept[small].cap)
			small = i;
	if (a->kept[small].cap >= cap) {
		free(p);
		return;
	}
	free(a->kept[small].p);
	kept_put(a, small, p, cap);
}

size_t view_arena_bytes(const struct view_arena *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->kept[i].cap;
	return n;
}

void view_arena_tick(struct view_arena *a)
{
	a->tick++;
	for (size_t i = 0; i < a->n;)
		if (a->tick - a->kept[i].tick > VIEW_CACHE_TICKS)
			kept_drop(a, i);
		else
			i++;
}

void view_arena_free(struct view_arena *a)
{
	while (a->n)
		kept_drop(a, 0);
}

void view_free(struct view *v)
{
	free(v->links.ports);
	free(v->links.nds);
	view_release(v->arena, v->xprts);
	view_release(v->arena, v->ops);
	view_release(v->arena, v->sessions);
	view_release(v->arena, v->mops);
	view_release(v->arena, v->mounts);
	view_release(v->arena, v->answers);
	memset(v, 0, sizeof(*v));
}

bool xprt_view_idle(const struct xprt_view *x)
{
	return x->n.acquires == 0 && x->n.releases == 0 && x->n.sends == 0 && x->in_use == 0 &&
	       x->waits[WAIT_SLOT].count == 0;
}

static bool carried(const struct xprt_view *y, const char *mountpoint)
{
	for (size_t k = 0; k < y->nmounts; k++)
		if (y->mounts[k].mountpoint && !strcmp(y->mounts[k].mountpoint, mountpoint))
			return true;
	return false;
}

static bool mount_peer(const struct xprt_view *x, const char *mountpoint, const struct xprt_view *y)
{
	return y->ident == x->ident && !y->destroyed && !y->metadata && carried(y, mountpoint);
}

bool nconnect_member(const struct nconnect_group *g, const struct xprt_view *y)
{
	return g->mountpoint ? mount_peer(g->x, g->mountpoint, y) : same_server(g->x, y);
}

void nconnect_group(const struct view *v, const struct xprt_view *x, struct nconnect_group *g)
{
	const char *mp = NULL;
	__u64 most = 0;

	memset(g, 0, sizeof(*g));
	g->x = x;
	/* the mount whose ops x carried most (a transport several mounts share) */
	for (size_t k = 0; k < x->nmounts; k++)
		if (x->mounts[k].mountpoint && (!mp || x->mounts[k].ops > most)) {
			mp = x->mounts[k].mountpoint;
			most = x->mounts[k].ops;
		}
	if (mp && !x->metadata) {
		/* the addresses seen so far: one pass, not one per peer (a verdict per transport) */
		const char *addrs[128];

		for (size_t i = 0; i < v->nxprts; i++) {
			const struct xprt_view *y = &v->xprts[i];
			unsigned int a = 0;

			if (!mount_peer(x, mp, y))
				continue;
			g->n++;
			while (a < g->naddrs && a < 128 && strcmp(addrs[a], y->addr))
				a++;
			if (a == g->naddrs && a < 128)
				addrs[g->naddrs++] = y->addr;
		}
		if (g->naddrs > 1) {
			g->mountpoint = mp;
			return;
		}
	}
	g->n = g->naddrs = 0;
	for (size_t i = 0; i < v->nxprts; i++)
		g->n += same_server(x, &v->xprts[i]);
	g->naddrs = 1;
}

const struct xprt_view *view_xprt(const struct view *v, __u64 key)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (v->xprts[i].key == key)
			return &v->xprts[i];
	return NULL;
}

static int by_key_then_index(const void *a, const void *b)
{
	const struct xprt_index_entry *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void xprt_entries_sort(struct xprt_index_entry *e, size_t n)
{
	qsort(e, n, sizeof(*e), by_key_then_index);
}

void xprt_index_make(struct xprt_index *ix, const struct view *v)
{
	ix->v = v;
	ix->arena = v->arena;
	ix->n = v->nxprts;
	ix->e = view_alloc(ix->arena, v->nxprts + 1, sizeof(*ix->e), false);
	if (!ix->e)
		return;
	for (size_t i = 0; i < v->nxprts; i++)
		ix->e[i] = (struct xprt_index_entry){ .key = v->xprts[i].key, .i = i };
	xprt_entries_sort(ix->e, ix->n);
}

size_t xprt_entry_first(const struct xprt_index_entry *e, size_t n, __u64 key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].key == key ? lo : n;
}

const struct xprt_view *xprt_index_find(const struct xprt_index *ix, __u64 key)
{
	size_t at;

	if (!ix->e)
		return view_xprt(ix->v, key);
	/* the first entry of @key: the lowest index, as view_xprt() finds it */
	at = xprt_entry_first(ix->e, ix->n, key);
	return at < ix->n ? &ix->v->xprts[ix->e[at].i] : NULL;
}

void xprt_index_free(struct xprt_index *ix)
{
	view_release(ix->arena, ix->e);
	memset(ix, 0, sizeof(*ix));
}

void mount_op_add(struct mount_op *dst, const struct mount_op *src)
{
	dst->count += src->count;
	dst->ntrans += src->ntrans;
	dst->errors += src->errors;
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_recv += src->bytes_recv;
	for (int st = 0; st < STAGES; st++) {
		dst->sum_ns[st] += src->sum_ns[st];
		for (int b = 0; b < LAT_BUCKETS; b++)
			dst->hist[st][b] += src->hist[st][b];
	}
}

