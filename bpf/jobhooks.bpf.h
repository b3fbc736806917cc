/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The jobs' attach points: NFS's own file calls, the birth of its open contexts, and the same
 * seen from vmlinux's VFS where NFS's module cannot be hooked. Included once, by slotscope.bpf.c,
 * after the handlers (handle_file_io_*, handle_vfs_io_btf) and jobtime.bpf.h (ctx_born's maps,
 * as_number).
 */
#ifndef SLOTSCOPE_JOBHOOKS_BPF_H
#define SLOTSCOPE_JOBHOOKS_BPF_H

/*
 * NFS's own file write and read (its file_operations' write_iter and read_iter in v2, v3 and v4),
 * buffered and O_DIRECT alike, in the caller's context (its cgroup is the job's), counted at the
 * return: fexit has the arguments and the result; a kretprobe has the result only, so the kprobe
 * at the entry keeps the iocb by thread for it. A call entered before attach has no entry and is
 * not counted; a full table (threads in NFS I/O at once) counts as jobs_full.
 */
static __always_inline int file_io_enter(struct kiocb *iocb)
{
	__u64 tid = bpf_get_current_pid_tgid(), v = (__u64)iocb;

	ARMED_OR_RETURN();
	if (bpf_map_update_elem(&file_calls, &tid, &v, BPF_ANY))
		count(CNT_JOBS_FULL);
	return 0;
}

static __always_inline int file_io_leave(long ret, __u32 dir)
{
	__u64 tid = bpf_get_current_pid_tgid(), *v = bpf_map_lookup_elem(&file_calls, &tid);
	struct kiocb *iocb;

	if (!v)
		return 0;
	iocb = (struct kiocb *)*v;
	bpf_map_delete_elem(&file_calls, &tid);
	return handle_file_io_raw(iocb, ret, dir);
}

#define FN_RET_PAIR(name, dir)									\
	SEC("fexit/" #name) int BPF_PROG(fexit_##name, struct kiocb *iocb, struct iov_iter *it, long ret) \
	{ return handle_file_io_btf(iocb, ret, dir); }						\
	SEC("kprobe/" #name) int BPF_KPROBE(kprobe_##name, struct kiocb *iocb)			\
	{ return file_io_enter(iocb); }								\
	SEC("kretprobe/" #name) int BPF_KRETPROBE(kretprobe_##name, long ret)			\
	{ return file_io_leave(ret, dir); }

FN_RET_PAIR(nfs_file_write, JOB_WRITE)
FN_RET_PAIR(nfs_file_read, JOB_READ)

/*
 * A new NFS open context at @ctx: what an earlier context at that address was named for goes.
 * Its struct file's address may come back with it (both freed by one close, both taken by the
 * next open), which the file check cannot tell; an O_DIRECT call's RPCs then end before the call
 * returns and names the new one, and were counted to the old one's job (test_job_fill: one
 * 64 KiB WRITE of a Slurm job's each of ten times, to cgroups that had read a file before it).
 */
static __always_inline int ctx_born(__u64 ctx)
{
	struct job_key pk = { .cgid = ctx, .dir = JOB_WRITE };

	/* an ERR_PTR() is no context */
	if (!jobs_timed || !ctx || ctx >= (__u64)-4095)
		return 0;
	bpf_map_delete_elem(&ctxjob, &ctx);
	bpf_map_delete_elem(&ctxpend, &pk);
	pk.dir = JOB_READ;
	bpf_map_delete_elem(&ctxpend, &pk);
	return 0;
}

SEC("fexit/alloc_nfs_open_context")
int BPF_PROG(fexit_alloc_nfs_open_context, struct dentry *dentry, fmode_t mode, struct file *filp,
	     struct nfs_open_context *ret)
{
	return ctx_born(as_number(ret));
}

SEC("kretprobe/alloc_nfs_open_context")
int BPF_KRETPROBE(kretprobe_alloc_nfs_open_context, void *ret)
{
	return ctx_born((__u64)ret);
}

/*
 * The same birth seen from vmlinux, where NFS's own function cannot be hooked (the unit's
 * capabilities at perf_event_paranoid 3): an open by path (open, openat, openat2, creat,
 * io_uring's, exec's) returns from do_filp_open() with its new file, whose open context NFS made
 * and set in it (private_data) during the call; none of that context's READs or WRITEs has
 * ended yet. Before it, those hooks kept the file check alone, and a restore window counted a
 * session's first MiB read to the Slurm job whose closed file and context the session's open
 * had taken (test_job_rpcbytes, under the unit's capabilities). Opens that do not pass there
 * (open_by_handle_at(), the kernel's own dentry_open()) keep the file check.
 */
SEC("fexit/do_filp_open")
int BPF_PROG(fexit_do_filp_open, int dfd, struct filename *name, const void *op, struct file *ret)
{
	/*
	 * Every open on the node passes here, nearly all of no NFS file: the file is read through
	 * its BTF type (loads the JIT guards, no helper call). An ERR_PTR() is no file; comparing
	 * the pointer with it is allowed a loader with CAP_PERFMON, which slotscope needs anyway.
	 */
	if (!jobs_timed || !ret || (__u64)ret >= (__u64)-4095 ||
	    ret->f_inode->i_sb->s_magic != NFS_SUPER_MAGIC)
		return 0;
	/* a void * read through BTF is a number to the verifier */
	return ctx_born((__u64)ret->private_data);
}

/*
 * The same through vmlinux's own VFS, for a loader that may not hook NFS's module: fentry/fexit
 * on a module function needs the module's BTF by id (CAP_SYS_ADMIN), a kprobe needs
 * perf_event_paranoid <= 2 on Debian's kernels (3 by default; Ubuntu's 4), and vmlinux's
 * functions need neither (CAP_BPF and CAP_PERFMON). write(2), pwrite64(2) and their vectored
 * forms, on NFS files; io_uring and AIO do not pass there.
 */
SEC("fexit/vfs_write")
int BPF_PROG(fexit_vfs_write, struct file *file, const char *buf, size_t count, loff_t *pos, long ret)
{
	return handle_vfs_io_btf(file, ret, JOB_WRITE);
}

SEC("fexit/vfs_read")
int BPF_PROG(fexit_vfs_read, struct file *file, char *buf, size_t count, loff_t *pos, long ret)
{
	return handle_vfs_io_btf(file, ret, JOB_READ);
}

SEC("fexit/vfs_writev")
int BPF_PROG(fexit_vfs_writev, struct file *file, const void *vec, unsigned long vlen, loff_t *pos,
	     int flags, long ret)
{
	return handle_vfs_io_btf(file, ret, JOB_WRITE);
}

SEC("fexit/vfs_readv")
int BPF_PROG(fexit_vfs_readv, struct file *file, const void *vec, unsigned long vlen, loff_t *pos,
	     int flags, long ret)
{
	return handle_vfs_io_btf(file, ret, JOB_READ);
}

#endif
