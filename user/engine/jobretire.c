// SPDX-License-Identifier: GPL-2.0
/* The counts of gone cgroups kept in user space while windows need them (jobretire.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine/jobretire.h"
#include "lib/util.h"

void job_io_add(struct job_io *a, const struct job_io *b)
{
	a->bytes += b->bytes;
	a->calls += b->calls;
	a->rpcs += b->rpcs;
	a->rpc_bytes += b->rpc_bytes;
	for (int c = 0; c < JOB_CAUSES; c++)
		a->ns[c] += b->ns[c];
	if (!a->uid)
		a->uid = b->uid;
}

static bool counters_eq(const struct job_io *a, const struct job_io *b)
{
	if (a->bytes != b->bytes || a->calls != b->calls || a->rpcs != b->rpcs || a->rpc_bytes != b->rpc_bytes)
		return false;
	for (int c = 0; c < JOB_CAUSES; c++)
		if (a->ns[c] != b->ns[c])
			return false;
	return true;
}

static struct jobio_gone *find(const struct jobio_retired *t, const struct job_key *k)
{
	/* the key leads both structures: jobio_key_cmp() compares it alone */
	struct jobio_gone *g = t->nsorted ? bsearch(k, t->r, t->nsorted, sizeof(*t->r), jobio_key_cmp) : NULL;

	/* the few added since the last commit (one reap's) */
	for (size_t i = t->nsorted; !g && i < t->n; i++)
		if (!jobio_key_cmp(&t->r[i].e.k, k))
			g = &t->r[i];
	return g;
}

void jobret_commit(struct jobio_retired *t)
{
	if (t->nsorted == t->n)
		return;
	qsort(t->r, t->n, sizeof(*t->r), jobio_key_cmp);
	t->nsorted = t->n;
}

const struct job_io *jobret_find(const struct jobio_retired *t, const struct job_key *k)
{
	const struct jobio_gone *g = find(t, k);

	return g ? &g->e.v : NULL;
}

bool jobret_matches(const struct jobio_retired *t, const struct jobio_snap *seen, const struct job_io *map)
{
	const struct jobio_gone *g = find(t, &seen->k);
	struct job_io sum = *map;

	if (g)
		job_io_add(&sum, &g->e.v);
	return counters_eq(&sum, &seen->v);
}

bool jobret_only(const struct jobio_retired *t, const struct jobio_snap *seen)
{
	const struct jobio_gone *g = find(t, &seen->k);

	return g && counters_eq(&g->e.v, &seen->v);
}

int jobret_reserve(struct jobio_retired *t, size_t extra)
{
	if (t->n + extra > JOBIO_RETIRED_MAX)
		return -ENOSPC;
	return GROW(t->r, t->cap, t->n + extra, 64) ? -ENOMEM : 0;
}

int jobret_add(struct jobio_retired *t, const struct job_key *k, const struct job_io *v, __u64 still_ns)
{
	struct jobio_gone *g = find(t, k);

	if (g) {
		job_io_add(&g->e.v, v);
		g->still_ns = still_ns;
		return 0;
	}
	if (jobret_reserve(t, 1))
		return t->n >= JOBIO_RETIRED_MAX ? -ENOSPC : -ENOMEM;
	t->r[t->n++] = (struct jobio_gone){ .e = { .k = *k, .v = *v }, .still_ns = still_ns };
	return 0;
}

int jobret_merge(struct jobio_retired *t, struct snapshot *snap)
{
	size_t extra = 0, n = snap->njobio;
	struct jobio_snap *arr;

	if (!t->n)
		return 0;
	jobret_commit(t);
	if (!snap->jobio_sorted && n)
		qsort(snap->jobio, n, sizeof(*snap->jobio), jobio_key_cmp);
	snap->jobio_sorted = true;
	for (size_t i = 0; i < t->n; i++) {
		struct jobio_snap *e = n ? bsearch(&t->r[i].e.k, snap->jobio, n, sizeof(*snap->jobio), jobio_key_cmp) : NULL;

		if (e)
			job_io_add(&e->v, &t->r[i].e.v);
		else
			extra++;
	}
	if (!extra)
		return 0;
	arr = realloc(snap->jobio, (n + extra) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	snap->jobio = arr;
	for (size_t i = 0; i < t->n; i++)
		if (!bsearch(&t->r[i].e.k, arr, n, sizeof(*arr), jobio_key_cmp))
			arr[snap->njobio++] = t->r[i].e;
	qsort(arr, snap->njobio, sizeof(*arr), jobio_key_cmp);
	return 0;
}

size_t jobret_trim(struct jobio_retired *t, __u64 held_ns, bool (*in_map)(void *ctx, const struct job_key *k),
		   void *ctx)
{
	size_t kept = 0, n = t->n;

	jobret_commit(t);
	for (size_t i = 0; i < n; i++) {
		const struct jobio_gone *g = &t->r[i];

		if (g->still_ns <= held_ns && !(in_map && in_map(ctx, &g->e.k)))
			continue;
		t->r[kept++] = *g;
	}
	t->n = t->nsorted = kept;
	return n - kept;
}

void jobret_free(struct jobio_retired *t)
{
	free(t->r);
	memset(t, 0, sizeof(*t));
}
