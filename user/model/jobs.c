// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "model/jobs.h"
#include "lib/uhist.h"
#include "lib/util.h"

#define MAX_DEPTH 16

/* @path's components, at most MAX_DEPTH (a deeper path is none of the layouts below) */
static size_t split(const char *path, char comp[][128])
{
	size_t n = 0;

	for (const char *p = path; *p && n < MAX_DEPTH; ) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (!len)
			break;
		snprintf(comp[n++], 128, "%.*s", (int)(len < 127 ? len : 127), p);
		p += len;
	}
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* "PREFIX<digits>": the digits, else NULL */
static const char *number_after(const char *c, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(c, prefix, n) || !c[n] || strspn(c + n, "0123456789") != strlen(c + n))
		return NULL;
	return c + n;
}

static bool slurm(char comp[][128], size_t n, struct job_id *j)
{
	const char *job, *uid = NULL;
	size_t at;

	/* slurmstepd's own scope (cgroup/v2), one per slurmd: [NODE_]slurmstepd.scope */
	if (n >= 3 && !strcmp(comp[0], "system.slice") &&
	    (!strcmp(comp[1], "slurmstepd.scope") || ends_with(comp[1], "_slurmstepd.scope")))
		at = 2;
	/* cgroup/v1: /slurm[_NODE]/uid_U/job_N */
	else if (n >= 3 && (!strcmp(comp[0], "slurm") || !strncmp(comp[0], "slurm_", 6)) &&
		 (uid = number_after(comp[1], "uid_")))
		at = 2;
	else
		return false;
	job = number_after(comp[at], "job_");
	if (!job)
		return false;
	j->kind = "slurm";
	snprintf(j->id, sizeof(j->id), "%s", job);
	if (n > at + 1 && !strncmp(comp[at + 1], "step_", 5))
		snprintf(j->step, sizeof(j->step), "%s", comp[at + 1] + 5);
	if (uid && strlen(uid) < 10)
		j->uid = (uint32_t)strtoul(uid, NULL, 10);
	return true;
}

static bool is_qos(const char *q)
{
	return !strcmp(q, "besteffort") || !strcmp(q, "burstable");
}

static void pod_uid(struct job_id *j, const char *uid, size_t len)
{
	snprintf(j->id, sizeof(j->id), "%.*s", (int)len, uid);
	for (char *q = j->id; *q; q++)
		if (*q == '_')
			*q = '-';
}

static bool kubernetes(char comp[][128], size_t n, struct job_id *j)
{
	size_t at = 1;

	if (n >= 2 && !strcmp(comp[0], "kubepods")) {
		/* cgroupfs driver: /kubepods[/besteffort|/burstable]/pod<UID>[/<CID>] */
		if (n >= 3 && is_qos(comp[1]))
			at = 2;
		if (strncmp(comp[at], "pod", 3) || !comp[at][3])
			return false;
		pod_uid(j, comp[at] + 3, strlen(comp[at] + 3));
		if (n > at + 1)
			snprintf(j->step, sizeof(j->step), "%s", comp[at + 1]);
	} else if (n >= 2 && !strcmp(comp[0], "kubepods.slice")) {
		/* systemd driver: kubepods[-QOS].slice/kubepods[-QOS]-pod<UID_>.slice/<RT>-<CID>.scope */
		const char *p, *dash;
		char qos[32];

		if (n >= 3 && sscanf(comp[1], "kubepods-%31[a-z].slice", qos) == 1 && is_qos(qos) &&
		    ends_with(comp[1], ".slice") && strlen(comp[1]) == strlen("kubepods-.slice") + strlen(qos))
			at = 2;
		p = strstr(comp[at], "-pod");
		if (strncmp(comp[at], "kubepods-", 9) || !p || !ends_with(comp[at], ".slice") ||
		    p[4] == '.')
			return false;
		/* between "kubepods" and "-pod": nothing, or the QoS level of the slice above */
		if (p != comp[at] + 8 && (at != 2 || (size_t)(p - comp[at] - 9) != strlen(qos) ||
					  strncmp(comp[at] + 9, qos, strlen(qos))))
			return false;
		pod_uid(j, p + 4, strlen(p + 4) - strlen(".slice"));
		if (n > at + 1 && ends_with(comp[at + 1], ".scope") && (dash = strrchr(comp[at + 1], '-')))
			snprintf(j->step, sizeof(j->step), "%.*s",
				 (int)(strlen(dash + 1) - strlen(".scope")), dash + 1);
	} else {
		return false;
	}
	j->kind = "kubernetes";
	return j->id[0] != '\0';
}

static bool systemd_unit(char comp[][128], size_t n, struct job_id *j)
{
	for (size_t i = 0; i < n; i++)
		if (ends_with(comp[i], ".service") || ends_with(comp[i], ".scope")) {
			j->kind = "systemd";
			snprintf(j->id, sizeof(j->id), "%s", comp[i]);
			return true;
		}
	return false;
}

void job_from_cgroup(const char *path, struct job_id *j)
{
	char comp[MAX_DEPTH][128];
	size_t n = split(path, comp);

	memset(j, 0, sizeof(*j));
	j->uid = JOB_UNKNOWN_UID;
	if (slurm(comp, n, j) || kubernetes(comp, n, j))
		return;
	memset(j, 0, sizeof(*j));
	j->uid = JOB_UNKNOWN_UID;
	if (systemd_unit(comp, n, j))
		return;
	j->kind = "cgroup";
	snprintf(j->id, sizeof(j->id), "%s", path);
}

/* ---- cgroup ids to paths */

struct cg2_query {
	char *mnt;
	size_t len;
};

static int find_cgroup2(FILE *f, void *arg)
{
	struct cg2_query *q = arg;
	char *line = NULL, mp[4096];
	size_t cap = 0;
	int err = -ENOENT;

	while (getline(&line, &cap, f) > 0) {
		const char *sep = strstr(line, " - ");

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		/* mountinfo escapes; a cgroup2 mount point needs none in practice, and one that does
		 * is not found rather than misread */
		if (strchr(mp, '\\'))
			continue;
		snprintf(q->mnt, q->len, "%s", mp);
		err = 0;
		break;
	}
	free(line);
	return err;
}

void cgroups_init_at(struct cgroups *c, const char *dir)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->root, sizeof(c->root), "%s", dir);
}

int cgroups_init(struct cgroups *c, const char *procfs_root, const char *sysfs_root)
{
	char mnt[4096];
	struct cg2_query q = { mnt, sizeof(mnt) };
	struct statfs sf;
	int err;

	memset(c, 0, sizeof(*c));
	/*
	 * The host's hierarchy under --sysfs-root first (a container's own /sys/fs/cgroup shows
	 * its namespace's subtree alone, and the ids BPF counts by are the host's)
	 */
	if (!root_path(c->root, sizeof(c->root), sysfs_root, "/sys/fs/cgroup") &&
	    !statfs(c->root, &sf) && sf.f_type == CGROUP2_SUPER_MAGIC)
		return 0;
	c->root[0] = '\0';
	err = root_parse(find_cgroup2, &q, procfs_root, "/proc/self/mountinfo");
	if (err)
		return err == -ENOENT ? err : -ENOENT;
	return root_path(c->root, sizeof(c->root), procfs_root, "%s", mnt);
}

static int by_id(const void *a, const void *b)
{
	const struct cg_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* the table is kept sorted by id: a lookup per counted cgroup per tick is a binary search */
static struct cg_ent *entry(const struct cgroups *c, __u64 id)
{
	struct cg_ent key = { .id = id };

	return c->n ? bsearch(&key, c->e, c->n, sizeof(*c->e), by_id) : NULL;
}

static int by_used_desc(const void *a, const void *b)
{
	const struct cg_ent *x = a, *y = b;

	return x->used > y->used ? -1 : x->used < y->used;
}

void cgroups_set_namer(struct cgroups *c, cg_namer f, void *ctx)
{
	c->namer = f;
	c->namer_ctx = ctx;
}

static bool unnamed(const struct cgroups *c, __u64 id)
{
	for (size_t i = 0; i < c->nunnamed; i++)
		if (c->unnamed[i] == id)
			return true;
	return false;
}

static void add_unnamed(struct cgroups *c, __u64 id)
{
	c->unnamed[c->unnamed_at] = id;
	c->unnamed_at = (c->unnamed_at + 1) % CG_UNNAMED_MAX;
	if (c->nunnamed < CG_UNNAMED_MAX)
		c->nunnamed++;
}

/* appended after the sorted part (learn() sorts once at its end); false: out of memory */
static bool add(struct cgroups *c, __u64 id, const char *path, double now)
{
	char *p = strdup(path);

	if (!p || GROW(c->e, c->cap, c->n + 1, 64)) {
		free(p);
		return false;
	}
	c->e[c->n++] = (struct cg_ent){ .id = id, .path = p, .used = now };
	return true;
}

struct walk {
	struct cgroups *c;
	double now;
	__u64 *want;			/* the ids looked for; found ones become 0 */
	size_t nwant, left;
	char path[4096];		/* under c->root */
};

/*
 * Every directory under w->path until each wanted id is found or CG_WALK_MAX are read: its inode
 * is the cgroup's id. Only what is looked for is kept, so a user's subtree of thousands of
 * cgroups costs time (bounded), not memory.
 */
static void walk(struct walk *w, size_t len, int depth)
{
	char full[8192];
	struct dirent *d;
	DIR *dir;

	snprintf(full, sizeof(full), "%s%s", w->c->root, len ? w->path : "");
	dir = opendir(full);
	if (!dir)
		return;
	while (w->left && w->c->walked < CG_WALK_MAX && (d = readdir(dir))) {
		size_t n;

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		w->c->walked++;
		n = strlen(d->d_name);
		if (len + 1 + n >= sizeof(w->path))
			continue;
		w->path[len] = '/';
		memcpy(w->path + len + 1, d->d_name, n + 1);
		for (size_t i = 0; i < w->nwant; i++)
			if (w->want[i] == d->d_ino) {
				if (add(w->c, d->d_ino, w->path, w->now))
					w->want[i] = 0, w->left--;
				break;
			}
		if (depth < MAX_DEPTH)
			walk(w, len + 1 + n, depth + 1);
		w->path[len] = '\0';
	}
	closedir(dir);
}

/* one walk for @want's ids; those it does not find are unnamed from now on */
static void walk_for(struct cgroups *c, __u64 *want, size_t n, double now)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct stat st;

	if (!w)
		return;
	*w = (struct walk){ .c = c, .now = now, .want = want, .nwant = n, .left = n };
	c->walked = 0;
	/* the root cgroup is the hierarchy's own directory */
	if (!stat(c->root, &st))
		for (size_t i = 0; i < n; i++)
			if (want[i] == st.st_ino && add(c, st.st_ino, "/", now))
				want[i] = 0, w->left--;
	walk(w, 0, 0);
	for (size_t i = 0; i < n; i++)
		if (want[i])
			add_unnamed(c, want[i]);
	c->scanned = now;
	free(w);
}

int cgroups_learn(struct cgroups *c, const struct snapshot *snap, double now)
{
	__u64 *want = NULL;
	size_t nwant = 0, capwant = 0, had = c->n;
	char path[4096];
	int err = 0;

	if (!c->root[0])
		return 0;
	for (size_t i = 0; i < snap->njobio; i++) {
		__u64 id = snap->jobio[i].k.cgid;
		struct cg_ent key = { .id = id }, *e;
		bool dup = false;

		/* the sorted part alone: what this loop appends is looked through below */
		e = had ? bsearch(&key, c->e, had, sizeof(*c->e), by_id) : NULL;

		if (e) {
			e->used = now;
			continue;
		}
		/* learned a moment ago (its other mount or direction), or never to be found */
		for (size_t j = had; j < c->n && !dup; j++)
			dup = c->e[j].id == id;
		for (size_t j = 0; j < nwant && !dup; j++)
			dup = want[j] == id;
		if (dup || unnamed(c, id))
			continue;
		if (c->namer && !c->namer(c->namer_ctx, id, path, sizeof(path))) {
			if (!add(c, id, path, now))
				err = -ENOMEM;
			continue;
		}
		if (GROW(want, capwant, nwant + 1, 16)) {
			err = -ENOMEM;
			break;
		}
		want[nwant++] = id;
	}
	/* cgroups made since and not named by the kernel: one walk, never more than once a second */
	if (nwant && (!c->scanned || now - c->scanned >= 1))
		walk_for(c, want, nwant, now);
	free(want);
	/* anything appended (and maybe as much evicted): sorted by id again, for entry() */
	if (c->n == had)
		return err;
	if (c->n > CGROUPS_MAX) {
		qsort(c->e, c->n, sizeof(*c->e), by_used_desc);
		for (size_t i = CGROUPS_MAX; i < c->n; i++)
			free(c->e[i].path);
		c->n = CGROUPS_MAX;
	}
	qsort(c->e, c->n, sizeof(*c->e), by_id);
	return err;
}

const char *cgroups_path(const struct cgroups *c, __u64 id)
{
	const struct cg_ent *e = entry(c, id);

	return e ? e->path : NULL;
}

bool cgroups_gone(const struct cgroups *c, __u64 id)
{
	const struct cg_ent *e = entry(c, id);
	char full[8192];
	struct stat st;

	if (!e)
		return unnamed(c, id);
	if (!c->root[0])
		return false;
	snprintf(full, sizeof(full), "%s%s", c->root, strcmp(e->path, "/") ? e->path : "");
	return stat(full, &st) || st.st_ino != id;
}

void cgroups_free(struct cgroups *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].path);
	free(c->e);
	memset(c, 0, sizeof(*c));
}

/* ---- a window's jobs */

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

		if (c2 && isdigit((unsigned char)c2[1]) && strtoul(c2 + 1, NULL, 10) == uid) {
			*c1 = '\0';
			snprintf(out, len, "%s", line);
			break;
		}
	}
	fclose(f);
}

static bool dev_in(const struct jobs_in *in, __u32 dev)
{
	if (!in->ndevs)
		return true;
	for (size_t i = 0; i < in->ndevs; i++)
		if (in->devs[i] == dev)
			return true;
	return false;
}

const struct job_io *jobio_before(const struct snapshot *s, const struct job_key *k)
{
	for (size_t i = 0; i < s->njobio; i++)
		if (!memcmp(&s->jobio[i].k, k, sizeof(*k)))
			return &s->jobio[i].v;
	return NULL;
}

static struct win_job *job_of(struct win_jobs *w, const struct job_id *id)
{
	struct win_job *j;

	for (size_t i = 0; i < w->nj; i++)
		if (!strcmp(w->j[i].id.kind, id->kind) && !strcmp(w->j[i].id.id, id->id))
			return &w->j[i];
	if (GROW(w->j, w->capj, w->nj + 1, 4))
		return NULL;
	j = &w->j[w->nj++];
	memset(j, 0, sizeof(*j));
	j->id = *id;
	j->uid = JOB_UNKNOWN_UID;
	return j;
}

void job_id_of(const struct jobs_in *in, __u64 cgid, struct job_id *id)
{
	const char *path = in->cg ? cgroups_path(in->cg, cgid) : NULL;

	if (path) {
		job_from_cgroup(path, id);
		return;
	}
	memset(id, 0, sizeof(*id));
	id->kind = "unknown";
	id->uid = JOB_UNKNOWN_UID;
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

struct win_job *win_job_find(struct win_jobs *w, const struct job_id *id)
{
	for (size_t i = 0; i < w->nj; i++)
		if (!strcmp(w->j[i].id.kind, id->kind) && !strcmp(w->j[i].id.id, id->id))
			return &w->j[i];
	return NULL;
}

int jobs_of_window(struct win_jobs *w, const struct jobs_in *in)
{
	uint64_t *best = NULL;		/* per job: the bytes of the cgroup that named its step */
	size_t capbest = 0;

	jobs_reset(w);
	for (size_t i = 0; i < in->to->njobio; i++) {
		const struct jobio_snap *e = &in->to->jobio[i];
		const struct job_io *b = jobio_before(in->from, &e->k);
		uint64_t d = b ? delta_u64(e->v.bytes, b->bytes) : e->v.bytes;
		struct job_id id;
		struct win_job *j;
		size_t at;

		if (e->k.dir != in->dir || !dev_in(in, e->k.dev) || !d)
			continue;
		job_id_of(in, e->k.cgid, &id);
		j = job_of(w, &id);
		if (!j || GROW(best, capbest, w->nj, 4)) {
			free(best);
			return -ENOMEM;
		}
		at = (size_t)(j - w->j);
		if (!j->bytes)
			best[at] = 0;
		/* several cgroups of one job (its steps, its containers): the step that moved most */
		if (d > best[at]) {
			best[at] = d;
			snprintf(j->id.step, sizeof(j->id.step), "%s", id.step);
		}
		j->bytes += d;
		if (j->uid == JOB_UNKNOWN_UID)
			j->uid = id.uid != JOB_UNKNOWN_UID ? id.uid : e->v.uid;
	}
	free(best);
	/* the processes seen in the window, each in the job its cgroup names */
	for (size_t t = 0; t < in->ntasks; t++) {
		struct job_id id;
		struct win_job *j;

		if (in->tasks[t].last_ns < in->since_ns)
			continue;
		job_id_of(in, in->tasks[t].k.cgid, &id);
		j = win_job_find(w, &id);
		if (j)
			j->nprocs++;
	}
	for (size_t i = 0; i < w->nj; i++) {
		w->total += w->j[i].bytes;
		if (w->j[i].uid != JOB_UNKNOWN_UID)
			user_name(w->j[i].uid, w->j[i].user, sizeof(w->j[i].user));
	}
	for (size_t i = 0; i < w->nj; i++)
		w->j[i].share = w->total ? (double)w->j[i].bytes / (double)w->total : -1;
	if (w->nj > 1)
		qsort(w->j, w->nj, sizeof(*w->j), by_bytes);
	return 0;
}

void jobs_reset(struct win_jobs *w)
{
	w->nj = 0;
	w->total = 0;
}

void jobs_free(struct win_jobs *w)
{
	free(w->j);
	memset(w, 0, sizeof(*w));
}
