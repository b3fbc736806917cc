/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs' maps, and the names of their cgroups as the kernel has them: what io.bpf.h's file I/O
 * handlers count into. Included once, by slotscope.bpf.c, before the handlers.
 */
#ifndef SLOTSCOPE_JOBS_BPF_H
#define SLOTSCOPE_JOBS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_JOBIO);
	__type(key, struct job_key);
	__type(value, struct job_io);
} jobio SEC(".maps");
/* the epoch jobio last changed in: user space reads the map only after (stamp_due()) */
__u32 jobio_stamp;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_JOBTASKS);
	__type(key, struct job_task);
	__type(value, __u64);		/* CLOCK_MONOTONIC ns it was last seen */
} jobtasks SEC(".maps");

/*
 * Cgroups' names, taken from the kernel at their first counted NFS I/O (cg_name_note()): a
 * cgroup that lives less than a tick (a login, a short step) is still named after its directory
 * is gone, and no walk of the hierarchy is needed for it. Least recently made forgotten first;
 * user space copies what it reads.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_CG_NAMES);
	__type(key, __u64);
	__type(value, struct cg_name);
} cg_names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cg_name);
} cg_name_scratch SEC(".maps");

/* the kernfs parent link, __parent since 633488947ef6 ("kernfs: Use RCU to access kernfs_node::parent.", 6.15) */
struct kernfs_node___rcu {
	struct kernfs_node *__parent;
} __attribute__((preserve_access_index));

static __always_inline struct kernfs_node *kn_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(struct kernfs_node___rcu, __parent))
		return BPF_CORE_READ((struct kernfs_node___rcu *)kn, __parent);
	return BPF_CORE_READ(kn, parent);
}

/*
 * The calling task's cgroup v2 (@cgid, bpf_get_current_cgroup_id()'s) named, once: its kernfs
 * node and the nodes above it, read as the counting program runs in its context.
 */
static __always_inline void cg_name_note(__u64 cgid)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct kernfs_node *kn, *up;
	struct cg_name *n;
	__u32 z = 0;

	if (bpf_map_lookup_elem(&cg_names, &cgid))
		return;
	n = bpf_map_lookup_elem(&cg_name_scratch, &z);
	if (!n)
		return;
	kn = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn);
	if (!kn || BPF_CORE_READ(kn, id) != cgid)
		return;
	n->depth = 0;
	for (int i = 0; i < CG_DEPTH; i++) {
		up = kn_parent(kn);
		if (!up)
			break;
		long len = bpf_probe_read_kernel_str(n->comp[i], CG_COMP, BPF_CORE_READ(kn, name));

		if (len <= 0)
			return;
		/* a name that filled the buffer may be cut: not a path to name a job by */
		if (len >= CG_COMP)
			n->depth |= CG_NAME_TRUNC;
		n->depth = (n->depth & CG_NAME_TRUNC) | (i + 1);
		kn = up;
	}
	if ((n->depth & ~CG_NAME_TRUNC) == CG_DEPTH && kn_parent(kn))
		n->depth |= CG_NAME_TRUNC;
	bpf_map_update_elem(&cg_names, &cgid, n, BPF_NOEXIST);
}

/* the kprobe design's calls in NFS's write or read: thread -> its struct kiocb *, for the kretprobe */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_FILE_CALLS);
	__type(key, __u64);
	__type(value, __u64);
} file_calls SEC(".maps");

#endif
