/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose I/O a window was: the processes that hold files (or their working directory) on the
 * window's mounts, sampled once per tick while it is open, and for -- COMMAND the command's own
 * process tree; each named by its cgroup as a Slurm job, a Kubernetes pod, a systemd unit, or the
 * cgroup path itself. A process's share is its /proc/PID/io delta (wchar for a checkpoint, rchar
 * for a restore) over the window, from when it was first seen. What is never seen (a process
 * that came and went between two samples) is not guessed at: a window with no process is
 * "unknown".
 */
#ifndef SLOTSCOPE_JOBS_H
#define SLOTSCOPE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define JOB_UNKNOWN_UID UINT32_MAX
#define WIN_JOBS_SHOWN 8

struct job_id {
	const char *kind;		/* "slurm", "kubernetes", "systemd", "cgroup"; "unknown":
					 * no cgroup to read (no hierarchy mounted) */
	char id[96];			/* job id, pod UID, unit name, or the cgroup path */
	char step[80];			/* Slurm step, Kubernetes container id; "" when none */
	uint32_t uid;			/* Slurm v1's uid_N, else JOB_UNKNOWN_UID (the process's) */
};

/* The job of a cgroup path ("/system.slice/slurmstepd.scope/job_42/step_0/user/task_0"). */
void job_from_cgroup(const char *path, struct job_id *j);
/*
 * The path to name a process by, from its /proc/PID/cgroup: the v2 line ("0::PATH"), or on v1
 * the first hierarchy whose path names a job or pod, else name=systemd's, else the first.
 * 0 or -ENOENT.
 */
int cgroup_path_parse(FILE *f, char *path, size_t len);

struct win_job {
	struct job_id id;
	uint32_t uid;			/* of its first process seen */
	char user[33];			/* from /etc/passwd; "" when not there */
	unsigned int nprocs;
	uint64_t bytes;			/* its processes' io deltas over the window */
	double share;			/* of every attributed process's bytes; < 0: none moved */
};

struct win_jobs {
	struct job_proc {
		pid_t pid;
		unsigned long long start;	/* starttime: a reused pid is another process */
		size_t job;
		bool have_io;		/* io_first is a real reading: io may be unreadable at first */
		uint64_t io_first, io_last;
	} *p;
	size_t np, capp;
	struct win_job *j;
	size_t nj, capj;
	uint64_t total;			/* bytes over every job (jobs_finish) */
	unsigned int samples;
};

struct jobs_scan {
	const char *procfs_root;
	const char *const *mounts;	/* mount points whose users are wanted */
	size_t nmounts;
	pid_t tree;			/* and every descendant of this pid (0: none) */
	bool writes;			/* wchar (a checkpoint), else rchar (a restore) */
};

void jobs_reset(struct win_jobs *w);
/* One sample; 0 or -errno (/proc unreadable). Processes we may not look into are skipped. */
int jobs_sample(struct win_jobs *w, const struct jobs_scan *sc);
/* Bytes and shares per job, largest first. */
void jobs_finish(struct win_jobs *w);
void jobs_free(struct win_jobs *w);

#endif
