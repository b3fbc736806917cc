// SPDX-License-Identifier: GPL-2.0
/*
 * slotscope's kernel half: per RPC transport, exact slot occupancy against its limit, time at
 * each occupancy level, waits for a slot / the send queue / an NFSv4.1 session slot, and per-op
 * latency. Everything is aggregated here; user space only reads the maps.
 *
 * Every tracepoint handler has a tp_btf and a raw_tp wrapper, every function hook an fentry and a
 * kprobe wrapper; user space loads one of each pair, the first the kernel accepts.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "slotscope.h"
#include "account.h"
#include "opcount.h"
#include "waits.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Deliberately heavier builds for the instruction guard's own check (tests/host/test_insn_guard.sh
 * must fail on each): `make BPF_PAD=N` runs 3N more BPF instructions on every RPC's path, `make
 * BPF_HELPER_PAD=N` N more clock reads there, whose work is the kernel's (a helper), not the
 * programs'. Every other build has no code from them.
 */
#if defined(SLOTSCOPE_PAD) || defined(SLOTSCOPE_HELPER_PAD)
static __always_inline void guard_pad(void)
{
	volatile __u64 n = 0;

#ifdef SLOTSCOPE_PAD
#pragma unroll
	for (int i = 0; i < SLOTSCOPE_PAD; i++)
		n++;
#endif
#ifdef SLOTSCOPE_HELPER_PAD
#pragma unroll
	for (int i = 0; i < SLOTSCOPE_HELPER_PAD; i++)
		n += bpf_ktime_get_ns();
#endif
	(void)n;
}
#else
static __always_inline void guard_pad(void) {}
#endif

#define RPC_CWNDSHIFT	8	/* include/linux/sunrpc/xprt.h */
#define RPC_BC_PA_IN_USE 1	/* bit 0 of rpc_rqst->rq_bc_pa_state */

#include "maps.bpf.h"
#include "jobs.bpf.h"

/*
 * VAST NFS's multipath (its 5.15-based sunrpc): mdconnect's transports have role
 * RPC_XPRT_ROLE_MD and carry metadata ops only; the kernel's sunrpc has neither the field nor the
 * enum, and CO-RE leaves the test out there.
 */
enum rpc_xprt_role_t___vast { RPC_XPRT_ROLE_REG___vast = 0, RPC_XPRT_ROLE_MD___vast = 1 };
struct rpc_xprt___vast {
	enum rpc_xprt_role_t___vast role;
} __attribute__((preserve_access_index));

/*
 * Stored only when changed: a transport's entry is written by every CPU completing an RPC on it,
 * and a store of an unchanged value still takes the cache line from the others.
 */
#define STORE_CHANGED(dst, v)		\
	do {				\
		if ((dst) != (v))	\
			(dst) = (v);	\
	} while (0)

#define ARMED_OR_RETURN()		\
	do {				\
		if (!armed)		\
			return 0;	\
	} while (0)

static __always_inline void count(__u32 c)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &c);

	if (v)
		*v += 1;
}

/* what the map helpers return, as ints (6.1 zero-extends them in R0: compare them as such) */
enum { ERR_TOO_BIG = -7 /* E2BIG: the map is full */, ERR_EXIST = -17 /* EEXIST */ };

/*
 * @val stored under @key with @flags, and the entry as it is now: when two CPUs make it at once
 * (BPF_NOEXIST), the loser takes the winner's. NULL when there is no room: counted in @full.
 * *@made (may be NULL): the entry is new, this CPU's or a racing one's, so fields its maker fills
 * after the insert may still be empty.
 */
static __always_inline void *insert_or_get(void *map, const void *key, const void *val, __u64 flags,
					   __u32 full, bool *made)
{
	int err = bpf_map_update_elem(map, key, val, flags);

	if (made)
		*made = !err || err == ERR_EXIST;
	if (err && err != ERR_EXIST) {
		count(full);
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

/*
 * A fetching add: ordered after the change it announces on every JIT (x86's lock xadd, arm64's
 * ldaddal); a plain BPF atomic add is arm64's stadd, which orders nothing.
 */
static __always_inline void gen_bump(enum map_gen g)
{
	__u64 v = __sync_fetch_and_add(&map_gen[g], 1);

	asm volatile("" : : "r"(v));
}

/* the entry of @key in @map, made from @init when absent (insert_or_get()) */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *init, __u32 full,
					    bool *made)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (made)
		*made = false;
	return v ? v : insert_or_get(map, key, init, BPF_NOEXIST, full, made);
}

/*
 * The entry of request @rq in marks: a multiplicative hash of its address's low 32 bits (slab
 * objects are aligned). A tp_btf/fentry argument is a pointer to the verifier, which refuses
 * shifts and multiplies of it but, for a loader allowed to see kernel addresses (CAP_PERFMON),
 * turns a 32-bit move of it into a plain number.
 */
static __always_inline __u32 mark_of(__u64 rq)
{
	__u32 lo;

	asm volatile("%0 = %1" : "=w"(lo) : "w"((__u32)rq));
	return ((lo >> 4) * 0x9E3779B1u >> 16) & mark_mask & (MAX_MARKS - 1);
}

/*
 * Request @rq takes a slot: how it was tracked (enum acq_track), and in *@where the entry that
 * holds it (MAX_MARKS: the hash's) for note_level(). A request handed off fires xprt_reserve
 * again when its new owner runs, and a release that skipped the stats tracepoint leaves its
 * entry for the request's next use: both find it, and count nothing twice. The same request
 * never takes a slot on two CPUs at once (the kernel hands it from one owner to the next), so
 * its entry is in the array or the hash, never both.
 */
static __always_inline enum acq_track track_acquire(__u64 rq, __u32 *where)
{
	__u32 i = mark_of(rq);
	__u64 cur = marks[i], unknown = LEVEL_BUCKETS;
	int err;

	*where = i;
	if (cur == rq)
		return ACQ_KNOWN;
	if (!cur && mark_mask && (!in_hash || !bpf_map_lookup_elem(&inflight, &rq)) &&
	    __sync_val_compare_and_swap(&marks[i], 0, rq) == 0)
		return ACQ_NEW;
	*where = MAX_MARKS;
	err = bpf_map_update_elem(&inflight, &rq, &unknown, BPF_NOEXIST);
	if (!err) {
		__sync_fetch_and_add(&in_hash, 1);
		return ACQ_NEW;
	}
	if (err == ERR_EXIST)
		return ACQ_KNOWN;
	count(CNT_INFLIGHT_FULL);
	return ACQ_UNTRACKED;
}

/* the level bucket @b request @rq took its slot at, kept where track_acquire() put it (@where) */
static __always_inline void note_level(__u64 rq, __u32 where, __u32 b)
{
	__u64 *v;

	if (b >= LEVEL_BUCKETS)
		return;
	if (where < MAX_MARKS) {
		mark_level[where] = b;
		return;
	}
	v = bpf_map_lookup_elem(&inflight, &rq);
	if (v)
		*v = b;
}

/*
 * Request @rq gives its slot back: the level bucket it took it at (LEVEL_BUCKETS when not noted)
 * when its acquire was tracked, and the entry is gone; -1 when it was not.
 */
static __always_inline int track_release(__u64 rq)
{
	__u32 i = mark_of(rq);
	__u64 *v;
	int b;

	if (marks[i] == rq) {
		b = mark_level[i];
		mark_sent[i] = 0;
		if (__sync_val_compare_and_swap(&marks[i], rq, 0) == rq)
			return b;
	}
	if (in_hash <= 0)
		return -1;
	v = bpf_map_lookup_elem(&inflight, &rq);
	b = v && *v < LEVEL_BUCKETS ? (int)*v : LEVEL_BUCKETS;
	if (bpf_map_delete_elem(&inflight, &rq))
		return -1;
	__sync_fetch_and_add(&in_hash, -1);
	return b;
}

/*
 * How each request's last release was judged (account_release()), for its hand-off if one
 * follows (enum acq_via): in the entry mark_of() gives the request, its address when the release
 * kept the slot, its address + 1 when it freed it (slab objects are aligned; a pointer to the
 * verifier takes a constant offset, not a mask). One word, one store: two requests that share an
 * entry and are released at once on two CPUs never leave one's address with the other's verdict
 * (two words could, and a kept release read as freed counted its slot twice: test_level_truth,
 * tracepoints, 13 points high once in 20). A plain store at every release, a load at a hand-off;
 * an entry another request's release took over reads as not known, and an untracked release
 * clears its own, so a hand-off never reads an earlier cycle's verdict.
 */
__u64 rel_mark[MAX_MARKS];

static __always_inline void release_mark(__u64 rq, bool tracked, bool kept)
{
	__u32 i = mark_of(rq);

	if (!tracked) {
		/* its own verdict only: another request's, stored meanwhile, stays */
		if (__sync_val_compare_and_swap(&rel_mark[i], rq, 0) != rq)
			__sync_val_compare_and_swap(&rel_mark[i], rq + 1, 0);
	} else if (kept) {
		rel_mark[i] = rq;
	} else {
		rel_mark[i] = rq + 1;
	}
}

static __always_inline enum acq_via release_judged(__u64 rq)
{
	return rel_mark[mark_of(rq)] == rq + 1 ? ACQ_HANDED_FREED : ACQ_HANDED;
}

/*
 * A claimed xprt_tab slot made whole from @s, the entry as this CPU built it, by each CPU that
 * meets the claim as well as by the claimer, so none waits for another (a bounded wait ran out
 * under emulation, and its event went uncounted: 6.12, counters.xprts_full 1). The slot was all
 * zeros when claimed (user space zeroes a slot before it frees it: engine_reap.c), and every
 * write here is one any CPU may repeat: the identity, which every CPU reads alike from the one
 * struct rpc_xprt; the limit, into the occupancy word once, by compare-and-swap, before this CPU
 * counts (a swap that fails means it is set: whoever moved the level set it first); the first
 * sight once, by the CPU whose clock took first_seen: its open stretch at level 0, as an add
 * that commutes with the other CPUs' level changes (account.h's telescoping sums), and the
 * kernel's counts then, the bases the sends and connections since are counted from (each
 * event's sample reads them anew: one made before they were set is made again by the next).
 */
static __always_inline void tab_finish(struct xprt_stats *x, const struct xprt_stats *s)
{
	__u64 w = x->occ;

	bpf_probe_read_kernel(x, __builtin_offsetof(struct xprt_stats, first_seen_ns), s);
	if (s->flags & ~XF_LIMIT_MASK)
		__sync_fetch_and_or(&x->flags, s->flags & ~XF_LIMIT_MASK);
	if (!OCC_LIMIT(w) && __sync_val_compare_and_swap(&x->occ, w, w | s->limit) == w)
		__sync_fetch_and_or(&x->flags, s->flags & XF_LIMIT_MASK);
	if (__sync_val_compare_and_swap(&x->first_seen_ns, 0, s->first_seen_ns) == 0) {
		x->sends_base = s->sends_base;
		x->connects_base = s->connects_base;
		x->recvs_base = s->recvs_base;
		x->cwnd = s->cwnd;
		x->cong = s->cong;
		x->cwnd_min = s->cwnd_min;
		x->cong_max = s->cong_max;
		x->last_change_ns = s->last_change_ns;
		__sync_fetch_and_add(&x->level_ns[0], s->level_ns[0]);
	}
}

/*
 * A slot of op_pcpu: 1 + one user space gave back (a ring it fills, programs take from) or the
 * next never handed out, so the slots in use stay dense from 0 (user space reads 0 .. the
 * highest); OP_NOSLOT when none is left.
 */
static __always_inline __u32 op_slot_take(void)
{
	__u32 n;

	for (int i = 0; i < 4; i++) {
		__u32 h = op_free_head, v;

		if (h == *(volatile __u32 *)&op_free_tail)
			break;
		v = op_free[h & (MAX_OP_SLOTS - 1)];
		if (__sync_val_compare_and_swap(&op_free_head, h, h + 1) == h)
			return v < op_slots ? v + 1 : OP_NOSLOT;
	}
	if (op_slot_next >= op_slots)
		return OP_NOSLOT;
	n = __sync_fetch_and_add(&op_slot_next, 1);
	return n < op_slots ? n + 1 : OP_NOSLOT;
}

/*
 * This CPU's counters of op @o, or NULL when it counts in its own entry: for good when no slot
 * was left, and for the RPCs that meet its slot being taken on another CPU (user space adds both).
 */
static __always_inline struct op_counts *op_counters(struct op_stats *o)
{
	__u32 p = o->pslot;

	if (!p) {
		if (__sync_val_compare_and_swap(&o->pslot, 0, OP_CLAIMING))
			return NULL;
		p = op_slot_take();
		o->pslot = p;
		gen_bump(GEN_OPS);
	}
	if (!p || p > op_slots)
		return NULL;
	p -= 1;
	/* a store only at the first count of an epoch: the line is shared by the op's CPUs */
	if (op_stamp[p & (MAX_OP_SLOTS - 1)] != epoch)
		op_stamp[p & (MAX_OP_SLOTS - 1)] = epoch;
	return bpf_map_lookup_elem(&op_pcpu, &p);
}

/*
 * An RDMA transport's slots are its request pool, which is not always max_reqs: "xprtrdma: Add
 * request-pool slack for delayed recycling" (6.1.189, 6.12.111, 7.2) allocates
 * max_reqs + DIV_ROUND_UP(max_reqs, 8) requests, and no type or symbol tells those kernels from
 * the ones before it ("xprtrdma: Decouple req recycling from RPC completion", 6.1.178 and
 * 6.12.97, removed rpcrdma_stats.reply_waits_for_send but added no slack). So the pool is
 * counted where the kernel builds it when the transport is created while attached; proven to be
 * max_reqs where rpcrdma's BTF still has reply_waits_for_send; and otherwise assumed to be
 * max_reqs and raised the moment more requests than that are in use (rpcrdma_pool_raise()).
 */
static __always_inline void effective_limit(struct xprt_stats *x, __u64 key)
{
	__u32 *pool;

	x->limit = x->max_reqs;
	if (x->ident != IDENT_RDMA)
		return;
	pool = bpf_map_lookup_elem(&pools, &key);
	if (pool && *pool >= x->max_reqs) {
		x->limit = *pool;
		x->flags |= XF_LIMIT_COUNTED;
	} else {
		x->flags |= rdma_pool_is_max_reqs ? XF_LIMIT_BTF : XF_LIMIT_ASSUMED;
	}
}

/*
 * The count of @key's pool, once its entry is in place: not before, so that a CPU still making
 * the entry reads the same pool (tab_finish())
 */
static __always_inline void pool_done(const struct xprt_stats *x, __u64 key)
{
	if (x->ident == IDENT_RDMA)
		bpf_map_delete_elem(&pools, &key);
}

/* bpf_for_each_map_elem() over ops: an op of client *@clid learns its mount again at its next RPC */
static long forget_client(struct bpf_map *map, struct op_key *k, struct op_stats *o, __u32 *clid)
{
	if (k->clid == *clid)
		o->client_done = 0;
	return 0;
}

/*
 * The handlers are compiled twice: tp_btf and fentry arguments are trusted BTF pointers that
 * plain loads may walk (the JIT turns them into fault-tolerant loads: no helper call per field),
 * raw_tp and kprobe arguments are bare addresses that need bpf_probe_read_kernel().
 */
#define ___rd1(s, a)		((s)->a)
#define ___rd2(s, a, b)		((s)->a->b)
#define ___rd3(s, a, b, c)	((s)->a->b->c)
#define ___rdpick(_1, _2, _3, N, ...) N
#define DIRECT_READ(s, ...)	___rdpick(__VA_ARGS__, ___rd3, ___rd2, ___rd1, 0)(s, __VA_ARGS__)
#define ___fn2(n, s)		n##_##s
#define ___fn(n, s)		___fn2(n, s)
#define FN(n)			___fn(n, SFX)

#include "jobtime.bpf.h"

#define RD DIRECT_READ
#define SFX btf
#define HANDOFF_APART 0
#include "handlers.bpf.h"
#undef RD
#undef SFX
#undef HANDOFF_APART
#define RD BPF_CORE_READ
#define SFX raw
#define HANDOFF_APART 1
#include "handlers.bpf.h"
#undef RD
#undef SFX
#undef HANDOFF_APART

/* ---- attach wrappers: one of each pair is loaded ---- */

#define TP_PAIR(name, handler, args, ...)						\
	SEC("tp_btf/" #name) int BPF_PROG(btf_##name, ##__VA_ARGS__)			\
	{ return handler##_btf args; }							\
	SEC("raw_tp/" #name) int BPF_PROG(raw_##name, ##__VA_ARGS__)			\
	{ return handler##_raw args; }

TP_PAIR(xprt_reserve, handle_xprt_reserve, (rqst), struct rpc_rqst *rqst)
TP_PAIR(rpc_task_sleep, handle_task_sleep, (task, q), struct rpc_task *task, struct rpc_wait_queue *q)
TP_PAIR(rpc_task_wakeup, handle_task_wakeup, (task, q), struct rpc_task *task, struct rpc_wait_queue *q)
TP_PAIR(rpc_stats_latency, handle_stats_latency, (task, backlog, rtt, execute), struct rpc_task *task,
	__s64 backlog, __s64 rtt, __s64 execute)
TP_PAIR(xprt_create, handle_xprt_create, (xprt), struct rpc_xprt *xprt)
TP_PAIR(xprt_destroy, handle_xprt_destroy, (xprt), struct rpc_xprt *xprt)
TP_PAIR(nfs4_setup_sequence, handle_session, (session), struct nfs4_session *session, void *args)
TP_PAIR(rpc_clnt_free, handle_clnt_free, (clnt), struct rpc_clnt *clnt)
TP_PAIR(xprt_get_cong, handle_get_cong, (xprt), struct rpc_xprt *xprt, struct rpc_task *task)
TP_PAIR(xprt_put_cong, handle_put_cong, (xprt), struct rpc_xprt *xprt, struct rpc_task *task)
TP_PAIR(xprt_transmit, handle_xprt_transmit, (rqst, status), struct rpc_rqst *rqst, int status)

/*
 * The waits through the functions that start and end them, not the rpc_task_sleep/wakeup
 * tracepoints: those fire twice per RPC for the reply wait alone. rpc_sleep_on() and
 * rpc_sleep_on_priority[_timeout]() queue every wait for a slot, the send queue (hard mounts)
 * or a session slot, never the reply (rpc_sleep_on_timeout()); all live in sched.c and are
 * called from other files and modules, so no caller has them inlined. __rpc_atrun() and
 * __xprt_set_rq() are static but passed by address (the delay queue's wake callback, the
 * backlog's hand-off test), so they always exist out of line.
 */
#define FN_PAIR(name, handler, args, ...)						\
	SEC("fentry/" #name) int BPF_PROG(fentry_##name, ##__VA_ARGS__)			\
	{ return handler##_btf args; }							\
	SEC("kprobe/" #name) int BPF_KPROBE(kprobe_##name, ##__VA_ARGS__)		\
	{ return handler##_raw args; }

FN_PAIR(rpc_sleep_on, handle_sleep_on, (q, task), struct rpc_wait_queue *q, struct rpc_task *task)
FN_PAIR(rpc_sleep_on_priority, handle_sleep_on, (q, task), struct rpc_wait_queue *q,
	struct rpc_task *task)
FN_PAIR(rpc_sleep_on_priority_timeout, handle_sleep_on, (q, task), struct rpc_wait_queue *q,
	struct rpc_task *task)
FN_PAIR(rpc_delay, handle_delay, (task), struct rpc_task *task)
FN_PAIR(__rpc_atrun, handle_atrun, (task), struct rpc_task *task)
FN_PAIR(__xprt_set_rq, handle_set_rq, (task, rqst), struct rpc_task *task, struct rpc_rqst *rqst)
/* NFSv4's, called from its own files (nfs4proc.c, nfs4session.c): never inlined away from them all */
FN_PAIR(nfs4_free_slot, handle_session_free, (tbl), struct nfs4_slot_table *tbl, struct nfs4_slot *slot)
#include "jobhooks.bpf.h"

/*
 * The RDMA request pool as it is built (see effective_limit()). kprobes only: vendor builds of
 * rpcrdma often carry no BTF, and a pool is built once per transport. Every Debian ABI from 5.10
 * to 7.2 calls rpcrdma_req_create() for the pool from rpcrdma_buffer_create() alone, which
 * xprt_setup_rdma() calls before the xprt_create tracepoint; backchannel requests made later find
 * no entry and are not counted. struct rpcrdma_xprt starts with its struct rpc_xprt.
 */
SEC("kprobe/rpcrdma_buffer_create")
int BPF_KPROBE(kprobe_rpcrdma_buffer_create, void *r_xprt)
{
	__u64 key = (__u64)r_xprt;
	__u32 zero = 0;

	bpf_map_update_elem(&pools, &key, &zero, BPF_ANY);
	return 0;
}

SEC("kprobe/rpcrdma_req_create")
int BPF_KPROBE(kprobe_rpcrdma_req_create, void *r_xprt)
{
	__u64 key = (__u64)r_xprt;
	__u32 *n = bpf_map_lookup_elem(&pools, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}
