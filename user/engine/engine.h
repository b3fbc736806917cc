/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slot engine's user half: probe the kernel, load and attach slotscope.bpf.c, and read its
 * maps into plain snapshots. No printing beyond diagnostics; renderers take snapshots.
 */
#ifndef SLOTSCOPE_ENGINE_H
#define SLOTSCOPE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>
#include "slotscope.h"

struct engine;

/*
 * The BPF side's counters (enum counter), then those user space reads from the kernel:
 * CNT_RECURSION_MISSES, runs of slotscope's programs the kernel skipped because one was already
 * running on that CPU (bpf_prog_info.recursion_misses, 9f4d6d5c2a4d "bpf: Add BPF_PROG_INFO
 * recursion_misses", 5.12).
 */
#define CNT_RECURSION_MISSES COUNTERS
#define NCOUNTERS (COUNTERS + 1)

enum hook_method { HOOK_OFF, HOOK_TP_BTF, HOOK_RAW_TP, HOOK_FENTRY, HOOK_KPROBE, HOOK_FEXIT, HOOK_KRETPROBE };

/*
 * Where waits come from. FUNCTIONS: rpc_sleep_on() and kin, __xprt_set_rq(), rpc_delay() and
 * __rpc_atrun(), which no RPC passes unless it waits: two program runs per RPC that waits for
 * nothing. TRACEPOINTS: rpc_task_sleep/rpc_task_wakeup, which fire for the reply wait of every
 * RPC too (two more runs); taken where a function cannot be hooked, or asked for.
 */
enum events { EVENTS_FUNCTIONS, EVENTS_TRACEPOINTS };

struct hook_status {
	const char *name;
	enum hook_method method;
	bool required;
	bool in_design;			/* a hook of the event design taken */
};

struct xprt_snap {
	__u64 key;			/* struct rpc_xprt * */
	struct xprt_stats s;		/* level_ns includes the open stretch up to the snapshot */
	__u32 slot;			/* 1 + its slot in xprt_tab; 0: in the xprts hash */
	/* requests sent and awaiting their reply at the snapshot, and the oldest's first send (#59) */
	__u32 unanswered;
	__u64 oldest_sent_ns;
};

struct op_snap {
	struct op_key k;
	struct op_stats s;
};

struct client_snap {
	__u32 clid;
	struct client_info ci;
};

struct session_snap {
	__u64 key;
	struct session_stats s;
};

/* NFS file I/O of a cgroup on a mount, in a direction, since attach (or since forgotten) */
struct jobio_snap {
	struct job_key k;
	struct job_io v;
};

/* the order of a snapshot's jobio (by key, its bytes as they lie: any total order will do) */
static inline int jobio_key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct job_key));
}

struct snapshot {
	__u64 ts_ns;			/* CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns() */
	__u32 epoch;			/* the interval that ended with this snapshot */
	size_t nxprts, nops, nclients, nsessions, njobio;
	struct xprt_snap *xprts;
	struct op_snap *ops;
	struct client_snap *clients;
	struct session_snap *sessions;
	struct jobio_snap *jobio;
	/* jobio in jobio_key_cmp() order, as the engine reads it: an entry is found by bisection,
	 * so pairing two ticks' 16,384 entries costs n log n, not n squared (#63) */
	bool jobio_sorted;
	__u64 counters[NCOUNTERS];
};

struct engine_opts {
	const char *procfs_root;	/* for tracefs/kallsyms probes; "/" normally */
	const char *sysfs_root;
	unsigned int max_inflight;	/* slots tracked at once; 0 = MAX_INFLIGHT */
	bool force_fallback;		/* raw_tp/kprobe for every hook (SLOTSCOPE_ATTACH=fallback) */
	bool events_tp;			/* waits from the tracepoints (SLOTSCOPE_EVENTS=tracepoints) */
	bool no_kprobes;		/* perf_event_open refused: the tracepoint design, no pool kprobes */
	/*
	 * Without CAP_SYS_ADMIN: module BTF cannot be looked up by id (BPF_BTF_GET_NEXT_ID), so
	 * CO-RE gets one merged BTF and every hook attaches by name (raw_tp, kprobe).
	 */
	bool no_btf_ids;
	bool no_jobs;			/* --no-jobs: NFS's file I/O hooks not loaded */
	/* --btf MOD=FILE: module MOD's BTF (sunrpc, nfs, nfsv4, rpcrdma, in that order) */
	const char *btf_files[4];
};

/*
 * 0 or -errno; on error @why (@len bytes) holds the one-line message (the bare name "sunrpc" for
 * -ENOENT when no NFS client is loaded). A hook whose variant the verifier refuses falls back to
 * the next.
 */
int engine_open(struct engine **e, const struct engine_opts *o, char *why, size_t len);
/*
 * Whether sunrpc (the NFS client's RPC layer) is loaded: ROOT/sys/module/sunrpc, one access().
 * What a wait for it repeats, where engine_open would parse megabytes of BTF and kallsyms.
 */
bool engine_sunrpc_loaded(const char *sysfs_root);
int engine_attach(struct engine *e, char *why, size_t len);
/*
 * The BTF of each loaded NFS module (sunrpc, nfs, nfsv4, rpcrdma): the kernel's, or made from its
 * DWARF and kept in the cache (modbtf.c). 0, or -errno with @why; @said(mod, how) for each.
 */
int engine_make_btf(const struct engine_opts *o, void (*said)(const char *mod, const char *how),
		    char *why, size_t len);
/*
 * Start counting. Programs attach one by one; a slot whose acquire was counted before its
 * release hook existed would stay "in use" for ever, so they count nothing until armed.
 */
void engine_arm(struct engine *e);
/*
 * rpcrdma loaded since the last call (it may come mid-trace, with the first RDMA mount): its BTF
 * probed once for its request pool's size, its pool counters attached. One access() a call
 * until then; the run calls it before each snapshot.
 */
void engine_modules_arrived(struct engine *e);
/* Ends the current interval and fills @snap (which it owns until snapshot_free): a read alone. */
int engine_snapshot(struct engine *e, struct snapshot *snap);
/*
 * The next snapshot reads every entry, also those no program stamped lately (the summary's: a
 * count whose store landed late is in it whatever the delay).
 */
void engine_read_all(struct engine *e);
size_t engine_hooks(const struct engine *e, const struct hook_status **hooks);
enum events engine_events(const struct engine *e);
const char *events_name(enum events ev);
/*
 * Forget the transports @snap saw destroyed (their last numbers were reported from it) and every
 * entry that refers to them, so mount churn leaves the maps as one mount does; 0 or -ENOMEM.
 */
int engine_reap(struct engine *e, const struct snapshot *snap, size_t *nreaped);
void engine_close(struct engine *e);
/* a process seen doing NFS file I/O: its cgroup, and when last (CLOCK_MONOTONIC ns) */
struct task_seen {
	struct job_task k;
	__u64 last_ns;
};

/* the processes seen doing NFS file I/O (the most recent MAX_JOBTASKS); 0 or -errno */
int engine_tasks(struct engine *e, struct task_seen **out, size_t *n);
/*
 * Forget the file I/O counts of @gone (their cgroups gone, or the map crowded; their counts
 * unchanged since the snapshot at @still_ns): each deleted from the map only if it still holds the counts as seen,
 * and kept in user space, merged into every snapshot, until engine_jobio_trim() lets it go.
 * How many were deleted.
 */
size_t engine_forget_jobio(struct engine *e, const struct jobio_snap *gone, size_t n, __u64 still_ns);
/*
 * @c's transport as the map holds it now (its slot's, else the hash's): 0, or -ENOENT once it
 * is gone or its slot went to another
 */
int engine_xprt_now(const struct engine *e, const struct xprt_snap *c, struct xprt_stats *out);
/* how many entries the kernel's job map holds at most */
size_t engine_jobio_capacity(const struct engine *e);
/* @s (a snapshot's entry) is all forgotten counts: the map held none of it */
bool engine_jobio_forgotten(const struct engine *e, const struct jobio_snap *s);
/*
 * The forgotten counts that stood still since @held_ns or before (no snapshot a window holds is
 * older) let go, unless the map holds their key again; how many are still kept
 */
size_t engine_jobio_trim(struct engine *e, __u64 held_ns);
/*
 * cgroup @id's path ("/system.slice/...") as the kernel named it at its first counted NFS I/O
 * (cg_names); 0, -ENOENT (not named: before attach, or forgotten), -E2BIG (deeper than the BPF
 * side reads, or longer than @len). Void @ctx: struct engine *, for cgroups_set_namer().
 */
int engine_cgroup_path(void *ctx, __u64 id, char *path, size_t len);
/* runs the kernel skipped since attach; @who (may be NULL) gets "section count, ..." */
__u64 engine_misses(const struct engine *e, char *who, size_t len);

/* each transport's time per level as the last snapshot read it (key, first sight) */
struct level_mark {
	__u64 key, first_seen;
	__u64 level_ns[LEVEL_BUCKETS];
};

struct level_marks {
	size_t n;
	struct level_mark *m;
};

/*
 * Raise each transport's level times in @snap to at least the last snapshot's (a copy torn by a
 * concurrent event can read one stretch high, then low), and remember @snap's. 0 or -ENOMEM.
 */
int level_marks_apply(struct level_marks *m, struct snapshot *snap);
void level_marks_free(struct level_marks *m);

/*
 * The marks' requests sent and awaiting a reply, per transport of @snap (unanswered.c): @n
 * entries of the request, its first send's time and its transport, as slotscope.bpf.c keeps them.
 */
void unanswered_tally(struct snapshot *snap, const __u64 *marks, const __u64 *sent, const __u64 *xprt,
		      size_t n);

void snapshot_free(struct snapshot *snap);
/* deep copy; 0 or -ENOMEM */
int snapshot_dup(struct snapshot *dst, const struct snapshot *src);
const struct xprt_snap *snapshot_find_xprt(const struct snapshot *s, __u64 key, __u64 first_seen);
const struct op_snap *snapshot_find_op(const struct snapshot *s, const struct op_key *k);

const char *hook_method_name(enum hook_method m);

#endif
