/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI between slotscope.bpf.c and user space: map keys and values. Fixed-width types only,
 * explicit padding, and a size check on every struct (the skeleton checks globals, not maps).
 */
#ifndef SLOTSCOPE_H
#define SLOTSCOPE_H

#include "hist.h"

#define MAX_XPRTS	1024	/* in the hash: the transports xprt_tab has no slot for */
#define XPRT_SLOTS	512	/* xprt_tab: by xprt->id, a power of two */
#define MAX_INFLIGHT	65536	/* requests tracked at once: MAX_MARKS in an array, the rest hashed */
#define MAX_MARKS	4096
#define MAX_WAITERS	65536
#define MAX_OPS		8192
#define MAX_CLIENTS	4096
#define MAX_SESSIONS	256
#define MAX_JOBIO	16384	/* (cgroup, mount, direction): user space forgets the gone ones */
#define MAX_JOBTASKS	8192	/* processes seen doing NFS file I/O, least recent forgotten first */
#define NFS_SUPER_MAGIC	0x6969
#define MAX_FILE_CALLS	4096	/* threads inside NFS's write or read at once (kretprobe design) */
#define MAX_CTX_JOBS	8192	/* NFS files open and written or read, least recently seen forgotten */
#define MAX_CTX_PENDING	1024	/* files whose RPCs ended before their first write or read returned */

#define ADDR_LEN	48
#define PORT_LEN	8
#define OPNAME_LEN	16

/* xprt->xprt_class->ident (include/linux/sunrpc/xprt.h); xprt->prot says TCP for RDMA too */
#define IDENT_UDP	17
#define IDENT_TCP	6
#define IDENT_RDMA	256

enum wait_kind {
	WAIT_SLOT,	/* xprt->backlog: no free slot (rpc_rqst) on the transport */
	WAIT_SEND,	/* xprt->sending: transport write lock, or RDMA/UDP congestion window (credits) */
	WAIT_SESSION,	/* NFSv4.1 "ForeChannel Slot table": no free session slot */
	WAIT_DELAY,	/* rpc_delay() ("delayq"): e.g. 250 ms after an RDMA slot -ENOMEM */
	WAIT_KINDS,
};

enum lat_stage { STAGE_QUEUE, STAGE_RTT, STAGE_EXECUTE, STAGES };

/* the hash maps whose entries seldom change, and which user space reads only when they did */
enum map_gen { GEN_OPS, GEN_CLIENTS, GENS };

enum counter {
	CNT_INFLIGHT_FULL,	/* a slot acquire not tracked: inflight map full */
	CNT_WAITERS_FULL,	/* a wait not timed: waiters map full */
	CNT_XPRTS_FULL,		/* a transport not tracked: xprts map full */
	CNT_OPS_FULL,		/* an op not counted: ops map full */
	CNT_CLIENTS_FULL,
	CNT_SESSIONS_FULL,
	CNT_JOBS_FULL,		/* NFS file I/O of a (cgroup, mount) not counted: jobio map full */
	CNT_PREATTACH_RELEASE,	/* released a slot taken before attach */
	CNT_BC_RELEASE,		/* released a backchannel preallocated request (never a slot) */
	CNT_LEVEL_CORRECTIONS,	/* a level the kernel's num_reqs proved wrong, set right (account.h) */
	COUNTERS,
};

#define XF_DESTROYED	1u	/* xprt_destroy seen; user space drops it after one report */
/*
 * Where an RDMA transport's limit (its request pool) comes from. TCP and UDP transports set none
 * of these: their limit is max_reqs. See effective_limit() in slotscope.bpf.c.
 */
#define XF_LIMIT_ASSUMED  2u	/* pool unknown: max_reqs, raised if more are ever in use */
#define XF_LIMIT_COUNTED  4u	/* pool counted as the kernel built it (rpcrdma_req_create) */
#define XF_LIMIT_INFERRED 8u	/* more than max_reqs were seen in use: the pool has slack */
#define XF_LIMIT_BTF	  16u	/* rpcrdma's BTF proves a pool of exactly max_reqs */
#define XF_LIMIT_MASK	  (XF_LIMIT_ASSUMED | XF_LIMIT_COUNTED | XF_LIMIT_INFERRED | XF_LIMIT_BTF)
/*
 * A slot was taken while the inflight map was full (--max-inflight): the level counts tracked
 * requests alone from then on, and num_reqs, which counts them all, proves nothing upward
 * (account.h's level_raise()).
 */
#define XF_UNTRACKED	  32u
/* VAST NFS's mdconnect: a transport that carries metadata ops alone (xprt->role RPC_XPRT_ROLE_MD) */
#define XF_METADATA	  64u

#define MAX_POOLS	64	/* RDMA transports being built at one moment */

struct wait_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 max_ns;
	__u64 buckets[LAT_BUCKETS];
};

/* struct xprt_stats' occ: the level in its high half, so a signed add never carries into the limit */
#define OCC_LEVEL(w)		((__s32)((w) >> 32))
#define OCC_LIMIT(w)		((__u32)(w))
#define OCC_PACK(limit, level)	((__u64)(__u32)(level) << 32 | (__u32)(limit))

/*
 * A transport's counts, each only ever growing: one struct from the map through the views to the
 * textfile's sums, which add, subtract and print it whole (user/view.c: xprt_counts_delta(),
 * xprt_counts_add(), xprt_count_names[] in this order). A new count is a member here and its name
 * there.
 */
struct xprt_counts {
	__u64 acquires;		/* slots taken, including handoffs */
	__u64 handoffs;		/* slots passed from a releasing task straight to a backlogged one */
	__u64 releases;
	__u64 preattach_releases; /* releases of slots taken before attach: still warming up */
	__u64 sends;		/* xprt->stat.sends (mountstats "sends") less sends_base */
	__u64 connects;		/* xprt->stat.connect_count less connects_base: (re)connections */
	/*
	 * rpc_delay()s a task sat out while holding its request (WF_HELD): a slot held idle. The
	 * backlog stall: after a hand-off from the backlog, call_reserveresult() still sees the
	 * -ENOMEM of xprt_rdma_alloc_slot() and sleeps HZ >> 2 (a721035477fb) with the slot in hand.
	 */
	__u64 held_idle;
	__u64 held_idle_ns;
	__u64 recvs;		/* xprt->stat.recvs less recvs_base: replies matched (mountstats "recvs") */
};
#define XPRT_COUNTS	(sizeof(struct xprt_counts) / sizeof(__u64))

struct xprt_stats {
	/* identity, written once when the transport is first seen */
	__u32 id;		/* xprt->id, as in /sys/kernel/sunrpc/.../xprt-<id>-<proto> */
	__u32 ident;		/* IDENT_* */
	__u32 max_reqs;		/* the slot table size the transport was created with */
	__u32 min_reqs;
	char addr[ADDR_LEN];	/* server address */
	char port[PORT_LEN];
	__u64 first_seen_ns;
	__u64 destroyed_ns;
	__u32 flags;		/* XF_* */
	__u32 __pad0;

	/*
	 * Occupancy: the slots in use and the limit they are measured against, in one word so a
	 * change's fetch-and-add says both (an RDMA pool raised moves the limit, and with it the
	 * buckets: account.h's slot_change()).
	 */
	union {
		struct {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			__u32 limit;	/* effective slot limit: max_reqs, or the RDMA request pool */
			__s32 in_use;
#else
			__s32 in_use;
			__u32 limit;
#endif
		};
		__u64 occ;
	};
	__u64 last_change_ns;	/* the latest change of level bucket (for the pool's raise) */
	/* per level bucket: closed time less the open stretch's start (account.h's level_shift()) */
	__u64 level_ns[LEVEL_BUCKETS];
	__u32 peak;		/* highest in_use since attach */
	__u32 epoch_peak[2];	/* highest in_use in the interval whose epoch parity is the index */
	__u32 epoch_of[2];	/* the epoch epoch_peak[i] belongs to */
	__u32 backlog_max;	/* longest backlog queue seen */
	__u32 sending_max;	/* longest sending queue seen */
	__u32 __pad2;
	struct xprt_counts n;
	__u64 sends_base;	/* xprt->stat.sends when first seen */
	__u64 connects_base;	/* xprt->stat.connect_count when first seen */
	__u64 recvs_base;	/* xprt->stat.recvs when first seen */
	/*
	 * When the server's last reply came (rq_xtime + rq_rtt) among the RPCs it answered whose op
	 * is not a lease's keepalive (SEQUENCE, RENEW, NULL): a server that renews its clients'
	 * leases while it answers nothing else is not answering (#59). 0: none since attach.
	 */
	__u64 last_answer_ns;

	/* sampled at every event: RDMA credits (congestion window) and the live queue */
	__u32 cwnd;		/* xprt->cwnd >> RPC_CWNDSHIFT: credits granted */
	__u32 cong;		/* xprt->cong >> RPC_CWNDSHIFT: credits in use */
	__u32 cwnd_min;		/* lowest grant seen (0 = none seen) */
	__u32 cong_max;
	__u32 num_reqs;		/* xprt->num_reqs: slot structures allocated (TCP/UDP) */
	__u32 backlog_now;
	/*
	 * Releases made while tasks were on the backlog: xprt_free_slot() hands each such request
	 * to the first of them (xprt_wake_up_backlog(), e877a88d1f06, 5.13), so the slot stays in
	 * use across the release. Counted in in_use until the hand-off takes one back.
	 */
	__u32 handing;
	__u32 __pad1;

	struct wait_hist waits[WAIT_KINDS];

	/*
	 * The in-flight curve: RPCs by the level bucket of the slots in use (their own included)
	 * when each took its slot, and their RTT and execute times summed, added at the release.
	 * How the server's answer time grows with the load this client puts on it. A bucket's
	 * three sums side by side: a release's adds touch one cache line, not three.
	 */
	struct curve_point {
		__u64 rpcs;
		__u64 rtt_ns;
		__u64 exec_ns;
	} curve[LEVEL_BUCKETS];
	/*
	 * RDMA/UDP credits in use against the grant in force at each moment (#46): the server's
	 * grant arrives with every reply (rpcrdma_update_cwnd(); 1 again at each connect), so time
	 * at the credit limit is booked against the cwnd of that moment, not one read once. Set at
	 * xprt_get_cong/xprt_put_cong, both under transport_lock: one writer at a time.
	 */
	struct credit_levels {
		__u32 limit;		/* credits granted at the last event (0: no event yet) */
		__u32 level;		/* credits in use after it */
		__u32 bucket;		/* open bucket; LEVEL_BUCKETS: read torn (user space) */
		__u32 peak;
		__u32 limit_min, limit_max;
		__u64 limit_changes;
		__u64 level_ns[LEVEL_BUCKETS];	/* telescoping, as the slots' */
	} credit;
	__u64 level_recip;	/* level_recip(limit) of the limit it was made for (xprt_level_bucket()) */
	/*
	 * In xprt_tab: the struct rpc_xprt * the entry is of; 0: free; the address | 1: its entry
	 * being built (get_xprt()). Last, so the built entry is copied in whole with it.
	 */
	__u64 key;
};

/*
 * An op's counters: in its entry (op_stats.c, atomic adds), or per CPU in op_pcpu, whose only
 * writer is the stats tracepoint's program, run with preemption off (a nested run of it is
 * dropped by the kernel's per-program recursion guard), so its adds there are plain: no locked operation and no
 * cache line shared between CPUs on the path every RPC takes. User space sums the CPUs.
 * op_pcpu has MAX_OP_SLOTS slots or fewer, as many as OP_SLOTS_BUDGET bytes hold on this many
 * CPUs (a power of two); ops beyond them count in their own entry, atomically.
 */
struct op_counts {
	__u64 count;
	__u64 ntrans;
	__u64 timeouts;
	__u64 errors;
	__u64 bytes_sent;
	__u64 bytes_recv;
	__u64 sum_ns[STAGES];
	__u64 hist[STAGES][LAT_BUCKETS];
};

/* per (transport, client, procedure): what mountstats keeps per op, plus histograms */
struct op_key {
	__u64 xprt;
	__u32 clid;		/* rpc_clnt->cl_clid: one per NFS mount (superblock) */
	__u32 prog;
	__u32 vers;
	__u32 proc;		/* rpc_procinfo->p_statidx */
};

struct op_stats {
	char name[OPNAME_LEN];
	__u32 client_done;	/* the client's mount is known, or nothing more can be learned here */
	/*
	 * 1 + the op's slot in op_pcpu, where it counts per CPU from its first RPC on; 0 before
	 * that RPC; OP_CLAIMING while a CPU takes it; OP_NOSLOT when none was free. It counts here,
	 * atomically, when it has no slot (its first RPCs may, while the slot is being taken).
	 */
	__u32 pslot;
	struct op_counts c;
};

#define MAX_OP_SLOTS	1024
#define OP_SLOTS_BUDGET	(8u << 20)
#define OP_NOSLOT	0xffffffffu
#define OP_CLAIMING	0xfffffffeu	/* a CPU is taking the op's slot */

/* per rpc_clnt: the superblock it serves, learned from NFS page I/O, or the client it was made from */
struct client_info {
	__u32 dev;		/* kernel dev_t of the superblock: MAJOR << 20 | MINOR; 0: not known */
	__u32 parent;		/* cl_parent->cl_clid of a client made from another, else 0 */
};

/* per NFSv4.1+ session: the fore channel slot table */
struct session_stats {
	__u64 xprt;		/* main transport of the session's nfs_client */
	__u32 clid;		/* clp->cl_rpcclient->cl_clid */
	__u32 max_slots;
	__u32 target_highest_slotid;
	__u32 highest_used_slotid;
	__u32 server_highest_slotid;
	__u32 peak_used_slotid;	/* highest highest_used_slotid seen */
	__u64 sequences;
	__u64 last_ns;
	__u64 first_ns;		/* with the key: a session made anew at the same address is another */
	/*
	 * Slots in use against the limit in force at each moment (#46): the fore table's used bits
	 * counted at each slot taken and freed, bucketed by level_bucket() against max_slotid + 1
	 * then (the server's target moves it: nfsd grows and shrinks sessions since 6.13-6.14).
	 * Time per bucket as a transport's levels (level_ns, telescoping); @bucket the open one,
	 * LEVEL_BUCKETS before the first such event.
	 */
	__u32 limit;		/* max_slotid + 1 at the last event */
	__u32 limit_min, limit_max;
	__u32 level;		/* slots in use at the last event */
	__u32 bucket;
	__u32 level_peak;
	__u64 limit_changes;
	__u64 level_ns[LEVEL_BUCKETS];
};

/*
 * NFS file I/O entered by a process of cgroup @cgid (the v2 id: its directory's inode) on the
 * superblock @dev, by direction: what names a window's jobs, counted in the writer's own context.
 */
enum { JOB_WRITE, JOB_READ };

struct job_key {
	__u64 cgid;
	__u32 dev;		/* MAJOR << 20 | MINOR, as client_info */
	__u32 dir;		/* JOB_WRITE, JOB_READ */
};

/*
 * A job's RPC time, by cause: the waits (WAIT_SLOT .. WAIT_DELAY, as they end), then the RPC's
 * round trip and its whole life (rpc_stats_latency's rtt and execute), over the READs and WRITEs
 * that carry its files' data (#46).
 */
enum { JC_RTT = WAIT_KINDS, JC_TOTAL, JOB_CAUSES };

struct job_io {
	__u64 bytes;
	__u64 calls;
	__u32 uid;		/* of the call that made the entry */
	__u32 __pad;
	__u64 rpcs;		/* READs or WRITEs of its data that ended */
	__u64 rpc_bytes;	/* what those carried: WRITE bytes sent, READ bytes received (#63) */
	__u64 ns[JOB_CAUSES];
};

/*
 * An NFS open file (its struct nfs_open_context, which every READ and WRITE of its pages names,
 * whoever issues them: the writer, its fsync, the flusher) -> the job that moved its bytes.
 * @file: the file it was seen through, which the context names as its flock_owner, so that a
 * context reused at the same address for another file is not taken for the old one.
 */
struct ctx_job {
	__u64 cgid;
	__u64 file;
	__u32 dev;
	__u32 tgid;		/* the process its last call noted in jobtasks, */
	__u32 epoch;		/* in this epoch: its next calls there need no jobtasks lookup */
	__u32 __pad;
};

/* a process of a cgroup seen doing NFS file I/O, and when last */
struct job_task {
	__u64 cgid;
	__u32 tgid;
	__u32 __pad;
};

struct waiter {
	__u64 start_ns;
	__u64 task_start;	/* task->tk_start: tells a live task from a dead one at its address */
	__u32 kind;
	__u32 flags;		/* WF_* */
};
/*
 * a delay begun with the task's request (a slot) in hand, its reply not in: its time is a slot
 * held idle
 */
#define WF_HELD		1

_Static_assert(sizeof(struct wait_hist) == 8 * (3 + LAT_BUCKETS), "wait_hist ABI");
_Static_assert(sizeof(struct op_key) == 24, "op_key ABI");
_Static_assert(sizeof(struct op_stats) == 24 + sizeof(struct op_counts), "op_stats ABI");
_Static_assert(sizeof(struct client_info) == 8, "client_info ABI");
_Static_assert(sizeof(struct session_stats) == 88 + 8 * LEVEL_BUCKETS, "session_stats ABI");
_Static_assert(sizeof(struct waiter) == 24, "waiter ABI");
/*
 * A cgroup's name as the kernel has it when its first NFS I/O is counted: its directories from
 * the leaf up (comp[0] the cgroup's own), @depth of them, the root's (empty) not among them;
 * CG_NAME_TRUNC set in @depth when more were above than CG_DEPTH holds (not a path then).
 */
#define CG_DEPTH	8
#define CG_COMP		128
#define CG_NAME_TRUNC	0x80
#define MAX_CG_NAMES	1024
struct cg_name {
	__u32 depth;
	__u32 __pad;
	char comp[CG_DEPTH][CG_COMP];
};

_Static_assert(sizeof(struct job_key) == 16 && sizeof(struct job_io) == 40 + 8 * JOB_CAUSES &&
	       sizeof(struct job_task) == 16 && sizeof(struct ctx_job) == 32, "job ABI");
_Static_assert(sizeof(struct xprt_stats) == 1792 + 56 + 4 * 8 * LEVEL_BUCKETS &&
	       __builtin_offsetof(struct xprt_stats, key) == sizeof(struct xprt_stats) - 8, "xprt_stats ABI");

#endif
