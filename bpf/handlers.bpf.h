/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every handler that reads kernel memory, included twice by slotscope.bpf.c: with RD() a plain
 * load and FN() suffixed _btf for tp_btf/fentry programs, with RD() BPF_CORE_READ and FN()
 * suffixed _raw for raw_tp/kprobe programs. No include guard on purpose.
 */
static __always_inline void FN(init_identity)(struct xprt_stats *z, struct rpc_xprt *xprt, __u64 now)
{
	const char *s;

	/* both arrived in 5.14 (RHEL 8 has them backported): a relocation of an absent field
	 * would poison the program, so guard; the netid string names the class everywhere */
	if (bpf_core_field_exists(xprt->id))
		z->id = RD(xprt, id);
	if (bpf_core_field_exists(xprt->xprt_class)) {
		z->ident = RD(xprt, xprt_class, ident);
	} else {
		char n[8] = {};

		bpf_probe_read_kernel_str(n, sizeof(n), RD(xprt, address_strings[RPC_DISPLAY_NETID]));
		z->ident = n[0] == 'r' ? IDENT_RDMA : n[0] == 'u' ? IDENT_UDP : IDENT_TCP;
	}
	z->max_reqs = RD(xprt, max_reqs);
	z->min_reqs = RD(xprt, min_reqs);
	s = RD(xprt, address_strings[RPC_DISPLAY_ADDR]);
	bpf_probe_read_kernel_str(z->addr, sizeof(z->addr), s);
	s = RD(xprt, address_strings[RPC_DISPLAY_PORT]);
	bpf_probe_read_kernel_str(z->port, sizeof(z->port), s);
	/* mountstats "sends" is the kernel's own count: report its growth since first seen */
	z->sends_base = RD(xprt, stat.sends);
	z->connects_base = RD(xprt, stat.connect_count);
	z->first_seen_ns = now;
	levels_open(z, now);
	effective_limit(z, (__u64)xprt);
}

/* @x, the live entry of @xprt: created with port 0, rpcbind fills it in later (xs_set_port) */
static __always_inline struct xprt_stats *FN(fresh_port)(struct xprt_stats *x, struct rpc_xprt *xprt)
{
	if (x->port[0] == '0' && x->port[1] == 0)
		bpf_probe_read_kernel_str(x->port, sizeof(x->port), RD(xprt, address_strings[RPC_DISPLAY_PORT]));
	return x;
}

/*
 * The entry of @xprt, made on first sight: in its xprt_tab slot when that is free and the hash
 * has no entry of it, else in the hash. It is built whole in per-CPU scratch, then put in place
 * at once: when two CPUs see a transport first at once, the loser must count on the winner's
 * entry, not replace it (a replaced entry loses the counts made on it: seen as in_use -1). In
 * the hash, an insert if absent does it; in the array, the slot is claimed by its key (the
 * address | 1), the entry copied in, and the key set to the address: a CPU finding the claim
 * waits for that (built()). A new entry replaces a destroyed one in the hash (the kernel may
 * reuse the address); a destroyed one in a slot stays there until user space has reported it.
 * One race is left: a transport first seen on two CPUs at once, one finding its slot held
 * (by a destroyed transport), the other finding it freed by user space meanwhile, gets two
 * entries. It needs a transport made before attach, with an id aliasing a destroyed one's.
 */
static __always_inline struct xprt_stats *FN(get_xprt)(struct rpc_xprt *xprt, __u64 now)
{
	__u64 key = (__u64)xprt, k;
	struct xprt_stats *x = NULL, *h, *s;
	__u32 zero = 0, slot = 0;

	if (!xprt)
		return NULL;
	if (bpf_core_field_exists(xprt->id)) {
		slot = RD(xprt, id) & xprt_slot_mask & (XPRT_SLOTS - 1);
		x = bpf_map_lookup_elem(&xprt_tab, &slot);
	}
	if (x) {
		k = x->key;
		if (k == key && !(x->flags & XF_DESTROYED))
			return FN(fresh_port)(x, xprt);
		if ((k & 1) && (k & ~1ull) == key)
			return built(x, key);
		/* another transport's slot, or a destroyed one's at this address: the hash */
		if (k)
			x = NULL;
	}
	h = bpf_map_lookup_elem(&xprts, &key);
	if (h && !(h->flags & XF_DESTROYED))
		return FN(fresh_port)(h, xprt);
	s = bpf_map_lookup_elem(&xprt_scratch, &zero);
	/* too large for an inline memset: copy the zeros */
	if (!s || bpf_probe_read_kernel(s, sizeof(*s), &zero_xprt))
		return NULL;
	FN(init_identity)(s, xprt, now);
	if (x && !h) {
		/*
		 * The claim is the address | 1, made from the address stored and read back: a
		 * tp_btf/fentry argument is a pointer to the verifier, which refuses an OR on it
		 */
		s->key = key;
		k = *(volatile __u64 *)&s->key | 1;
		s->key = k;
		if (__sync_val_compare_and_swap(&x->key, 0, k) == 0) {
			if (bpf_probe_read_kernel(x, sizeof(*x), s)) {
				x->key = 0;
				return NULL;
			}
			__sync_fetch_and_or(&xprt_tab_used[(slot / 64) & (XPRT_SLOTS / 64 - 1)],
					    1ull << (slot % 64));
			__sync_lock_test_and_set(&x->key, k & ~1ull);
			return x;
		}
		if ((x->key & ~1ull) == key)
			return built(x, key);
		s->key = 0;
	}
	return insert_or_get(&xprts, &key, s, h ? BPF_ANY : BPF_NOEXIST, CNT_XPRTS_FULL, NULL);
}

/* the entry of @xprt if there is one, live or destroyed: its slot's, else the hash's */
static __always_inline struct xprt_stats *FN(find_xprt)(struct rpc_xprt *xprt)
{
	__u64 key = (__u64)xprt;
	struct xprt_stats *x;
	__u32 slot;

	if (bpf_core_field_exists(xprt->id)) {
		slot = RD(xprt, id) & xprt_slot_mask & (XPRT_SLOTS - 1);
		x = bpf_map_lookup_elem(&xprt_tab, &slot);
		if (x && x->key == key && !(x->flags & XF_DESTROYED))
			return x;
	}
	return bpf_map_lookup_elem(&xprts, &key);
}

/*
 * Fields that move: credits for RDMA/UDP, num_reqs, the backlog. Sampled where a slot changes
 * hands (every RPC passes there twice), not on every transmit or sleep: the hot path stays short.
 * Stored only when changed (STORE_CHANGED).
 */
static __always_inline __u32 FN(sample)(struct xprt_stats *x, struct rpc_xprt *xprt, __u32 backlog,
				       __u64 now)
{
	__u32 cwnd = RD(xprt, cwnd) >> RPC_CWNDSHIFT;
	__u32 cong = RD(xprt, cong) >> RPC_CWNDSHIFT;
	__u32 num_reqs = RD(xprt, num_reqs);
	__u64 connects = RD(xprt, stat.connect_count) - x->connects_base;

	STORE_CHANGED(x->cwnd, cwnd);
	STORE_CHANGED(x->cong, cong);
	if (cwnd && (x->cwnd_min == 0 || cwnd < x->cwnd_min))
		x->cwnd_min = cwnd;
	if (cong > x->cong_max)
		x->cong_max = cong;
	STORE_CHANGED(x->num_reqs, num_reqs);
	STORE_CHANGED(x->backlog_now, backlog);
	/* mountstats' sends grows with every RPC: always a store */
	x->sends = RD(xprt, stat.sends) - x->sends_base;
	STORE_CHANGED(x->connects, connects);
	if (x->handing)
		handing_heal(x, backlog, now, epoch);
	return num_reqs;
}

/* the transport's entry, for a wait its task may end next (NULL: none) */
static __always_inline struct xprt_stats *FN(slot_acquired)(struct rpc_rqst *rqst, struct rpc_xprt *xprt,
							    bool handoff, __u64 now)
{
	struct xprt_stats *x;
	enum acq_track how;
	__u32 where, num_reqs, backlog;
	bool exact;

	x = FN(get_xprt)(xprt, now);
	if (!x)
		return NULL;
	backlog = RD(xprt, backlog.qlen);
	num_reqs = FN(sample)(x, xprt, backlog, now);
	how = track_acquire((__u64)rqst, &where);
	/* the kernel's num_reqs proves the level over TCP and UDP, not RDMA's pool (account.h) */
	exact = x->ident == IDENT_TCP || x->ident == IDENT_UDP;
	if (exact && !handoff && level_cap(x, num_reqs, how != ACQ_KNOWN, now, epoch))
		count(CNT_LEVEL_CORRECTIONS);
	note_level((__u64)rqst, where, account_acquire(x, how, handoff, now, epoch));
	/* the task handed to is still on the backlog (its wake-up removes it): the others wait */
	if (exact && handoff && backlog && level_raise(x, num_reqs, backlog - 1, now, epoch))
		count(CNT_LEVEL_CORRECTIONS);
	return x;
}

/*
 * The slot of @task's request is given back. Done where the kernel counts the RPC for mountstats
 * (rpc_count_iostats_metrics(), called by rpc_exit_task() before xprt_release() frees the
 * request): one event per RPC carries both its release and its latencies, which join the
 * in-flight curve at the level its slot was taken at. A release seen with
 * tasks on the backlog keeps its slot in use for the hand-off that follows (account_release()).
 * Releases that skip it
 * (call_decode() on -EKEYREJECTED, a task moved off a transport being removed) leave their entry
 * behind; the request's next use finds it and counts nothing twice, so occupancy is one high only
 * while that request sits free.
 */
static __always_inline struct xprt_stats *FN(release_slot)(struct rpc_rqst *rqst, struct rpc_xprt *xprt,
							   __u64 now, __s64 rtt, __s64 exec)
{
	struct xprt_stats *x;
	__u32 backlog, num_reqs;
	int level;

	/* NFSv4.1 callbacks reply on preallocated backchannel requests, never a slot */
	if (bpf_core_field_exists(rqst->rq_bc_pa_state) &&
	    (RD(rqst, rq_bc_pa_state) & RPC_BC_PA_IN_USE)) {
		count(CNT_BC_RELEASE);
		return NULL;
	}
	x = FN(get_xprt)(xprt, now);
	if (!x)
		return NULL;
	level = track_release((__u64)rqst);
	if (level < 0)
		count(CNT_PREATTACH_RELEASE);
	else
		curve_add(x, (__u32)level, rtt, exec);
	backlog = RD(xprt, backlog.qlen);
	account_release(x, level >= 0, backlog, now, epoch);
	num_reqs = FN(sample)(x, xprt, backlog, now);
	/* a release is booked before its request is freed: the level is at most num_reqs here too */
	if ((x->ident == IDENT_TCP || x->ident == IDENT_UDP) && level_cap(x, num_reqs, false, now, epoch))
		count(CNT_LEVEL_CORRECTIONS);
	return x;
}

/* The waiter entry of task @key, of @kind, is gone: so is its count if it was there. */
static __always_inline void FN(waiter_drop)(__u64 key, __u32 kind)
{
	if (!bpf_map_delete_elem(&waiters, &key))
		waiting_move(nwaiting, kind, WAIT_KINDS);
}

/*
 * A wait of @w ended at @end on @xprt (the task's own transport, a trusted pointer), whose entry
 * the caller may have at hand (@x; NULL: looked up).
 */
static __always_inline void FN(wait_done)(struct waiter *w, struct rpc_xprt *xprt, __u64 end,
					  struct xprt_stats *x)
{
	if (!x)
		x = FN(get_xprt)(xprt, end);

	if (x)
		wait_account(x, w, end);
}

/* when the send-queue wait @w ended: wait_sent_at() of its request's last transmission */
static __always_inline __u64 FN(sent_at)(const struct waiter *w, struct rpc_rqst *rqst, __u64 now)
{
	return wait_sent_at(w->start_ns, rqst ? (__u64)RD(rqst, rq_xtime) : 0, now);
}

/*
 * Function hooks only (only their waits are counted in nwaiting, and every caller outside them
 * looks at nwaiting first): the wait @task is in, if any, ends now, a send queue's when its
 * request went out (the wait goes on if it has not, unless the RPC is over: @final). An entry
 * whose task start differs is a dead task's, left at this address: dropped uncounted. @x: the
 * entry of the task's transport if the caller has it, else NULL.
 */
static __always_inline void FN(wait_end)(struct rpc_task *task, struct rpc_rqst *rqst, __u64 now,
					 __u32 only_kind, bool final, struct xprt_stats *x)
{
	__u64 key = (__u64)task, end = now, sent;
	enum wait_step step;
	struct waiter *w;

	w = bpf_map_lookup_elem(&waiters, &key);
	if (!w)
		return;
	sent = w->kind == WAIT_SEND ? FN(sent_at)(w, rqst, now) : 0;
	step = wait_close(w, (__u64)RD(task, tk_start), only_kind, final, sent, now, &end);
	if (step == WAIT_GOES_ON)
		return;
	if (step == WAIT_ENDED)
		FN(wait_done)(w, RD(task, tk_xprt), end, x);
	FN(waiter_drop)(key, w->kind);
}

/*
 * Every pointer argument is NULL-checked before the first load through it: since 838a10bd2ebf
 * ("bpf: Augment raw_tp arguments with PTR_MAYBE_NULL", 6.13-rc3, in 6.12.6 and later) the
 * verifier refuses a tp_btf plain load through an unchecked one.
 */
static __always_inline int FN(handle_xprt_reserve)(struct rpc_rqst *rqst)
{
	struct rpc_xprt *xprt;
	struct xprt_stats *x;
	struct rpc_task *task;
	__u64 now;

	ARMED_OR_RETURN();
	if (!rqst)
		return 0;
	now = bpf_ktime_get_ns();
	xprt = RD(rqst, rq_xprt);
	x = FN(slot_acquired)(rqst, xprt, false, now);
	/*
	 * Through the function hooks a wait for a slot the task was not handed, for a session
	 * slot or for a delay without __rpc_atrun() ends when the task goes on to hold a slot.
	 * The send queue's waits end at the RPC's end: while only they are open, none is looked for.
	 */
	if (!nwaiting[WAIT_SLOT] && !nwaiting[WAIT_SESSION] && !nwaiting[WAIT_DELAY])
		return 0;
	task = RD(rqst, rq_task);
	if (task)
		FN(wait_end)(task, rqst, now, WAIT_KINDS, false, RD(task, tk_xprt) == xprt ? x : NULL);
	return 0;
}

/*
 * The queue @q names the wait: a transport's backlog (no slot) or sending queue (its lock, or
 * RDMA/UDP credits), an NFSv4.1 session's slot table, or rpc_delay()'s queue. The reply wait
 * (xprt->pending), the most frequent sleep by far, and every other queue: WAIT_KINDS.
 */
static __always_inline __u32 FN(wait_kind)(struct rpc_xprt *xprt, struct rpc_wait_queue *q)
{
	const char *qn;
	char name[24];

	if ((void *)q == (void *)&xprt->pending)
		return WAIT_KINDS;
	if ((void *)q == (void *)&xprt->backlog)
		return WAIT_SLOT;
	if ((void *)q == (void *)&xprt->sending)
		return WAIT_SEND;
	qn = RD(q, name);
	if (!qn || bpf_probe_read_kernel_str(name, sizeof(name), qn) < 0)
		return WAIT_KINDS;
	return wait_kind_of_name(name);
}

/*
 * @task starts a wait of @kind on @q (NULL for rpc_delay()): it is about to be queued, so the
 * queue's length counts it in. Through the tracepoint every sleep replaces the entry (its wake-up
 * closed the last); through the function hooks (@by_fn) a task still in a wait (woken without
 * what it waited for, queued again) closes it first, so every sleep is one wait either way.
 */
static __always_inline int FN(wait_begin)(struct rpc_task *task, struct rpc_wait_queue *q, __u32 kind,
					  bool by_fn)
{
	struct rpc_xprt *xprt;
	struct waiter w = {};
	__u64 key = (__u64)task;
	struct xprt_stats *x;
	struct waiter *old;

	xprt = RD(task, tk_xprt);
	if (!xprt)
		return 0;
	if (kind == WAIT_KINDS)
		kind = FN(wait_kind)(xprt, q);
	if (kind >= WAIT_KINDS)
		return 0;
	w.kind = kind;
	w.start_ns = bpf_ktime_get_ns();
	w.task_start = (__u64)RD(task, tk_start);
	x = FN(get_xprt)(xprt, w.start_ns);
	if (x && q)
		wait_queued(x, kind, RD(q, qlen) + 1);
	old = by_fn ? bpf_map_lookup_elem(&waiters, &key) : NULL;
	if (old) {
		if (old->task_start == w.task_start && old->kind < WAIT_KINDS) {
			__u64 sent = old->kind == WAIT_SEND ?
				     FN(sent_at)(old, RD(task, tk_rqstp), w.start_ns) : 0;

			FN(wait_done)(old, xprt, sent ? sent : w.start_ns, x);
		}
		waiting_move(nwaiting, old->kind, kind);
		bpf_map_update_elem(&waiters, &key, &w, BPF_EXIST);
		return 0;
	}
	if (bpf_map_update_elem(&waiters, &key, &w, BPF_ANY))
		count(CNT_WAITERS_FULL);
	else if (by_fn)
		waiting_move(nwaiting, WAIT_KINDS, kind);
	return 0;
}

static __always_inline int FN(handle_task_sleep)(struct rpc_task *task, struct rpc_wait_queue *q)
{
	ARMED_OR_RETURN();
	if (!task || !q)
		return 0;
	return FN(wait_begin)(task, q, WAIT_KINDS, false);
}

static __always_inline int FN(handle_task_wakeup)(struct rpc_task *task, struct rpc_wait_queue *q)
{
	struct rpc_xprt *xprt;
	__u64 key = (__u64)task, now = 0;
	struct waiter *w;

	ARMED_OR_RETURN();
	if (!task || !q)
		return 0;
	xprt = RD(task, tk_xprt);
	if (!xprt || (void *)q == (void *)&xprt->pending)
		return 0;
	/*
	 * xprt_wake_up_backlog() hands a freed request straight to the first backlogged task
	 * (e877a88d1f06, ~5.13): the slot never becomes free. Count it taken now, not when the
	 * woken task runs and fires xprt_reserve.
	 */
	if ((void *)q == (void *)&xprt->backlog) {
		struct rpc_rqst *rqst = RD(task, tk_rqstp);

		now = bpf_ktime_get_ns();
		if (rqst)
			FN(slot_acquired)(rqst, xprt, true, now);
	}
	w = bpf_map_lookup_elem(&waiters, &key);
	if (!w)
		return 0;
	if (!now)
		now = bpf_ktime_get_ns();
	FN(wait_done)(w, xprt, now, NULL);
	bpf_map_delete_elem(&waiters, &key);
	return 0;
}

/* rpc_sleep_on(), rpc_sleep_on_priority[_timeout](): every sleep but the reply's and delays */
static __always_inline int FN(handle_sleep_on)(struct rpc_wait_queue *q, struct rpc_task *task)
{
	ARMED_OR_RETURN();
	if (!task || !q)
		return 0;
	return FN(wait_begin)(task, q, WAIT_KINDS, true);
}

static __always_inline int FN(handle_delay)(struct rpc_task *task)
{
	ARMED_OR_RETURN();
	if (!task)
		return 0;
	return FN(wait_begin)(task, NULL, WAIT_DELAY, true);
}

/* __rpc_atrun(): the callback a delayed task runs first when its delay is over */
static __always_inline int FN(handle_atrun)(struct rpc_task *task)
{
	ARMED_OR_RETURN();
	if (!task)
		return 0;
	FN(wait_end)(task, NULL, bpf_ktime_get_ns(), WAIT_DELAY, false, NULL);
	return 0;
}

/*
 * __xprt_set_rq(): xprt_wake_up_backlog() offers a freed request to the first task on the
 * backlog (e877a88d1f06, 5.13), which takes it if it has none. The slot passes without ever
 * being free, and that task's wait for a slot ends here.
 */
static __always_inline int FN(handle_set_rq)(struct rpc_task *task, struct rpc_rqst *rqst)
{
	struct rpc_xprt *xprt;
	__u64 now;

	ARMED_OR_RETURN();
	if (!task || !rqst || RD(task, tk_rqstp))
		return 0;
	xprt = RD(task, tk_xprt);
	if (!xprt)
		return 0;
	now = bpf_ktime_get_ns();
	FN(wait_end)(task, NULL, now, WAIT_SLOT, false, FN(slot_acquired)(rqst, xprt, true, now));
	return 0;
}

/* WRITE, or READ (NFSv3's READDIR(PLUS) and READLINK too: note_client() checks what it reads) */
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

static __always_inline int FN(handle_stats_latency)(struct rpc_task *task, __s64 backlog, __s64 rtt,
						__s64 execute)
{
	__s64 v[STAGES] = { backlog, rtt, execute };
	const struct rpc_procinfo *proc;
	struct client_info *ci;
	struct rpc_rqst *rqst;
	struct rpc_clnt *clnt;
	struct op_key k = {};
	struct xprt_stats *x;
	struct rpc_xprt *xprt;
	struct op_counts *c;
	struct op_stats *o;
	bool made;
	__u64 now;

	ARMED_OR_RETURN();
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
	now = (__u64)RD(task, tk_start);
	now = now && execute > 0 ? now + (__u64)execute : bpf_ktime_get_ns();
	xprt = RD(rqst, rq_xprt);
	x = FN(release_slot)(rqst, xprt, now, rtt, execute);
	if (nwaiting[WAIT_SLOT] || nwaiting[WAIT_SEND] || nwaiting[WAIT_SESSION] || nwaiting[WAIT_DELAY])
		FN(wait_end)(task, rqst, now, WAIT_KINDS, true, RD(task, tk_xprt) == xprt ? x : NULL);
	proc = RD(task, tk_msg.rpc_proc);
	clnt = RD(task, tk_client);
	if (!clnt)
		return 0;
	k.xprt = (__u64)xprt;
	k.clid = RD(clnt, cl_clid);
	k.prog = RD(clnt, cl_prog);
	k.vers = RD(clnt, cl_vers);
	k.proc = proc ? RD(proc, p_statidx) : 0xffffffff;
	o = lookup_or_init(&ops, &k, &zero_op, CNT_OPS_FULL, &made);
	if (!o)
		return 0;
	if (made && proc && !o->name[0])
		bpf_probe_read_kernel_str(o->name, sizeof(o->name), RD(proc, p_name));
	if (made)
		gen_bump(GEN_OPS);
	/*
	 * Once this op's client is placed, or cannot be placed from this op, no lookup per RPC.
	 * Judged by the proc's own name: the entry's is written by the CPU that made it, after the
	 * insert, so another CPU's RPC may find it empty (a WRITE read as "" was once marked placed
	 * with its mount never learned, and a run's WRITEs had no mount).
	 */
	if (!o->client_done) {
		char name[OPNAME_LEN] = {};

		if (proc)
			bpf_probe_read_kernel_str(name, sizeof(name), RD(proc, p_name));
		ci = bpf_map_lookup_elem(&clients, &k.clid);
		if (ci && (ci->dev || !op_is_page_io(name))) {
			o->client_done = 1;
			gen_bump(GEN_OPS);
		} else {
			FN(note_client)(task, clnt, k.clid, name, ci != NULL);
		}
	}
	c = op_counters(o);
	op_account(c ? c : &o->c, !c, RD(rqst, rq_ntrans), RD(task, tk_timeouts),
		   RD(task, tk_status) < 0, RD(rqst, rq_xmit_bytes_sent), RD(rqst, rq_reply_bytes_recvd), v);
	/*
	 * Counted in the entry itself while its slot is being taken (the claim's bump may come
	 * before this count ends). An op left without a slot counts there at every RPC: no bump,
	 * which would be a global cache line bounced at every RPC on a large node; user space reads
	 * the map every tick while one such op is in its copy (the bump that set OP_NOSLOT put it
	 * there).
	 */
	if (!c && o->pslot != OP_NOSLOT)
		gen_bump(GEN_OPS);
	return 0;
}

static __always_inline int FN(handle_xprt_create)(struct rpc_xprt *xprt)
{
	__u64 key = (__u64)xprt;

	ARMED_OR_RETURN();
	if (!xprt)
		return 0;
	/* an entry left under this address belongs to a destroyed transport */
	bpf_map_delete_elem(&xprts, &key);
	FN(get_xprt)(xprt, bpf_ktime_get_ns());
	return 0;
}

static __always_inline int FN(handle_xprt_destroy)(struct rpc_xprt *xprt)
{
	__u64 now = bpf_ktime_get_ns();
	struct xprt_stats *x;

	ARMED_OR_RETURN();
	if (!xprt)
		return 0;
	x = FN(find_xprt)(xprt);
	if (!x)
		return 0;
	account_destroy(x, now);
	return 0;
}

static __always_inline int FN(handle_session)(struct nfs4_session *session)
{
	__u64 key = (__u64)session;
	struct session_stats *s, z = {};
	struct rpc_clnt *clnt;
	__u32 used;
	__u64 now;

	ARMED_OR_RETURN();
	if (!session)
		return 0;
	now = bpf_ktime_get_ns();
	s = bpf_map_lookup_elem(&sessions, &key);
	if (!s) {
		clnt = RD(session, clp, cl_rpcclient);
		z.first_ns = now;
		z.clid = RD(clnt, cl_clid);
		z.xprt = (__u64)RD(clnt, cl_xprt);
		s = insert_or_get(&sessions, &key, &z, BPF_NOEXIST, CNT_SESSIONS_FULL, NULL);
		if (!s)
			return 0;
	}
	s->max_slots = RD(session, fc_slot_table.max_slots);
	s->target_highest_slotid = RD(session, fc_slot_table.target_highest_slotid);
	s->server_highest_slotid = RD(session, fc_slot_table.server_highest_slotid);
	used = RD(session, fc_slot_table.highest_used_slotid);
	s->highest_used_slotid = used;
	/* NFS4_NO_SLOT (-1) when the table is empty */
	if (used != 0xffffffff)
		atomic_max(&s->peak_used_slotid, used);
	s->last_ns = now;
	__sync_fetch_and_add(&s->sequences, 1);
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

/*
 * A process enters NFS's write or read with @it's bytes at @iocb's file position: counted for
 * its cgroup and the file's superblock. At entry, so both attach methods count alike: the bytes
 * asked for, a read's capped at the file's size (what a read past the end returns is not asked
 * of a copy to come); a call that then fails (ENOSPC, EINTR) still counts.
 */
static __always_inline int FN(handle_file_io)(struct kiocb *iocb, struct iov_iter *it, __u32 dir)
{
	struct job_key k = { .dir = dir };
	struct job_task t = {};
	struct inode *ino;
	struct file *f;
	struct job_io *v;
	__u64 n, now, *seen;
	bool made;

	ARMED_OR_RETURN();
	if (!iocb || !it)
		return 0;
	n = RD(it, count);
	f = RD(iocb, ki_filp);
	if (!f)
		return 0;
	ino = RD(f, f_inode);
	if (!ino)
		return 0;
	if (dir == JOB_READ) {
		__s64 size = RD(ino, i_size), pos = RD(iocb, ki_pos);

		n = pos >= size ? 0 : n < (__u64)(size - pos) ? n : (__u64)(size - pos);
	}
	k.cgid = bpf_get_current_cgroup_id();
	k.dev = RD(ino, i_sb, s_dev);
	v = lookup_or_init(&jobio, &k, &zero_jobio, CNT_JOBS_FULL, &made);
	if (!v)
		return 0;
	if (made && !v->uid)
		v->uid = (__u32)bpf_get_current_uid_gid();
	__sync_fetch_and_add(&v->bytes, n);
	__sync_fetch_and_add(&v->calls, 1);
	if (jobio_stamp != epoch)
		jobio_stamp = epoch;
	/*
	 * Who did it: one lookup per call, an update only when it was not seen in the last 100 ms.
	 * Not the coarse clock, which would read no clocksource: tracing programs may not call it
	 * (its seqlock is not NMI-safe; the verifier refuses it on 6.1).
	 */
	now = bpf_ktime_get_ns();
	t.cgid = k.cgid;
	t.tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	seen = bpf_map_lookup_elem(&jobtasks, &t);
	if (!seen || now - *seen > 100000000ull)
		bpf_map_update_elem(&jobtasks, &t, &now, BPF_ANY);
	return 0;
}
