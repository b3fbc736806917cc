/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wait bookkeeping, shared by the BPF programs (handlers.bpf.h) and the host unit tests
 * (tests/unit/test_waits.c): which wait a queue names, when a wait ends, what it adds to its
 * transport. Pure, like account.h: the caller reads the kernel and the maps and passes what it
 * found.
 */
#ifndef SLOTSCOPE_WAITS_H
#define SLOTSCOPE_WAITS_H

#include "account.h"

/*
 * The wait a named queue stands for: an NFSv4.1 session's slot table (fs/nfs/nfs4session.c:
 * rpc_init_priority_wait_queue(..., "ForeChannel Slot table")) or rpc_delay()'s queue
 * (net/sunrpc/sched.c: "delayq"); anything else WAIT_KINDS. @name: the first 24 bytes, NUL ended.
 */
static __always_inline __u32 wait_kind_of_name(const char *name)
{
	if (name[0] == 'F' && name[1] == 'o' && name[2] == 'r' && name[3] == 'e' &&
	    name[12] == 'S' && name[17] == 't')
		return WAIT_SESSION;
	if (name[0] == 'd' && name[1] == 'e' && name[2] == 'l' && name[3] == 'a' &&
	    name[4] == 'y' && name[5] == 'q' && name[6] == 0)
		return WAIT_DELAY;
	return WAIT_KINDS;
}

/*
 * When a wait for the send queue that began at @start ended: when its request went out, @xtime
 * (rq_xtime, stamped by every transmission with the clock of bpf_ktime_get_ns()), never after
 * @now. 0: not sent since the wait began.
 */
static __always_inline __u64 wait_sent_at(__u64 start, __u64 xtime, __u64 now)
{
	return xtime > start ? (xtime < now ? xtime : now) : 0;
}

enum wait_step {
	WAIT_STALE,			/* a dead task's entry at this address: drop it, count nothing */
	WAIT_GOES_ON,			/* not the kind asked about, or a send not gone out yet */
	WAIT_ENDED,			/* *end: when it ended */
};

/*
 * What becomes of wait @w of a task that started at @task_start, asked at @now about @only_kind
 * (WAIT_KINDS: any): a send queue's ends when its request went out (@sent, wait_sent_at()), or
 * at @now when the RPC is over (@final).
 */
static __always_inline enum wait_step wait_close(const struct waiter *w, __u64 task_start,
						 __u32 only_kind, bool final, __u64 sent, __u64 now,
						 __u64 *end)
{
	if (w->task_start != task_start)
		return WAIT_STALE;
	if (only_kind < WAIT_KINDS && w->kind != only_kind)
		return WAIT_GOES_ON;
	*end = now;
	if (w->kind == WAIT_SEND) {
		if (!sent && !final)
			return WAIT_GOES_ON;
		if (sent)
			*end = sent;
	}
	return WAIT_ENDED;
}

/* a wait of @w that ended at @end, on its transport @x */
static __always_inline void wait_account(struct xprt_stats *x, const struct waiter *w, __u64 end)
{
	if (w->kind >= WAIT_KINDS || end <= w->start_ns)
		return;
	hist_add(&x->waits[w->kind], end - w->start_ns);
	if (w->flags & WF_HELD) {
		__sync_fetch_and_add(&x->n.held_idle, 1);
		__sync_fetch_and_add(&x->n.held_idle_ns, end - w->start_ns);
	}
}

/*
 * A task joins queue @kind, now @qlen long with it: the backlog's length is kept fresh (tasks
 * stuck on a backlog with free slots fire nothing else), and each queue's longest.
 */
static __always_inline void wait_queued(struct xprt_stats *x, __u32 kind, __u32 qlen)
{
	if (kind == WAIT_SLOT) {
		x->backlog_now = qlen;
		atomic_max(&x->backlog_max, qlen);
	} else if (kind == WAIT_SEND) {
		atomic_max(&x->sending_max, qlen);
	}
}

/*
 * The open waits the function hooks count per kind (@nwaiting: every caller outside them looks
 * there first, so a path with no wait open costs no map lookup). A wait of @from replaced by one
 * of @to; WAIT_KINDS for none on either side.
 */
static __always_inline void waiting_move(__s64 *nwaiting, __u32 from, __u32 to)
{
	if (from < WAIT_KINDS)
		__sync_fetch_and_add(&nwaiting[from], -1);
	if (to < WAIT_KINDS)
		__sync_fetch_and_add(&nwaiting[to], 1);
}

#endif
