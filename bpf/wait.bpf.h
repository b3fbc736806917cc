/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waits: begun where a task sleeps on a queue or is delayed, ended where it is woken or
 * handed a slot, and the plain take (xprt_reserve) that ends a wait for a slot.
 * Part of handlers.bpf.h: included twice, no include guard on purpose.
 */

/* The waiter entry of task @key, of @kind, is gone: so is its count if it was there. */
static __always_inline void FN(waiter_drop)(__u64 key, __u32 kind)
{
	if (!bpf_map_delete_elem(&waiters, &key))
		waiting_move(nwaiting, kind, WAIT_KINDS);
}

/*
 * A wait of @w of @task ended at @end on @xprt (the task's own transport, a trusted pointer),
 * whose entry the caller may have at hand (@x; NULL: looked up); its time is also its job's if
 * the task is a READ or WRITE (job_time()).
 */
static __always_inline void FN(wait_done)(struct rpc_task *task, struct waiter *w, struct rpc_xprt *xprt,
					  __u64 end, struct xprt_stats *x)
{
	if (!x)
		x = FN(get_xprt)(xprt, end);

	if (x)
		wait_account(x, w, end);
	if (w->kind < WAIT_KINDS && end > w->start_ns)
		job_time_of(task, w->kind, end - w->start_ns, 0, 2);
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
		FN(wait_done)(task, w, RD(task, tk_xprt), end, x);
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
	/*
	 * Whatever queued it (rpc_delay(), or the tracepoint's "delayq"), a delay with a request in
	 * hand. Not one whose reply is in: an RPC's completion delaying its retry (NFSv3 JUKEBOX,
	 * NFSv4 DELAY, from rpc_call_done), whose request rpc_exit_task() releases right after.
	 */
	if (kind == WAIT_DELAY) {
		struct rpc_rqst *rq = RD(task, tk_rqstp);

		if (rq && !RD(rq, rq_reply_bytes_recvd))
			w.flags = WF_HELD;
	}
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

			FN(wait_done)(task, old, xprt, sent ? sent : w.start_ns, x);
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

#if HANDOFF_APART
/*
 * The backlog hand-off's take, verified apart from the wake-up that calls it. Through raw reads
 * (every pointer a number to the verifier) 7.2's verifier walked both in one program past its
 * million instructions ("BPF program is too large"), and the raw_tp variant, the only one a
 * loader without CAP_SYS_ADMIN has, was refused: the package unit at Debian's default
 * perf_event_paranoid did not start on 7.2. A global function is verified once, whatever calls
 * it, its arguments any number.
 */
__noinline int FN(handoff_take)(__u64 rqst, __u64 xprt, __u64 now)
{
	FN(slot_acquired)((struct rpc_rqst *)rqst, (struct rpc_xprt *)xprt, true, now);
	return 0;
}
#endif

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
#if HANDOFF_APART
		if (rqst)
			FN(handoff_take)((__u64)rqst, (__u64)xprt, now);
#else
		if (rqst)
			FN(slot_acquired)(rqst, xprt, true, now);
#endif
	}
	w = bpf_map_lookup_elem(&waiters, &key);
	if (!w)
		return 0;
	if (!now)
		now = bpf_ktime_get_ns();
	FN(wait_done)(task, w, xprt, now, NULL);
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
