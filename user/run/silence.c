// SPDX-License-Identifier: GPL-2.0
/*
 * The run's side of a silent server (#59): the connection state sunrpc publishes, read only for
 * the transports whose replies stopped, and the processes stuck behind such a mount.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "run/silence.h"
#include "host/procpath.h"
#include "lib/util.h"

int xprt_state_connected_at(const char *dir)
{
	char path[600], buf[256];
	int err;

	snprintf(path, sizeof(path), "%s/xprt_state", dir);
	err = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	if (err < 0)
		return err;
	for (char *w = strtok(buf, " =\n"); w; w = strtok(NULL, " =\n"))
		if (!strcasecmp(w, "connected"))
			return 1;
	return 0;
}

int xprt_state_connected(const char *sysfs_root, __u32 id, const char *proto)
{
	char pat[512];
	glob_t g;
	int err;

	/*
	 * rpc_sysfs_xprt_state_show(): "state=" then a word per bit set ("LOCKED CONNECTED ...",
	 * CONNECTING apart), or "state=CLOSED" with none
	 */
	if (root_path(pat, sizeof(pat), sysfs_root, "/sys/kernel/sunrpc/xprt-switches/switch-*/xprt-%u-%s",
		      id, proto))
		return -ENAMETOOLONG;
	if (glob(pat, GLOB_ONLYDIR, NULL, &g))
		return -ENOENT;
	err = xprt_state_connected_at(g.gl_pathv[0]);
	globfree(&g);
	return err;
}

size_t silence_disconnected(const char *sysfs_root, const struct snapshot *prev,
			    const struct snapshot *cur, __u64 *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < cur->nxprts && n < max; i++) {
		const struct xprt_snap *c = &cur->xprts[i];
		const struct xprt_snap *p = snapshot_find_xprt(prev, c->key, c->s.first_seen_ns);

		if (c->s.flags & XF_DESTROYED || (!c->unanswered && c->s.in_use <= 0))
			continue;
		if (p && c->s.n.recvs != p->s.n.recvs)
			continue;
		if (xprt_state_connected(sysfs_root, c->s.id, proto_name(c->s.ident)) == 0)
			out[n++] = c->key;
	}
	return n;
}

/* the mount's kernel dev_t as the programs keep it (MAJOR << 20 | MINOR); 0: not in the table */
static __u32 mount_dev(const struct mount_table *mt, const char *mountpoint)
{
	for (size_t i = 0; mt && mountpoint && i < mt->n; i++)
		if (!strcmp(mt->m[i].mountpoint, mountpoint))
			return mt->m[i].major << 20 | mt->m[i].minor;
	return 0;
}

bool task_in_d_state(const char *procfs_root, int pid, char *comm, size_t len)
{
	char path[512];
	struct dirent *d;
	bool stuck = false;
	DIR *dir;

	if (root_path(path, sizeof(path), procfs_root, "/proc/%d/task", pid))
		return false;
	dir = opendir(path);
	if (!dir)
		return false;
	while (!stuck && (d = readdir(dir))) {
		char sub[600];

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/stat", path, d->d_name);
		stuck = proc_thread_in_d(sub, comm, len);
	}
	closedir(dir);
	return stuck;
}

/* process @pid stuck behind @r's mount, with its cgroup's job: once, at most STUCK_MAX named */
static void stuck_add(struct answer_row *r, const struct stuck_in *in, int pid, __u64 cgid)
{
	const char *path = in->cg ? cgroups_path(in->cg, cgid) : NULL;
	struct job_id j = { 0 };
	struct stuck_task *s;
	char comm[16] = "";

	for (size_t k = 0; k < r->nstuck; k++)
		if (r->stuck[k].pid == pid)
			return;
	if (!task_in_d_state(in->procfs_root, pid, comm, sizeof(comm)))
		return;
	if (r->nstuck == STUCK_MAX) {
		r->stuck_more++;
		return;
	}
	s = &r->stuck[r->nstuck++];
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->job[0] = 0;
	if (path) {
		job_from_cgroup(path, &j);
		snprintf(s->job, sizeof(s->job), "%s:%s", j.kind, j.id);
	}
}

/*
 * The processes of each cgroup that did I/O on the mount: every one in its cgroup.procs now (a
 * writer blocked in its open() has done no I/O of its own yet), else those seen doing NFS I/O
 */
static void stuck_row(struct answer_row *r, const struct stuck_in *in)
{
	__u32 dev = mount_dev(in->mounts, r->mountpoint);

	if (!dev || !in->snap)
		return;
	for (size_t i = 0; i < in->snap->njobio; i++) {
		const struct job_key *k = &in->snap->jobio[i].k;
		const char *path = in->cg ? cgroups_path(in->cg, k->cgid) : NULL;
		char procs[4600], buf[8192];
		bool dup = false;

		if (k->dev != dev)
			continue;
		for (size_t p = 0; p < i && !dup; p++)
			dup = in->snap->jobio[p].k.cgid == k->cgid && in->snap->jobio[p].k.dev == dev;
		if (dup)
			continue;
		if (path && in->cg->root[0] &&
		    snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", in->cg->root, path) < (int)sizeof(procs) &&
		    read_file_at(AT_FDCWD, procs, buf, sizeof(buf)) >= 0) {
			for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
				stuck_add(r, in, atoi(l), k->cgid);
			continue;
		}
		for (size_t t = 0; t < in->ntasks; t++)
			if (in->tasks[t].k.cgid == k->cgid)
				stuck_add(r, in, (int)in->tasks[t].k.tgid, k->cgid);
	}
}

void silence_stuck(struct view *v, const struct stuck_in *in)
{
	for (size_t i = 0; i < v->nanswers; i++) {
		struct answer_row *r = &v->answers[i];

		r->nstuck = r->stuck_more = 0;
		if (r->a.state >= ANS_CONNECTING)
			stuck_row(r, in);
	}
}
