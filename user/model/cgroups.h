/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_CGROUPS_H
#define SLOTSCOPE_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/engine.h"

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
	/* whether a snapshot's entry is counts kept in user space alone (the map holds none of it) */
	bool (*kept)(const void *ctx, const struct jobio_snap *e);
	const void *kept_ctx;
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
 * Tell the entries kept in user space alone (#63): no walk is made for them, and their paths
 * are the first to go when the cache is full. Named while they were in the map, they are named
 * from the cache; a node's 20,000 idle cgroups, all kept, made a walk of the whole hierarchy
 * every second, and evicted a new job's path from the cache for theirs.
 */
void cgroups_set_kept(struct cgroups *c, bool (*kept)(const void *ctx, const struct jobio_snap *e),
		      const void *ctx);
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

#endif
