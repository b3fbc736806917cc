/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A transport's entry and its slots: found or made, sampled, a slot taken and given back;
 * the transport made and torn down.
 * Part of handlers.bpf.h: included twice, no include guard on purpose.
 */

/*
 * The congestion window and the credits in use: they move over UDP and RDMA (the server's grant,
 * each credit taken and given back), never over TCP, whose transports take no credit
 * (xprt_reserve_xprt, not xprt_reserve_xprt_cong) and whose cwnd no reply adjusts
 * (xprt_adjust_cwnd() is UDP's and the timer's of UDP). TCP's are read once, at first sight:
 * two reads and four compares fewer at each of an RPC's two events (~60 guest instructions).
 */
static __always_inline void FN(sample_cong)(struct xprt_stats *x, struct rpc_xprt *xprt)
{
	__u32 cwnd = RD(xprt, cwnd) >> RPC_CWNDSHIFT;
	__u32 cong = RD(xprt, cong) >> RPC_CWNDSHIFT;

	STORE_CHANGED(x->cwnd, cwnd);
	STORE_CHANGED(x->cong, cong);
	if (cwnd && (x->cwnd_min == 0 || cwnd < x->cwnd_min))
		x->cwnd_min = cwnd;
	if (cong > x->cong_max)
		x->cong_max = cong;
}

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
	FN(sample_cong)(z, xprt);
	z->max_reqs = RD(xprt, max_reqs);
	z->min_reqs = RD(xprt, min_reqs);
	s = RD(xprt, address_strings[RPC_DISPLAY_ADDR]);
	bpf_probe_read_kernel_str(z->addr, sizeof(z->addr), s);
	s = RD(xprt, address_strings[RPC_DISPLAY_PORT]);
	bpf_probe_read_kernel_str(z->port, sizeof(z->port), s);
	/* mountstats "sends" is the kernel's own count: report its growth since first seen */
	z->sends_base = RD(xprt, stat.sends);
	z->connects_base = RD(xprt, stat.connect_count);
	z->recvs_base = RD(xprt, stat.recvs);
	z->first_seen_ns = now;
	levels_open(z, now);
	effective_limit(z, (__u64)xprt);
	/* only where the running stack's BTF has the field and the value: VAST's multipath */
	if (bpf_core_field_exists(((struct rpc_xprt___vast *)xprt)->role) &&
	    bpf_core_enum_value_exists(enum rpc_xprt_role_t___vast, RPC_XPRT_ROLE_MD___vast) &&
	    RD((struct rpc_xprt___vast *)xprt, role) ==
	    bpf_core_enum_value(enum rpc_xprt_role_t___vast, RPC_XPRT_ROLE_MD___vast))
		z->flags |= XF_METADATA;
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
 * has no entry of it, else in the hash. When two CPUs see a transport first at once, the loser
 * must count on the winner's entry, not replace it (a replaced entry loses the counts made on
 * it: seen as in_use -1). In the hash, an insert if absent does it, the entry built whole in
 * per-CPU scratch first. In the array, the slot is claimed by its key (the address | 1), made
 * whole in place (tab_finish()), and the key then set to the address; a CPU that finds the claim
 * makes it whole too, from its own scratch, and counts on it at once: no CPU waits for another.
 * A new entry replaces a destroyed one in the hash (the kernel may reuse the address); a
 * destroyed one in a slot stays there until user space has reported it. One race is left: a
 * transport first seen on two CPUs at once, one finding its slot held (by a destroyed
 * transport), the other finding it freed by user space meanwhile, gets two entries. It needs a
 * transport made before attach, with an id aliasing a destroyed one's.
 */
static __always_inline struct xprt_stats *FN(get_xprt)(struct rpc_xprt *xprt, __u64 now)
{
	__u64 key = (__u64)xprt, k = 0, claim;
	struct xprt_stats *x = NULL, *h = NULL, *s;
	__u32 zero = 0, slot = 0;
	bool claimed = false;

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
		/* another transport's slot, or a destroyed one's at this address: the hash */
		if (k && (k & ~1ull) != key)
			x = NULL;
		else if (k && !(k & 1))
			x = NULL;
	}
	/* a slot claimed for this address has no live entry of it in the hash */
	if (!x || !k) {
		h = bpf_map_lookup_elem(&xprts, &key);
		if (h && !(h->flags & XF_DESTROYED))
			return FN(fresh_port)(h, xprt);
	}
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
		claim = *(volatile __u64 *)&s->key | 1;
		s->key = 0;
		if (!k) {
			claimed = __sync_val_compare_and_swap(&x->key, 0, claim) == 0;
			k = claimed ? claim : x->key;
		}
		if (k == claim) {
			tab_finish(x, s);
			if (claimed)
				__sync_fetch_and_or(&xprt_tab_used[(slot / 64) & (XPRT_SLOTS / 64 - 1)],
						    1ull << (slot % 64));
			/* the test build's claim stays until enough CPUs have met it */
			if (claim_meets ? !claimed && __sync_add_and_fetch(&x->__pad0, 1) >= claim_meets : claimed) {
				__sync_val_compare_and_swap(&x->key, claim, claim & ~1ull);
				pool_done(x, key);
			}
			return x;
		}
		if ((k & ~1ull) == key)
			return FN(fresh_port)(x, xprt);
	}
	x = insert_or_get(&xprts, &key, s, h ? BPF_ANY : BPF_NOEXIST, CNT_XPRTS_FULL, NULL);
	if (x)
		pool_done(s, key);
	return x;
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
	__u32 num_reqs = RD(xprt, num_reqs);
	__u64 connects = RD(xprt, stat.connect_count) - x->connects_base;

	if (x->ident != IDENT_TCP)
		FN(sample_cong)(x, xprt);
	STORE_CHANGED(x->num_reqs, num_reqs);
	STORE_CHANGED(x->backlog_now, backlog);
	/* mountstats' sends grows with every RPC: always a store */
	x->n.sends = RD(xprt, stat.sends) - x->sends_base;
	x->n.recvs = RD(xprt, stat.recvs) - x->recvs_base;
	STORE_CHANGED(x->n.connects, connects);
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
	__u32 where, num_reqs, backlog, h;
	bool exact;
	__u64 w;

	x = FN(get_xprt)(xprt, now);
	if (!x)
		return NULL;
	/* the level and the pending hand-offs before num_reqs (level_cap()) */
	w = x->occ;
	h = x->handing;
	backlog = RD(xprt, backlog.qlen);
	num_reqs = FN(sample)(x, xprt, backlog, now);
	how = track_acquire((__u64)rqst, &where);
	/* the kernel's num_reqs proves the level over TCP and UDP, not RDMA's pool (account.h) */
	exact = x->ident == IDENT_TCP || x->ident == IDENT_UDP;
	if (exact && !handoff && level_cap(x, w, h, num_reqs, how != ACQ_KNOWN, now, epoch))
		count(CNT_LEVEL_CORRECTIONS);
	note_level((__u64)rqst, where,
		   account_acquire(x, how, handoff ? release_judged((__u64)rqst) : ACQ_PLAIN,
				   exact ? num_reqs : 0, now, epoch));
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
	__u32 backlog;
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
	release_mark((__u64)rqst, level >= 0, account_release(x, level >= 0, backlog, now, epoch));
	/*
	 * No level_cap() here: inlined into rpc_stats_latency's program it took 6.12's verifier past
	 * its million instructions (tp_btf refused); the next take applies it.
	 */
	FN(sample)(x, xprt, backlog, now);
	return x;
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
