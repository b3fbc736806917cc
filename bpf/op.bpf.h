/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An RPC's end: its slot given back, its op counted and its client placed on a mount; a
 * client freed.
 * Part of handlers.bpf.h: included twice, no include guard on purpose.
 */

/*
 * clid -> superblock, once per client: a READ or WRITE carries its nfs_pgio_header as call data
 * (nfs_initiate_pgio), whose inode names the superblock. Done here rather than on the
 * nfs_initiate_read/write tracepoints so page I/O costs no event of its own. The call data is a
 * void *, so every read goes through the helper, and the header must lead back to this client.
 * A client with no page I/O of its own, such as NFSv3's ACL client (rpc_bind_new_program() from
 * the mount's client), records the client it was made from; user space follows that link. Root
 * clients (nfs_client's shared cl_rpcclient) are their own parent and record none.
 */
static __always_inline void FN(note_client)(struct rpc_task *task, struct rpc_clnt *clnt, __u32 clid,
					    const char *op, bool known)
{
	struct nfs_pgio_header *hdr;
	struct nfs_server *server;
	struct client_info ci = {};
	struct super_block *sb;

	if (!op_is_page_io(op)) {
		struct rpc_clnt *parent;

		/* the parent link is recorded once; a known client has nothing more to learn here */
		if (known)
			return;
		parent = BPF_CORE_READ(clnt, cl_parent);
		if (parent && parent != clnt)
			ci.parent = BPF_CORE_READ(parent, cl_clid);
		if ((int)bpf_map_update_elem(&clients, &clid, &ci, BPF_NOEXIST) == ERR_TOO_BIG)
			count(CNT_CLIENTS_FULL);
		gen_bump(GEN_CLIENTS);
		return;
	}
	hdr = (struct nfs_pgio_header *)BPF_CORE_READ(task, tk_calldata);
	sb = BPF_CORE_READ(hdr, inode, i_sb);
	server = BPF_CORE_READ(sb, s_fs_info);
	if (!server || BPF_CORE_READ(server, client, cl_clid) != clid)
		return;
	/* with a superblock of its own the parent link is not followed: none is kept */
	ci.dev = BPF_CORE_READ(sb, s_dev);
	if ((int)bpf_map_update_elem(&clients, &clid, &ci, BPF_ANY) == ERR_TOO_BIG)
		count(CNT_CLIENTS_FULL);
	gen_bump(GEN_CLIENTS);
}

/* the entry of the op (@clnt's @proc) on @xprt, made (and named) at its first RPC; NULL: none, or no room */
static __always_inline struct op_stats *FN(op_entry)(struct rpc_xprt *xprt, struct rpc_clnt *clnt,
						   const struct rpc_procinfo *proc, __u32 *clid)
{
	struct op_key k = {};
	struct op_stats *o;
	bool made;

	k.xprt = (__u64)xprt;
	k.clid = RD(clnt, cl_clid);
	k.prog = RD(clnt, cl_prog);
	k.vers = RD(clnt, cl_vers);
	k.proc = proc ? RD(proc, p_statidx) : 0xffffffff;
	*clid = k.clid;
	o = lookup_or_init(&ops, &k, &zero_op, CNT_OPS_FULL, &made);
	if (!o || !made)
		return o;
	if (proc && !o->name[0])
		bpf_probe_read_kernel_str(o->name, sizeof(o->name), RD(proc, p_name));
	gen_bump(GEN_OPS);
	return o;
}

/*
 * Once op @o's client is placed, or cannot be placed from this op, no lookup per RPC. Judged by
 * the proc's own name: the entry's is written by the CPU that made it, after the insert, so
 * another CPU's RPC may find it empty (a WRITE read as "" was once marked placed with its mount
 * never learned, and a run's WRITEs had no mount).
 */
static __always_inline void FN(place_client)(struct op_stats *o, struct rpc_task *task, struct rpc_clnt *clnt,
					    const struct rpc_procinfo *proc, __u32 clid)
{
	char name[OPNAME_LEN] = {};
	struct client_info *ci;

	if (o->client_done)
		return;
	if (proc)
		bpf_probe_read_kernel_str(name, sizeof(name), RD(proc, p_name));
	ci = bpf_map_lookup_elem(&clients, &clid);
	if (ci && (ci->dev || !op_is_page_io(name))) {
		o->client_done = 1;
		gen_bump(GEN_OPS);
	} else {
		FN(note_client)(task, clnt, clid, name, ci != NULL);
	}
}

/* one RPC of op @o, with its queue, RTT and execute times @v, as mountstats counts it */
static __always_inline void FN(op_count)(struct op_stats *o, struct rpc_task *task, struct rpc_rqst *rqst,
					 const __s64 *v, __u64 sent, __u64 recvd)
{
	struct op_counts *c = op_counters(o);

	op_account(c ? c : &o->c, !c, RD(rqst, rq_ntrans), RD(task, tk_timeouts),
		   RD(task, tk_status) < 0, sent, recvd, v);
	/*
	 * Counted in the entry itself while its slot is being taken (the claim's bump may come
	 * before this count ends). An op left without a slot counts there at every RPC: no bump,
	 * which would be a global cache line bounced at every RPC on a large node; user space reads
	 * the map every tick while one such op is in its copy (the bump that set OP_NOSLOT put it
	 * there).
	 */
	if (!c && o->pslot != OP_NOSLOT)
		gen_bump(GEN_OPS);
}

/*
 * rpc_stats_latency, where the kernel counts an RPC for mountstats: its slot given back and its
 * waits ended (slot.bpf.h, wait.bpf.h), then its op counted and the op's client placed.
 */
static __always_inline int FN(handle_stats_latency)(struct rpc_task *task, __s64 backlog, __s64 rtt,
						__s64 execute)
{
	__s64 v[STAGES] = { backlog, rtt, execute };
	const struct rpc_procinfo *proc;
	struct rpc_rqst *rqst;
	struct rpc_clnt *clnt;
	struct xprt_stats *x;
	struct rpc_xprt *xprt;
	struct op_stats *o;
	__u32 clid;
	__u64 now, start, sent, recvd;

	ARMED_OR_RETURN();
	guard_pad();
	if (!task)
		return 0;
	rqst = RD(task, tk_rqstp);
	if (!rqst)
		return 0;
	/*
	 * The kernel read the clock for this RPC just before: rpc_count_iostats_metrics() passes
	 * execute = ktime_get() - tk_start, and ktime_get() is bpf_ktime_get_ns()'s clock. Its
	 * time back, one helper call fewer on the path every RPC takes.
	 */
	start = (__u64)RD(task, tk_start);
	now = start && execute > 0 ? start + (__u64)execute : bpf_ktime_get_ns();
	xprt = RD(rqst, rq_xprt);
	x = FN(release_slot)(rqst, xprt, now, rtt, execute);
	if (nwaiting[WAIT_SLOT] || nwaiting[WAIT_SEND] || nwaiting[WAIT_SESSION] || nwaiting[WAIT_DELAY])
		FN(wait_end)(task, rqst, now, WAIT_KINDS, true, RD(task, tk_xprt) == xprt ? x : NULL);
	clnt = RD(task, tk_client);
	if (!clnt)
		return 0;
	proc = RD(task, tk_msg.rpc_proc);
	o = FN(op_entry)(xprt, clnt, proc, &clid);
	if (!o)
		return 0;
	FN(place_client)(o, task, clnt, proc, clid);
	/* read once: mountstats' bytes, and a READ's or WRITE's its job's (#63) */
	sent = RD(rqst, rq_xmit_bytes_sent);
	recvd = RD(rqst, rq_reply_bytes_recvd);
	FN(op_count)(o, task, rqst, v, sent, recvd);
	/*
	 * Answered (a reply matched sets rq_rtt), and not a lease's keepalive: the server answers.
	 * When its reply came: rq_xtime + rq_rtt, that is tk_start + backlog + rtt, not the RPC's
	 * end, which a starved rpciod may run seconds later (and a silence then looks shorter). A
	 * reply implies a send (backlog >= 0) and tk_start; no test more: this program is within a
	 * few branches of 6.12's verifier bound.
	 */
	start += (__u64)backlog + (__u64)rtt;
	if (x && rtt > 0 && !op_is_keepalive(o->name) && start > x->last_answer_ns)
		x->last_answer_ns = start;
	/* a READ's or WRITE's whole time, and its round trip, are its job's (job_time()) */
	if (execute > 0 && op_is_page_io(o->name))
		job_time_end(task, (__u64)execute, rtt > 0 ? (__u64)rtt : 0,
			     o->name[0] == 'W' ? JOB_WRITE : JOB_READ, o->name[0] == 'W' ? sent : recvd);
	return 0;
}

/*
 * rpc_free_client(): the client's id goes back to the kernel's IDA, and the next client made, often
 * the next mount of the same server on the same transport, takes it. Its ops then land on the
 * entries of the old one: they must learn their mount again, and the old mount must not answer
 * for the new.
 */
static __always_inline int FN(handle_clnt_free)(struct rpc_clnt *clnt)
{
	__u32 clid;

	ARMED_OR_RETURN();
	if (!clnt)
		return 0;
	clid = RD(clnt, cl_clid);
	bpf_map_delete_elem(&clients, &clid);
	gen_bump(GEN_CLIENTS);
	bpf_for_each_map_elem(&ops, forget_client, &clid, 0);
	gen_bump(GEN_OPS);
	return 0;
}
