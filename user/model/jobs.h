/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose I/O a window was, as the kernel counted it: the bytes the READs and WRITEs of each
 * cgroup's files carried on the window's mounts (struct job_io's rpc_bytes: each RPC names its
 * file's open context, and the context the cgroup whose process moved its bytes, whoever issues
 * the RPC), beside the bytes its processes moved through NFS's own file write and read (counted
 * in BPF in the writer's context, however short it lived; a cached rewrite or re-read moves
 * these and no RPC, so they do not rank jobs: #63), named by the cgroup's path as a Slurm job, a
 * Kubernetes pod, a systemd unit, or the path itself. Naming needs no privilege: cgroup v2 ids
 * are the inode numbers of the cgroup directories, which anyone may list.
 */
#ifndef SLOTSCOPE_JOBS_H
#define SLOTSCOPE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "engine/engine.h"
#include "model/cgroups.h"

#define JOB_UNKNOWN_UID UINT32_MAX
#define WIN_JOBS_SHOWN 8

struct job_id {
	const char *kind;		/* "slurm", "kubernetes", "systemd", "cgroup"; "unknown":
					 * no cgroup v2 hierarchy to name it by */
	char id[96];			/* job id, pod UID, unit name, or the cgroup path */
	char step[80];			/* Slurm step, Kubernetes container id; "" when none */
	uint32_t uid;			/* Slurm v1's uid_N, else JOB_UNKNOWN_UID (the writer's) */
};

/*
 * The job of a cgroup path, recognised only in the layouts the tools themselves create, so no
 * user can name a cgroup of theirs into another's job: slurmstepd's
 * /system.slice/[NODE_]slurmstepd.scope/job_N/step_S, Slurm's v1 /slurm[_NODE]/uid_U/job_N/step_S,
 * kubelet's /kubepods[/QOS]/podUID[/CID] (cgroupfs driver) and
 * /kubepods.slice[/kubepods-QOS.slice]/kubepods[-QOS]-podUID.slice[/RUNTIME-CID.scope] (systemd
 * driver); else the outermost systemd service or scope (a unit the system's manager made, not one
 * inside a user's delegated subtree); else the path.
 */
void job_from_cgroup(const char *path, struct job_id *j);

/*
 * Where a job's READ and WRITE time went (jobtime.c): the waits in the kernel's order (WAIT_SLOT
 * .. WAIT_DELAY), the round trip, and the rest of the RPCs' time (encoding, the client's queues,
 * the reply's handling).
 */
enum { JS_SLOT, JS_SEND, JS_SESSION, JS_DELAY, JS_RTT, JS_OTHER, JS_CAUSES };
extern const char *const job_cause_names[JS_CAUSES];

struct win_job {
	struct job_id id;
	uint32_t uid;			/* of the writer that made its first count */
	char user[33];			/* from /etc/passwd; "" when not there */
	unsigned int nprocs;		/* processes seen doing its NFS I/O in the window */
	uint64_t bytes;			/* its file calls' through NFS on the window's mounts, in
					 * its direction (io_bytes) */
	uint64_t rpc_bytes;		/* what its READs or WRITEs that ended in the window carried
					 * (WRITE bytes sent, READ bytes received, as mountstats) */
	double share;			/* of every job's rpc_bytes; < 0: no RPC carried any */
	uint64_t rpcs;			/* its READs or WRITEs that ended in the window */
	double rpc_s;			/* their time, summed over them */
	double cause_rpc_s[JS_CAUSES];	/* rpc_s by cause */
	double active_s;		/* of the window, with its RPCs ending (at most the window's) */
	double cause_s[JS_CAUSES];	/* active_s shared out as cause_rpc_s is */
};

struct win_jobs {
	struct win_job *j;
	size_t nj, capj;
	uint32_t *idx;			/* open addressing over j by (kind, id): index + 1, 0 empty */
	size_t capidx;			/* a power of two, at least twice nj */
	uint64_t total;			/* file-call bytes over every job */
	uint64_t rpc_total;		/* RPC bytes over every job */
};

/* What a window's jobs are made of: its ends, its mounts and direction, who was seen. */
struct jobs_in {
	const struct snapshot *from, *to;
	const __u32 *devs;		/* the window's mounts (kernel dev_t); none: every mount */
	size_t ndevs;
	__u32 dir;			/* JOB_WRITE (a checkpoint) or JOB_READ (a restore) */
	const struct cgroups *cg;	/* NULL: nothing can be named ("unknown") */
	const struct task_seen *tasks;	/* processes seen, and when */
	size_t ntasks;
	__u64 since_ns;			/* the window's start, on the clock of task_seen */
};

/*
 * The window's jobs, by the bytes their RPCs carried (then their file calls', their processes,
 * their ids), with their shares; 0 or -ENOMEM.
 */
int jobs_of_window(struct win_jobs *w, const struct jobs_in *in);
/* the job of cgroup @cgid, named through @in's hierarchy ("unknown" when it cannot be) */
void job_id_of(const struct jobs_in *in, __u64 cgid, struct job_id *id);
/* @w's job @id; NULL: none */
struct win_job *win_job_find(struct win_jobs *w, const struct job_id *id);
/* @s's counts of @k; NULL: none */
const struct job_io *jobio_before(const struct snapshot *s, const struct job_key *k);
void jobs_reset(struct win_jobs *w);
void jobs_free(struct win_jobs *w);

#endif
