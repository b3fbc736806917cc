/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A view: what happened between two snapshots, per transport, per op and per NFSv4.1 session, in
 * plain numbers, every figure computed once. model_build() (model.h) makes them; renderers only
 * format them.
 */
#ifndef SLOTSCOPE_VIEW_H
#define SLOTSCOPE_VIEW_H

#include <stdbool.h>
#include <string.h>
#include "model/answer.h"
#include "engine/engine.h"
#include "links/linkmap.h"
#include "host/mounts.h"
#include "links/rdma.h"

struct wait_view {
	__u64 count;
	__u64 sum_ns;
	__u64 max_ns;			/* since attach: a maximum has no delta */
	__u64 buckets[LAT_BUCKETS];
	double p50_ns, p99_ns;
};

/*
 * An RPC's execute time in parts: the kernel's queue time holds the wait for a slot, which is
 * known per transport, not per op; each op's queue is split, its transport's slot-wait time shared
 * among its ops in proportion to their queue time (never more than the transport's queue time),
 * and execute keeps only what is neither queue nor round trip.
 */
enum op_part { PART_SLOT_WAIT, PART_QUEUE, PART_RTT, PART_OTHER, OP_PARTS };

struct op_view {
	struct op_key k;
	char name[OPNAME_LEN];
	const char *mountpoint;		/* NULL: client of no known mount (e.g. v4 lease renewal) */
	/*
	 * the kernel placed the op's client since that client was made: an entry of a freed client
	 * whose id a new one took (and so the mountpoint) is not, until the new one uses it
	 */
	bool client_done;
	__u64 count, ntrans, timeouts, errors, bytes_sent, bytes_recv;
	__u64 sum_ns[STAGES];
	__u64 hist[STAGES][LAT_BUCKETS];
	double p50_ns[STAGES], p99_ns[STAGES];
	/* the execute time in parts that add up to it (model_build(); op_part_names) */
	__u64 part_ns[OP_PARTS];
};

/*
 * "No mount" is NULL everywhere (an op_view's, a mount_op's, a mount_total's mountpoint): never
 * "", which a path prefix test would take for every path. Two mountpoints are one mount when
 * same_mount() says so.
 */
static inline bool same_mount(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * An op of a mount, summed over every transport and client of that mount (its own client, the
 * ACL client, clones, nconnect's transports): the series Prometheus keeps per mount. mountpoint
 * NULL gathers ops of no known mount (written as "").
 */
struct mount_op {
	const char *mountpoint;
	char name[OPNAME_LEN];
	__u64 count, ntrans, errors, bytes_sent, bytes_recv;
	__u64 sum_ns[STAGES];
	__u64 hist[STAGES][LAT_BUCKETS];
};

/* @src's counts, sums and histograms added to @dst's (its name and mount stay) */
void mount_op_add(struct mount_op *dst, const struct mount_op *src);

/* a mount's payload and failures over its ops (mountpoint NULL as in mount_op) */
struct mount_total {
	const char *mountpoint;
	/* the textfile's view only: the server it was mounted from (mount_server()), "" unknown */
	char server[ADDR_LEN];
	__u64 bytes_read, bytes_written, errors;
	__u64 other_ops;		/* ops that are not READ, WRITE or COMMIT */
};

/* What an op moves: NFS READ, WRITE and COMMIT share their names in every version. */
enum op_class { OPC_READ, OPC_WRITE, OPC_COMMIT, OPC_OTHER };

enum op_class op_class(const char *name);
/* the payload an op moved: WRITE's bytes sent, READ's bytes received; 0 for the rest */
void op_payload(const char *name, __u64 bytes_sent, __u64 bytes_recv, __u64 *written, __u64 *read);
/* the slot counts level bucket @b holds for a transport of @limit slots: [*lo, *hi] */
void level_bucket_range(unsigned int b, __u32 limit, unsigned int *lo, unsigned int *hi);

struct session_view {
	__u64 key, xprt;
	__u32 clid;
	const char *mountpoint;
	struct session_stats s;
	__u64 sequences;		/* in this view */
	/* in this view: slots in use against the limit in force (max_slotid + 1) at each moment */
	bool levels_known;		/* nfs4_free_slot hooked, and a slot taken or freed since attach */
	__u64 busy_ns, at_limit_ns;	/* time with a slot in use; with every slot the limit allows */
	double at_limit_pct;		/* of busy_ns */
	__u64 limit_changes;
};

/* a transport's RDMA/UDP credits in a view: in use against the server's grant at each moment */
struct credit_view {
	bool known;			/* both cong hooks on, a credit moved since attach, read whole */
	__u32 limit, level, peak;	/* at the view's end; the peak since attach */
	__u32 limit_min, limit_max;	/* since attach */
	__u64 limit_changes;		/* in this view */
	__u64 busy_ns, at_limit_ns;	/* in this view: a credit in use; every credit granted in use */
	double at_limit_pct;		/* of busy_ns */
};

struct mount_view {
	const char *mountpoint;
	__u32 clid;
	__u64 ops, bytes_written, bytes_read;
};

/* the link a transport's traffic crosses, and how busy it was */
struct xprt_link {
	bool known;
	char netdev[32];		/* the RDMA port's, else the route's */
	const char *from;		/* how it was found: struct link_path's from */
	int port;			/* index into view.links.ports, or -1 */
	const char *bytes_from;		/* "counters", "netdev" or NULL */
	double rate_gbps;		/* 0: unknown (virtual netdev) */
	double tx_gbps, rx_gbps, tx_util_pct, rx_util_pct;
	double gbps, util_pct;		/* the busier direction */
	/* a TCP transport's connection over the view: busy sending, held by the peer's window or the send buffer */
	struct tcp_limits tcp;
};

struct links_view {
	bool sampled;			/* false with --no-rdma */
	char why_empty[160];
	size_t nports, nnds;
	struct port_delta *ports;
	struct netdev_delta *nds;
};

/*
 * The in-flight curve of a view: per level bucket, the RPCs that took their slot at that many
 * slots in use (their own included), and their mean RTT and execute time (0 where none).
 */
struct curve_view {
	__u64 rpcs[LEVEL_BUCKETS];
	__u64 rtt_ns[LEVEL_BUCKETS], exec_ns[LEVEL_BUCKETS];	/* sums */
	double rtt_mean_ns[LEVEL_BUCKETS], exec_mean_ns[LEVEL_BUCKETS];
	__u64 total;			/* RPCs over every bucket */
	/* the text's compact form: the buckets gathered by quarters of the limit, and at the limit */
	struct curve_group {
		unsigned int quarter;	/* 0-3: of the limit; 4: at the limit */
		unsigned int lo, hi;
		__u64 rpcs;
		double rtt_sum_ns, exec_sum_ns, rtt_mean_ns, exec_mean_ns;
	} groups[5];
	size_t ngroups;
};

/* a group's mean RTT and execute time from its sums (0 with no RPC) */
void curve_group_means(struct curve_group *g);
/* @c's means, total and groups from its counts and sums, for a transport of @limit slots */
void curve_finish(struct curve_view *c, __u32 limit);

/*
 * What a change of the verdict's knob would buy (whatif.h): the throughput predicted while the
 * transport (or, for nconnect, its server's transports together) is busy, as a range, and the
 * limit expected next, named as a verdict class.
 */
struct what_if {
	const char *knob;		/* "tcp_max_slot_table_entries", "nconnect", ... */
	__u32 from, to;
	double low_Bps, high_Bps;
	const char *next_limit;		/* verdict_names[]: "slot-bound", "server-bound", ...; or "unknown" */
	double in_flight;		/* RPCs (connections, for a connection-bound nconnect) it would let in */
	double reach;			/* the most the curve is read to; in_flight past it: "unknown" */
	double cpu_Bps;			/* the range ran past what the node's CPUs carry (whatif.h): unknown from there; 0 not */
};

/*
 * The verdict's rule between server- and client-bound, for a transport's verdict and for the
 * one a what-if predicts: the round trip half an RPC's time (@rpc_ns, its waits for a place
 * left out) or more
 */
static inline bool rtt_paced(double rtt_ns, double rpc_ns)
{
	return rpc_ns > 0 && rtt_ns / rpc_ns >= 0.5;
}

/* a step's next_limit past its reach */
extern const char whatif_unknown[];

#define WHAT_IFS 8

/* What limits a transport's throughput, with the numbers behind it and the knob that moves it. */
enum verdict_class {
	V_IDLE, V_CLIENT, V_SLOT, V_CREDIT, V_SESSION, V_SEND, V_SERVER, V_LINK, V_STALL, VERDICTS
};

struct verdict {
	enum verdict_class cls;
	double secs;			/* time the view covers */
	double achieved_Bps;		/* READ + WRITE payload per second */
	double ceiling_Bps;		/* Little's law: limit x bytes per op / mean RTT; 0 unknown */
	/*
	 * Slots held idle (rpc_delay() with a request in hand: the backlog stall): their share of
	 * the slot-time in use, and the ceiling with that idle time in each slot's cycle (0: none)
	 */
	double held_idle_share;
	double stall_ceiling_Bps;
	double link_Bps;		/* link rate; 0 unknown */
	double full_pct;		/* share of busy time with every slot in use */
	double link_util_pct;
	double rtt_ms;			/* mean RTT of the transport's ops */
	double wait_share[WAIT_KINDS];	/* each wait's total over the ops' total execute time */
	bool v41;			/* NFSv4.1+ session on the transport */
	char why[360];			/* the numbers, one line */
	char knob[320];			/* what to change, one line */
	size_t nflags;
	char flags[4][200];		/* known pathologies seen */
	size_t nwhat_if;
	struct what_if what_if[WHAT_IFS];
	char what_if_why[320];		/* how the curve read, what it assumed, or why no prediction */
};

struct xprt_view {
	__u64 key;
	__u64 first_seen_ns;		/* with key: what the kernel cannot reuse under it */
	__u32 id, ident, limit, max_reqs, min_reqs;
	const char *limit_source;	/* limit_source_name() */
	bool limit_firm;		/* the kernel's own bound, not a guess: levels over it are clipped */
	bool metadata;			/* XF_METADATA: VAST NFS's mdconnect transport */
	char addr[ADDR_LEN], port[PORT_LEN];
	__s32 in_use;			/* raw: a negative value would be a counting bug */
	__u32 in_use_shown;		/* in_use, a negative one as 0: what gauges and sums show */
	/*
	 * peak: since attach. interval_peak: over the view's span (JSON keeps the name): the
	 * interval's, the window's (its detector's), or since attach in a summary.
	 */
	__u32 peak, interval_peak;
	/* backlog_now in an interval, backlog_max in a summary or window: what the text shows */
	__u32 backlog_shown;
	bool warming_up, destroyed;
	/*
	 * Another transport in the view has the same server, protocol and kernel id and is the
	 * newer one (the kernel reused the id within one interval): series keyed by the id show
	 * only the newer, so no two series share their labels.
	 */
	bool shadowed;
	double span_ns;			/* time the level histogram covers in this view */
	double at_limit_ns, busy_ns, mean_in_use;
	double rate_s;			/* every rate's time base: the interval, a summary's own span */
	bool saturated;			/* at its limit at least half of the view's interval */
	/*
	 * "% full", the one definition every output uses (JSON at_limit_pct and verdict.full_pct,
	 * the text's %FULL): time with every slot in use over busy time (some slot in use), so an
	 * idle stretch does not dilute a full one.
	 */
	double full_pct;
	__u64 level_ns[LEVEL_BUCKETS];
	struct curve_view curve;
	/* since the transport was first seen: a record whose RPCs all took their slot at one level
	 * (a table full throughout) borrows its slope */
	struct curve_view curve_all;
	struct xprt_counts n;		/* over the view's span */
	__u64 sends_kernel;		/* xprt->stat.sends at the view's end: mountstats' own "sends" */
	__u32 backlog_now, backlog_max, sending_max, num_reqs;
	__u32 cwnd, cong, cwnd_min, cong_max;
	struct credit_view credit;
	struct wait_view waits[WAIT_KINDS];
	__u64 ops, bytes_written, bytes_read;
	__u64 retrans;			/* transmissions beyond an RPC's first, over its ops */
	__u64 timeouts;			/* major timeouts, over its ops (mountstats' per-op timeouts) */
	double ops_per_s, write_Bps, read_Bps;	/* over the view's interval (1 s when it has none) */
	double rtt_p50_ns, rtt_p99_ns;	/* over every op on the transport */
	/* sums over the transport's ops, in one pass (model.c): figures, verdict, stacks */
	double op_count, exec_ns, rtt_ns, queue_ns, data_ops, data_rtt_ns;
	__u64 rtt_hist[LAT_BUCKETS];
	size_t nmounts;
	struct mount_view mounts[16];	/* per-mount split of the ops on this transport */
	struct xprt_link link;
	struct verdict verdict;		/* the model's last step */
	/*
	 * Sums over intervals, in the textfile's view only (ledger.h): time in each verdict class,
	 * and link bytes while the transport was busy (each interval's link rate times its busy
	 * time), so link use compares with slot use over the same busy time.
	 */
	double verdict_s[VERDICTS];
	double link_busy_bytes;
	/*
	 * In an interval view (owners.c): the mount whose row the transport counts under (NULL: none
	 * known) and that row's server, which the textfile's --prom-rollup rows and the answers'
	 * rows both follow; row_hidden when every mount it serves is filtered out
	 * (--prom-mount-include/-exclude), so it leaves the file.
	 */
	const char *row_mount;
	char row_server[ADDR_LEN];
	bool row_hidden;
	/* #59: as the snapshot read them (unanswered.c), and what answer_view() makes of them */
	__u32 unanswered;
	__u64 oldest_sent_ns, last_answer_ns;
	struct answer answer;
};

/*
 * --prom-rollup: the transports counted under one mount, as one series (mountpoint, server):
 * counters summed since attach, gauges combined over the mount's live transports (docs/metrics.md says
 * which are summed and which are the highest). The textfile's view only (ledger.h).
 */
struct mount_row {
	const char *mountpoint;		/* NULL: transports of no known mount, one row per server */
	char server[ADDR_LEN];
	size_t nxprts;			/* live transports in it this interval */
	struct xprt_view x;
};

/* knobs as they are now, to name them in the advice; -1 when unknown */
struct tunables {
	long tcp_max_slots, rdma_slots, max_session_slots;
	long nconnect_max;		/* the stack's NFS_MAX_CONNECTIONS; 0: the kernel's 16 */
	long tcp_wmem_max;		/* net.ipv4.tcp_wmem's largest (bytes); <= 0 unknown */
};

/* How far a view reaches, and so what its "now" columns mean. */
enum view_span {
	SPAN_INTERVAL,			/* one tick */
	SPAN_SUMMARY,			/* since attach: maxima since attach */
	SPAN_WINDOW,			/* a checkpoint or restore: maxima as in the summary */
};

/* what tracing cost this process: CPU until attached (loading BPF is most of it), then in all */
struct self_cost {
	double startup_cpu_s;
	double user_s, sys_s;
	__u64 max_rss_kib;
};

struct view {
	struct view_arena *arena;	/* where its arrays come from and go back to (model_in's) */
	enum view_span span;
	bool final;			/* span == SPAN_SUMMARY */
	double ts_s;			/* CLOCK_MONOTONIC at the end of the view */
	double interval_s;
	size_t nxprts, nops, nsessions, nmops, nmounts;
	struct xprt_view *xprts;
	struct op_view *ops;
	struct session_view *sessions;
	struct mount_op *mops;		/* per mount and op, in first-seen order */
	struct mount_total *mounts;	/* per mount, same order */
	size_t nrows;
	struct mount_row *rows;		/* the textfile's view: every shown transport under its mount */
	__u64 counters[NCOUNTERS];	/* in this view */
	__u64 drops;			/* events lost to a full map: the *_FULL counters summed */
	__u64 bytes_written, bytes_read;	/* over the view's transports */
	struct links_view links;
	double cpu_busy_pct;		/* the node's CPUs at work over the view, percent; -1 unknown */
	/* an interval's only: each mount's server, answering or not (answer_view.c) */
	size_t nanswers;
	struct answer_row *answers;
	struct tunables tun;		/* the knobs the verdicts name */
	double wall;			/* CLOCK_REALTIME at the end of the view, for display */
	struct self_cost cost;		/* what tracing cost this process (a summary shows it) */
};

/* @y is a live transport of @x's class to @x's server and port: one of nconnect's (x itself too) */
static inline bool same_server(const struct xprt_view *x, const struct xprt_view *y)
{
	return y->ident == x->ident && !y->destroyed && !strcmp(y->addr, x->addr) && !strcmp(y->port, x->port);
}

/*
 * The transports nconnect makes for @x's mount, which a knob of nconnect grows together: those to
 * @x's server and port (same_server) or, where one mount's data transports reach more than one
 * server address (VAST NFS's remoteports= spreads nconnect over them), every live data transport
 * of the class that carried that mount's ops. n counts them (x included), naddrs their addresses.
 */
struct nconnect_group {
	const struct xprt_view *x;
	const char *mountpoint;		/* set: the group is the mount's, over naddrs addresses */
	unsigned int n, naddrs;
};

void nconnect_group(const struct view *v, const struct xprt_view *x, struct nconnect_group *g);
bool nconnect_member(const struct nconnect_group *g, const struct xprt_view *y);

/* the transport of @key in @v, or NULL */
const struct xprt_view *view_xprt(const struct view *v, __u64 key);
/*
 * A view's arrays (and the textfile view's, and the indexes'): view_alloc() is calloc() (@zero)
 * or malloc() of @n elements of @size, view_release() is free(), but the last few arrays released
 * are kept in the caller's arena for the next views, so a tick's views take memory already mapped
 * instead of memory the allocator just gave back (and the kernel then faults in again, page by
 * page). They follow the load, not its peak: one not taken again within a few ticks is freed, and
 * one more than twice the size asked for (past 16 KiB) is left for a larger request or to age out.
 * Without both, the arena held the largest arrays ever made (a tick where many transports were
 * dying at once, a burst of mounts) for the rest of the run. NULL arena: plain malloc and free.
 * Not thread-safe: the trace is one thread, and owns its arena (struct run).
 */
#define VIEW_ARENA_KEPT 24
struct view_arena {
	struct {
		void *p;
		size_t cap;
		unsigned long tick;	/* the tick it was released in */
	} kept[VIEW_ARENA_KEPT];
	size_t n;
	unsigned long tick;
};

void *view_alloc(struct view_arena *a, size_t n, size_t size, bool zero);
void view_release(struct view_arena *a, void *p);
/* a tick has ended: kept arrays not taken for the last few ticks are freed */
void view_arena_tick(struct view_arena *a);
/* what the kept arrays hold, in bytes */
size_t view_arena_bytes(const struct view_arena *a);
void view_arena_free(struct view_arena *a);
/*
 * @v's transports by key, for the lookups made per op: view_xprt()'s answer (the first of @key in
 * @v's order) by a binary search. Made once the transports stay where they are; while it lives
 * they must not move. Without memory (e->NULL) every lookup is view_xprt()'s own.
 */
struct xprt_index {
	const struct view *v;
	struct view_arena *arena;	/* v's, which may go first */
	size_t n;
	struct xprt_index_entry {
		__u64 key;
		size_t i;
	} *e;
};

/* sort @n entries by key, then by index (the order xprt_entry_first() searches) */
void xprt_entries_sort(struct xprt_index_entry *e, size_t n);
/* the first of @n entries sorted by key whose key is @key (@n: none) */
size_t xprt_entry_first(const struct xprt_index_entry *e, size_t n, __u64 key);

void xprt_index_make(struct xprt_index *ix, const struct view *v);
const struct xprt_view *xprt_index_find(const struct xprt_index *ix, __u64 key);
void xprt_index_free(struct xprt_index *ix);
/* view_release() of each of @v's arrays */
void view_free(struct view *v);
bool xprt_view_idle(const struct xprt_view *x);

extern const char *const wait_kind_names[WAIT_KINDS];
extern const char *const verdict_names[VERDICTS];
/* a transport's proto by its ident: tcp, udp, rdma, other */
const char *proto_name(__u32 ident);
/* where a transport's limit comes from (XF_LIMIT_*): max_reqs, counted, btf, assumed, inferred */
const char *limit_source_name(__u32 flags);
extern const char *const stage_names[STAGES];
extern const char *const op_part_names[OP_PARTS];
extern const char *const counter_names[NCOUNTERS];
/* struct xprt_counts' members by name, in their order (the JSON keys) */
extern const char *const xprt_count_names[XPRT_COUNTS];
/* @n's @i-th count (xprt_count_names[i]) */
__u64 xprt_count(const struct xprt_counts *n, size_t i);
/* @cur less @prev (NULL: none before), each count as a counter that may have restarted */
void xprt_counts_delta(struct xprt_counts *d, const struct xprt_counts *cur, const struct xprt_counts *prev);
void xprt_counts_add(struct xprt_counts *dst, const struct xprt_counts *src);
/* events lost to a full map: the *_FULL counters of @counters summed */
__u64 counters_drops(const __u64 *counters);

#endif
