/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The globals and maps slotscope.bpf.c's programs share with user space (the skeleton names
 * them), but the jobs' (jobs.bpf.h). Included once, by slotscope.bpf.c.
 */
#ifndef SLOTSCOPE_MAPS_BPF_H
#define SLOTSCOPE_MAPS_BPF_H

/* bumped by user space at every interval boundary; selects the interval-peak slot */
__u32 epoch;
/*
 * Set by user space once every program is attached. Programs attach one by one, and a slot
 * whose acquire is counted before its release hook exists would stay "in use" for ever.
 */
__u32 armed;
/*
 * Set by user space when nfs4_free_slot is hooked too: a session's level is its used bits at
 * every take and free, and with takes alone a free would count only at the next take.
 */
__u32 session_levels;
/*
 * Set by user space when alloc_nfs_open_context is hooked (ctx_born()): an open context's entry
 * goes when its address is taken by a new one, so an entry found is its context's, and an RPC's
 * end need not read the context's file to prove it (a kernel copy an RPC, #63)
 */
__u32 ctx_births;
/* set by user space when both xprt_get_cong and xprt_put_cong are hooked: one alone drifts */
__u32 credit_levels;
/* set by user space when rpcrdma's BTF proves its request pool is max_reqs: see effective_limit() */
__u32 rdma_pool_is_max_reqs;
/*
 * Bumped after every change a program makes to an entry of ops or clients (enum map_gen). Once
 * an op counts in its per-CPU slot its entry stands still, so user space reads these maps again
 * only when their generation moved: otherwise a tick walked their 8,192 and 4,096 buckets and
 * copied ~1 KB an op, most of a busy tick's map reads under TCG.
 */
__u64 map_gen[GENS];
/*
 * Entries in waiters made through the function hooks (rpc_sleep_on() and kin), per kind; the
 * tracepoint design's are closed by their wake-up and never counted here. An RPC looks for its
 * wait only when one it could end is open somewhere (xprt_reserve ends all but the send queue's).
 */
__s64 nwaiting[WAIT_KINDS];

/*
 * Transports by the kernel's own id (xprt->id, an IDA's: the lowest free, so the live ones are
 * dense and small), in slot id % XPRT_SLOTS: an array lookup the verifier inlines instead of a
 * hash lookup at both events of every RPC. The entry says whose it is (key). A transport whose
 * slot another holds (an id past XPRT_SLOTS aliasing a live one, a destroyed one not yet
 * reaped, a kernel without the id) lives in the xprts hash instead, for good: get_xprt() looks
 * there before it takes a free slot. User space maps the array (BPF_F_MMAPABLE arrays came with
 * fc9702273e2e, 5.5, before the sunrpc tracepoints slotscope needs) and reads the slots
 * xprt_tab_used marks; it frees a destroyed transport's slot by clearing its key.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, XPRT_SLOTS);
	__type(key, __u32);
	__type(value, struct xprt_stats);
} xprt_tab SEC(".maps");
__u64 xprt_tab_used[XPRT_SLOTS / 64];
/* slots used (a power of two, less 1): fewer only in the test build, to drive the hash */
const volatile __u32 xprt_slot_mask = XPRT_SLOTS - 1;
/*
 * The test build's (SLOTSCOPE_TEST_CLAIM_MEETS=N): a claimed slot is left unpublished until N
 * events have met the claim, so a transport's first events all take the path of a CPU that
 * finds another's claim (get_xprt()). 0 everywhere else: the branch is gone at load.
 */
const volatile __u32 claim_meets;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_XPRTS);
	__type(key, __u64);		/* struct rpc_xprt * */
	__type(value, struct xprt_stats);
} xprts SEC(".maps");

/*
 * Slots acquired while attached, by request, so a release decrements only what an acquire
 * counted: a direct-mapped array of request pointers (a compare-and-swap to take or clear an
 * entry: no lock, no hash, no allocation on the path every RPC takes), and the inflight hash for
 * a request whose entry another holds. With 128 requests in flight over 4,096 entries a few
 * collide; the hash keeps each exact. mark_mask + 1 entries are used (user space sets it before
 * load, from --max-inflight); in_hash counts the hash's entries, so a request that finds its
 * entry free and the hash empty need not look there.
 */
__u64 marks[MAX_MARKS];
const volatile __u32 mark_mask = MAX_MARKS - 1;
__s64 in_hash;
/* beside each entry (and as the hash's value): the in-flight curve's level bucket it was taken at */
__u8 mark_level[MAX_MARKS];
/*
 * Beside each entry too: when its request was first transmitted (0: not yet, or its reply is in
 * and the RPC ended) and the transport it went on (struct rpc_xprt *), so that user space finds,
 * without any event (a silent server sends none), how many requests await a reply and since when
 * (#59; user/unanswered.c). The time is stored after the transport and cleared first: a reader
 * that sees it twice the same between them has the pair whole.
 */
__u64 mark_sent[MAX_MARKS];
__u64 mark_xprt[MAX_MARKS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT - MAX_MARKS);
	__type(key, __u64);		/* struct rpc_rqst * */
	__type(value, __u64);		/* level bucket, as mark_level */
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

/*
 * The ops' per-CPU counters (struct op_counts), op_slots slots of them (set before load from the
 * CPUs and OP_SLOTS_BUDGET; 0: none). An op takes a slot at its first RPC and keeps it until user
 * space reaps the op: it zeroes the slot, then gives it back (op_free).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct op_counts);
} op_pcpu SEC(".maps");
const volatile __u32 op_slots;
/* slots handed out from 0; slots given back by user space: a ring, head taken, tail put */
__u32 op_slot_next;
__u32 op_free[MAX_OP_SLOTS];
__u32 op_free_head, op_free_tail;
/*
 * The epoch each slot last counted in: user space reads only the slots written in the last few
 * epochs (an op idle since keeps its last values in user space's copy), not all of them a tick.
 */
__u32 op_stamp[MAX_OP_SLOTS];

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
 * RDMA request pools being built: struct rpcrdma_xprt * (whose first member is the rpc_xprt) ->
 * requests created so far. rpcrdma_buffer_create() starts an entry, rpcrdma_req_create() counts
 * into it, the transport's first sighting takes it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_POOLS);
	__type(key, __u64);
	__type(value, __u32);
} pools SEC(".maps");

/* a new transport's entry is built here (it is larger than the 512-byte stack), then inserted whole */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xprt_stats);
} xprt_scratch SEC(".maps");

/*
 * Zero values too large for the 512-byte stack, as read-only globals (a map value the helpers
 * take): the scratch entry starts as a copy of zero_xprt, a new op entry is inserted from zero_op.
 */
static const struct xprt_stats zero_xprt;
static const struct op_stats zero_op;
static const struct job_io zero_jobio;

#endif
