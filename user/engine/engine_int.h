/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's rooms, by phase: engine_probe.c asks the kernel what it offers (BTF, tracefs,
 * kallsyms, rpcrdma), engine_load.c loads and attaches (the load-retry loop), engine_read.c reads
 * the maps into snapshots. Private to them; engine.h is the interface.
 */
#ifndef SLOTSCOPE_ENGINE_INT_H
#define SLOTSCOPE_ENGINE_INT_H

#include <stdbool.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "engine/engine.h"
#include "engine/jobretire.h"
#include "slotscope.skel.h"

/* Where each hook lives; tracepoints are probed by their btf_trace_<name> typedef. */
/* FUNC_RET: a function hooked at its return (fexit, or a kretprobe with its entry kprobe) */
enum hook_kind { TP, FUNC, FUNC_RET };

/* Which event design a hook belongs to (see enum events); ALL: both. */
/*
 * which design a hook serves; G_JOBS: both, unless --no-jobs leaves jobs unnamed; G_JOBS_VFS:
 * the same through vmlinux's VFS, when NFS's own functions cannot be hooked; G_JOBS_CTX: both,
 * unless --no-jobs: a new NFS open context, whose address may be an old one's; G_JOBS_VFS_CTX:
 * the same seen from vmlinux's open, when NFS's own function cannot be hooked
 */
enum hook_group { G_ALL, G_FN, G_TP, G_JOBS, G_JOBS_VFS, G_JOBS_CTX, G_JOBS_VFS_CTX };

struct hook {
	const char *name;
	enum hook_kind kind;
	enum hook_group group;
	bool required;			/* within its design: without it the design is not taken */
	const char *loses;		/* what goes unmeasured without an optional hook */
	struct bpf_program *progs[2];	/* tp_btf/raw_tp, fentry/kprobe or fexit/kretprobe */
	struct bpf_program *with[2];	/* loaded and attached with variant v (a kretprobe's kprobe) */
	unsigned int refused;		/* bit v: variant v was refused by the verifier */
	bool said;			/* its loss was said (loads are retried) */
	bool probed, have[2];		/* which variants the kernel offers, probed once */
	const char *args;		/* what its program reads (hookargs.c); NULL: not checked */
	const char *renamed;		/* the name this kernel gives the function, if not ours */
	bool args_differ;		/* its prototype in BTF is not that: no variant */
	char why[160];			/* the verifier's reason, for the message */
};

#define NHOOKS 26
/* the verifier's log of a program that fails to load; a level-1 log of ours fits easily */
#define VLOG_SIZE (256 * 1024)

/*
 * What programs stamp with the epoch they changed it in (op_stamp, jobio_stamp) is read only when
 * the stamp is recent (stamp_due()), and at every SNAP_FULL_EVERY-th snapshot whatever the
 * stamp: nothing a program wrote stays unread longer than that, however late its store lands.
 */
#define SNAP_FULL_EVERY 8

/* the modules whose BTF is probed (probe_modules[], modbtf.c), and where each one's came from */
#define NMODS 4
extern const char *const probe_modules[NMODS];
enum mod_btf { MOD_BTF_NONE, MOD_BTF_KERNEL, MOD_BTF_DWARF, MOD_BTF_GIVEN };

struct engine {
	struct slotscope_bpf *skel;
	struct engine_opts o;
	struct btf *vmlinux;
	struct btf *mods[NMODS];	/* sunrpc, nfs, nfsv4, rpcrdma */
	enum mod_btf mod_src[NMODS];
	int btf_fd;			/* no_btf_ids: the merged BTF, as /proc/self/fd/N */
	char btf_path[64];
	size_t nhooks;
	struct hook hooks[NHOOKS];
	struct hook_status status[NHOOKS];
	enum events events;		/* the design taken by the last choose_methods() */
	bool fallback_asked;		/* SLOTSCOPE_ATTACH=fallback, not forced by missing CAP_SYS_ADMIN */
	bool no_trampoline;		/* an fentry/fexit attach failed ENOTSUPP: none will attach */
	char *vlog[NHOOKS][2];
	/* the RDMA pool counters attach once rpcrdma is loaded (see slotscope.bpf.c) */
	struct bpf_link *pool_links[2];
	bool pools_off, pools_tried;
	bool rdma_btf_probed, pool_is_max_reqs;
	/* transports whose inferred RDMA pool was said (key, first_seen) */
	size_t nnoted;
	__u64 noted[64][2];
	struct level_marks marks;
	/* xprt_tab, mapped: slots read and freed without a system call */
	struct xprt_stats *xtab;
	size_t xtab_len;
	/* op_pcpu: its slots, the CPUs its values span, and a buffer of their values kept between ticks */
	__u32 op_slots;
	int ncpu;
	struct op_counts *pcpu;
	__u32 *pcpu_keys;		/* the batch call's keys, in the same mapping, after */
	size_t pcpu_len;
	/* entries each hash map had at its last read (xprts, ops, clients, sessions, jobio, jobtasks) */
	size_t read_hint[6];
	/* ops and clients as last read, and the generation (map_gen) read just before */
	struct map_copy {
		void *arr;
		size_t n;
		__u64 gen;
		bool valid;
	} copies[GENS], jobio_copy;
	struct jobio_retired retired;	/* gone cgroups' counts deleted from jobio, merged into every
					 * snapshot while a window may need them (jobretire.h) */
	__u64 snaps;			/* snapshots taken */
	bool read_all;			/* the next snapshot reads every entry: engine_read_all() */
	/* the caller's buffer for the one-line reason, during engine_open/engine_attach */
	char *why;
	size_t whylen;
};

/* engine_probe.c */
int merged_btf(struct engine *e);
bool btf_has(struct engine *e, const char *name, int kind);
bool kallsyms_has(const struct engine *e, const char *fn);
/* one attach method per hook, the event design with them; -errno and e->why when none */
int choose_methods(struct engine *e);
int probe_atomics(void);
/* an fentry attach refused ENOTSUPP sets e->no_trampoline */
void probe_trampoline(struct engine *e);
void rdma_pool_from_btf(struct engine *e, const struct btf *mod);
void probe_rdma(struct engine *e);
void free_probe_btf(struct engine *e);

/*
 * Test refusals (SLOTSCOPE_TEST_REFUSE): the release binary links engine_load.c's, which does
 * nothing; the test build (slotscope-faults) links tests/faults/refuse.c's. 0 or -errno.
 */
int engine_inject_refusals(struct engine *e);

/* engine_read.c: the kept copies of the maps are not to be trusted (entries deleted): read whole */
void drop_copies(struct engine *e);

/* engine_load.c: an engine with nothing probed yet, @why its message buffer; NULL when out of memory */
struct engine *engine_alloc(const struct engine_opts *o, char *why, size_t len);
/* modbtf.c: every module's BTF, or -EPROTO with e->why for one loaded unproven */
int engine_module_btf(struct engine *e);
bool engine_btf_made(const struct engine *e);
/*
 * pahole's threads for @online CPUs: one each up to PAHOLE_MAX_JOBS. Each holds a CU's DWARF
 * and its own BTF encoder; on a 224-CPU node one a CPU would spend the unit's 256 MB
 * (MemoryMax) on a module of a few MB, for no gain past a few threads.
 */
#define PAHOLE_MAX_JOBS 4
unsigned int pahole_jobs(long online);

/* hookargs.c: each hook's arguments proven against its prototype in BTF */
const char *hook_args_of(const char *hook);
int hook_args_check(const struct btf *btf, struct hook *h);

/* session_levels.c: each session's level times, whole and closed at the snapshot's clock */
void sessions_settle(int fd, struct snapshot *snap);
/* xprt_levels.c: a transport's slot and credit level times as read, whole */
void levels_settle(struct engine *e, struct xprt_snap *x);

#endif
