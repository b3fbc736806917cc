// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs' time by cause: what a window's job spent its READs and WRITEs on, and the window's own
 * duration shared out the same way (what its GPUs stood waiting on, for a job that waits for its
 * checkpoint to be written).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/jobtime.h"
#include "lib/util.h"

const char *const job_cause_names[JS_CAUSES] = { "slot", "send", "session", "delay", "rtt", "other" };

_Static_assert((int)JS_SLOT == (int)WAIT_SLOT && (int)JS_SEND == (int)WAIT_SEND &&
	       (int)JS_SESSION == (int)WAIT_SESSION && (int)JS_DELAY == (int)WAIT_DELAY &&
	       (int)JS_RTT == (int)JC_RTT, "a job's causes in the kernel's order");

static double delta_s(__u64 now, __u64 before)
{
	return now > before ? (double)(now - before) / 1e9 : 0;
}

/*
 * The rest of the RPCs' time is what neither a wait nor the round trip took; the parts are
 * measured apart (waits from sleep to wake, the round trip and the whole by the kernel), so
 * their sum may pass the whole by a hair: the rest is then 0, and the shares are of the sum.
 */
static void shares(struct win_job *j, double secs)
{
	/* its time in the window: what its active intervals add up to, never more than the window */
	double parts = 0, sum = 0;

	for (int c = 0; c < JS_OTHER; c++)
		parts += j->cause_rpc_s[c];
	j->cause_rpc_s[JS_OTHER] = j->rpc_s > parts ? j->rpc_s - parts : 0;
	for (int c = 0; c < JS_CAUSES; c++)
		sum += j->cause_rpc_s[c];
	for (int c = 0; c < JS_CAUSES; c++)
		j->cause_s[c] = sum > 0 ? secs * j->cause_rpc_s[c] / sum : 0;
}

/* where @cgid is in @s's index, or the empty place it would go (the index is never full) */
static uint32_t *active_place(const struct job_active_set *s, __u64 cgid)
{
	size_t h = (size_t)((cgid * 0x9e3779b97f4a7c15ULL) >> 20) & (s->capidx - 1);

	while (s->idx[h] && s->a[s->idx[h] - 1].cgid != cgid)
		h = (h + 1) & (s->capidx - 1);
	return &s->idx[h];
}

/* room in @s's index for @need cgroups, made again when it grows */
static int active_room(struct job_active_set *s, size_t need)
{
	size_t cap = s->capidx ? s->capidx : 64;
	uint32_t *idx;

	while (cap < 2 * need)
		cap *= 2;
	if (cap == s->capidx)
		return 0;
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	free(s->idx);
	s->idx = idx;
	s->capidx = cap;
	for (size_t i = 0; i < s->n; i++)
		*active_place(s, s->a[i].cgid) = (uint32_t)i + 1;
	return 0;
}

static const struct job_active *active_of(const struct job_active_set *act, __u64 cgid)
{
	const uint32_t *at;

	if (!act || !act->capidx)
		return NULL;
	at = active_place(act, cgid);
	return *at ? &act->a[*at - 1] : NULL;
}

void jobs_time_of_window(struct win_jobs *w, const struct jobs_in *in, const struct job_active_set *act,
			 double secs)
{
	__u64 *first = calloc(w->nj ? w->nj : 1, 2 * sizeof(__u64)), *last;

	/* without room for the spans every job's is the window's (bounded below by its RPCs) */
	last = first ? first + (w->nj ? w->nj : 1) : NULL;
	for (size_t i = 0; i < w->nj; i++) {
		struct win_job *j = &w->j[i];

		j->rpcs = 0;
		j->rpc_s = 0;
		memset(j->cause_rpc_s, 0, sizeof(j->cause_rpc_s));
		j->active_s = -1;
	}
	for (size_t i = 0; i < in->to->njobio; i++) {
		const struct jobio_snap *e = &in->to->jobio[i];
		const struct job_io *b = jobio_before(in->from, &e->k);
		static const struct job_io none;
		struct win_job *j;
		struct job_id id;
		bool any = false;

		if (e->k.dir != in->dir)
			continue;
		if (!b)
			b = &none;
		for (int c = 0; c < JOB_CAUSES && !any; c++)
			any = e->v.ns[c] > b->ns[c];
		if (!any)
			continue;
		/* a job with no bytes in the window is not among its jobs: its time is not either */
		job_id_of(in, e->k.cgid, &id);
		j = win_job_find(w, &id);
		if (!j)
			continue;
		if (in->ndevs) {
			bool on = false;

			for (size_t d = 0; d < in->ndevs && !on; d++)
				on = in->devs[d] == e->k.dev;
			if (!on)
				continue;
		}
		/* several cgroups of one job (its steps, side by side or one after another): from
		 * the first one's start to the last one's end */
		const struct job_active *a = first ? active_of(act, e->k.cgid) : NULL;

		if (a) {
			size_t at = (size_t)(j - w->j);

			if (!first[at] || a->first_ns < first[at])
				first[at] = a->first_ns;
			if (a->last_ns > last[at])
				last[at] = a->last_ns;
			j->active_s = (double)(last[at] - first[at]) / 1e9;
		}
		j->rpcs += e->v.rpcs > b->rpcs ? e->v.rpcs - b->rpcs : 0;
		j->rpc_s += delta_s(e->v.ns[JC_TOTAL], b->ns[JC_TOTAL]);
		for (int c = 0; c < JS_OTHER; c++)
			j->cause_rpc_s[c] += delta_s(e->v.ns[c], b->ns[c]);
	}
	for (size_t i = 0; i < w->nj; i++) {
		struct win_job *j = &w->j[i];

		/*
		 * No RPC: no time. No interval seen (act not kept, or its RPCs all ended in intervals
		 * not tracked): at most the window's, and no more than its RPCs' own time.
		 */
		if (j->rpc_s <= 0)
			j->active_s = 0;
		else if (j->active_s < 0)
			j->active_s = act ? (j->rpc_s < secs ? j->rpc_s : secs) : secs;
		else if (j->active_s > secs)
			j->active_s = secs;
		shares(j, j->active_s);
	}
	free(first);
}

/*
 * Each of @cur's entries found in @prev's by bisection (the engine's snapshots are in key order;
 * any other is sorted here once an interval): a node's map holds up to MAX_JOBIO (cgroup, mount,
 * direction) entries, and this runs at every tick of a window.
 */
int job_active_track(struct job_active_set *s, __u32 dir, const struct snapshot *prev,
		     const struct snapshot *cur)
{
	struct jobio_snap *sorted = NULL;
	int err = 0;

	if (cur->ts_ns <= prev->ts_ns || !cur->njobio)
		return 0;
	if (prev->njobio && !prev->jobio_sorted) {
		sorted = malloc(prev->njobio * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, prev->jobio, prev->njobio * sizeof(*sorted));
		qsort(sorted, prev->njobio, sizeof(*sorted), jobio_key_cmp);
	}
	for (size_t i = 0; i < cur->njobio && !err; i++) {
		const struct jobio_snap *e = &cur->jobio[i], *b;
		uint32_t *at;

		if (e->k.dir != dir || !e->v.ns[JC_TOTAL])
			continue;
		bool grew = false;

		b = prev->njobio ? bsearch(e, sorted ? sorted : prev->jobio, prev->njobio, sizeof(*sorted), jobio_key_cmp)
				 : NULL;
		for (int c = 0; c < JOB_CAUSES && !grew; c++)
			grew = e->v.ns[c] > (b ? b->v.ns[c] : 0);
		if (!grew)
			continue;
		if (s->n >= UINT32_MAX - 1 || active_room(s, s->n + 1) || GROW(s->a, s->cap, s->n + 1, 8)) {
			err = -ENOMEM;
			break;
		}
		at = active_place(s, e->k.cgid);
		if (!*at) {
			s->a[s->n] = (struct job_active){ .cgid = e->k.cgid, .first_ns = prev->ts_ns };
			*at = (uint32_t)++s->n;
		}
		s->a[*at - 1].last_ns = cur->ts_ns;
	}
	free(sorted);
	return err;
}

void job_active_reset(struct job_active_set *s)
{
	s->n = 0;
	if (s->idx)
		memset(s->idx, 0, s->capidx * sizeof(*s->idx));
}

void job_active_free(struct job_active_set *s)
{
	free(s->a);
	free(s->idx);
	memset(s, 0, sizeof(*s));
}

/* a new entry of @t for job @id: when full, in place of the one in a window longest ago */
static struct job_total *total_of(struct job_totals *t, const struct job_id *id)
{
	struct job_total *old = NULL;

	for (size_t k = 0; k < t->n; k++)
		if (!old || t->t[k].seq < old->seq)
			old = &t->t[k];
	if (t->n < JOB_TOTALS_MAX)
		old = &t->t[t->n++];
	/* its counters end there: a job that comes back starts again from 0 (a counter reset) */
	memset(old, 0, sizeof(*old));
	old->id = *id;
	return old;
}

static struct job_total *total_find(struct job_totals *t, const struct job_id *id)
{
	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->t[k].id.kind, id->kind) && !strcmp(t->t[k].id.id, id->id))
			return &t->t[k];
	return NULL;
}

/*
 * The window's jobs already counted first, then its new ones: a new one ahead of them in the
 * window's order would otherwise push one of them out (a false counter reset).
 */
void job_totals_add(struct job_totals *t, const struct win_jobs *w)
{
	size_t n = w->nj < JOB_TOTALS_MAX ? w->nj : JOB_TOTALS_MAX;

	t->seq++;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			struct job_total *e = total_find(t, &w->j[i].id);

			if ((e != NULL) == (pass == 1))
				continue;
			if (!e)
				e = total_of(t, &w->j[i].id);
			for (int c = 0; c < JS_CAUSES; c++)
				e->cause_s[c] += w->j[i].cause_s[c];
			e->seq = t->seq;
		}
}
