// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/jobs.h"
#include "lib/uhist.h"
#include "lib/util.h"

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
	if (s->jobio_sorted && s->njobio) {
		const struct jobio_snap *e = bsearch(k, s->jobio, s->njobio, sizeof(*s->jobio), jobio_key_cmp);

		return e ? &e->v : NULL;
	}
	for (size_t i = 0; i < s->njobio; i++)
		if (!memcmp(&s->jobio[i].k, k, sizeof(*k)))
			return &s->jobio[i].v;
	return NULL;
}

/*
 * A window's jobs by (kind, id), hashed: a node with thousands of short cgroups, each its own job,
 * made the window's end a linear search per cgroup (#63), O(n^2).
 */
static size_t job_hash(const struct job_id *id)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a over kind, a NUL, then id */

	for (const char *c = id->kind; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	h *= 1099511628211ULL;
	for (const char *c = id->id; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	return (size_t)(h ^ h >> 32);
}

static bool job_is(const struct win_job *j, const struct job_id *id)
{
	return !strcmp(j->id.kind, id->kind) && !strcmp(j->id.id, id->id);
}

/* @w's index made again over j[0..nj): after a growth, or a sort that moved the jobs */
static int jobs_reindex(struct win_jobs *w, size_t need)
{
	size_t cap = w->capidx ? w->capidx : 64;

	while (cap < 2 * need)
		cap *= 2;
	if (cap != w->capidx) {
		uint32_t *idx = calloc(cap, sizeof(*idx));

		if (!idx)
			return -ENOMEM;
		free(w->idx);
		w->idx = idx;
		w->capidx = cap;
	} else {
		memset(w->idx, 0, cap * sizeof(*w->idx));
	}
	for (size_t i = 0; i < w->nj; i++) {
		size_t h = job_hash(&w->j[i].id) & (w->capidx - 1);

		while (w->idx[h])
			h = (h + 1) & (w->capidx - 1);
		w->idx[h] = (uint32_t)i + 1;
	}
	return 0;
}

/* where @id is in @w's index, or the empty place it would go */
static uint32_t *job_place(const struct win_jobs *w, const struct job_id *id)
{
	size_t h = job_hash(id) & (w->capidx - 1);

	while (w->idx[h] && !job_is(&w->j[w->idx[h] - 1], id))
		h = (h + 1) & (w->capidx - 1);
	return &w->idx[h];
}

static struct win_job *job_of(struct win_jobs *w, const struct job_id *id)
{
	struct win_job *j;
	uint32_t *at;

	if ((!w->capidx || w->capidx < 2 * (w->nj + 1)) && jobs_reindex(w, w->nj + 1))
		return NULL;
	at = job_place(w, id);
	if (*at)
		return &w->j[*at - 1];
	if (w->nj >= UINT32_MAX - 1 || GROW(w->j, w->capj, w->nj + 1, 4))
		return NULL;
	j = &w->j[w->nj];
	memset(j, 0, sizeof(*j));
	j->id = *id;
	j->uid = JOB_UNKNOWN_UID;
	*at = (uint32_t)++w->nj;
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

static int by_rpc_bytes(const void *a, const void *b)
{
	const struct win_job *x = a, *y = b;

	if (x->rpc_bytes != y->rpc_bytes)
		return x->rpc_bytes < y->rpc_bytes ? 1 : -1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->nprocs != y->nprocs)
		return x->nprocs < y->nprocs ? 1 : -1;
	return strcmp(x->id.id, y->id.id);
}

struct win_job *win_job_find(struct win_jobs *w, const struct job_id *id)
{
	uint32_t *at;

	if (!w->capidx)
		return NULL;
	at = job_place(w, id);
	return *at ? &w->j[*at - 1] : NULL;
}

int jobs_of_window(struct win_jobs *w, const struct jobs_in *in)
{
	/* per job: the RPC bytes, then file bytes, of the cgroup that named its step */
	uint64_t (*best)[2] = NULL;
	size_t capbest = 0;

	jobs_reset(w);
	for (size_t i = 0; i < in->to->njobio; i++) {
		const struct jobio_snap *e = &in->to->jobio[i];
		const struct job_io *b = jobio_before(in->from, &e->k);
		uint64_t d = b ? delta_u64(e->v.bytes, b->bytes) : e->v.bytes;
		uint64_t r = b ? delta_u64(e->v.rpc_bytes, b->rpc_bytes) : e->v.rpc_bytes;
		struct job_id id;
		struct win_job *j;
		size_t at;

		/* RPC bytes alone: writeback in the window of calls made before it */
		if (e->k.dir != in->dir || !dev_in(in, e->k.dev) || (!d && !r))
			continue;
		job_id_of(in, e->k.cgid, &id);
		j = job_of(w, &id);
		if (!j || GROW(best, capbest, w->nj, 4)) {
			free(best);
			return -ENOMEM;
		}
		at = (size_t)(j - w->j);
		if (!j->bytes && !j->rpc_bytes)
			best[at][0] = best[at][1] = 0;
		/* several cgroups of one job (its steps, its containers): the step that moved most */
		if (r > best[at][0] || (r == best[at][0] && d > best[at][1])) {
			best[at][0] = r;
			best[at][1] = d;
			snprintf(j->id.step, sizeof(j->id.step), "%s", id.step);
		}
		j->bytes += d;
		j->rpc_bytes += r;
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
		w->rpc_total += w->j[i].rpc_bytes;
		if (w->j[i].uid != JOB_UNKNOWN_UID)
			user_name(w->j[i].uid, w->j[i].user, sizeof(w->j[i].user));
	}
	for (size_t i = 0; i < w->nj; i++)
		w->j[i].share = w->rpc_total ? (double)w->j[i].rpc_bytes / (double)w->rpc_total : -1;
	if (w->nj > 1)
		qsort(w->j, w->nj, sizeof(*w->j), by_rpc_bytes);
	return w->nj ? jobs_reindex(w, w->nj) : 0;
}

void jobs_reset(struct win_jobs *w)
{
	w->nj = 0;
	w->total = 0;
	w->rpc_total = 0;
	if (w->idx)
		memset(w->idx, 0, w->capidx * sizeof(*w->idx));
}

void jobs_free(struct win_jobs *w)
{
	free(w->j);
	free(w->idx);
	memset(w, 0, sizeof(*w));
}
