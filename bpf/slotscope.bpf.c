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

/*
 * All-zero values, never written: new entries larger than the 512-byte BPF stack are inserted
 * from here and then filled in place.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xprt_stats);
} xprt_zero SEC(".maps");

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
		count(CNT_EVENTS);	\
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

static __always_inline void init_identity(struct xprt_stats *z, struct rpc_xprt *xprt, __u64 now)
{
	const char *s;

	z->id = BPF_CORE_READ(xprt, id);
	z->ident = BPF_CORE_READ(xprt, xprt_class, ident);
	z->max_reqs = BPF_CORE_READ(xprt, max_reqs);
	z->min_reqs = BPF_CORE_READ(xprt, min_reqs);
	s = BPF_CORE_READ(xprt, address_strings[RPC_DISPLAY_ADDR]);
	bpf_probe_read_kernel_str(z->addr, sizeof(z->addr), s);
	s = BPF_CORE_READ(xprt, address_strings[RPC_DISPLAY_PORT]);
	bpf_probe_read_kernel_str(z->port, sizeof(z->port), s);
	z->first_seen_ns = now;
	z->last_change_ns = now;
	effective_limit(z);
}

/* A new entry replaces a destroyed one: the kernel may reuse the address for a new transport. */
static __always_inline struct xprt_stats *get_xprt(struct rpc_xprt *xprt, __u64 now)
{
	__u64 key = (__u64)xprt;
	struct xprt_stats *x;
	__u32 zero = 0;

	if (!xprt)
		return NULL;
	x = bpf_map_lookup_elem(&xprts, &key);
	if (x && !(x->flags & XF_DESTROYED)) {
		/* created with port 0: rpcbind fills it in later (xs_set_port) */
		if (x->port[0] == '0' && x->port[1] == 0)
			bpf_probe_read_kernel_str(x->port, sizeof(x->port),
						  BPF_CORE_READ(xprt, address_strings[RPC_DISPLAY_PORT]));
		return x;
	}
	x = bpf_map_lookup_elem(&xprt_zero, &zero);
	if (!x)
		return NULL;
	if (bpf_map_update_elem(&xprts, &key, x, BPF_ANY)) {
		count(CNT_XPRTS_FULL);
		return NULL;
	}
	x = bpf_map_lookup_elem(&xprts, &key);
	if (x)
		init_identity(x, xprt, now);
	return x;
}

/*
 * Fields that move: credits for RDMA/UDP, num_reqs, the backlog. Sampled where a slot changes
 * hands (every RPC passes there twice), not on every transmit or sleep: the hot path stays short.
 */
static __always_inline void sample(struct xprt_stats *x, struct rpc_xprt *xprt)
{
	__u32 cwnd = BPF_CORE_READ(xprt, cwnd) >> RPC_CWNDSHIFT;
	__u32 cong = BPF_CORE_READ(xprt, cong) >> RPC_CWNDSHIFT;

	x->cwnd = cwnd;
	x->cong = cong;
	if (cwnd && (x->cwnd_min == 0 || cwnd < x->cwnd_min))
		x->cwnd_min = cwnd;
	if (cong > x->cong_max)
		x->cong_max = cong;
	x->num_reqs = BPF_CORE_READ(xprt, num_reqs);
	x->backlog_now = BPF_CORE_READ(xprt, backlog.qlen);
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

static __always_inline void slot_acquired(struct rpc_rqst *rqst, struct rpc_xprt *xprt, bool handoff)
{
	__u64 key = (__u64)rqst, val = (__u64)xprt, now = bpf_ktime_get_ns();
	struct xprt_stats *x;
	int err;

	x = get_xprt(xprt, now);
	if (!x)
		return;
	sample(x, xprt);
	/*
	 * A handed-off request fires xprt_reserve again when its new owner runs: already counted.
	 * Helper errors are ints: compare them as such (6.1 zero-extends them in R0).
	 */
	err = bpf_map_update_elem(&inflight, &key, &val, BPF_NOEXIST);
	if (err) {
		if (err != -17 /* EEXIST */)
			count(CNT_INFLIGHT_FULL);
		return;
	}
	__sync_fetch_and_add(&x->acquires, 1);
	if (handoff)
		__sync_fetch_and_add(&x->handoffs, 1);
	slot_change(x, 1, now);
}

static __always_inline int handle_xprt_reserve(struct rpc_rqst *rqst)
{
	ARMED_OR_RETURN();
	slot_acquired(rqst, BPF_CORE_READ(rqst, rq_xprt), false);
	return 0;
}

static __always_inline int handle_xprt_release(struct rpc_task *task)
{
	struct rpc_rqst *rqst = BPF_CORE_READ(task, tk_rqstp);
	__u64 key = (__u64)rqst, now;
	struct rpc_xprt *xprt;
	struct xprt_stats *x;

	ARMED_OR_RETURN();
	if (!rqst)
		return 0;
	/* NFSv4.1 callbacks reply on preallocated backchannel requests, never a slot */
	if (bpf_core_field_exists(rqst->rq_bc_pa_state) &&
	    (BPF_CORE_READ(rqst, rq_bc_pa_state) & RPC_BC_PA_IN_USE)) {
		count(CNT_BC_RELEASE);
		return 0;
	}
	xprt = BPF_CORE_READ(rqst, rq_xprt);
	now = bpf_ktime_get_ns();
	x = get_xprt(xprt, now);
	if (!x)
		return 0;
	if (bpf_map_delete_elem(&inflight, &key)) {
		count(CNT_PREATTACH_RELEASE);
		__sync_fetch_and_add(&x->preattach_releases, 1);
		return 0;
	}
	__sync_fetch_and_add(&x->releases, 1);
	slot_change(x, -1, now);
	sample(x, xprt);
	return 0;
}

static __always_inline int handle_task_sleep(struct rpc_task *task, struct rpc_wait_queue *q)
{
	struct rpc_xprt *xprt = BPF_CORE_READ(task, tk_xprt);
	struct waiter w = {};
	__u64 key = (__u64)task;
	struct xprt_stats *x;
	char name[24];

	ARMED_OR_RETURN();
	if (!xprt)
		return 0;
	/* the most frequent sleep by far: every RPC waits for its reply */
	if ((void *)q == (void *)&xprt->pending)
		return 0;
	if ((void *)q == (void *)&xprt->backlog) {
		w.kind = WAIT_SLOT;
	} else if ((void *)q == (void *)&xprt->sending) {
		w.kind = WAIT_SEND;
	} else {
		const char *qn = BPF_CORE_READ(q, name);

		if (!qn || bpf_probe_read_kernel_str(name, sizeof(name), qn) < 0)
			return 0;
		/* fs/nfs/nfs4session.c: rpc_init_priority_wait_queue(..., "ForeChannel Slot table") */
		if (name[0] == 'F' && name[1] == 'o' && name[2] == 'r' && name[3] == 'e' &&
		    name[12] == 'S' && name[17] == 't')
			w.kind = WAIT_SESSION;
		/* net/sunrpc/sched.c: rpc_init_wait_queue(&delay_queue, "delayq") */
		else if (name[0] == 'd' && name[1] == 'e' && name[2] == 'l' && name[3] == 'a' &&
			 name[4] == 'y' && name[5] == 'q' && name[6] == 0)
			w.kind = WAIT_DELAY;
		else
			return 0;
	}
	w.start_ns = bpf_ktime_get_ns();
	w.xprt = (__u64)xprt;
	x = get_xprt(xprt, w.start_ns);
	if (x) {
		/* the tracepoint fires just before the task is queued: count it in */
		__u32 qlen = BPF_CORE_READ(q, qlen) + 1;

		if (w.kind == WAIT_SLOT) {
			/* tasks stuck on a backlog with free slots fire only this: keep it fresh */
			x->backlog_now = qlen;
			atomic_max(&x->backlog_max, qlen);
		} else if (w.kind == WAIT_SEND)
			atomic_max(&x->sending_max, qlen);
	}
	if (bpf_map_update_elem(&waiters, &key, &w, BPF_ANY))
		count(CNT_WAITERS_FULL);
	return 0;
}

static __always_inline int handle_task_wakeup(struct rpc_task *task, struct rpc_wait_queue *q)
{
	struct rpc_xprt *xprt = BPF_CORE_READ(task, tk_xprt);
	__u64 key = (__u64)task, now;
	struct xprt_stats *x;
	struct waiter *w;

	ARMED_OR_RETURN();
	if (!xprt || (void *)q == (void *)&xprt->pending)
		return 0;
	/*
	 * xprt_wake_up_backlog() hands a freed request straight to the first backlogged task
	 * (e877a88d1f06, ~5.13): the slot never becomes free. Count it taken now, not when the
	 * woken task runs and fires xprt_reserve.
	 */
	if ((void *)q == (void *)&xprt->backlog) {
		struct rpc_rqst *rqst = BPF_CORE_READ(task, tk_rqstp);

		if (rqst)
			slot_acquired(rqst, xprt, true);
	}
	w = bpf_map_lookup_elem(&waiters, &key);
	if (!w)
		return 0;
	now = bpf_ktime_get_ns();
	x = get_xprt((struct rpc_xprt *)w->xprt, now);
	if (x && w->kind < WAIT_KINDS && now > w->start_ns)
		hist_add(&x->waits[w->kind], now - w->start_ns);
	bpf_map_delete_elem(&waiters, &key);
	return 0;
}

static __always_inline int handle_xprt_transmit(struct rpc_rqst *rqst, int status)
{
	struct rpc_xprt *xprt = BPF_CORE_READ(rqst, rq_xprt);
	struct xprt_stats *x;

	ARMED_OR_RETURN();
	x = get_xprt(xprt, bpf_ktime_get_ns());
	if (!x)
		return 0;
	/* xprt_request_transmit() counts stat.sends only for a send_request() that succeeded */
	if (status == 0)
		__sync_fetch_and_add(&x->sends, 1);
	else
		__sync_fetch_and_add(&x->send_errors, 1);
	return 0;
}

static __always_inline int handle_stats_latency(struct rpc_task *task, __s64 backlog, __s64 rtt,
						__s64 execute)
{
	struct rpc_rqst *rqst = BPF_CORE_READ(task, tk_rqstp);
	const struct rpc_procinfo *proc = BPF_CORE_READ(task, tk_msg.rpc_proc);
	struct rpc_clnt *clnt = BPF_CORE_READ(task, tk_client);
	__s64 v[STAGES] = { backlog, rtt, execute };
	struct op_key k = {};
	struct op_stats *o;
	__u32 zero = 0;
	int ntrans;

	ARMED_OR_RETURN();
	if (!rqst || !clnt)
		return 0;
	k.xprt = (__u64)BPF_CORE_READ(rqst, rq_xprt);
	k.clid = BPF_CORE_READ(clnt, cl_clid);
	k.prog = BPF_CORE_READ(clnt, cl_prog);
	k.vers = BPF_CORE_READ(clnt, cl_vers);
	k.proc = proc ? BPF_CORE_READ(proc, p_statidx) : 0xffffffff;
	o = bpf_map_lookup_elem(&ops, &k);
	if (!o) {
		o = bpf_map_lookup_elem(&op_zero, &zero);
		if (!o)
			return 0;
		bpf_map_update_elem(&ops, &k, o, BPF_NOEXIST);
		o = bpf_map_lookup_elem(&ops, &k);
		if (!o) {
			count(CNT_OPS_FULL);
			return 0;
		}
		if (proc && !o->name[0])
			bpf_probe_read_kernel_str(o->name, sizeof(o->name), BPF_CORE_READ(proc, p_name));
	}
	/* the same arithmetic as rpc_count_iostats_metrics(), so sums match mountstats */
	ntrans = BPF_CORE_READ(rqst, rq_ntrans);
	__sync_fetch_and_add(&o->count, 1);
	__sync_fetch_and_add(&o->ntrans, ntrans > 1 ? ntrans : 1);
	__sync_fetch_and_add(&o->timeouts, BPF_CORE_READ(task, tk_timeouts));
	if (BPF_CORE_READ(task, tk_status) < 0)
		__sync_fetch_and_add(&o->errors, 1);
	__sync_fetch_and_add(&o->bytes_sent, BPF_CORE_READ(rqst, rq_xmit_bytes_sent));
	__sync_fetch_and_add(&o->bytes_recv, BPF_CORE_READ(rqst, rq_reply_bytes_recvd));
	for (int s = 0; s < STAGES; s++) {
		__u64 ns = v[s] > 0 ? v[s] : 0;
		__u32 b = lat_bucket(ns);

		__sync_fetch_and_add(&o->sum_ns[s], ns);
		if (b < LAT_BUCKETS)
			__sync_fetch_and_add(&o->hist[s][b], 1);
	}
	return 0;
}

static __always_inline int handle_xprt_create(struct rpc_xprt *xprt)
{
	__u64 key = (__u64)xprt;

	ARMED_OR_RETURN();
	/* an entry left under this address belongs to a destroyed transport */
	bpf_map_delete_elem(&xprts, &key);
	get_xprt(xprt, bpf_ktime_get_ns());
	return 0;
}

static __always_inline int handle_xprt_destroy(struct rpc_xprt *xprt)
{
	__u64 key = (__u64)xprt, now = bpf_ktime_get_ns();
	struct xprt_stats *x = bpf_map_lookup_elem(&xprts, &key);

	ARMED_OR_RETURN();
	if (!x)
		return 0;
	/* close the last stretch so time at each level adds up to the transport's lifetime */
	slot_change(x, 0, now);
	x->destroyed_ns = now;
	__sync_fetch_and_or(&x->flags, XF_DESTROYED);
	return 0;
}

/* clid -> superblock, from the nfs_server the inode belongs to (hdr->task is not set up yet) */
static __always_inline int note_client(struct inode *inode)
{
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);
	struct nfs_server *server = BPF_CORE_READ(sb, s_fs_info);
	struct client_info ci = {};
	__u32 clid;

	ARMED_OR_RETURN();
	if (!server)
		return 0;
	clid = BPF_CORE_READ(server, client, cl_clid);
	if (bpf_map_lookup_elem(&clients, &clid))
		return 0;
	ci.dev = BPF_CORE_READ(sb, s_dev);
	if ((int)bpf_map_update_elem(&clients, &clid, &ci, BPF_NOEXIST) == -7 /* E2BIG */)
		count(CNT_CLIENTS_FULL);
	return 0;
}

static __always_inline int handle_session(struct nfs4_session *session)
{
	__u64 key = (__u64)session;
	struct session_stats *s, z = {};
	struct rpc_clnt *clnt;
	__u32 used;

	ARMED_OR_RETURN();
	if (!session)
		return 0;
	s = bpf_map_lookup_elem(&sessions, &key);
	if (!s) {
		clnt = BPF_CORE_READ(session, clp, cl_rpcclient);
		z.clid = BPF_CORE_READ(clnt, cl_clid);
		z.xprt = (__u64)BPF_CORE_READ(clnt, cl_xprt);
		if ((int)bpf_map_update_elem(&sessions, &key, &z, BPF_NOEXIST) == -7 /* E2BIG */)
			count(CNT_SESSIONS_FULL);
		s = bpf_map_lookup_elem(&sessions, &key);
		if (!s)
			return 0;
	}
	s->max_slots = BPF_CORE_READ(session, fc_slot_table.max_slots);
	s->target_highest_slotid = BPF_CORE_READ(session, fc_slot_table.target_highest_slotid);
	s->server_highest_slotid = BPF_CORE_READ(session, fc_slot_table.server_highest_slotid);
	used = BPF_CORE_READ(session, fc_slot_table.highest_used_slotid);
	s->highest_used_slotid = used;
	/* NFS4_NO_SLOT (-1) when the table is empty */
	if (used != 0xffffffff)
		atomic_max(&s->peak_used_slotid, used);
	s->last_ns = bpf_ktime_get_ns();
	__sync_fetch_and_add(&s->sequences, 1);
	return 0;
}

/* ---- attach wrappers: one of each pair is loaded ---- */

#define TP_PAIR(name, handler, ...)							\
	SEC("tp_btf/" #name) int BPF_PROG(btf_##name, ##__VA_ARGS__)			\
	{ return handler; }								\
	SEC("raw_tp/" #name) int BPF_PROG(raw_##name, ##__VA_ARGS__)			\
	{ return handler; }

TP_PAIR(xprt_reserve, handle_xprt_reserve(rqst), struct rpc_rqst *rqst)
TP_PAIR(xprt_transmit, handle_xprt_transmit(rqst, status), struct rpc_rqst *rqst, int status)
TP_PAIR(rpc_task_sleep, handle_task_sleep(task, q), struct rpc_task *task, struct rpc_wait_queue *q)
TP_PAIR(rpc_task_wakeup, handle_task_wakeup(task, q), struct rpc_task *task, struct rpc_wait_queue *q)
TP_PAIR(rpc_stats_latency, handle_stats_latency(task, backlog, rtt, execute), struct rpc_task *task,
	__s64 backlog, __s64 rtt, __s64 execute)
TP_PAIR(xprt_create, handle_xprt_create(xprt), struct rpc_xprt *xprt)
TP_PAIR(xprt_destroy, handle_xprt_destroy(xprt), struct rpc_xprt *xprt)
TP_PAIR(nfs_initiate_write, note_client(BPF_CORE_READ(hdr, inode)), struct nfs_pgio_header *hdr)
TP_PAIR(nfs_initiate_read, note_client(BPF_CORE_READ(hdr, inode)), struct nfs_pgio_header *hdr)
TP_PAIR(nfs4_setup_sequence, handle_session(session), struct nfs4_session *session, void *args)
TP_PAIR(nfs4_sequence_done, handle_session(session), struct nfs4_session *session, void *res)

SEC("fentry/xprt_release")
int BPF_PROG(fentry_xprt_release, struct rpc_task *task)
{
	return handle_xprt_release(task);
}

SEC("kprobe/xprt_release")
int BPF_KPROBE(kprobe_xprt_release, struct rpc_task *task)
{
	return handle_xprt_release(task);
}
