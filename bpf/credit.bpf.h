/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMA and UDP credits: in use against the grant in force at each moment.
 * Part of handlers.bpf.h: included twice, no include guard on purpose.
 */

/*
 * @c moves to @level credits in use of @limit granted at @now. Time goes to level buckets as a
 * transport's slots' (telescoping: account.h), against the limit of that moment: the grant moves
 * with the server's replies and drops to one credit at every connect (#46). One writer at a
 * time (transport_lock), plain stores: a copy user space reads while they land (in any order
 * the compiler or the CPU gives them) has no open bucket or two, and is read again
 * (levels_whole()).
 */
static __always_inline void FN(credit_level)(struct credit_levels *c, __u32 level, __u32 limit, __u64 now)
{
	__u32 b = level_bucket(level, limit), old = c->bucket;
	__u64 t = now + LEVEL_T_BIAS;

	/* no grant is no limit to be at (a cwnd is never 0: the client floors a grant of 0 to 1) */
	if (b >= LEVEL_BUCKETS || !limit)
		return;
	if (!c->limit) {
		/* the first event: no stretch open before it */
		c->level_ns[b] -= t;
		c->limit_min = limit;
	} else if (old != b) {
		if (old < LEVEL_BUCKETS)
			c->level_ns[old] += t;
		c->level_ns[b] -= t;
	}
	c->bucket = b;
	c->level = level;
	if (level > c->peak)
		c->peak = level;
	if (c->limit && limit != c->limit)
		c->limit_changes++;
	if (limit < c->limit_min)
		c->limit_min = limit;
	if (limit > c->limit_max)
		c->limit_max = limit;
	c->limit = limit;
}

/*
 * xprt_get_cong fires in __xprt_get_cong() before the test that takes a credit (unless the
 * request holds one: then it does not fire), xprt_put_cong in __xprt_put_cong() after one is
 * given back; both under transport_lock, so the kernel's own cong and cwnd, read here, are the
 * level and the grant with nothing between ("SUNRPC: Add trace points to observe transport
 * congestion control", v5.5). A credit is RPC_CWNDSCALE of cong; UDP's cwnd moves by fractions
 * of one, and allows a request while cong < cwnd: its limit is cwnd rounded up.
 */
static __always_inline int FN(handle_cong)(struct rpc_xprt *xprt, bool take)
{
	struct xprt_stats *x;
	unsigned long cong, cwnd;
	__u32 level;

	ARMED_OR_RETURN();
	if (!xprt || !credit_levels)
		return 0;
	x = FN(find_xprt)(xprt);
	if (!x)
		return 0;
	cong = RD(xprt, cong);
	cwnd = RD(xprt, cwnd);
	level = cong >> RPC_CWNDSHIFT;
	if (take && cong < cwnd)
		level++;
	FN(credit_level)(&x->credit, level, (cwnd + (1u << RPC_CWNDSHIFT) - 1) >> RPC_CWNDSHIFT,
			 bpf_ktime_get_ns());
	return 0;
}

static __always_inline int FN(handle_get_cong)(struct rpc_xprt *xprt)
{
	return FN(handle_cong)(xprt, true);
}

static __always_inline int FN(handle_put_cong)(struct rpc_xprt *xprt)
{
	return FN(handle_cong)(xprt, false);
}
