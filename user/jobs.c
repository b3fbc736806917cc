// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jobs.h"
#include "util.h"

/* the component of @path that starts at @p, up to the next '/' */
static void component(const char *p, char *out, size_t len)
{
	size_t n = strcspn(p, "/");

	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* "/PREFIX" followed by a component: where the component starts, else NULL */
static const char *after(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = path; (p = strchr(p, '/')); p++)
		if (!strncmp(p + 1, prefix, n) && p[1 + n] && p[1 + n] != '/')
			return p + 1 + n;
	return NULL;
}

static bool slurm(const char *path, struct job_id *j)
{
	const char *p = after(path, "job_"), *u = after(path, "uid_");
	char num[32];

	if (!p || !isdigit((unsigned char)*p))
		return false;
	component(p, num, sizeof(num));
	if (strspn(num, "0123456789") != strlen(num))
		return false;
	j->kind = "slurm";
	snprintf(j->id, sizeof(j->id), "%s", num);
	if ((p = after(path, "step_")))
		component(p, j->step, sizeof(j->step));
	/* cgroup v1's /slurm/uid_N/job_M: the job's owner, whoever its processes run as */
	if (u) {
		component(u, num, sizeof(num));
		if (strspn(num, "0123456789") == strlen(num) && strlen(num) < 10)
			j->uid = (uint32_t)strtoul(num, NULL, 10);
	}
	return true;
}

/*
 * Kubelet's two layouts. systemd driver: .../kubepods-burstable-pod<UID, '_' for '-'>.slice/
 * cri-containerd-<ID>.scope; cgroupfs driver: /kubepods/burstable/pod<UID>/<ID>.
 */
static bool kubernetes(const char *path, struct job_id *j)
{
	const char *p, *pod = NULL;
	char c[160];

	if (!strstr(path, "kubepods"))
		return false;
	for (p = path; *p; p += strcspn(p, "/")) {
		const char *m;

		p += strspn(p, "/");
		component(p, c, sizeof(c));
		if (!strncmp(c, "pod", 3) && c[3])
			pod = p + 3;
		else if ((m = strstr(c, "-pod")) && m[4])
			pod = p + (m - c) + 4;
		else if (pod && c[0]) {
			/* the container: after the pod, its runtime's prefix and ".scope" dropped */
			const char *dash = strrchr(c, '-');
			char *dot = strstr(c, ".scope");

			if (dot)
				*dot = '\0';
			snprintf(j->step, sizeof(j->step), "%s", dash && dot ? dash + 1 : c);
		}
	}
	if (!pod)
		return false;
	j->kind = "kubernetes";
	component(pod, j->id, sizeof(j->id));
	{
		char *dot = strstr(j->id, ".slice");

		if (dot)
			*dot = '\0';
	}
	for (char *q = j->id; *q; q++)
		if (*q == '_')
			*q = '-';
	return j->id[0] != '\0';
}

static bool systemd_unit(const char *path, struct job_id *j)
{
	const char *best = NULL;
	char c[96];

	for (const char *p = path; *p; p += strcspn(p, "/")) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if ((n > 8 && !strncmp(p + n - 8, ".service", 8)) || (n > 6 && !strncmp(p + n - 6, ".scope", 6)))
			best = p;
	}
	if (!best)
		return false;
	component(best, c, sizeof(c));
	j->kind = "systemd";
	snprintf(j->id, sizeof(j->id), "%s", c);
	return true;
}

void job_from_cgroup(const char *path, struct job_id *j)
{
	memset(j, 0, sizeof(*j));
	j->uid = JOB_UNKNOWN_UID;
	if (slurm(path, j) || kubernetes(path, j))
		return;
	memset(j, 0, sizeof(*j));
	j->uid = JOB_UNKNOWN_UID;
	if (systemd_unit(path, j))
		return;
	j->kind = "cgroup";
	snprintf(j->id, sizeof(j->id), "%s", path);
}

int cgroup_path_parse(FILE *f, char *path, size_t len)
{
	char line[1024], first[1024] = "", named[1024] = "", job[1024] = "", v2[1024] = "";
	bool have_v2 = false;

	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *p;
		struct job_id j;

		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		p = c2 + 1;
		/* hybrid hosts list v2 last: a v1 hierarchy that names the job (Slurm's v1 plugin) wins */
		if (!strncmp(line, "0::", 3)) {
			snprintf(v2, sizeof(v2), "%s", p);
			have_v2 = true;
			continue;
		}
		if (!first[0])
			snprintf(first, sizeof(first), "%s", p);
		if (!strncmp(c1 + 1, "name=systemd:", 13))
			snprintf(named, sizeof(named), "%s", p);
		job_from_cgroup(p, &j);
		if (!job[0] && (!strcmp(j.kind, "slurm") || !strcmp(j.kind, "kubernetes")))
			snprintf(job, sizeof(job), "%s", p);
	}
	if (job[0])
		snprintf(path, len, "%s", job);
	else if (have_v2)
		snprintf(path, len, "%s", v2);
	else if (named[0] || first[0])
		snprintf(path, len, "%s", named[0] ? named : first);
	else
		return -ENOENT;
	return 0;
}

void jobs_reset(struct win_jobs *w)
{
	w->np = w->nj = 0;
	w->total = 0;
	w->samples = 0;
}

void jobs_free(struct win_jobs *w)
{
	free(w->p);
	free(w->j);
	memset(w, 0, sizeof(*w));
}

static bool on_mount(const char *target, const struct jobs_scan *sc)
{
	for (size_t i = 0; i < sc->nmounts; i++)
		if (path_under(target, sc->mounts[i]))
			return true;
	return false;
}

/* the process's working directory or any open file is on one of the mounts */
static bool uses_mounts(int pdir, const struct jobs_scan *sc)
{
	char target[4096], name[32];
	struct dirent *de;
	bool hit = false;
	ssize_t n;
	DIR *d;
	int fd;

	n = readlinkat(pdir, "cwd", target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		if (on_mount(target, sc))
			return true;
	}
	fd = openat(pdir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (!hit && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s", de->d_name);
		n = readlinkat(dirfd(d), name, target, sizeof(target) - 1);
		if (n <= 0 || target[0] != '/')
			continue;
		target[n] = '\0';
		hit = on_mount(target, sc);
	}
	closedir(d);
	return hit;
}

/* ppid and starttime from /proc/PID/stat; the command name may hold anything, ')' included */
static int stat_of(int pdir, pid_t *ppid, unsigned long long *start)
{
	char buf[1024];
	const char *p;
	int pp;

	if (read_file_at(pdir, "stat", buf, sizeof(buf)) || !(p = strrchr(buf, ')')))
		return -EINVAL;
	/* ") S PPID PGRP SESSION TTY TPGID FLAGS MINFLT CMINFLT MAJFLT CMAJFLT UTIME STIME
	 *  CUTIME CSTIME PRIORITY NICE THREADS ITREALVALUE STARTTIME" */
	if (sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &pp, start) != 2)
		return -EINVAL;
	*ppid = pp;
	return 0;
}

static int io_of(int pdir, bool writes, uint64_t *v)
{
	char buf[512], *p;

	if (read_file_at(pdir, "io", buf, sizeof(buf)))
		return -EACCES;
	p = strstr(buf, writes ? "wchar:" : "rchar:");
	if (!p)
		return -EINVAL;
	*v = strtoull(p + 6, NULL, 10);
	return 0;
}

static uint32_t uid_of(int pdir)
{
	char buf[2048], *p;

	if (read_file_at(pdir, "status", buf, sizeof(buf)) || !(p = strstr(buf, "\nUid:")))
		return JOB_UNKNOWN_UID;
	return (uint32_t)strtoul(p + 5, NULL, 10);
}

/* the name of @uid in /etc/passwd, without NSS: a directory service never stalls a tick */
static void user_name(uint32_t uid, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/etc/passwd", "re");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 && strtoul(c2 + 1, NULL, 10) == uid && isdigit((unsigned char)c2[1])) {
			*c1 = '\0';
			snprintf(out, len, "%s", line);
			break;
		}
	}
	fclose(f);
}

static int job_index(struct win_jobs *w, int pdir, size_t *idx)
{
	char buf[4096], path[1024];
	struct job_id id;
	FILE *f;
	int err;

	/*
	 * A process that exited since it was listed has no file to read: it is skipped. No cgroup
	 * hierarchy mounted shows an empty file: the process counts, its job is unknown.
	 */
	if (read_file_at(pdir, "cgroup", buf, sizeof(buf)))
		return -ESRCH;
	f = fmemopen(buf, strlen(buf) + 1, "r");
	if (!f)
		return -ENOMEM;
	err = cgroup_path_parse(f, path, sizeof(path));
	fclose(f);
	if (err) {
		memset(&id, 0, sizeof(id));
		id.kind = "unknown";
		id.uid = JOB_UNKNOWN_UID;
	} else {
		job_from_cgroup(path, &id);
	}
	for (size_t i = 0; i < w->nj; i++)
		if (!strcmp(w->j[i].id.kind, id.kind) && !strcmp(w->j[i].id.id, id.id)) {
			*idx = i;
			return 0;
		}
	err = GROW(w->j, w->capj, w->nj + 1, 4);
	if (err)
		return err;
	memset(&w->j[w->nj], 0, sizeof(w->j[w->nj]));
	w->j[w->nj].id = id;
	w->j[w->nj].uid = id.uid != JOB_UNKNOWN_UID ? id.uid : uid_of(pdir);
	if (w->j[w->nj].uid != JOB_UNKNOWN_UID)
		user_name(w->j[w->nj].uid, w->j[w->nj].user, sizeof(w->j[w->nj].user));
	*idx = w->nj++;
	return 0;
}

static void see(struct win_jobs *w, int pdir, pid_t pid, unsigned long long start, bool writes)
{
	struct job_proc *p = NULL;
	uint64_t io = 0;
	bool have_io;

	for (size_t i = 0; i < w->np && !p; i++)
		if (w->p[i].pid == pid && w->p[i].start == start)
			p = &w->p[i];
	have_io = io_of(pdir, writes, &io) == 0;
	if (p) {
		/* a process first seen without its io counts from its first reading, not from 0 */
		if (have_io && !p->have_io)
			p->io_first = io;
		if (have_io)
			p->io_last = io;
		p->have_io |= have_io;
		return;
	}
	if (GROW(w->p, w->capp, w->np + 1, 16))
		return;
	p = &w->p[w->np];
	if (job_index(w, pdir, &p->job))
		return;
	p->pid = pid;
	p->start = start;
	p->have_io = have_io;
	p->io_first = p->io_last = io;
	w->j[p->job].nprocs++;
	w->np++;
}

struct proc_ent {
	pid_t pid, ppid;
	unsigned long long start;
	bool in_tree;
};

static int by_pid(const void *a, const void *b)
{
	const struct proc_ent *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* every descendant of @root: a pass per generation, each parent found by binary search */
static void mark_tree(struct proc_ent *all, size_t n, pid_t root)
{
	bool grew = true;

	qsort(all, n, sizeof(*all), by_pid);
	for (size_t i = 0; i < n; i++)
		all[i].in_tree = all[i].pid == root;
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			struct proc_ent key = { .pid = all[i].ppid }, *parent;

			if (all[i].in_tree)
				continue;
			parent = bsearch(&key, all, n, sizeof(*all), by_pid);
			if (parent && parent->in_tree)
				grew = all[i].in_tree = true;
		}
	}
}

int jobs_sample(struct win_jobs *w, const struct jobs_scan *sc)
{
	struct proc_ent *all = NULL;
	size_t n = 0, cap = 0;
	char proc[512];
	struct dirent *de;
	DIR *d;
	int err = root_path(proc, sizeof(proc), sc->procfs_root, "/proc");

	if (err)
		return err;
	d = opendir(proc);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid, ppid;
		unsigned long long start;
		int pdir;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)strtol(de->d_name, NULL, 10);
		pdir = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pdir < 0)
			continue;
		if (stat_of(pdir, &ppid, &start) == 0) {
			if (sc->tree > 0 && !GROW(all, cap, n + 1, 256))
				all[n++] = (struct proc_ent){ pid, ppid, start, false };
			if (uses_mounts(pdir, sc))
				see(w, pdir, pid, start, sc->writes);
		}
		close(pdir);
	}
	if (n)
		mark_tree(all, n, sc->tree);
	for (size_t i = 0; i < n; i++) {
		unsigned long long start;
		char name[16];
		pid_t ppid;
		int pdir;

		if (!all[i].in_tree)
			continue;
		snprintf(name, sizeof(name), "%d", (int)all[i].pid);
		pdir = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pdir < 0)
			continue;
		/* the pid may have been reused since it was listed: then it is another process */
		if (stat_of(pdir, &ppid, &start) == 0 && start == all[i].start)
			see(w, pdir, all[i].pid, all[i].start, sc->writes);
		close(pdir);
	}
	closedir(d);
	free(all);
	w->samples++;
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct win_job *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->nprocs != y->nprocs)
		return x->nprocs < y->nprocs ? 1 : -1;
	return strcmp(x->id.id, y->id.id);
}

void jobs_finish(struct win_jobs *w)
{
	w->total = 0;
	for (size_t i = 0; i < w->nj; i++)
		w->j[i].bytes = 0;
	for (size_t i = 0; i < w->np; i++) {
		const struct job_proc *p = &w->p[i];

		if (p->have_io && p->io_last > p->io_first)
			w->j[p->job].bytes += p->io_last - p->io_first;
	}
	for (size_t i = 0; i < w->nj; i++)
		w->total += w->j[i].bytes;
	for (size_t i = 0; i < w->nj; i++)
		w->j[i].share = w->total ? (double)w->j[i].bytes / (double)w->total : -1;
	/* the processes keep pointing at jobs by index: they are not needed once shared out */
	if (w->nj > 1)
		qsort(w->j, w->nj, sizeof(*w->j), by_bytes);
	w->np = 0;
}
