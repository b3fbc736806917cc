// SPDX-License-Identifier: GPL-2.0
/*
 * --check where no service runs (#59): each NFS mount's replies (mountstats' per-transport
 * "recvs", the kernel's own count) and the requests awaiting one (sunrpc's sysfs pending_q_len,
 * 5.14 on) sampled over the threshold. Requests waiting and not one reply in it: the server is
 * not answering, for at least that long. A request's own age needs the service's tracing: the
 * ages said here are lower bounds. A transport not connected publishes no queue (xprt_info is
 * -ENOTCONN, or "<closed>"): its switch's queue_len (xprt_switch_info, the RPC tasks holding one
 * of its transports) says whether anybody waits on it, a writer stuck in open() or close()
 * holding no descriptor on the mount included. Who is stuck: processes in D with a file, their
 * working directory, or the path of the call they are blocked in on the mount (procpath.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "run/health.h"
#include "model/jobs.h"
#include "host/mounts.h"
#include "run/silence.h"
#include "lib/util.h"
#include "host/xprtinfo.h"
#include "host/procpath.h"

#define PROBE_STEP_S 0.5
#define PROBE_MAX_S 30.0
/* the blocked calls' paths, read in a child that may wait on a stuck process's locks */
#define PROBE_PATHS_MS 2000

struct probe_mount {
	const struct nfs_mount *m;
	struct mount_xprt mx;
	unsigned long long sends, recvs, ops, rtt_ms;
	unsigned int pending;
	unsigned long queued;		/* tasks on the mount's transport switches */
	const char *sw;			/* the last switch counted, in the sample's glob */
	size_t sw_len;
	bool sysfs, disconnected, replied, sent;
};

/* the mountstats block of each probed mount: its transports' sends and recvs, its ops' RTT */
static int stats_parse(FILE *f, void *arg)
{
	struct probe_mount *pm = arg;
	char *line = NULL;
	size_t cap = 0;
	struct probe_mount *in = NULL;

	for (struct probe_mount *p = pm; p->m; p++)
		p->sends = p->recvs = p->ops = p->rtt_ms = 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long v[12] = { 0 };
		char proto[8], *on, *end;
		int k;

		if (!strncmp(line, "device ", 7)) {
			in = NULL;
			on = strstr(line, " mounted on ");
			end = on ? strstr(on + 12, " with fstype ") : NULL;
			for (struct probe_mount *p = pm; end && p->m; p++) {
				char esc[1024], *e = esc;

				for (const char *c = p->m->mountpoint; *c && e < esc + sizeof(esc) - 5; c++)
					e += strchr(" \t\n\\", *c) ? sprintf(e, "\\%03o", (unsigned char)*c) : (*e = *c, 1);
				*e = 0;
				if ((size_t)(end - on - 12) == strlen(esc) && !strncmp(on + 12, esc, strlen(esc)))
					in = p;
			}
			continue;
		}
		if (!in)
			continue;
		k = sscanf(line, " xprt: %7s %llu %llu %llu %llu %llu %llu %llu", proto, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6]);
		if (k >= 5 && !strcmp(proto, "udp")) {
			in->sends += v[2];
			in->recvs += v[3];
		} else if (k == 8) {
			/* tcp, rdma: port bind_count connect_count connect_time idle_time sends recvs */
			in->sends += v[5];
			in->recvs += v[6];
		} else if (sscanf(line, " %*[A-Z_0-9]: %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
				  &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
			in->ops += v[0];
			in->rtt_ms += v[6];
		}
	}
	free(line);
	return 0;
}

/* a switch's RPC tasks (xprt_switch_info's queue_len, from 5.14 with the rest of this sysfs) */
static unsigned long switch_queued(const char *xprt_dir)
{
	char path[600], buf[256], *q;
	const char *base = strrchr(xprt_dir, '/');

	if (!base || snprintf(path, sizeof(path), "%.*s/xprt_switch_info", (int)(base - xprt_dir),
			      xprt_dir) >= (int)sizeof(path) ||
	    read_file_at(AT_FDCWD, path, buf, sizeof(buf)) < 0 || !(q = strstr(buf, "queue_len=")))
		return 0;
	return strtoul(q + 10, NULL, 10);
}

/* each probed mount's transports in sysfs (to its server, over its protocol): queues, connection */
static void sysfs_sample(const char *sysfs_root, struct probe_mount *pm)
{
	char pat[512];
	glob_t g;

	for (struct probe_mount *p = pm; p->m; p++) {
		p->pending = 0;
		p->queued = 0;
		p->sw = NULL;
		p->sw_len = 0;
		p->sysfs = p->disconnected = false;
	}
	if (root_path(pat, sizeof(pat), sysfs_root, "/sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*") ||
	    glob(pat, GLOB_ONLYDIR, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct audit_xprt x = { 0 };
		const char *base = strrchr(g.gl_pathv[i], '/');
		const char *proto = base ? strrchr(base, '-') : NULL;
		unsigned int id;

		if (!proto || sscanf(base, "/xprt-%u-", &id) != 1)
			continue;
		xprt_info_read(g.gl_pathv[i], &x);
		for (struct probe_mount *p = pm; p->m; p++) {
			size_t swlen = (size_t)(base - g.gl_pathv[i]);

			if (!x.dstaddr[0] || !mount_xprt_match(&p->mx, x.dstaddr, proto + 1))
				continue;
			/* a switch counted once per mount: glob lists its transports together */
			if (p->sw_len != swlen || strncmp(p->sw, g.gl_pathv[i], swlen))
				p->queued += switch_queued(g.gl_pathv[i]);
			p->sw = g.gl_pathv[i];
			p->sw_len = swlen;
			p->sysfs = true;
			p->pending += x.pending_q_len;
			/* xprt_info says nothing of a transport not connected (-ENOTCONN): its queue unknown */
			if (xprt_state_connected_at(g.gl_pathv[i]) == 0 || !x.max_slots)
				p->disconnected = true;
		}
	}
	globfree(&g);
}

/*
 * The row of the mount @path lies on: the longest NFS mountpoint over it ("/" is over every
 * path; a mount inside a silent one is its own), if that is a row's and its server is silent;
 * -1 otherwise
 */
static int row_of(const char *path, const struct mount_table *mt, const struct health_row *rows, size_t n)
{
	const char *mp = NULL;
	size_t best = 0;

	if (path[0] != '/')
		return -1;
	for (size_t i = 0; i < mt->n; i++) {
		const char *m = mt->m[i].mountpoint;
		size_t l = strlen(m);

		if ((l == 1 || (!strncmp(path, m, l) && (path[l] == '/' || !path[l]))) && (!mp || l > best)) {
			mp = m;
			best = l;
		}
	}
	for (size_t i = 0; mp && i < n; i++)
		if (rows[i].state == ANS_SILENT && !strcmp(rows[i].mountpoint, mp))
			return (int)i;
	return -1;
}

/* a process in D: the silent rows (bits) it has a file or its working directory on, or a path */
_Static_assert(HEALTH_MAX_MOUNTS <= 64, "a row a bit");
struct stuck_proc {
	int pid;
	uint64_t rows;
};

struct stuck_scan {
	struct stuck_proc *p;
	size_t n;
	const struct mount_table *mt;
	const struct health_row *rows;
	size_t nrows;
};

static void mark(struct stuck_proc *p, const char *path, const struct stuck_scan *s)
{
	int r = row_of(path, s->mt, s->rows, s->nrows);

	if (r >= 0)
		p->rows |= 1ull << r;
}

/* the silent rows process @p has its working directory or a file on (readlinks: no lock of its) */
static void files_on(const char *procfs_root, struct stuck_proc *p, const struct stuck_scan *s)
{
	char dir[512], link[4096], pid[16];
	struct dirent *d;
	DIR *fds;

	snprintf(pid, sizeof(pid), "%d", p->pid);
	if (!proc_link(procfs_root, pid, "cwd", link, sizeof(link)))
		mark(p, link, s);
	if (root_path(dir, sizeof(dir), procfs_root, "/proc/%s/fd", pid) || !(fds = opendir(dir)))
		return;
	while ((d = readdir(fds))) {
		char fd[300];

		if (d->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "fd/%s", d->d_name);
		if (!proc_link(procfs_root, pid, fd, link, sizeof(link)))
			mark(p, link, s);
	}
	closedir(fds);
}

/* a path process @pid is blocked on (proc_blocked_scan()'s child said it) */
static void on_path(int pid, const char *path, void *arg)
{
	struct stuck_scan *s = arg;

	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].pid == pid)
			mark(&s->p[i], path, s);
}

/* the job of process @pid, from its cgroup v2 path ("0::/..."), into @r's jobs once */
static void add_job(const char *procfs_root, const char *pid, struct health_row *r)
{
	char path[512], buf[4096], id[200];
	struct job_id j = { 0 };
	char *cg;
	size_t o = strlen(r->jobs);

	if (root_path(path, sizeof(path), procfs_root, "/proc/%s/cgroup", pid) ||
	    read_file_at(AT_FDCWD, path, buf, sizeof(buf)) < 0 || !(cg = strstr(buf, "0::")))
		return;
	cg[strcspn(cg, "\n")] = 0;
	job_from_cgroup(cg + 3, &j);
	snprintf(id, sizeof(id), "%s:%s", j.kind, j.id);
	if (!strstr(r->jobs, id) && o + strlen(id) + 2 < sizeof(r->jobs))
		snprintf(r->jobs + o, sizeof(r->jobs) - o, "%s%s", o ? " " : "", id);
}

/*
 * processes in D with files, their working directory or a blocked call's path on a silent row's
 * mount, and their jobs (root sees every one): each counted once a row
 */
static void probe_stuck(const char *procfs_root, const struct mount_table *mt, struct health_row *rows, size_t n)
{
	struct stuck_scan s = { .mt = mt, .rows = rows, .nrows = n };
	size_t cap = 0;
	bool silent = false;
	char dir[512];
	struct dirent *d;
	int *pids;
	DIR *proc;

	for (size_t i = 0; i < n; i++)
		silent |= rows[i].state == ANS_SILENT;
	if (!silent || root_path(dir, sizeof(dir), procfs_root, "/proc") || !(proc = opendir(dir)))
		return;
	while ((d = readdir(proc))) {
		char comm[16];

		if (d->d_name[0] < '1' || d->d_name[0] > '9' ||
		    !task_in_d_state(procfs_root, atoi(d->d_name), comm, sizeof(comm)))
			continue;
		if (s.n == cap) {
			struct stuck_proc *p = realloc(s.p, (cap ? cap * 2 : 64) * sizeof(*p));

			if (!p)
				break;
			s.p = p;
			cap = cap ? cap * 2 : 64;
		}
		s.p[s.n] = (struct stuck_proc){ .pid = atoi(d->d_name) };
		files_on(procfs_root, &s.p[s.n], &s);
		s.n++;
	}
	closedir(proc);
	pids = s.n ? malloc(s.n * sizeof(*pids)) : NULL;
	for (size_t i = 0; pids && i < s.n; i++)
		pids[i] = s.p[i].pid;
	/* past the deadline, what was read counts; the rest holds no file there, and is not named */
	if (pids)
		proc_blocked_scan(procfs_root, pids, s.n, PROBE_PATHS_MS, on_path, &s);
	for (size_t i = 0; i < s.n; i++) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", s.p[i].pid);
		for (size_t r = 0; r < n; r++) {
			if (!(s.p[i].rows & 1ull << r))
				continue;
			rows[r].stuck++;
			add_job(procfs_root, pid, &rows[r]);
		}
	}
	free(pids);
	free(s.p);
}

int health_probe(const struct health_opts *o, struct health_row *rows, size_t max)
{
	struct mount_src src = { .procfs_root = o->procfs_root, .pid = "self", .fd = -1 };
	struct probe_mount pm[HEALTH_MAX_MOUNTS + 1] = { 0 };
	unsigned long long recvs0[HEALTH_MAX_MOUNTS], sends0[HEALTH_MAX_MOUNTS];
	unsigned int pend0[HEALTH_MAX_MOUNTS];
	unsigned long queued0[HEALTH_MAX_MOUNTS];
	bool down0[HEALTH_MAX_MOUNTS], unclaimed[HEALTH_MAX_MOUNTS];
	struct mount_table mt = { 0 };
	double rtt = 0, waited = 0, wait;
	size_t n = 0;
	int err = mounts_load(&src, &mt);

	if (err)
		return err;
	for (size_t i = 0; i < mt.n && n < HEALTH_MAX_MOUNTS && n < max; i++) {
		bool want = !o->nmounts;

		for (size_t k = 0; k < o->nmounts; k++)
			want |= !strcmp(o->mounts[k], mt.m[i].mountpoint);
		if (want && !mount_xprt_of(&mt.m[i], &pm[n].mx))
			pm[n++].m = &mt.m[i];
	}
	err = mounts_parse_file(&src, "mountstats", stats_parse, pm);
	if (err < 0) {
		mounts_free(&mt);
		return err;
	}
	sysfs_sample(o->sysfs_root, pm);
	for (size_t i = 0; i < n; i++) {
		recvs0[i] = pm[i].recvs;
		sends0[i] = pm[i].sends;
		pend0[i] = pm[i].pending;
		queued0[i] = pm[i].queued;
		down0[i] = pm[i].disconnected;
		if (pm[i].ops && (double)pm[i].rtt_ms / (double)pm[i].ops / 1e3 > rtt)
			rtt = (double)pm[i].rtt_ms / (double)pm[i].ops / 1e3;
	}
	wait = answer_threshold(o->silent_after_s > 0 ? o->silent_after_s : SILENT_AFTER_S, rtt);
	if (wait > PROBE_MAX_S)
		wait = PROBE_MAX_S;
	/* till every mount with requests waiting has had a reply, or the threshold passed */
	while (waited < wait) {
		bool open = false;
		struct timespec ts = { 0, (long)(PROBE_STEP_S * 1e9) };

		nanosleep(&ts, NULL);
		waited += PROBE_STEP_S;
		if (mounts_parse_file(&src, "mountstats", stats_parse, pm) < 0)
			break;
		for (size_t i = 0; i < n; i++) {
			pm[i].replied |= pm[i].recvs != recvs0[i];
			pm[i].sent |= pm[i].sends != sends0[i];
			open |= !pm[i].replied && (pend0[i] || down0[i] || !pm[i].sysfs);
		}
		if (!open)
			break;
	}
	sysfs_sample(o->sysfs_root, pm);
	for (size_t i = 0; i < n; i++) {
		struct health_row *r = &rows[i];
		const struct probe_mount *p = &pm[i];
		/* sysfs's queue where there is one; else sends that got no reply */
		bool waiting = p->sysfs ? pend0[i] && p->pending : p->sent;
		/* not connected all along: waiting if tasks hold it, or processes are stuck on it (below) */
		bool down = down0[i] && p->disconnected;
		bool held = down && queued0[i] && p->queued;

		/* down, no queue in sysfs, no task on its switch: idle unless processes are stuck on it */
		unclaimed[i] = p->sysfs && !waiting && !held;

		memset(r, 0, sizeof(*r));
		snprintf(r->mountpoint, sizeof(r->mountpoint), "%s", p->m->mountpoint);
		snprintf(r->server, sizeof(r->server), "%s", p->mx.addr);
		r->threshold_s = wait;
		/* without sysfs's queue, what was sent over the wait and got no reply */
		r->unanswered = held ? (double)p->queued : p->sysfs ? p->pending :
				p->replied ? 0 : (double)(p->sends - sends0[i]);
		r->at_least = true;
		if (p->replied || (!waiting && !down)) {
			r->state = p->pending || p->replied ? ANS_ANSWERING : ANS_IDLE;
		} else {
			/* not connected all along counts the same: nothing took the connection either */
			r->state = waited >= wait ? ANS_SILENT : ANS_ANSWERING;
			r->silent_s = r->oldest_s = waited;
		}
	}
	probe_stuck(o->procfs_root, &mt, rows, n);
	/* an idle transport the kernel closed (TCP's idle disconnect): nobody waits on it */
	for (size_t i = 0; i < n; i++)
		if (rows[i].state == ANS_SILENT && unclaimed[i] && !rows[i].stuck) {
			rows[i].state = ANS_IDLE;
			rows[i].silent_s = rows[i].oldest_s = 0;
		}
	mounts_free(&mt);
	return (int)n;
}
