// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs' time by cause: what a window's job spent its READs and WRITEs on, and the window's own
 * duration shared out the same way (what its GPUs stood waiting on, for a job that waits for its
 * checkpoint to be written).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "jobtime.h"
#include "util.h"

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

static double active_of(const struct job_active_set *act, __u64 cgid)
{
	for (size_t i = 0; act && i < act->n; i++)
		if (act->a[i].cgid == cgid)
			return act->a[i].secs;
	return -1;
}

void jobs_time_of_window(struct win_jobs *w, const struct jobs_in *in, const struct job_active_set *act,
			 double secs)
{
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
		/* several cgroups of one job run side by side: the longest is the job's */
		if (active_of(act, e->k.cgid) > j->active_s)
			j->active_s = active_of(act, e->k.cgid);
		j->rpcs += e->v.rpcs > b->rpcs ? e->v.rpcs - b->rpcs : 0;
		j->rpc_s += delta_s(e->v.ns[JC_TOTAL], b->ns[JC_TOTAL]);
		for (int c = 0; c < JS_OTHER; c++)
			j->cause_rpc_s[c] += delta_s(e->v.ns[c], b->ns[c]);
	}
	for (size_t i = 0; i < w->nj; i++) {
		struct win_job *j = &w->j[i];

		j->active_s = j->active_s < 0 || j->active_s > secs ? secs : j->active_s;
		shares(j, j->active_s);
	}
}

static int by_key(const void *a, const void *b)
{
	const struct jobio_snap *x = a, *y = b;

	return memcmp(&x->k, &y->k, sizeof(x->k));
}

/*
 * @prev's entries sorted once an interval, each of @cur's found by bisection: a node's map holds
 * up to MAX_JOBIO (cgroup, mount, direction) entries, and this runs at every tick of a window.
 */
int job_active_track(struct job_active_set *s, __u32 dir, const struct snapshot *prev,
		     const struct snapshot *cur)
{
	double dt = cur->ts_ns > prev->ts_ns ? (double)(cur->ts_ns - prev->ts_ns) / 1e9 : 0;
	struct jobio_snap *sorted = NULL;
	int err = 0;

	if (dt <= 0 || !cur->njobio)
		return 0;
	if (prev->njobio) {
		sorted = malloc(prev->njobio * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, prev->jobio, prev->njobio * sizeof(*sorted));
		qsort(sorted, prev->njobio, sizeof(*sorted), by_key);
	}
	for (size_t i = 0; i < cur->njobio && !err; i++) {
		const struct jobio_snap *e = &cur->jobio[i], *b;
		size_t k;

		if (e->k.dir != dir || !e->v.ns[JC_TOTAL])
			continue;
		b = sorted ? bsearch(e, sorted, prev->njobio, sizeof(*sorted), by_key) : NULL;
		if (b && b->v.ns[JC_TOTAL] >= e->v.ns[JC_TOTAL])
			continue;
		for (k = 0; k < s->n && s->a[k].cgid != e->k.cgid; k++)
			;
		if (k == s->n) {
			if (GROW(s->a, s->cap, s->n + 1, 8)) {
				err = -ENOMEM;
				break;
			}
			s->a[s->n++] = (struct job_active){ .cgid = e->k.cgid };
		}
		/* one interval once, whatever mounts the cgroup's RPCs ended on in it */
		if (s->a[k].secs < 0)
			continue;
		s->a[k].secs += dt;
		s->a[k].secs = -s->a[k].secs;
	}
	for (size_t k = 0; k < s->n; k++)
		if (s->a[k].secs < 0)
			s->a[k].secs = -s->a[k].secs;
	free(sorted);
	return err;
}

void job_active_reset(struct job_active_set *s)
{
	s->n = 0;
}

void job_active_free(struct job_active_set *s)
{
	free(s->a);
	memset(s, 0, sizeof(*s));
}

/* @t's entry of job @id, made if need be: when full, in place of the one in a window longest ago */
static struct job_total *total_of(struct job_totals *t, const struct job_id *id)
{
	struct job_total *old = NULL;

	for (size_t k = 0; k < t->n; k++) {
		if (!strcmp(t->t[k].id.kind, id->kind) && !strcmp(t->t[k].id.id, id->id))
			return &t->t[k];
		if (!old || t->t[k].seq < old->seq)
			old = &t->t[k];
	}
	if (t->n < JOB_TOTALS_MAX)
		old = &t->t[t->n++];
	/* its counters end there: a job that comes back starts again from 0 (a counter reset) */
	memset(old, 0, sizeof(*old));
	old->id = *id;
	return old;
}

void job_totals_add(struct job_totals *t, const struct win_jobs *w)
{
	t->seq++;
	for (size_t i = 0; i < w->nj && i < JOB_TOTALS_MAX; i++) {
		struct job_total *e = total_of(t, &w->j[i].id);

		for (int c = 0; c < JS_CAUSES; c++)
			e->cause_s[c] += w->j[i].cause_s[c];
		e->seq = t->seq;
	}
}
