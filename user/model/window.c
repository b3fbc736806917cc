// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "model/window.h"

const char *const win_kind_names[WIN_KINDS] = { "checkpoint", "restore" };

void window_init(struct window *c, const struct window_opts *o, enum win_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->o = *o;
	c->kind = kind;
	c->threshold_Bps = kind == WIN_RESTORE ? o->restore_threshold_Bps : o->threshold_Bps;
	c->other_Bps = kind == WIN_RESTORE ? o->threshold_Bps : o->restore_threshold_Bps;
}

static void drop_window(struct window *c)
{
	snapshot_free(&c->jobs_from);
	snapshot_free(&c->jobs_to);
	snapshot_free(&c->start);
	snapshot_free(&c->last);
	link_sample_free(&c->lstart);
	link_sample_free(&c->llast);
	c->nsat = 0;
}

static int keep(struct snapshot *s, struct link_sample *l, const struct snapshot *from,
		const struct link_sample *lfrom)
{
	snapshot_free(s);
	link_sample_free(l);
	if (snapshot_dup(s, from))
		return -1;
	if (lfrom && link_sample_dup(l, lfrom))
		return -1;
	return 0;
}

/* the intervals each transport was saturated in (the model's: half of one at its limit) */
static void account_saturation(struct window *c, const struct view *v)
{
	for (size_t i = 0; i < v->nxprts; i++) {
		const struct xprt_view *x = &v->xprts[i];
		struct window_sat *s = NULL;

		for (size_t j = 0; j < c->nsat && !s; j++)
			if (c->sat[j].key == x->key)
				s = &c->sat[j];
		if (!s && c->nsat < sizeof(c->sat) / sizeof(c->sat[0])) {
			s = &c->sat[c->nsat++];
			memset(s, 0, sizeof(*s));
			s->key = x->key;
		}
		if (!s)
			continue;
		if (x->interval_peak > s->peak)
			s->peak = x->interval_peak;
		if (!x->saturated)
			continue;
		s->secs += v->interval_s;
		s->link_bits += x->link.gbps * 1e9 * v->interval_s;
		if (x->link.rate_gbps > 0)
			s->link_rate_bps = x->link.rate_gbps * 1e9;
	}
}

static void sums_add(struct window_sums *to, const struct window_sums *d)
{
	to->secs += d->secs;
	to->bytes += d->bytes;
	to->slot_bound_secs += d->slot_bound_secs;
}

/* the window ends with its last busy interval: the quiet tail is not part of it */
static void window_ended(struct window *c)
{
	c->active = false;
	c->n++;
	c->ended = c->cur;
	c->ended_wall = c->end_wall;
	memset(&c->quiet_sums, 0, sizeof(c->quiet_sums));
	/* its jobs are named by the caller, from the kernel's counts (jobs_of_window) */
	jobs_reset(&c->ended_jobs);
}

enum window_event window_step(struct window *c, const struct view *v, const struct snapshot *prev,
			  const struct snapshot *cur, const struct link_sample *lprev,
			  const struct link_sample *lcur, double now_wall)
{
	struct window_sums d = { .secs = v->interval_s };
	bool busy, other, slot_bound = false;
	double other_bytes = (double)(c->kind == WIN_RESTORE ? v->bytes_written : v->bytes_read);

	d.bytes = (double)(c->kind == WIN_RESTORE ? v->bytes_read : v->bytes_written);
	for (size_t i = 0; i < v->nxprts; i++)
		slot_bound |= v->xprts[i].verdict.cls == V_SLOT;
	if (slot_bound)
		d.slot_bound_secs = v->interval_s;
	busy = v->interval_s > 0 && d.bytes / v->interval_s >= c->threshold_Bps;
	other = v->interval_s > 0 && other_bytes / v->interval_s >= c->other_Bps;
	if (c->active && !busy) {
		sums_add(&c->quiet_sums, &d);
		/* a quiet interval inside the window is part of it if it turns busy again */
		c->quiet_other |= other;
	}
	else if (busy) {
		if (!c->active) {
			c->started++;
			memset(&c->cur, 0, sizeof(c->cur));
		}
		sums_add(&d, &c->quiet_sums);
		memset(&c->quiet_sums, 0, sizeof(c->quiet_sums));
		if (c->active)
			c->mixed |= c->quiet_other;
		c->quiet_other = false;
		sums_add(&c->cur, &d);
		sums_add(&c->total, &d);
	}
	if (!c->active) {
		if (!busy)
			return WIN_NONE;
		drop_window(c);
		if (keep(&c->start, &c->lstart, prev, lprev) || keep(&c->last, &c->llast, cur, lcur))
			return WIN_NONE;
		c->active = true;
		c->mixed = other;
		c->quiet = 0;
		c->start_wall = now_wall - v->interval_s;
		c->end_wall = now_wall;
		c->start_mono = v->ts_s - v->interval_s;
		c->end_mono = v->ts_s;
		account_saturation(c, v);
		return WIN_STARTED;
	}
	if (busy) {
		c->quiet = 0;
		c->mixed |= other;
		c->end_wall = now_wall;
		c->end_mono = v->ts_s;
		keep(&c->last, &c->llast, cur, lcur);
		account_saturation(c, v);
		if (c->o.max_s <= 0 || c->end_mono - c->start_mono < c->o.max_s)
			return WIN_NONE;
		/* as long as a window may be: it ends here, busy, and the next starts after it */
		window_ended(c);
		c->cut = true;
		return WIN_ENDED;
	}
	if (++c->quiet < c->o.quiet_intervals)
		return WIN_NONE;
	window_ended(c);
	c->cut = false;
	return WIN_ENDED;
}

bool window_finish(struct window *c, double now_wall, double now_mono)
{
	if (!c->active)
		return false;
	/* the trace's end is the window's: its jobs count to the caller's last snapshot */
	snapshot_free(&c->jobs_to);
	c->end_wall = now_wall;
	c->end_mono = now_mono;
	window_ended(c);
	c->cut = false;
	return true;
}

double window_sat_util(const struct window *c, __u64 key, double *secs)
{
	*secs = 0;
	for (size_t i = 0; i < c->nsat; i++)
		if (c->sat[i].key == key) {
			*secs = c->sat[i].secs;
			if (c->sat[i].secs <= 0 || c->sat[i].link_rate_bps <= 0)
				return -1;
			return 100 * c->sat[i].link_bits / (c->sat[i].secs * c->sat[i].link_rate_bps);
		}
	return -1;
}

size_t window_peaks(const struct window *c, struct window_peak *out)
{
	for (size_t j = 0; j < c->nsat; j++)
		out[j] = (struct window_peak){ .key = c->sat[j].key, .peak = c->sat[j].peak };
	return c->nsat;
}

void window_view(const struct window *c, const struct view *v, struct window_view *cv)
{
	memset(cv, 0, sizeof(*cv));
	cv->kind = c->kind;
	cv->n = c->n;
	cv->mixed = c->mixed;
	cv->cut = c->cut;
	cv->start_wall = c->start_wall;
	cv->end_wall = c->end_wall;
	cv->secs = c->end_mono - c->start_mono;
	cv->bytes_written = (double)v->bytes_written;
	cv->bytes_read = (double)v->bytes_read;
	cv->GBps = cv->secs > 0 ?
		(c->kind == WIN_RESTORE ? cv->bytes_read : cv->bytes_written) / cv->secs / 1e9 : 0;
	cv->jobs = c->o.no_jobs ? NULL : &c->ended_jobs;
	for (size_t i = 0; i < c->nsat; i++) {
		struct window_sat_view *s = &cv->sat[cv->nsat++];
		const struct xprt_view *x = view_xprt(v, c->sat[i].key);

		s->key = c->sat[i].key;
		s->xprt_id = x ? x->id : 0;
		s->peak = c->sat[i].peak;
		s->util_pct = window_sat_util(c, s->key, &s->secs);
	}
}

const struct window_sat_view *window_view_sat(const struct window_view *cv, __u64 key)
{
	for (size_t i = 0; i < cv->nsat; i++)
		if (cv->sat[i].key == key)
			return &cv->sat[i];
	return NULL;
}

static int keep_jobio(struct snapshot *to, const struct snapshot *from)
{
	const struct snapshot s = { .ts_ns = from->ts_ns, .jobio = from->jobio, .njobio = from->njobio,
				    .jobio_sorted = from->jobio_sorted };

	snapshot_free(to);
	return from->ts_ns ? snapshot_dup(to, &s) : 0;
}

/*
 * whether this kind's NFS I/O moved from @a to @b: some entry's file calls' bytes or count, or
 * the bytes its RPCs carried (a flush after the last call), grew. Entry by entry: a gone
 * cgroup's counts that the engine lets go (jobretire.h) are no movement.
 */
static bool io_moved(const struct window *c, const struct snapshot *a, const struct snapshot *b)
{
	__u32 dir = c->kind == WIN_RESTORE ? JOB_READ : JOB_WRITE;

	for (size_t i = 0; i < b->njobio; i++) {
		const struct jobio_snap *e = &b->jobio[i];
		const struct job_io *p;

		if (e->k.dir != dir)
			continue;
		p = jobio_before(a, &e->k);
		if (p ? e->v.bytes > p->bytes || e->v.calls > p->calls || e->v.rpc_bytes > p->rpc_bytes
		      : e->v.bytes || e->v.calls || e->v.rpc_bytes)
			return true;
	}
	return false;
}

int window_jobs_track(struct window *c, enum window_event ev, const struct snapshot *before,
		      const struct snapshot *prev, const struct snapshot *cur)
{
	bool moved = io_moved(c, prev, cur);
	int err;

	if (ev == WIN_STARTED)
		job_active_reset(&c->job_active);
	/* out of memory here costs a job's active time only (jobs_time_of_window() bounds it) */
	if (ev != WIN_ENDED && (ev == WIN_STARTED || c->active))
		(void)job_active_track(&c->job_active, c->kind == WIN_RESTORE ? JOB_READ : JOB_WRITE, prev, cur);

	if (ev == WIN_STARTED) {
		snapshot_free(&c->jobs_to);
		err = keep_jobio(&c->jobs_from, c->lead.ts_ns && c->lead_n <= WINDOW_LEAD_MAX ?
				 &c->lead : before);
		snapshot_free(&c->lead);
		c->lead_n = 0;
		return err;
	}
	if (ev == WIN_ENDED || (c->active && c->quiet)) {
		/* a quiet interval after the last busy one: its calls are the window's if any */
		err = moved ? keep_jobio(&c->jobs_to, cur) : 0;
		if (ev != WIN_ENDED || err)
			return err;
		/* the next window counts from no earlier than where this one's count ends */
		c->lead_n = 0;
		return keep_jobio(&c->lead, cur);
	}
	if (c->active) {
		snapshot_free(&c->jobs_to);
		return 0;
	}
	if (moved) {
		if (c->lead_n < UINT32_MAX)
			c->lead_n++;
		return 0;
	}
	/* still for an interval: unless it moved since, the lead kept has cur's counts (and
	 * takes cur's clock: the processes a window names are those seen since) */
	if (c->lead.ts_ns && !c->lead_n) {
		c->lead.ts_ns = cur->ts_ns;
		return 0;
	}
	c->lead_n = 0;
	return keep_jobio(&c->lead, cur);
}

void window_free(struct window *c)
{
	drop_window(c);
	snapshot_free(&c->lead);
	jobs_free(&c->ended_jobs);
	job_active_free(&c->job_active);
}
