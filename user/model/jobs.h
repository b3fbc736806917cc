/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose I/O a window was, as the kernel counted it: the bytes each cgroup's processes moved
 * through NFS's own file write and read on the window's mounts (struct job_io, counted in BPF in
 * the writer's context, however short it lived), named by the cgroup's path as a Slurm job, a
 * Kubernetes pod, a systemd unit, or the path itself. Naming needs no privilege: cgroup v2 ids
 * are the inode numbers of the cgroup directories, which anyone may list.
 */
#ifndef SLOTSCOPE_JOBS_H
#define SLOTSCOPE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "engine/engine.h"

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
 * cgroup v2 ids to paths: as the kernel named them when it counted them (a namer: BPF's
 * cg_names), else found by a walk of the hierarchy for the ids still unnamed (at most once a
 * second, at most CG_WALK_MAX directories, keeping only the ids it looks for); an id no walk
 * finds is remembered as unnamed (its jobs "unknown", its counts forgotten when idle) and never
 * walked for again. Bounded: CGROUPS_MAX paths, CG_UNNAMED_MAX unnamed ids.
 */
#define CGROUPS_MAX 8192
#define CG_UNNAMED_MAX 1024
#define CG_WALK_MAX 50000
/* cgroup @id's path into @path; 0 or -errno */
typedef int (*cg_namer)(void *ctx, __u64 id, char *path, size_t len);

struct cgroups {
	char root[4096];		/* the cgroup2 mount, as we can open it; "" when none */
	struct cg_ent {
		__u64 id;
		char *path;		/* from the hierarchy's root: "/system.slice/..." */
		double used;		/* CLOCK_MONOTONIC s it was last asked for */
	} *e;
	size_t n, cap;
	double scanned;			/* CLOCK_MONOTONIC s of the last walk; 0: never */
	size_t walked;			/* directories the last walk read */
	__u64 unnamed[CG_UNNAMED_MAX];	/* ids a walk did not find (a ring) */
	size_t nunnamed, unnamed_at;
	cg_namer namer;
	void *namer_ctx;
};

/*
 * The cgroup2 hierarchy: SYSFS_ROOT/sys/fs/cgroup when it is one (a container given the host's),
 * else the first in PROCFS_ROOT/proc/self/mountinfo; 0, or -ENOENT when there is none (cgroup v1
 * alone: no job can be named).
 */
int cgroups_init(struct cgroups *c, const char *procfs_root, const char *sysfs_root);
/* the same at @dir, a cgroup2 hierarchy's root (tests) */
void cgroups_init_at(struct cgroups *c, const char *dir);
/* the kernel's names first (NULL: walks alone) */
void cgroups_set_namer(struct cgroups *c, cg_namer f, void *ctx);
/*
 * Learn the paths of @snap's cgroups not known yet: the namer's, then one walk for the rest
 * when some are new, at most once a second; 0 or -ENOMEM.
 */
int cgroups_learn(struct cgroups *c, const struct snapshot *snap, double now);
/* the path of cgroup @id, or NULL when never seen */
const char *cgroups_path(const struct cgroups *c, __u64 id);
/* cgroup @id's directory is gone (its path no longer that id's), or no walk found it */
bool cgroups_gone(const struct cgroups *c, __u64 id);
void cgroups_free(struct cgroups *c);

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
	uint64_t bytes;			/* through NFS on the window's mounts, in its direction */
	double share;			/* of every job's bytes; < 0: none moved */
	uint64_t rpcs;			/* its READs or WRITEs that ended in the window */
	double rpc_s;			/* their time, summed over them */
	double cause_rpc_s[JS_CAUSES];	/* rpc_s by cause */
	double active_s;		/* of the window, with its RPCs ending (at most the window's) */
	double cause_s[JS_CAUSES];	/* active_s shared out as cause_rpc_s is */
};

struct win_jobs {
	struct win_job *j;
	size_t nj, capj;
	uint64_t total;			/* bytes over every job */
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

/* The window's jobs, largest first, with their shares; 0 or -ENOMEM. */
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
