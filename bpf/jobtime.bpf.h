/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs' RPC time by cause (#46): each READ and WRITE is its file's, and a file is the job's whose
 * process moved its bytes. The RPC names its file's NFS open context (nfs_pgio_args.context,
 * taken from the pages it carries), whoever issues it: the writer (O_DIRECT), its fsync or the
 * flusher's kworker, whose own cgroup says nothing of the job. The job's file I/O hooks
 * (io.bpf.h) note each context's job as the call returns; an RPC that ends before its file's
 * first call returned (an O_DIRECT write's, a read's) is kept by context until that call names it.
 *
 * Global functions, each verified once and apart from the programs calling them: a wait's end is
 * accounted in the hand-off programs, which are at the verifier's million instructions on 7.2
 * and 6.12 (#41); a call adds one instruction to their paths.
 * Included once, by slotscope.bpf.c, after the maps and before the handlers.
 */
#ifndef SLOTSCOPE_JOBTIME_BPF_H
#define SLOTSCOPE_JOBTIME_BPF_H

/* set before load: no job's time is kept under --no-jobs (no file I/O hook names a context) */
const volatile __u32 jobs_timed = 1;


struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_CTX_JOBS);
	__type(key, __u64);		/* struct nfs_open_context * */
	__type(value, struct ctx_job);
} ctxjob SEC(".maps");

/* RPC time of a context no call has named yet: key { context, 0, direction } */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_CTX_PENDING);
	__type(key, struct job_key);
	__type(value, struct job_io);
} ctxpend SEC(".maps");

/* flock_owner: the struct file an open context was made for (alloc_nfs_open_context(), 4.x on) */
struct nfs_open_context___owner {
	fl_owner_t flock_owner;
} __attribute__((preserve_access_index));

/*
 * The pointers a global function works on, passed through this CPU's slot: its arguments may be
 * numbers only (btf_check_func_arg_match(): "R1 is not a scalar" for a tp_btf/fentry pointer),
 * and a pointer read back from a map is one. Tracing programs run with migration off and do not
 * nest on a CPU (their recursion guard), so the slot is the caller's until the call returns.
 */
struct jt_arg {
	__u64 p[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct jt_arg);
} jt_args SEC(".maps");

static __always_inline void job_time_add(struct job_io *v, __u32 kind, __u64 ns, __u64 rtt)
{
	if (kind == JC_TOTAL) {
		__sync_fetch_and_add(&v->rpcs, 1);
		if (rtt)
			__sync_fetch_and_add(&v->ns[JC_RTT], rtt);
	}
	__sync_fetch_and_add(&v->ns[kind], ns);
}

/*
 * @ns of cause @kind (a wait kind; JC_TOTAL: the RPC's end, its execute time, with its round
 * trip @rtt) for the job of the RPC task in this CPU's jt_args slot, if it is a READ or WRITE
 * (@dir JOB_WRITE or JOB_READ; 2: read from its proc's name). Every read through the helper.
 */
__noinline int job_time(__u32 kind, __u64 ns, __u64 rtt, __u32 dir)
{
	struct job_key k = {}, pk = {};
	struct nfs_pgio_header *hdr;
	struct rpc_task *task;
	struct ctx_job *cj;
	struct jt_arg *a;
	struct job_io *v;
	__u64 ctx, file;
	__u32 z = 0;

	if (!ns || kind >= JOB_CAUSES || kind == JC_RTT)
		return 0;
	a = bpf_map_lookup_elem(&jt_args, &z);
	if (!a || !a->p[0])
		return 0;
	task = (struct rpc_task *)a->p[0];
	if (dir > JOB_READ) {
		const struct rpc_procinfo *proc = BPF_CORE_READ(task, tk_msg.rpc_proc);
		char name[OPNAME_LEN] = {};

		if (!proc || bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(proc, p_name)) <= 0 ||
		    !op_is_page_io(name))
			return 0;
		dir = name[0] == 'W' ? JOB_WRITE : JOB_READ;
	}
	hdr = (struct nfs_pgio_header *)BPF_CORE_READ(task, tk_calldata);
	ctx = (__u64)BPF_CORE_READ(hdr, args.context);
	if (!ctx)
		return 0;
	cj = bpf_map_lookup_elem(&ctxjob, &ctx);
	if (cj && bpf_core_field_exists(struct nfs_open_context___owner, flock_owner)) {
		file = (__u64)BPF_CORE_READ((struct nfs_open_context___owner *)ctx, flock_owner);
		if (file != cj->file)
			cj = NULL;
	}
	if (cj) {
		k.cgid = cj->cgid;
		k.dev = cj->dev;
		k.dir = dir;
		v = bpf_map_lookup_elem(&jobio, &k);
		if (!v)
			return 0;
		job_time_add(v, kind, ns, rtt);
		if (jobio_stamp != epoch)
			jobio_stamp = epoch;
		return 0;
	}
	pk.cgid = ctx;
	pk.dir = dir;
	v = lookup_or_init(&ctxpend, &pk, &zero_jobio, CNT_JOBS_FULL, NULL);
	if (v)
		job_time_add(v, kind, ns, rtt);
	return 0;
}

/* job_time() for RPC task @task (a pointer, or a number read through the helper) */
static __always_inline void job_time_of(void *task, __u32 kind, __u64 ns, __u64 rtt, __u32 dir)
{
	struct jt_arg *a;
	__u32 z = 0;

	if (!jobs_timed)
		return;
	a = bpf_map_lookup_elem(&jt_args, &z);
	if (!a)
		return;
	a->p[0] = (__u64)task;
	job_time(kind, ns, rtt, dir);
}

/*
 * A call of job (@cgid, @dev) on the open context and file in this CPU's jt_args slot returned:
 * the context is the job's (its RPCs from now on are counted to it), and the time its RPCs had
 * before is moved to the job's entries (made here if need be, with @uid as the entry's maker).
 */
__noinline int job_ctx_seen(__u64 cgid, __u32 dev, __u32 uid)
{
	struct job_key k = { .cgid = cgid, .dev = dev }, pk = {};
	struct ctx_job *cj, n = { .cgid = cgid, .dev = dev };
	struct job_io *p, *v;
	struct jt_arg *a;
	__u32 z = 0;
	__u64 ctx;
	bool made;

	a = bpf_map_lookup_elem(&jt_args, &z);
	if (!a || !a->p[1])
		return 0;
	ctx = a->p[1];
	n.file = a->p[0];
	cj = bpf_map_lookup_elem(&ctxjob, &ctx);
	if (cj && cj->cgid == cgid && cj->file == n.file && cj->dev == dev)
		return 0;
	bpf_map_update_elem(&ctxjob, &ctx, &n, BPF_ANY);
	pk.cgid = ctx;
	for (__u32 d = JOB_WRITE; d <= JOB_READ; d++) {
		pk.dir = d;
		p = bpf_map_lookup_elem(&ctxpend, &pk);
		if (!p)
			continue;
		k.dir = d;
		v = lookup_or_init(&jobio, &k, &zero_jobio, CNT_JOBS_FULL, &made);
		if (v) {
			if (made && !v->uid)
				v->uid = uid;
			__sync_fetch_and_add(&v->rpcs, p->rpcs);
			for (int c = 0; c < JOB_CAUSES; c++)
				__sync_fetch_and_add(&v->ns[c], p->ns[c]);
			if (jobio_stamp != epoch)
				jobio_stamp = epoch;
		}
		bpf_map_delete_elem(&ctxpend, &pk);
	}
	return 0;
}

/* job_ctx_seen() for file @f (a pointer) and its open context @ctx */
static __always_inline void job_ctx_of(void *f, void *ctx, __u64 cgid, __u32 dev, __u32 uid)
{
	struct jt_arg *a;
	__u32 z = 0;

	if (!jobs_timed)
		return;
	a = bpf_map_lookup_elem(&jt_args, &z);
	if (!a)
		return;
	a->p[0] = (__u64)f;
	a->p[1] = (__u64)ctx;
	job_ctx_seen(cgid, dev, uid);
}

#endif
