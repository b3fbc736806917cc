/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slot accounting, shared by the BPF programs and the host unit tests (tests/unit/test_account.c):
 * what one acquire, release or teardown does to a transport's numbers. Pure: the caller does the
 * map operations and passes what they found, the time and the epoch. Only the compiler's __sync
 * builtins, which BPF (with -mcpu=v3 atomics) and the host both have.
 */
#ifndef SLOTSCOPE_ACCOUNT_H
#define SLOTSCOPE_ACCOUNT_H

#include "slotscope.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* a few tries are enough: each failure means another CPU raised it meanwhile */
static __always_inline void atomic_max(__u32 *p, __u32 v)
{
	for (int i = 0; i < 4; i++) {
		__u32 cur = *p;

		if (v <= cur || __sync_val_compare_and_swap(p, cur, v) == cur)
			return;
	}
}

static __always_inline void hist_add(struct wait_hist *h, __u64 ns)
{
	__u32 b = lat_bucket(ns);

	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
	if (b < LAT_BUCKETS)
		__sync_fetch_and_add(&h->buckets[b], 1);
	for (int i = 0; i < 4; i++) {
		__u64 cur = h->max_ns;

		if (ns <= cur || __sync_val_compare_and_swap(&h->max_ns, cur, ns) == cur)
			break;
	}
}

/*
 * level_bucket() of @level against @limit, with the limit's reciprocal kept in the entry (made
 * again when the limit moves: an RDMA pool raised) instead of a divide at every change of a
 * table above LEVEL_BUCKETS - 1 slots.
 */
static __always_inline __u32 xprt_level_bucket(struct xprt_stats *x, __s32 lvl, __u32 limit)
{
	__u32 level = lvl > 0 ? (__u32)lvl : 0;
	__u64 r;

	if (level == 0)
		return 0;
	if (limit == 0 || level >= limit)
		return LEVEL_BUCKETS - 1;
	if (limit - 1 <= LEVEL_BUCKETS - 2 || limit > LEVEL_RECIP_MAX_LIMIT)
		return level_bucket(level, limit);
	r = x->level_recip;
	if ((r & LEVEL_RECIP_LIMIT_MASK) != limit) {
		r = level_recip(limit);
		x->level_recip = r;
	}
	return level_bucket_recip(level, r);
}

/*
 * Time at each level by telescoping sums: a change at @t that leaves bucket @from for bucket @to
 * adds t to level_ns[from] and takes t from level_ns[to], so a bucket holds the time of its
 * closed stretches less the start of its open one, and user space adds its own clock to the one
 * open bucket (levels_close()). Each change touches only its own two buckets, with the level
 * its own fetch-and-add returned: any interleaving of CPUs, or a vCPU descheduled between its
 * clock read and its change, moves a change's time by that delay at most. (A chain of stamps
 * gives a whole stretch to the level seen by whichever change stamps first: 10 points of a
 * saturated table's time in test_level_truth on a loaded host.) LEVEL_T_BIAS makes the open
 * bucket negative beyond doubt; @to LEVEL_BUCKETS closes without opening (teardown).
 */
#define LEVEL_T_BIAS	(1ull << 62)

/*
 * Out of line: inlined, the compiler reloaded a checked bucket from a 32-bit stack spill that
 * 6.1's verifier tracks no bounds through (a refused raw_tp program); here the check and the
 * access are a few registers apart.
 */
static __attribute__((noinline)) void level_shift(struct xprt_stats *x, __u32 from, __u32 to, __u64 t)
{
	t += LEVEL_T_BIAS;
	if (from == to)
		return;
	if (from < LEVEL_BUCKETS)
		__sync_fetch_and_add(&x->level_ns[from], t);
	if (to < LEVEL_BUCKETS)
		__sync_fetch_and_add(&x->level_ns[to], -t);
}

/* the entry of a transport first seen at @now: its stretch at level 0 opens then */
static __always_inline void levels_open(struct xprt_stats *x, __u64 now)
{
	x->last_change_ns = now;
	x->level_ns[0] = -(now + LEVEL_T_BIAS);
}

/* a bucket's value as read holds an open stretch: its start, less the bias, not yet closed */
static inline bool level_is_open(__u64 v)
{
	return (__s64)v < -(__s64)(LEVEL_T_BIAS >> 1);
}

/*
 * User space: whether a copy of the levels is whole. Each change's two adds land after its
 * fetch-and-add, so across CPUs a later change's adds can land before an earlier one's: a bucket
 * then holds a close without its open (about +2^62), or two opens, or none is open. Whole: one
 * open bucket (none once @destroyed), none beyond the bias. A torn copy is read again.
 */
static inline bool levels_whole(const __u64 *level_ns, bool destroyed)
{
	int open = 0;

	for (int b = 0; b < LEVEL_BUCKETS; b++) {
		if (level_is_open(level_ns[b]))
			open++;
		else if ((__s64)level_ns[b] > (__s64)(LEVEL_T_BIAS >> 1))
			return false;
	}
	return open == (destroyed ? 0 : 1);
}

/*
 * User space: the levels as read from the map (whole: levels_whole()), resolved at @end (the snapshot's clock, or the
 * teardown's): the open bucket gets its stretch up to @end. A change whose clock was read a
 * little before the one it follows can leave a closed bucket slightly negative: 0.
 */
static inline void levels_close(__u64 *level_ns, __u64 end)
{
	for (int b = 0; b < LEVEL_BUCKETS; b++) {
		__s64 v = (__s64)(level_is_open(level_ns[b]) ? level_ns[b] + end + LEVEL_T_BIAS : level_ns[b]);

		level_ns[b] = v > 0 ? (__u64)v : 0;
	}
}

/*
 * More RDMA requests in use than the assumed pool holds: it has the slack of "xprtrdma: Add
 * request-pool slack for delayed recycling", DIV_ROUND_UP(max_reqs, 8), or more if the level
 * says so. The limit moves in the same word as the level (struct xprt_stats' occ), so every
 * change is bucketed against the limit it happened under. The stretch open when the raise is
 * seen (since last_change_ns, at @old in use) goes to the raised pool's bucket: it was never at
 * the pool's real limit.
 */
static __always_inline void rdma_pool_raise(struct xprt_stats *x, __s32 old, __u64 now)
{
	__u32 to = x->max_reqs + (x->max_reqs + 7) / 8, lim, mid, top;
	__u64 w = x->occ, t0;
	__s32 lvl = OCC_LEVEL(w);

	lim = OCC_LIMIT(w);
	if (lvl <= 0 || (__u32)lvl <= lim)
		return;
	if ((__u32)lvl > to)
		to = (__u32)lvl;
	/*
	 * One try (a loop here took 6.12's verifier past its million instructions): the next
	 * acquire over the limit tries again; till then the level counts as at the old limit.
	 */
	if (__sync_val_compare_and_swap(&x->occ, w, OCC_PACK(to, lvl)) != w)
		return;
	__sync_fetch_and_or(&x->flags, XF_LIMIT_INFERRED);
	t0 = x->last_change_ns;
	if (t0 > now)
		t0 = now;
	mid = xprt_level_bucket(x, old, to);
	top = xprt_level_bucket(x, lvl, to);
	level_shift(x, LEVEL_BUCKETS - 1, mid, t0);
	level_shift(x, mid, top, now);
	/* the open stretch's start, for a raise after this one (a pool raised level by level) */
	x->last_change_ns = mid == top ? t0 : now;
}

/*
 * Occupancy changes by @delta at @now, in interval @epoch (user space bumps it at every interval
 * boundary): one fetch-and-add on the level and limit together, then the time moves from the
 * old level's bucket to the new one's (level_shift()). The interval peak lives in the slot of
 * the epoch's parity and restarts, from the level it inherits, the first time a change sees a
 * new epoch there.
 */
static __always_inline __s32 slot_moved(struct xprt_stats *x, __u64 w, int delta, __u64 now, __u32 e);

static __always_inline __s32 slot_change(struct xprt_stats *x, int delta, __u64 now, __u32 e)
{
	return slot_moved(x, __sync_fetch_and_add(&x->occ, (__u64)(__s64)delta << 32), delta, now, e);
}

/* what a change of @delta from the word @w (as its atomic returned it) does to time and peaks */
static __always_inline __s32 slot_moved(struct xprt_stats *x, __u64 w, int delta, __u64 now, __u32 e)
{
	__s32 old = OCC_LEVEL(w), new = old + delta;
	__u32 lim = OCC_LIMIT(w), from, to, i = e & 1;

	from = xprt_level_bucket(x, old, lim);
	to = xprt_level_bucket(x, new, lim);
	if (from != to) {
		x->last_change_ns = now;
		level_shift(x, from, to, now);
	}
	if (delta > 0 && new > 0 && (__u32)new > lim && (x->flags & (XF_LIMIT_ASSUMED | XF_LIMIT_INFERRED)))
		rdma_pool_raise(x, old, now);
	if (new <= 0)
		return new;
	atomic_max(&x->peak, new);
	if (x->epoch_of[i] != e) {
		x->epoch_of[i] = e;
		x->epoch_peak[i] = old > 0 ? old : 0;
	}
	atomic_max(&x->epoch_peak[i], new);
	return new;
}

/* one pending hand-off taken, if there is one: the slot it kept in use is the one now taken */
static __always_inline bool handing_take(struct xprt_stats *x)
{
	for (int i = 0; i < 4; i++) {
		__u32 h = x->handing;

		if (!h)
			return false;
		if (__sync_val_compare_and_swap(&x->handing, h, h - 1) == h)
			return true;
	}
	return false;
}

/*
 * How a slot is taken: plainly, or handed by a release (xprt_free_slot() to a backlogged task)
 * as that release was judged. A release judged free (no waiter left for it beside the pending
 * hand-offs) whose request a task that queued meanwhile takes after all must count its slot
 * again, and take no pending hand-off's credit: taking one moved the deficit from credit to
 * credit while the backlog lasted (test_level_truth, 6.1, tracepoints: 3.1 points of a full
 * table at one less, once in 20 runs). Which way its own release went is known per request
 * (release_judged()); ACQ_HANDED when it is not (a release before attach, or its record taken
 * by another request's).
 */
enum acq_via {
	ACQ_PLAIN,
	ACQ_HANDED,		/* its release kept its slot in use for it (or not known) */
	ACQ_HANDED_FREED,	/* its release was counted as a free */
};

/* what the inflight map said of a request taking a slot */
enum acq_track {
	ACQ_KNOWN,	/* already there: counted when it was first taken */
	ACQ_NEW,	/* inserted now: counted now */
	ACQ_UNTRACKED,	/* no room (--max-inflight): neither it nor its release is counted */
};

/*
 * A slot taken, as @how the inflight map tracks its request: the in-flight curve's bucket of the
 * level it holds its slot at (the slots in use, its own included), or LEVEL_BUCKETS when there
 * is nothing to remember. A handed-off request fires xprt_reserve again when its new owner runs:
 * ACQ_KNOWN, its level already noted. A hand-off whose release was kept in use (account_release)
 * changes no level: the slot never became free, and the level it is taken at is today's. An
 * untracked one's release will not be ours to count, so the slot kept in use for it leaves the
 * count now: occupancy is of tracked requests alone.
 */
static __always_inline __u32 account_acquire(struct xprt_stats *x, enum acq_track how, enum acq_via via,
					     __u32 cap, __u64 now, __u32 e)
{
	bool handoff = via != ACQ_PLAIN, added = false;
	__u64 w = 0;
	__s32 level;

	if (how == ACQ_UNTRACKED) {
		if (!(x->flags & XF_UNTRACKED))
			__sync_fetch_and_or(&x->flags, XF_UNTRACKED);
		if (via == ACQ_HANDED && handing_take(x))
			slot_change(x, -1, now, e);
		return LEVEL_BUCKETS;
	}
	if (how == ACQ_KNOWN)
		return LEVEL_BUCKETS;
	__sync_fetch_and_add(&x->n.acquires, 1);
	if (handoff) {
		__sync_fetch_and_add(&x->n.handoffs, 1);
		/* a release judged free: no credit is its own, so it takes none (enum acq_via) */
		if (via == ACQ_HANDED && handing_take(x)) {
			level = x->in_use;
			return xprt_level_bucket(x, level > 0 ? level : 1, x->limit);
		}
		/*
		 * @cap: num_reqs over TCP and UDP, read in this hand-off, which runs under reserve_lock
		 * with every request allocated: a level already there counts this slot (level_raise()
		 * put it back as a pending hand-off, whose credit it takes), and one more would count
		 * it twice (6.12, tracepoints: a peak of 17 of 16). 0: no such proof (RDMA).
		 */
		if (cap) {
			/*
			 * The level read and the slot added as one compare-and-swap: a take counted
			 * on another CPU in between would otherwise take it past num_reqs (6.12,
			 * tracepoints: a peak of 17 of 16 once in 36 runs). One swap, not a loop:
			 * a loop's copies took 7.2's verifier past its million instructions on
			 * __xprt_set_rq's program; a lost swap reads the level once more and adds.
			 */
			__u64 seen = x->occ;
			__s32 lvl = OCC_LEVEL(seen);

			if (lvl > 0 && (__u32)lvl >= cap) {
				handing_take(x);
				return xprt_level_bucket(x, lvl, x->limit);
			}
			if (__sync_val_compare_and_swap(&x->occ, seen, seen + (1ull << 32)) == seen) {
				w = seen;
				added = true;
			} else {
				lvl = OCC_LEVEL(x->occ);
				if (lvl > 0 && (__u32)lvl >= cap) {
					handing_take(x);
					return xprt_level_bucket(x, lvl, x->limit);
				}
			}
		}
	} else if (cap && x->handing) {
		/*
		 * A plain take over TCP or UDP, its own request counted in @cap (num_reqs): a level
		 * already at @cap counts it as a pending hand-off level_raise() put back, whose credit
		 * it takes. level_cap() should have taken such a level down first, but its swap fails
		 * when another CPU moved the level meanwhile, and the add then went one past the
		 * kernel's count (6.12, tracepoints: a peak of 17 of 16, once in 80 runs).
		 */
		__s32 lvl = OCC_LEVEL(x->occ);

		if (lvl > 0 && (__u32)lvl >= cap && handing_take(x))
			return xprt_level_bucket(x, lvl, x->limit);
	} else if (x->ident == IDENT_RDMA && x->handing &&
		   !(x->flags & (XF_LIMIT_ASSUMED | XF_LIMIT_INFERRED))) {
		/*
		 * An RDMA request taken the plain way while its pool is all in use by our count, with
		 * a release kept in use for a hand-off: the pool holds no other, so that release's
		 * request went back to it instead of being handed (delayed recycling, 6.12.111+: the
		 * woken task takes it itself), and this is the hand-off (CI: 145 of a counted 144 in
		 * the tracepoint design on 6.12). The level stays at the pool, the bucket it was in.
		 * Not over TCP, whose plain takes at a full table are not all such (test_level_truth
		 * moved 1.3 points), nor against an assumed pool, which only such a level corrects.
		 */
		__u64 word = x->occ;
		__s32 lvl = OCC_LEVEL(word);

		if (OCC_LIMIT(word) && lvl >= (__s32)OCC_LIMIT(word) && handing_take(x))
			return xprt_level_bucket(x, lvl, OCC_LIMIT(word));
	}
	/* one copy of the level's move (the verifier walks each copy): the swap's word, or the add's */
	if (!added)
		w = __sync_fetch_and_add(&x->occ, (__u64)1 << 32);
	level = slot_moved(x, w, 1, now, e);
	return xprt_level_bucket(x, level > 0 ? level : 1, x->limit);
}

/*
 * A tracked request whose slot was taken at level bucket @b is done, after @rtt and @exec ns:
 * the curve's point. @b is LEVEL_BUCKETS or more when the level is not known (never noted).
 */
static __always_inline void curve_add(struct xprt_stats *x, __u32 b, __s64 rtt, __s64 exec)
{
	if (b >= LEVEL_BUCKETS)
		return;
	__sync_fetch_and_add(&x->curve[b].rpcs, 1);
	__sync_fetch_and_add(&x->curve[b].rtt_ns, rtt > 0 ? (__u64)rtt : 0);
	__sync_fetch_and_add(&x->curve[b].exec_ns, exec > 0 ? (__u64)exec : 0);
}

/*
 * A slot given back. @tracked: its acquire was counted (the inflight entry was there); one taken
 * before attach is counted apart and never drives occupancy below what was seen taken.
 * @backlog: tasks waiting for a slot as the release is made. The release is seen before
 * xprt_release() reaches xprt_free_slot(), which hands the request to the first of them: while
 * more wait than hand-offs are pending, this one will be handed too, and its slot stays in use
 * (the level must not dip below the limit at every hand-off of a saturated table). Two releases
 * racing for one waiter: the second finds the hand-off taken and frees its slot. Returns whether
 * the slot was kept in use: the request's hand-off, if one comes, takes the credit (acq_via).
 */
static __always_inline bool account_release(struct xprt_stats *x, bool tracked, __u32 backlog,
					    __u64 now, __u32 e)
{
	if (!tracked) {
		__sync_fetch_and_add(&x->n.preattach_releases, 1);
		return false;
	}
	__sync_fetch_and_add(&x->n.releases, 1);
	for (int i = 0; i < 4; i++) {
		__u32 h = x->handing;

		if (backlog <= h)
			break;
		if (__sync_val_compare_and_swap(&x->handing, h, h + 1) == h)
			return true;
	}
	slot_change(x, -1, now, e);
	return false;
}

/*
 * Pending hand-offs never outnumber the waiters they are for: a task leaves the backlog by
 * taking one (which the hand-off hook sees first), so more pending than @backlog waiting means
 * some were not made (a waiter killed, or woken by a release that was counted as freeing). Those
 * slots were freed: the level drops now, at the first event that can tell.
 */
static __always_inline void handing_heal(struct xprt_stats *x, __u32 backlog, __u64 now, __u32 e)
{
	__u32 h = x->handing;

	if (h <= backlog || __sync_val_compare_and_swap(&x->handing, h, backlog) != h)
		return;
	slot_change(x, -(int)(h - backlog), now, e);
}

/*
 * The kernel's own count, where it is exact: over TCP and UDP a hand-off (__xprt_set_rq(), or
 * rpc_task_wakeup from the backlog) runs inside xprt_free_slot(), which holds reserve_lock,
 * under which alone num_reqs moves (xprt_dynamic_alloc_slot(), xprt_dynamic_free_slot()), and
 * no request is free then: a task waits on the backlog only when none is, and every release
 * since went to a waiter. In use = @num_reqs. A release is judged at rpc_stats_latency, before
 * its xprt_free_slot(): one judged free (backlog <= pending hand-offs) whose request a waiter
 * that queued meanwhile took after all leaves the level one low, and its hand-off takes another
 * release's pending credit, which moves the deficit on from credit to credit while the backlog
 * lasts (test_level_truth, 6.1: 850 ms of a full table at 15 of 16). The slots the level lacks
 * are put back as pending hand-offs, as many as the @waiting tasks left on the backlog can take
 * beside the hand-offs already pending: a later hand-off, or a free (handing_heal(),
 * level_cap()), settles each. The rest of a gap is requests taken before attach (or untracked),
 * which the level does not count. After the hand-off's own account_acquire(). Returns the slots
 * put back (0: none lacked, or the word moved meanwhile: the next hand-off checks).
 */
static __always_inline __u32 level_raise(struct xprt_stats *x, __u32 num_reqs, __u32 waiting, __u64 now,
					 __u32 e)
{
	__u64 w = x->occ;
	__s32 lvl = OCC_LEVEL(w);
	__u32 d, h = x->handing;

	/* with requests untracked (XF_UNTRACKED) the level is of the tracked ones alone */
	if (lvl < 0 || num_reqs <= (__u32)lvl || (OCC_LIMIT(w) && num_reqs > OCC_LIMIT(w)) || waiting <= h ||
	    (x->flags & XF_UNTRACKED))
		return 0;
	d = num_reqs - (__u32)lvl;
	if (d > waiting - h)
		d = waiting - h;
	if (__sync_val_compare_and_swap(&x->occ, w, w + ((__u64)d << 32)) != w)
		return 0;
	__sync_fetch_and_add(&x->handing, d);
	slot_moved(x, w, (int)d, now, e);
	return d;
}

/*
 * A plain take over TCP or UDP (or a release): every request the level counts is one the kernel
 * still has allocated (@num_reqs, read after a take's allocation; a release is booked before its
 * request is freed), and a take's own, @own, is not counted yet: the level is at most @num_reqs
 * - @own, whatever the other CPUs are doing (a request they allocated and have not announced
 * only makes num_reqs larger), provided the level (@w, the occupancy word) and the pending
 * hand-offs (@h) were read before num_reqs: a take announced in between would otherwise count
 * in the level and not yet in num_reqs, and the compare-and-swaps on both words, which must still
 * hold what was read, are what make the comparison one moment's. Beyond that the level holds
 * pending hand-offs that will not come (their requests were freed, or level_raise() counted a
 * take before its own event): those go. Before a take's account_acquire() (at a release too it
 * would hold, but inlined there it took rpc_stats_latency's program past 6.12's verifier limit).
 * Returns the slots taken off.
 */
static __always_inline __u32 level_cap(struct xprt_stats *x, __u64 w, __u32 h, __u32 num_reqs, bool own,
				       __u64 now, __u32 e)
{
	__s32 lvl = OCC_LEVEL(w), cap = (__s32)num_reqs - (own ? 1 : 0);
	__u32 d;

	/*
	 * Pending hand-offs only: a level over num_reqs with none pending may be a release that
	 * skipped its hook, whose request's next use (its inflight entry still there) counts
	 * nothing and so puts it right; taken off here, that use would leave the level one low.
	 */
	if (lvl <= cap || !h || cap < 0)
		return 0;
	d = (__u32)(lvl - cap);
	if (d > h)
		d = h;
	if (__sync_val_compare_and_swap(&x->handing, h, h - d) != h)
		return 0;
	if (__sync_val_compare_and_swap(&x->occ, w, w - ((__u64)d << 32)) != w) {
		/* the level moved meanwhile: the credits go back, the next take checks again */
		__sync_fetch_and_add(&x->handing, d);
		return 0;
	}
	slot_moved(x, w, -(int)d, now, e);
	return d;
}

/* The transport is gone: the last stretch is closed, so its levels add up to its lifetime. */
static __always_inline void account_destroy(struct xprt_stats *x, __u64 now)
{
	__u64 w = x->occ;

	if (x->flags & XF_DESTROYED)
		return;
	level_shift(x, xprt_level_bucket(x, OCC_LEVEL(w), OCC_LIMIT(w)), LEVEL_BUCKETS, now);
	x->destroyed_ns = now;
	__sync_fetch_and_or(&x->flags, XF_DESTROYED);
}

#endif
