// SPDX-License-Identifier: GPL-2.0
/* The maps read into snapshots (engine_reap.c deletes what is gone). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "engine/btfmerge.h"
#include "account.h"
#include "opcount.h"
#include "engine/engine_int.h"
#include "lib/log.h"
#include "lib/util.h"

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/*
 * A hash map into a growing array of (key, value) records, with BPF_MAP_LOOKUP_BATCH: a syscall
 * per chunk instead of two per entry, which is most of a tick's system time where syscalls are
 * dear (TCG: ~20 us each). Every kernel slotscope runs on has it: hash-map batch ops came with
 * 057996380a42 ("bpf: Add batch ops to all htab bpf map", 5.6), before the xprt_reserve
 * tracepoint slotscope requires (Chuck Lever's July 2020 sunrpc tracing series, 5.9).
 */
static int read_map(int fd, size_t ksz, size_t vsz, size_t koff, size_t voff, size_t rsz,
		    void **arr, size_t *n, size_t *hint)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	char *keys = NULL, *vals = NULL, *a = NULL;
	/* the kernel's position in the map (a bucket number for hash maps) */
	__u64 token[8] = { 0 };
	/* as many as last time and some: one call a tick where 64 at a time took seven for 400 ops */
	size_t chunk = *hint + *hint / 8 > 64 ? *hint + *hint / 8 : 64, kcap = 0, vcap = 0, cap = 0;
	bool first = true;
	__u32 cnt;
	int err;

	*n = 0;
	*arr = NULL;
	if (koff + ksz > rsz || voff + vsz > rsz)
		return -EINVAL;
	for (;;) {
		if (grow(&keys, &kcap, chunk, ksz, chunk) ||
		    grow(&vals, &vcap, chunk, vsz, chunk)) {
			err = -ENOMEM;
			break;
		}
		cnt = (__u32)chunk;
		err = bpf_map_lookup_batch(fd, first ? NULL : token, token, keys, vals, &cnt, &opts);
		/* a hash bucket holds more entries than the chunk: ask for more at once */
		if (err == -ENOSPC && cnt == 0 && chunk < (1u << 16)) {
			chunk *= 2;
			continue;
		}
		if (err && err != -ENOENT)
			break;
		first = false;
		if (grow(&a, &cap, *n + cnt, rsz, 16)) {
			err = -ENOMEM;
			break;
		}
		for (__u32 i = 0; i < cnt; i++) {
			char *r = a + (*n + i) * rsz;

			memset(r, 0, rsz);
			memcpy(r + koff, keys + (size_t)i * ksz, ksz);
			memcpy(r + voff, vals + (size_t)i * vsz, vsz);
		}
		*n += cnt;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
	}
	free(keys);
	free(vals);
	if (err) {
		free(a);
		*n = 0;
		return err;
	}
	*arr = a;
	*hint = *n;
	return 0;
}

static int dup_array(void **dst, const void *src, size_t n, size_t size)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = malloc(n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n * size);
	return 0;
}

/* an op without a per-CPU slot counts in its entry at every RPC, unannounced (handlers.bpf.h) */
static bool ops_count_in_place(const void *rows, size_t n)
{
	const struct op_snap *o = rows;

	for (size_t i = 0; i < n; i++)
		if (o[i].s.pslot == OP_NOSLOT)
			return true;
	return false;
}

/*
 * A map kept as last read (@c), read again when @again (a program changed it since) or the copy
 * is not valid; @in_place: the copy holds entries that change without saying so, so it is read
 * again at the next tick too. @arr gets a copy of its own.
 */
static int read_map_kept(struct map_copy *c, bool again, bool (*in_place)(const void *, size_t),
			 int fd, size_t ksz, size_t vsz, size_t koff, size_t voff, size_t rsz,
			 void **arr, size_t *n, size_t *hint)
{
	int err;

	if (again || !c->valid) {
		free(c->arr);
		c->arr = NULL;
		c->valid = false;
		err = read_map(fd, ksz, vsz, koff, voff, rsz, &c->arr, &c->n, hint);
		if (err)
			return err;
		c->valid = !in_place || !in_place(c->arr, c->n);
	}
	*n = c->n;
	return dup_array(arr, c->arr, c->n, rsz);
}

/*
 * A map whose entries seldom change (enum map_gen), read again only when a program changed an
 * entry since the last read: the generation is read first, so a change it does not count is
 * counted at the next tick. User space's own deletions (engine_reap) drop the copy.
 */
static int read_map_gen(struct engine *e, enum map_gen g, bool (*in_place)(const void *, size_t),
			int fd, size_t ksz, size_t vsz, size_t koff, size_t voff, size_t rsz,
			void **arr, size_t *n, size_t *hint)
{
	struct map_copy *c = &e->copies[g];
	__u64 gen = __atomic_load_n(&e->skel->bss->map_gen[g], __ATOMIC_ACQUIRE);
	bool again = gen != c->gen;

	c->gen = gen;
	return read_map_kept(c, again, in_place, fd, ksz, vsz, koff, voff, rsz, arr, n, hint);
}

void drop_copies(struct engine *e)
{
	for (int g = 0; g < GENS; g++)
		e->copies[g].valid = false;
	e->jobio_copy.valid = false;
}

/*
 * jobio, read again only when a program stamped it lately (stamp_due()) or @all: on a node whose
 * jobs do no NFS file I/O, or only now and then, a tick walks none of its buckets.
 */
static int read_jobio(struct engine *e, struct snapshot *snap, bool all)
{
	__u32 st = __atomic_load_n(&e->skel->bss->jobio_stamp, __ATOMIC_ACQUIRE);
	bool sorted = true;
	int err;

	err = read_map_kept(&e->jobio_copy, all || stamp_due(st, snap->epoch + 1), NULL,
			    bpf_map__fd(e->skel->maps.jobio), sizeof(struct job_key),
			    sizeof(struct job_io), offsetof(struct jobio_snap, k),
			    offsetof(struct jobio_snap, v), sizeof(struct jobio_snap),
			    (void **)&snap->jobio, &snap->njobio, &e->read_hint[4]);
	if (err)
		return err;
	/* a copy kept from the tick before is in order already: one pass tells */
	for (size_t i = 1; i < snap->njobio && sorted; i++)
		sorted = jobio_key_cmp(&snap->jobio[i - 1], &snap->jobio[i]) < 0;
	if (!sorted)
		qsort(snap->jobio, snap->njobio, sizeof(*snap->jobio), jobio_key_cmp);
	snap->jobio_sorted = true;
	return jobret_merge(&e->retired, snap);
}

/*
 * The kernel skips a program that fires while it already runs on that CPU (a softirq event
 * landing on a handler in task context): that event is lost to every count, so it is counted.
 */
static __u64 recursion_misses(const struct engine *e, char *who, size_t len)
{
	struct bpf_program *p;
	size_t at = 0;
	__u64 n = 0;

	if (who && len)
		who[0] = 0;
	bpf_object__for_each_program(p, e->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 ilen = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &ilen) || !info.recursion_misses)
			continue;
		n += info.recursion_misses;
		if (who && at < len)
			at += (size_t)snprintf(who + at, len - at, "%s%s %llu", at ? ", " : "",
					       bpf_program__section_name(p),
					       (unsigned long long)info.recursion_misses);
	}
	return n;
}

__u64 engine_misses(const struct engine *e, char *who, size_t len)
{
	return recursion_misses(e, who, len);
}

/* An RDMA pool raised from use is said once per transport: that is how its limit was found. */
static void note_inferred(struct engine *e, const struct snapshot *snap)
{
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_stats *x = &snap->xprts[i].s;
		size_t j;

		if (!(x->flags & XF_LIMIT_INFERRED))
			continue;
		for (j = 0; j < e->nnoted; j++)
			if (e->noted[j][0] == snap->xprts[i].key && e->noted[j][1] == x->first_seen_ns)
				break;
		if (j < e->nnoted)
			continue;
		pr_warn("transport %u (rdma %s): more requests in use than max_reqs %u, so its pool has "
			"slack: limit taken as %u (max_reqs + max_reqs/8, or the most seen in use)\n",
			x->id, x->addr, x->max_reqs, x->limit);
		if (e->nnoted == sizeof(e->noted) / sizeof(e->noted[0]))
			e->nnoted = 0;
		e->noted[e->nnoted][0] = snap->xprts[i].key;
		e->noted[e->nnoted++][1] = x->first_seen_ns;
	}
}

static int mark_cmp(const void *a, const void *b)
{
	const struct level_mark *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->first_seen < y->first_seen ? -1 : x->first_seen > y->first_seen;
}

/*
 * A map value is copied while programs change it: a copy may hold a change's close of one bucket
 * and not its open of the next, missing the stretch since, or the other way round, counting it
 * twice. Either is that short stretch and heals at the next read, but a counter read too high once
 * reads lower next: Prometheus takes that for a reset. The time in a level only grows, so each
 * transport's levels never go below what the last snapshot said.
 */
int level_marks_apply(struct level_marks *m, struct snapshot *snap)
{
	struct level_mark *next = NULL;

	if (snap->nxprts) {
		next = calloc(snap->nxprts, sizeof(*next));
		if (!next)
			return -ENOMEM;
	}
	for (size_t i = 0; i < snap->nxprts; i++) {
		struct xprt_stats *x = &snap->xprts[i].s;
		struct level_mark k = { .key = snap->xprts[i].key, .first_seen = x->first_seen_ns };
		const struct level_mark *old = m->n ? bsearch(&k, m->m, m->n, sizeof(k), mark_cmp) : NULL;

		for (int b = 0; b < LEVEL_BUCKETS && old; b++)
			if (x->level_ns[b] < old->level_ns[b])
				x->level_ns[b] = old->level_ns[b];
		next[i] = k;
		memcpy(next[i].level_ns, x->level_ns, sizeof(next[i].level_ns));
	}
	qsort(next, snap->nxprts, sizeof(*next), mark_cmp);
	free(m->m);
	m->m = next;
	m->n = snap->nxprts;
	return 0;
}

void level_marks_free(struct level_marks *m)
{
	free(m->m);
	m->m = NULL;
	m->n = 0;
}

/* slots of op_pcpu read in one batch call: [@from, @to), into their place in the kept copy */
static int read_pcpu_run(struct engine *e, int fd, __u32 from, __u32 to)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t ncpu = (size_t)e->ncpu;

	while (from < to) {
		/* a batch starts after its in_batch key (the last one a call read), at 0 without */
		__u32 cnt = to - from, prev = from - 1, next;	/* next: the last key read, unused */
		int err = bpf_map_lookup_batch(fd, from ? &prev : NULL, &next, e->pcpu_keys + from,
					       e->pcpu + (size_t)from * ncpu, &cnt, &opts);

		if (err && err != -ENOENT)
			return err;
		if (!cnt)
			break;
		from += cnt;
	}
	return 0;
}

/*
 * The ops that count per CPU (op_stats.pslot) get their slots' sums over the CPUs added to their
 * own counters (which stay 0 once they have a slot, but may hold an RPC counted before the slot
 * was taken). The slots' values are kept between ticks, and a slot is read again only when a
 * program stamped it lately (op_slots_due_run()), or @all: an op gone quiet costs nothing.
 */
#define PCPU_MERGE_GAP	4

static int add_pcpu(struct engine *e, struct snapshot *snap, bool all)
{
	const __u32 *stamp = (const __u32 *)e->skel->bss->op_stamp;
	int fd = bpf_map__fd(e->skel->maps.op_pcpu);
	__u32 hi = 0, cur = snap->epoch + 1, from = 0, to = 0;
	size_t ncpu = (size_t)e->ncpu;
	int err = 0;

	for (size_t i = 0; i < snap->nops; i++) {
		__u32 p = snap->ops[i].s.pslot;

		if (p <= e->op_slots && p > hi)
			hi = p;
	}
	if (!hi)
		return 0;
	if (all)
		err = read_pcpu_run(e, fd, 0, hi);
	else
		while (!err && op_slots_due_run(stamp, to, hi, cur, PCPU_MERGE_GAP, &from, &to))
			err = read_pcpu_run(e, fd, from, to);
	if (err)
		return err;
	for (size_t i = 0; i < snap->nops; i++) {
		__u32 p = snap->ops[i].s.pslot;

		if (!p || p > hi)
			continue;
		for (size_t cpu = 0; cpu < ncpu; cpu++)
			op_counts_add(&snap->ops[i].s.c, &e->pcpu[(size_t)(p - 1) * ncpu + cpu]);
	}
	return 0;
}

/*
 * The transports of xprt_tab, after the hash's in @snap: the slots xprt_tab_used marks whose
 * entry is whole (key neither 0 nor being built), read from the mapped array. A slot's
 * transport does not change while it is read: only this process frees a slot, after reading.
 */
static int read_tab(struct engine *e, struct snapshot *snap)
{
	const __u64 *used = e->skel->bss->xprt_tab_used;
	size_t n = 0, at = snap->nxprts;
	struct xprt_snap *a;

	for (size_t w = 0; w < XPRT_SLOTS / 64; w++)
		n += (size_t)__builtin_popcountll(__atomic_load_n(&used[w], __ATOMIC_ACQUIRE));
	if (!n)
		return 0;
	a = realloc(snap->xprts, (at + n) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	snap->xprts = a;
	for (size_t w = 0; w < XPRT_SLOTS / 64 && snap->nxprts < at + n; w++) {
		__u64 bits = __atomic_load_n(&used[w], __ATOMIC_ACQUIRE);

		while (bits && snap->nxprts < at + n) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
			__u64 k = __atomic_load_n(&e->xtab[i].key, __ATOMIC_ACQUIRE);
			struct xprt_snap *x = &a[snap->nxprts];

			bits &= bits - 1;
			if (!k || (k & 1))
				continue;
			memset(x, 0, sizeof(*x));
			x->key = k;
			memcpy(&x->s, &e->xtab[i], sizeof(x->s));
			x->slot = (__u32)i + 1;
			snap->nxprts++;
		}
	}
	return 0;
}

/*
 * The per-CPU counters summed over the CPUs: one batch call for all of them (a lookup each was
 * nine system calls a tick). A failed count of CPUs must not size the buffer the kernel writes a
 * value per CPU into.
 */
static int read_counters(struct engine *e, struct snapshot *snap)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 vals[COUNTERS * 64], *v = vals, *big = NULL;
	__u32 keys[COUNTERS], token = 0, cnt = COUNTERS;
	size_t ncpu = (size_t)e->ncpu;
	int err;

	if (e->ncpu <= 0)
		return e->ncpu < 0 ? e->ncpu : -EINVAL;
	if (ncpu > 64) {
		big = calloc(COUNTERS * ncpu, sizeof(__u64));
		if (!big)
			return -ENOMEM;
		v = big;
	}
	err = bpf_map_lookup_batch(bpf_map__fd(e->skel->maps.counters), NULL, &token, keys, v, &cnt,
				   &opts);
	/* every key in one call: the array's end is -ENOENT with all of them returned */
	if (err == -ENOENT)
		err = 0;
	for (__u32 i = 0; !err && i < cnt; i++)
		if (keys[i] < COUNTERS)
			for (size_t cpu = 0; cpu < ncpu; cpu++)
				snap->counters[keys[i]] += v[i * ncpu + cpu];
	free(big);
	return err;
}

int engine_snapshot(struct engine *e, struct snapshot *snap)
{
	struct slotscope_bpf *s = e->skel;
	int err;

	/* what programs stamp is read whole now and then, and after a failed read (SNAP_FULL_EVERY) */
	bool all = e->read_all || e->snaps % SNAP_FULL_EVERY == 0;

	memset(snap, 0, sizeof(*snap));
	/* close the interval first: programs now record interval peaks in the other slot */
	snap->epoch = s->bss->epoch;
	__atomic_store_n(&s->bss->epoch, snap->epoch + 1, __ATOMIC_SEQ_CST);
	snap->ts_ns = now_ns();
	err = read_map(bpf_map__fd(s->maps.xprts), sizeof(__u64), sizeof(struct xprt_stats),
		       offsetof(struct xprt_snap, key), offsetof(struct xprt_snap, s),
		       sizeof(struct xprt_snap), (void **)&snap->xprts, &snap->nxprts,
		       &e->read_hint[0]);
	if (!err)
		err = read_tab(e, snap);
	if (!err)
		err = read_map_gen(e, GEN_OPS, ops_count_in_place, bpf_map__fd(s->maps.ops),
				   sizeof(struct op_key), sizeof(struct op_stats), offsetof(struct op_snap, k),
				   offsetof(struct op_snap, s), sizeof(struct op_snap),
				   (void **)&snap->ops, &snap->nops, &e->read_hint[1]);
	if (!err)
		err = add_pcpu(e, snap, all);
	if (!err)
		err = read_map_gen(e, GEN_CLIENTS, NULL, bpf_map__fd(s->maps.clients), sizeof(__u32),
				   sizeof(struct client_info), offsetof(struct client_snap, clid),
				   offsetof(struct client_snap, ci), sizeof(struct client_snap),
				   (void **)&snap->clients, &snap->nclients, &e->read_hint[2]);
	if (!err)
		err = read_map(bpf_map__fd(s->maps.sessions), sizeof(__u64), sizeof(struct session_stats),
			       offsetof(struct session_snap, key), offsetof(struct session_snap, s),
			       sizeof(struct session_snap), (void **)&snap->sessions, &snap->nsessions,
			       &e->read_hint[3]);
	if (!err)
		sessions_settle(bpf_map__fd(s->maps.sessions), snap);
	if (!err)
		err = read_jobio(e, snap, all);
	e->snaps++;
	/* a failed read leaves stamps unread that the next one's window may have passed */
	e->read_all = err != 0;
	if (err) {
		snapshot_free(snap);
		return err;
	}
	note_inferred(e, snap);
	/* the current stretch has not been closed by an event yet: add it up to now */
	for (size_t i = 0; i < snap->nxprts; i++) {
		struct xprt_stats *x = &snap->xprts[i].s;

		levels_settle(e, &snap->xprts[i]);
		levels_close(x->level_ns, x->destroyed_ns ? x->destroyed_ns : snap->ts_ns);
		if (x->credit.limit && x->credit.bucket < LEVEL_BUCKETS)
			levels_close(x->credit.level_ns, x->destroyed_ns ? x->destroyed_ns : snap->ts_ns);
	}
	err = level_marks_apply(&e->marks, snap);
	if (err) {
		snapshot_free(snap);
		return err;
	}
	err = read_counters(e, snap);
	if (err) {
		snapshot_free(snap);
		return err;
	}
	snap->counters[CNT_RECURSION_MISSES] = recursion_misses(e, NULL, 0);
	unanswered_tally(snap, s->bss->marks, s->bss->mark_sent, s->bss->mark_xprt,
			 (size_t)s->rodata->mark_mask + 1);
	return 0;
}

void snapshot_free(struct snapshot *snap)
{
	free(snap->xprts);
	free(snap->ops);
	free(snap->clients);
	free(snap->sessions);
	free(snap->jobio);
	memset(snap, 0, sizeof(*snap));
}

int engine_tasks(struct engine *e, struct task_seen **out, size_t *n)
{
	return read_map(bpf_map__fd(e->skel->maps.jobtasks), sizeof(struct job_task), sizeof(__u64),
			offsetof(struct task_seen, k), offsetof(struct task_seen, last_ns),
			sizeof(struct task_seen), (void **)out, n, &e->read_hint[5]);
}

void engine_read_all(struct engine *e)
{
	e->read_all = true;
}

int snapshot_dup(struct snapshot *dst, const struct snapshot *src)
{
	*dst = *src;
	/* none of @src's arrays, so a failure part way frees only the copies */
	dst->xprts = NULL;
	dst->ops = NULL;
	dst->clients = NULL;
	dst->sessions = NULL;
	dst->jobio = NULL;
	if (dup_array((void **)&dst->xprts, src->xprts, src->nxprts, sizeof(*src->xprts)) ||
	    dup_array((void **)&dst->jobio, src->jobio, src->njobio, sizeof(*src->jobio)) ||
	    dup_array((void **)&dst->ops, src->ops, src->nops, sizeof(*src->ops)) ||
	    dup_array((void **)&dst->clients, src->clients, src->nclients, sizeof(*src->clients)) ||
	    dup_array((void **)&dst->sessions, src->sessions, src->nsessions, sizeof(*src->sessions))) {
		snapshot_free(dst);
		return -ENOMEM;
	}
	return 0;
}

const struct xprt_snap *snapshot_find_xprt(const struct snapshot *s, __u64 key, __u64 first_seen)
{
	for (size_t i = 0; i < s->nxprts; i++)
		if (s->xprts[i].key == key && s->xprts[i].s.first_seen_ns == first_seen)
			return &s->xprts[i];
	return NULL;
}

const struct op_snap *snapshot_find_op(const struct snapshot *s, const struct op_key *k)
{
	for (size_t i = 0; i < s->nops; i++)
		if (!memcmp(&s->ops[i].k, k, sizeof(*k)))
			return &s->ops[i];
	return NULL;
}
