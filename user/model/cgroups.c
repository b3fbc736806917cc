// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 ids to paths (cgroups.h): the kernel's names, else bounded walks of the hierarchy. */
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
#include "model/cgroups.h"
#include "lib/util.h"

/* no deeper than a path job_from_cgroup() reads (jobname.c: 16 components) */
#define WALK_DEPTH 16

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

void cgroups_set_kept(struct cgroups *c, bool (*kept)(const void *ctx, const struct jobio_snap *e),
		      const void *ctx)
{
	c->kept = kept;
	c->kept_ctx = ctx;
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
	const __u64 *want;		/* the ids looked for, sorted */
	bool *found;
	size_t nwant, left;
	char path[4096];		/* under c->root */
};

static int by_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* @id's place in the walk's sorted ids, if it is looked for and not found yet; -1: not */
static long wanted(const struct walk *w, __u64 id)
{
	const __u64 *at = bsearch(&id, w->want, w->nwant, sizeof(*w->want), by_u64);

	return at && !w->found[at - w->want] ? at - w->want : -1;
}

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
		long at = wanted(w, d->d_ino);

		if (at >= 0 && add(w->c, d->d_ino, w->path, w->now))
			w->found[at] = true, w->left--;
		if (depth < WALK_DEPTH)
			walk(w, len + 1 + n, depth + 1);
		w->path[len] = '\0';
	}
	closedir(dir);
}

/* one walk for @want's ids (sorted, each once); those it does not find are unnamed from now on */
static void walk_for(struct cgroups *c, const __u64 *want, size_t n, double now)
{
	struct walk *w = calloc(1, sizeof(*w));
	bool *found = calloc(n, sizeof(*found));
	struct stat st;
	long at;

	if (!w || !found) {
		free(w);
		free(found);
		return;
	}
	*w = (struct walk){ .c = c, .now = now, .want = want, .found = found, .nwant = n, .left = n };
	c->walked = 0;
	/* the root cgroup is the hierarchy's own directory */
	if (!stat(c->root, &st) && (at = wanted(w, st.st_ino)) >= 0 && add(c, st.st_ino, "/", now))
		found[at] = true, w->left--;
	walk(w, 0, 0);
	for (size_t i = 0; i < n; i++)
		if (!found[i])
			add_unnamed(c, want[i]);
	c->scanned = now;
	free(found);
	free(w);
}

int cgroups_learn(struct cgroups *c, const struct snapshot *snap, double now)
{
	__u64 *want = NULL;
	size_t nwant = 0, capwant = 0, nnew = 0, had = c->n;
	__u64 last = 0;
	char path[4096];
	int err = 0;

	if (!c->root[0])
		return 0;
	/* the ids not known yet, each once: sorted, so that a node's thousands of new cgroups (each
	 * under a mount or two, in a direction or two) cost n log n, not n^2 */
	for (size_t i = 0; i < snap->njobio; i++) {
		__u64 id = snap->jobio[i].k.cgid;
		struct cg_ent key = { .id = id }, *e;
		bool kept = c->kept && c->kept(c->kept_ctx, &snap->jobio[i]);

		e = had ? bsearch(&key, c->e, had, sizeof(*c->e), by_id) : NULL;
		if (e) {
			/* a kept one's path is older than any the map's entries asked for */
			if (!kept)
				e->used = now;
			else if (e->used < now - 1)
				e->used = now - 1;
			continue;
		}
		if (kept)
			continue;
		if (GROW(want, capwant, nnew + 1, 16)) {
			free(want);
			return -ENOMEM;
		}
		want[nnew++] = id;
	}
	if (nnew > 1)
		qsort(want, nnew, sizeof(*want), by_u64);
	for (size_t i = 0; i < nnew; i++) {
		__u64 id = want[i];

		/* the same id under another mount or direction, or never to be found */
		if ((i && id == last) || unnamed(c, id)) {
			last = id;
			continue;
		}
		last = id;
		if (c->namer && !c->namer(c->namer_ctx, id, path, sizeof(path))) {
			if (!add(c, id, path, now))
				err = -ENOMEM;
			continue;
		}
		/* kept in order, in place: the walk bisects them */
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
