/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NFSv4.1 session slots, and the NFS file I/O of jobs.
 * Part of handlers.bpf.h: included twice, no include guard on purpose.
 */

/*
 * the fore table's slots in use: its used bits below @nbits (every change to them is under
 * slot_tbl_lock). The table grows past max_slots when the server's target does (7.2: 101 slots
 * allowed of a table made with 84): the caller asks for the larger of the two
 */
static __always_inline __u32 FN(session_used)(struct nfs4_slot_table *tbl, __u32 nbits)
{
	const __u64 *bits = (const __u64 *)__builtin_preserve_access_index(&tbl->used_slots);
	__u32 n = (nbits + 63) / 64, used = 0;

	/* a word at a time: the session's entry, built on the stack beside, leaves no room for 16 */
	for (int i = 0; i < 16; i++) {
		__u64 w = 0;

		if ((__u32)i >= n || bpf_probe_read_kernel(&w, sizeof(w), bits + i))
			break;
		used += __builtin_popcountll(w);
	}
	return used;
}

/*
 * @s's fore table is at @used slots of @limit (max_slotid + 1, the limit in force) at @now: time
 * moves to its bucket against that limit (#46: the server's target moves the limit during a run,
 * and time at the limit against a limit read once is wrong). A take (nfs4_setup_sequence, after
 * its slot's bit is set, the lock dropped) and a free (nfs4_free_slot, under the lock) may run
 * on two CPUs at once: the swap hands each change the bucket it leaves.
 */
static __always_inline void FN(session_level)(struct session_stats *s, __u32 used, __u32 limit, __u64 now)
{
	__u32 b = level_bucket(used, limit), old;
	__u64 t = now + LEVEL_T_BIAS;

	if (b >= LEVEL_BUCKETS)
		return;
	old = __sync_lock_test_and_set(&s->bucket, b);
	if (old != b) {
		if (old < LEVEL_BUCKETS)
			__sync_fetch_and_add(&s->level_ns[old], t);
		__sync_fetch_and_add(&s->level_ns[b], -t);
	}
	s->level = used;
	atomic_max(&s->level_peak, used);
	old = __sync_lock_test_and_set(&s->limit, limit);
	if (old != limit && old)
		__sync_fetch_and_add(&s->limit_changes, 1);
	if (!s->limit_min || limit < s->limit_min)
		s->limit_min = limit;
	atomic_max(&s->limit_max, limit);
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
		z.bucket = LEVEL_BUCKETS;	/* no level seen yet: none open */
		z.clid = RD(clnt, cl_clid);
		z.xprt = (__u64)RD(clnt, cl_xprt);
		s = insert_or_get(&sessions, &key, &z, BPF_NOEXIST, CNT_SESSIONS_FULL, NULL);
		if (!s)
			return 0;
	}
	s->max_slots = RD(session, fc_slot_table.max_slots);
	if (session_levels) {
		__u32 limit = RD(session, fc_slot_table.max_slotid) + 1;

		FN(session_level)(s, FN(session_used)(__builtin_preserve_access_index(&session->fc_slot_table),
						  limit > s->max_slots ? limit : s->max_slots), limit, now);
	}
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
 * nfs4_free_slot(): a fore table's slot freed (a slot handed to a waiter instead,
 * nfs41_wake_and_assign_slot(), stays in use and passes here never). Its bit is still set.
 * NFSv4.0's table has no session, a back channel's is not the fore table: neither is counted.
 */
static __always_inline int FN(handle_session_free)(struct nfs4_slot_table *tbl)
{
	struct nfs4_session *session;
	struct session_stats *s;
	__u32 used, limit, bits;
	__u64 key;

	ARMED_OR_RETURN();
	if (!tbl)
		return 0;
	session = RD(tbl, session);
	if (!session || (void *)tbl != __builtin_preserve_access_index(&session->fc_slot_table))
		return 0;
	key = (__u64)session;
	s = bpf_map_lookup_elem(&sessions, &key);
	if (!s)
		return 0;
	limit = RD(tbl, max_slotid) + 1;
	bits = RD(tbl, max_slots);
	used = FN(session_used)(tbl, limit > bits ? limit : bits);
	FN(session_level)(s, used ? used - 1 : 0, limit, bpf_ktime_get_ns());
	return 0;
}

/*
 * A process leaves NFS's write or read having moved @ret bytes at @iocb's file: counted for its
 * cgroup and the file's superblock. What was moved, not what was asked: write(fd, NULL, 2 GiB)
 * fails with EFAULT having moved nothing, and counting it at entry let any user take a window's
 * job from the job that wrote (#44). An error moves nothing; a short write counts its part.
 */
static __always_inline int FN(file_io_count)(struct file *f, long ret, __u32 dir, bool any_fs)
{
	struct job_key k = { .dir = dir };
	struct job_task t = {};
	struct inode *ino;
	struct job_io *v;
	__u64 now, *seen;
	bool made;

	if (!f || ret <= 0)
		return 0;
	ino = RD(f, f_inode);
	if (!ino)
		return 0;
	/* through the VFS (vfs_write() and the like): NFS's files alone */
	if (!any_fs && RD(ino, i_sb, s_magic) != NFS_SUPER_MAGIC)
		return 0;
	k.cgid = bpf_get_current_cgroup_id();
	k.dev = RD(ino, i_sb, s_dev);
	v = lookup_or_init(&jobio, &k, &zero_jobio, CNT_JOBS_FULL, &made);
	if (!v)
		return 0;
	if (made && !v->uid)
		v->uid = (__u32)bpf_get_current_uid_gid();
	if (made)
		cg_name_note(k.cgid);
	__sync_fetch_and_add(&v->bytes, (__u64)ret);
	__sync_fetch_and_add(&v->calls, 1);
	if (jobio_stamp != epoch)
		jobio_stamp = epoch;
	t.cgid = k.cgid;
	t.tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	/* the file's open context is this job's: its READs' and WRITEs' time count to it */
	if (!job_ctx_of(f, (void *)RD(f, private_data), k.cgid, k.dev, v->uid, t.tgid))
		return 0;
	/*
	 * Who did it: a lookup at most once an epoch a context, an update only when it was not seen
	 * in the last 100 ms. Not the coarse clock, which would read no clocksource: tracing
	 * programs may not call it (its seqlock is not NMI-safe; the verifier refuses it on 6.1).
	 */
	now = bpf_ktime_get_ns();
	seen = bpf_map_lookup_elem(&jobtasks, &t);
	if (!seen || now - *seen > 100000000ull)
		bpf_map_update_elem(&jobtasks, &t, &now, BPF_ANY);
	return 0;
}

static __always_inline int FN(handle_file_io)(struct kiocb *iocb, long ret, __u32 dir)
{
	ARMED_OR_RETURN();
	if (!iocb || ret <= 0)
		return 0;
	return FN(file_io_count)(RD(iocb, ki_filp), ret, dir, true);
}

static __always_inline int FN(handle_vfs_io)(struct file *f, long ret, __u32 dir)
{
	ARMED_OR_RETURN();
	return FN(file_io_count)(f, ret, dir, false);
}
