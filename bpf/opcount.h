/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-op counting, shared by the BPF programs and user space (tests/unit/test_account.c): how
 * the inflight requests split between the array and the hash, what one RPC adds to its op's
 * counts, and which per-CPU op slots a tick reads again. Pure, like account.h.
 */
#ifndef SLOTSCOPE_OPCOUNT_H
#define SLOTSCOPE_OPCOUNT_H

#include "slotscope.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/*
 * @n requests tracked at once (--max-inflight): *@marks in the direct-mapped array (a power of
 * two, at most half of @n and MAX_MARKS; 0 below 4: the array is off) and *@hashed in the hash.
 */
static inline void inflight_split(__u32 n, __u32 *marks, __u32 *hashed)
{
	__u32 m = MAX_MARKS;

	while (m > n / 2)
		m >>= 1;
	*marks = m >= 2 ? m : 0;
	*hashed = n - *marks;
}

/*
 * One RPC of an op, into @c: the op's slot of this CPU (@shared false, plain adds), or the op's
 * own entry (@shared, atomic adds). @v: its queue, RTT and execute times. The same arithmetic as
 * rpc_count_iostats_metrics(), so the sums match mountstats.
 */
#define OP_ADD(c, f, n, shared)						\
	do {								\
		if (shared)						\
			__sync_fetch_and_add(&(c)->f, (n));		\
		else							\
			(c)->f += (n);					\
	} while (0)

static __always_inline void op_account(struct op_counts *c, bool shared, int ntrans, __u32 timeouts,
				       bool error, __u64 sent, __u64 recvd, const __s64 *v)
{
	OP_ADD(c, count, 1, shared);
	OP_ADD(c, ntrans, ntrans > 1 ? ntrans : 1, shared);
	if (timeouts)
		OP_ADD(c, timeouts, timeouts, shared);
	if (error)
		OP_ADD(c, errors, 1, shared);
	OP_ADD(c, bytes_sent, sent, shared);
	OP_ADD(c, bytes_recv, recvd, shared);
	for (int s = 0; s < STAGES; s++) {
		__u64 ns = v[s] > 0 ? v[s] : 0;
		__u32 b = lat_bucket(ns);

		OP_ADD(c, sum_ns[s], ns, shared);
		if (b < LAT_BUCKETS)
			OP_ADD(c, hist[s][b], 1, shared);
	}
}

/* @src's counts added to @dst's: a CPU's slot onto the op's own counts (user space) */
static inline void op_counts_add(struct op_counts *dst, const struct op_counts *src)
{
	__u64 *d = (__u64 *)dst;
	const __u64 *s = (const __u64 *)src;

	for (unsigned int i = 0; i < sizeof(*dst) / sizeof(__u64); i++)
		d[i] += s[i];
}

/*
 * An op whose call data is an nfs_pgio_header (nfs_initiate_pgio()): READ, WRITE and NFSv4.2's
 * READ_PLUS (nfs42_proc_read_plus's rpc_proc_info, 9dd70578ee84 "NFS: Add READ_PLUS support"),
 * the procs that lead to a superblock. READDIR and READLINK share READ's first letters, not its
 * call data.
 */
static __always_inline bool op_is_page_io(const char *op)
{
	if (op[0] == 'W')
		return op[1] == 'R' && op[2] == 'I' && op[3] == 'T' && op[4] == 'E' && !op[5];
	if (op[0] != 'R' || op[1] != 'E' || op[2] != 'A' || op[3] != 'D')
		return false;
	return !op[4] || (op[4] == '_' && op[5] == 'P' && op[6] == 'L' && op[7] == 'U' && op[8] == 'S' &&
			  !op[9]);
}

/*
 * The ops a client sends to keep its lease while nothing else is asked: NFSv4.1's SEQUENCE
 * (alone in its compound), NFSv4.0's RENEW, and the NULL ping. A server whose nfsd still answers
 * them while every WRITE hangs is not answering the job (#59).
 */
static __always_inline bool op_is_keepalive(const char *op)
{
	if (op[0] == 'S')
		return op[1] == 'E' && op[2] == 'Q' && op[3] == 'U' && op[4] == 'E' && op[5] == 'N' &&
		       op[6] == 'C' && op[7] == 'E' && !op[8];
	if (op[0] == 'R')
		return op[1] == 'E' && op[2] == 'N' && op[3] == 'E' && op[4] == 'W' && !op[5];
	return op[0] == 'N' && op[1] == 'U' && op[2] == 'L' && op[3] == 'L' && !op[4];
}

/*
 * User space: whether what a program stamped with epoch @stamp (op_stamp, jobio_stamp) is read
 * again at the tick that moved the epoch to @cur: stamped with @cur or one of the two before. A
 * count that lands after its entry was read, or a stamp put back by a run that read the epoch
 * before it moved by one, is read at the next tick. (A run held up across more epochs is
 * caught by the full reads user space makes now and then: engine_int.h, SNAP_FULL_EVERY.)
 */
static inline bool stamp_due(__u32 stamp, __u32 cur)
{
	return cur - stamp <= 2;
}

/*
 * User space: the next run of op_pcpu slots due (stamp_due()) from slot @k on, of @hi, as
 * [*from, *to); false when none is left. Slots not due between two due ones, up to @gap of
 * them, are read with them: one call, not two.
 */
static inline bool op_slots_due_run(const __u32 *stamp, __u32 k, __u32 hi, __u32 cur, __u32 gap,
				    __u32 *from, __u32 *to)
{
	__u32 last = 0;
	bool any = false;

	for (; k < hi; k++) {
		if (!stamp_due(stamp[k], cur))
			continue;
		if (any && k > last + 1 + gap)
			break;
		if (!any)
			*from = k;
		any = true;
		last = k;
	}
	if (any)
		*to = last + 1;
	return any;
}
#endif
