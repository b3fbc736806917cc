/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A request sent and awaiting its reply: the time of its first transmission kept beside its
 * mark, so that user space can tell a server gone silent (requests sent, none answered) from a
 * slot table that is merely full (#59). A retransmission keeps the first time: the age is how
 * long the request has waited for any reply. Only requests whose slot was taken while attached
 * have a mark; one in the inflight hash (its mark taken by another) is not timed (the hash's
 * requests are few: user space says how many).
 * Part of handlers.bpf.h: included twice, no include guard on purpose.
 */

/*
 * xprt_transmit fires after each transmission attempt (xprt_request_transmit()); a negative
 * status is an attempt that sent nothing (RDMA fires for failed posts too).
 */
static __always_inline int FN(handle_xprt_transmit)(struct rpc_rqst *rqst, int status)
{
	__u64 rq = (__u64)rqst;
	__u32 i;

	ARMED_OR_RETURN();
	if (!rqst || status < 0)
		return 0;
	i = mark_of(rq);
	if (marks[i] != rq)
		return 0;
	/*
	 * The RPC's first transmission: xprt_request_transmit() counts rq_ntrans before it sends
	 * (xprt_request_init() set it to 0 for this RPC), so it reads 1 here; a later one keeps
	 * the first time, unless none was kept (attached between them). A request reused by a
	 * new RPC overwrites its old time here: nothing is cleared where slots are taken, whose
	 * programs are at the verifier's bound on 7.x (__xprt_set_rq's hand-off). The release
	 * clears it (track_release()).
	 */
	if (RD(rqst, rq_ntrans) > 1 && mark_sent[i])
		return 0;
	mark_xprt[i] = (__u64)RD(rqst, rq_xprt);
	/* the transport before the time (an exchange orders them): who sees the time sees it */
	__sync_lock_test_and_set(&mark_sent[i], bpf_ktime_get_ns());
	return 0;
}
