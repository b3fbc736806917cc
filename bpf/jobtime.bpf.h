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

/* the stack's contexts name their file: a context's job is proven its file's */
#define CTX_OWNED bpf_core_field_exists(struct nfs_open_context___owner, flock_owner)

/* the file open context @ctx was made for; 0 where the stack's context has no such field */
static __always_inline __u64 ctx_file(__u64 ctx)
{
	if (!CTX_OWNED)
		return 0;
	return (__u64)BPF_CORE_READ((struct nfs_open_context___owner *)ctx, flock_owner);
}

/*
 * A pointer as a number: a global function's arguments are checked by type alone ("R1 is not a
 * scalar" for a tp_btf/fentry pointer, btf_check_func_arg_match()), and a copy through the helper
 * is a number to the verifier. (A per-CPU slot would do it without the call, but programs of
 * different hooks may run nested on a CPU, and one would overwrite another's.)
 */
static __always_inline __u64 as_number(const void *p)
{
	__u64 n = 0;

	bpf_probe_read_kernel(&n, sizeof(n), &p);
	return n;
}

static __always_inline void job_time_add(struct job_io *v, __u32 kind, __u64 ns, __u64 rtt, __u64 bytes)
{
	if (kind == JC_TOTAL) {
		__sync_fetch_and_add(&v->rpcs, 1);
		__sync_fetch_and_add(&v->rpc_bytes, bytes);
		if (rtt)
			__sync_fetch_and_add(&v->ns[JC_RTT], rtt);
	}
	__sync_fetch_and_add(&v->ns[kind], ns);
}

/*
 * The time context @ctx's RPCs of direction @dir had before a call named its job (@k, @uid) is
 * the job's: moved by whoever deletes the pending entry (two CPUs may race here: the first
 * copy-and-delete wins, the other adds nothing). An entry of another file at the same address (a
 * context freed and its memory reused) is dropped, not given to this job. The pending entry's
 * calls holds the file it was counted for.
 */
static __always_inline void pend_drain(__u64 ctx, __u64 file, struct job_key *k, __u32 uid)
{
	struct job_key pk = { .cgid = ctx, .dir = k->dir };
	struct job_io *p, *v, c;
	bool made;

	p = bpf_map_lookup_elem(&ctxpend, &pk);
	if (!p)
		return;
	c = *p;
	if (bpf_map_delete_elem(&ctxpend, &pk) || c.calls != file)
		return;
	v = lookup_or_init(&jobio, k, &zero_jobio, CNT_JOBS_FULL, &made);
	if (!v)
		return;
	if (made && !v->uid)
		v->uid = uid;
	__sync_fetch_and_add(&v->rpcs, c.rpcs);
	__sync_fetch_and_add(&v->rpc_bytes, c.rpc_bytes);
	for (int i = 0; i < JOB_CAUSES; i++)
		__sync_fetch_and_add(&v->ns[i], c.ns[i]);
	if (jobio_stamp != epoch)
		jobio_stamp = epoch;
}

/* an RPC's bytes (at most its wsize or rsize and headers) fit the 48 bits above */
#define JOB_KD(kind, dir, bytes)	((__u64)(kind) | (__u64)(dir) << 8 | (__u64)(bytes) << 16)

/*
 * @ns of cause @kind (a wait kind; JC_TOTAL: the RPC's end, its execute time, with its round
 * trip @rtt and the bytes it carried) for the job of RPC task @taskp if it is a READ or WRITE
 * (@dir JOB_WRITE or JOB_READ; 2: read from its proc's name). @calldata: the task's call data if
 * the caller read it (an RPC's end, whose op is known), else 0 and it is read here. Every read
 * through the helper.
 */
__noinline int job_time(__u64 taskp, __u64 calldata, __u64 kd, __u64 ns, __u64 rtt)
{
	/* five arguments at most: the kind in the low byte, the direction above, then the bytes */
	__u32 kind = kd & 0xff, dir = (kd >> 8) & 0xff;
	__u64 bytes = kd >> 16;
	struct rpc_task *task = (struct rpc_task *)taskp;
	struct job_key k = {}, pk = {};
	struct nfs_pgio_header *hdr;
	struct ctx_job *cj;
	struct job_io *v;
	__u64 ctx, file;

	if ((!taskp && !calldata) || !ns || kind >= JOB_CAUSES || kind == JC_RTT)
		return 0;
	if (dir > JOB_READ) {
		const struct rpc_procinfo *proc = BPF_CORE_READ(task, tk_msg.rpc_proc);
		char name[OPNAME_LEN] = {};

		if (!proc || bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(proc, p_name)) <= 0 ||
		    !op_is_page_io(name))
			return 0;
		dir = name[0] == 'W' ? JOB_WRITE : JOB_READ;
	}
	hdr = (struct nfs_pgio_header *)(calldata ? calldata : (__u64)BPF_CORE_READ(task, tk_calldata));
	ctx = (__u64)BPF_CORE_READ(hdr, args.context);
	if (!ctx)
		return 0;
	k.dir = dir;
	cj = bpf_map_lookup_elem(&ctxjob, &ctx);
	/* with births hooked an entry is its context's: no copy of the context's file to prove it */
	if (cj && (ctx_births || !CTX_OWNED || cj->file == ctx_file(ctx))) {
		k.cgid = cj->cgid;
		k.dev = cj->dev;
		/* a direction the job's calls have not named yet (a READ of a file it wrote) */
		v = lookup_or_init(&jobio, &k, &zero_jobio, CNT_JOBS_FULL, NULL);
		if (!v)
			return 0;
		job_time_add(v, kind, ns, rtt, bytes);
		if (jobio_stamp != epoch)
			jobio_stamp = epoch;
		return 0;
	}
	file = ctx_file(ctx);
	pk.cgid = ctx;
	pk.dir = dir;
	v = lookup_or_init(&ctxpend, &pk, &zero_jobio, CNT_JOBS_FULL, NULL);
	if (!v)
		return 0;
	/* another file's time at a reused address: it was never any job's */
	if (v->calls != file) {
		v->rpcs = 0;
		v->rpc_bytes = 0;
		for (int i = 0; i < JOB_CAUSES; i++)
			v->ns[i] = 0;
		v->calls = file;
	}
	job_time_add(v, kind, ns, rtt, bytes);
	/* named meanwhile on another CPU, after it drained: this time is the job's too */
	cj = bpf_map_lookup_elem(&ctxjob, &ctx);
	if (cj && (!CTX_OWNED || cj->file == file)) {
		k.cgid = cj->cgid;
		k.dev = cj->dev;
		pend_drain(ctx, file, &k, 0);
	}
	return 0;
}

/* job_time() for RPC task @task */
static __always_inline void job_time_of(void *task, __u32 kind, __u64 ns, __u64 rtt, __u32 dir)
{
	if (jobs_timed)
		job_time(as_number(task), 0, JOB_KD(kind, dir, 0), ns, rtt);
}

/*
 * job_time() at the end of READ or WRITE @task, which carried @bytes: its call data read here, in
 * the one copy the helper makes anyway (the task as a number, then its call data through it, was
 * two: 57 guest instructions an RPC under make bench-insn's count)
 */
static __always_inline void job_time_end(struct rpc_task *task, __u64 ns, __u64 rtt, __u32 dir, __u64 bytes)
{
	__u64 calldata = 0;

	if (!jobs_timed)
		return;
	bpf_probe_read_kernel(&calldata, sizeof(calldata), __builtin_preserve_access_index(&task->tk_calldata));
	if (calldata)
		job_time(0, calldata, JOB_KD(JC_TOTAL, dir, bytes), ns, rtt);
}

/*
 * A call of job (@cgid, @dev) on open context @ctx of file @file returned: the context is the
 * job's (its RPCs from now on are counted to it), and the time its RPCs had before is moved to
 * the job's entries (made here if need be, with @uid as the entry's maker).
 */
__noinline int job_ctx_seen(__u64 ctx, __u64 file, __u64 cgid, __u32 dev, __u32 uid)
{
	struct ctx_job *cj, n = { .cgid = cgid, .file = file, .dev = dev };
	struct job_key k = { .cgid = cgid, .dev = dev };

	if (!ctx)
		return 0;
	cj = bpf_map_lookup_elem(&ctxjob, &ctx);
	if (cj && cj->cgid == cgid && cj->file == file && cj->dev == dev)
		return 0;
	bpf_map_update_elem(&ctxjob, &ctx, &n, BPF_ANY);
	for (__u32 d = JOB_WRITE; d <= JOB_READ; d++) {
		k.dir = d;
		/* pending entries hold what ctx_file() read: 0 on a stack whose context has no file */
		pend_drain(ctx, CTX_OWNED ? file : 0, &k, uid);
	}
	return 0;
}

/*
 * job_ctx_seen() for file @f and its open context @ctx (a void * read from the file), both
 * passed to it as numbers, by process @tgid. Every NFS file call comes here, nearly always for a
 * context already named alike: that is looked up here, with no helper copy and no call
 * (comparing a number with a pointer is allowed a loader with CAP_PERFMON, which slotscope needs
 * anyway). True when the process is to be noted in jobtasks: not when its context's entry says
 * it was, by this process, in this epoch (a window counts the processes seen since its first
 * tick, and the epoch moves at every tick: a lookup and the clock a call fewer, #63).
 */
static __always_inline bool job_ctx_of(void *f, void *ctx, __u64 cgid, __u32 dev, __u32 uid, __u32 tgid)
{
	__u64 c = (__u64)ctx;
	struct ctx_job *cj;
	__u32 ep = epoch;

	if (!jobs_timed || !c)
		return true;
	cj = bpf_map_lookup_elem(&ctxjob, &c);
	if (cj && cj->cgid == cgid && cj->dev == dev && cj->file == (__u64)f) {
		if (cj->tgid == tgid && cj->epoch == ep)
			return false;
		cj->tgid = tgid;
		cj->epoch = ep;
		return true;
	}
	/*
	 * @ctx a number too: 7.2's verifier types the void * it was loaded from a trusted file as a
	 * pointer, and refused the call ("Caller passes invalid args into func#1"): every file I/O
	 * hook off, no job named
	 */
	job_ctx_seen(as_number(ctx), as_number(f), cgid, dev, uid);
	return true;
}

#endif
