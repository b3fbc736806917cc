// SPDX-License-Identifier: GPL-2.0
/*
 * slotscope's kernel half: per RPC transport, exact slot occupancy against its limit, time at
 * each occupancy level, waits for a slot / the send queue / an NFSv4.1 session slot, and per-op
 * latency. Everything is aggregated here; user space only reads the maps.
 *
 * Every tracepoint handler has a tp_btf and a raw_tp wrapper, every function hook an fentry and a
 * kprobe wrapper; user space keeps one of each pair by probing BTF. Handlers read through
 * BPF_CORE_READ so the same body serves trusted (tp_btf) and raw pointers.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "slotscope.h"

char LICENSE[] SEC("license") = "GPL";

#define RPC_CWNDSHIFT	8	/* include/linux/sunrpc/xprt.h */
#define RPC_BC_PA_IN_USE 1	/* bit 0 of rpc_rqst->rq_bc_pa_state */

/* bumped by user space at every interval boundary; selects the interval-peak slot */
__u32 epoch;
/*
 * Set by user space once every program is attached. Programs attach one by one, and a slot
 * whose acquire is counted before its release hook exists would stay "in use" for ever.
 */
__u32 armed;
/* set by user space from the rpcrdma module's BTF, see effective_limit() */
__u32 rdma_slack_shift = SLACK_UNKNOWN;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_XPRTS);
	__type(key, __u64);		/* struct rpc_xprt * */
	__type(value, struct xprt_stats);
} xprts SEC(".maps");

/* slots acquired while attached: release decrements only what acquire counted */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT);
	__type(key, __u64);		/* struct rpc_rqst * */
	__type(value, __u64);		/* struct rpc_xprt * */
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WAITERS);
	__type(key, __u64);		/* struct rpc_task * */
	__type(value, struct waiter);
} waiters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_OPS);
	__type(key, struct op_key);
	__type(value, struct op_stats);
} ops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_CLIENTS);
	__type(key, __u32);		/* cl_clid */
	__type(value, struct client_info);
} clients SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_SESSIONS);
	__type(key, __u64);		/* struct nfs4_session * */
	__type(value, struct session_stats);
} sessions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* a new transport's entry is built here (it is larger than the 512-byte stack), then inserted whole */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xprt_stats);
} xprt_scratch SEC(".maps");

/* all zero, never written: the scratch entry starts as a copy of it */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xprt_stats);
} xprt_zero SEC(".maps");

/* all zero, never written: a new op entry is inserted from here (BPF_NOEXIST), then filled */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct op_stats);
} op_zero SEC(".maps");

static __always_inline void count(__u32 c);

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

static __always_inline void atomic_max(__u32 *p, __u32 v)
{
	for (int i = 0; i < 4; i++) {
		__u32 cur = *p;

		if (v <= cur || __sync_val_compare_and_swap(p, cur, v) == cur)
			return;
	}
}

static __always_inline void hist_add(struct wait_hist *h, __u64 ns)
{
	__u32 b = lat_bucket(ns);

	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
	if (b < LAT_BUCKETS)
		__sync_fetch_and_add(&h->buckets[b], 1);
	for (int i = 0; i < 4; i++) {
		__u64 cur = h->max_ns;

		if (ns <= cur || __sync_val_compare_and_swap(&h->max_ns, cur, ns) == cur)
			break;
	}
}

/*
 * "xprtrdma: Decouple RPC completion from Send completion" (Chuck Lever, May 2026; in Debian's
 * 6.1.192) keeps a request off the free pool until its Send completes too, and sizes the pool
 * max_reqs + max_reqs/8 so concurrency does not drop: RPCs can then hold that many. User space
 * detects it in BTF (struct rpcrdma_stats lost reply_waits_for_send in the same patch).
 */
static __always_inline void effective_limit(struct xprt_stats *x)
{
	__u32 shift = rdma_slack_shift;

	x->limit = x->max_reqs;
	if (x->ident != IDENT_RDMA)
		return;
	if (shift == SLACK_UNKNOWN) {
		x->flags |= XF_LIMIT_GUESS;
		return;
	}
	x->flags &= ~XF_LIMIT_GUESS;
	if (shift < 32)
		x->limit += x->max_reqs >> shift;
}

/*
 * Occupancy changes by @delta. The time since the previous change (on any CPU) goes to the level
 * it was at: the xchg on last_change_ns chains all changes, so no nanosecond is lost or counted
 * twice even when two CPUs race.
 */
static __always_inline void slot_change(struct xprt_stats *x, int delta, __u64 now)
{
	__s32 old, new;
	__u64 prev;
	__u32 b;

	if (x->flags & XF_LIMIT_GUESS)
		effective_limit(x);
	old = __sync_fetch_and_add(&x->in_use, delta);
	new = old + delta;
	prev = __sync_lock_test_and_set(&x->last_change_ns, now);
	b = level_bucket(old > 0 ? old : 0, x->limit);
	__u32 e = epoch, i = e & 1;

	if (now > prev && b < LEVEL_BUCKETS)
		__sync_fetch_and_add(&x->level_ns[b], now - prev);
	if (new <= 0)
		return;
	atomic_max(&x->peak, new);
	if (x->epoch_of[i] != e) {
		x->epoch_of[i] = e;
		x->epoch_peak[i] = old > 0 ? old : 0;
	}
	atomic_max(&x->epoch_peak[i], new);
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

#define RD DIRECT_READ
#define SFX btf
#include "handlers.bpf.h"
#undef RD
#undef SFX
#define RD BPF_CORE_READ
#define SFX raw
#include "handlers.bpf.h"
#undef RD
#undef SFX

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
TP_PAIR(nfs4_sequence_done, handle_session, (session), struct nfs4_session *session, void *res)

SEC("fentry/xprt_release")
int BPF_PROG(fentry_xprt_release, struct rpc_task *task)
{
	return handle_xprt_release_btf(task);
}

SEC("kprobe/xprt_release")
int BPF_KPROBE(kprobe_xprt_release, struct rpc_task *task)
{
	return handle_xprt_release_raw(task);
}
