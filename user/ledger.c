// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ledger.h"
#include "util.h"

static bool same_series(const struct xprt_view *a, const struct xprt_view *b)
{
	return a->id == b->id && a->ident == b->ident && !strcmp(a->addr, b->addr);
}

static const char *mp_of(const char *mp)
{
	return mp ? mp : "";
}

static struct xprt_sum *xprt_sum_of(const struct ledger *l, const struct xprt_view *x)
{
	for (size_t i = 0; i < l->nx; i++)
		if (same_series(&l->x[i].x, x))
			return &l->x[i];
	return NULL;
}

static struct mount_sum *mount_sum_of(const struct ledger *l, const char *mp)
{
	for (size_t i = 0; i < l->nm; i++)
		if (!strcmp(l->m[i].total.mountpoint, mp))
			return &l->m[i];
	return NULL;
}

static bool xprt_in(const struct view *v, const struct xprt_view *x)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (same_series(&v->xprts[i], x))
			return true;
	return false;
}

static bool mount_in(const struct view *v, const char *mp)
{
	for (size_t i = 0; i < v->nmounts; i++)
		if (!strcmp(mp_of(v->mounts[i].mountpoint), mp))
			return true;
	return false;
}

/*
 * The series idle longest that @live does not have, or -1: at the bound, a new series takes its
 * place; when every series is live, the new one goes uncounted.
 */
#define IDLEST(arr, n, live_test)							\
	({										\
		long _best = -1;							\
		for (size_t _i = 0; _i < (n); _i++)					\
			if (!(live_test) && (_best < 0 || (arr)[_i].last_s < (arr)[_best].last_s)) \
				_best = (long)_i;					\
		_best;									\
	})

static struct xprt_sum *new_xprt_sum(struct ledger *l, const struct xprt_view *x, const struct view *live)
{
	struct xprt_sum *e;

	if (l->nx == LEDGER_MAX_XPRTS) {
		long i = IDLEST(l->x, l->nx, xprt_in(live, &l->x[_i].x));

		if (i < 0)
			return NULL;
		l->x[i] = l->x[--l->nx];
	}
	if (GROW(l->x, l->capx, l->nx + 1, 16))
		return NULL;
	e = &l->x[l->nx++];
	memset(e, 0, sizeof(*e));
	e->x = *x;
	memset(&e->x.link, 0, sizeof(e->x.link));
	e->x.nmounts = 0;
	return e;
}

static void add_wait(struct wait_view *s, const struct wait_view *w)
{
	s->count += w->count;
	s->sum_ns += w->sum_ns;
	if (w->max_ns > s->max_ns)
		s->max_ns = w->max_ns;
	for (int b = 0; b < LAT_BUCKETS; b++)
		s->buckets[b] += w->buckets[b];
}

static int add_xprt(struct ledger *l, const struct view *iv, const struct xprt_view *x)
{
	struct xprt_sum *e = xprt_sum_of(l, x);
	struct xprt_view *s;
	double link_Bps = x->link.gbps * 1e9 / 8;

	if (!e) {
		e = new_xprt_sum(l, x, iv);
		if (!e)
			return -ENOMEM;
		s = &e->x;
		/* the counters are summed below, from zero */
		s->acquires = s->handoffs = s->releases = s->sends = s->connects = 0;
		s->preattach_releases = s->retrans = s->ops = s->bytes_written = s->bytes_read = 0;
		s->at_limit_ns = s->busy_ns = s->span_ns = 0;
		memset(s->waits, 0, sizeof(s->waits));
		memset(s->verdict_s, 0, sizeof(s->verdict_s));
		s->link_busy_bytes = 0;
	}
	s = &e->x;
	/* the series is named by the newest transport under its labels */
	if (x->first_seen_ns >= s->first_seen_ns) {
		s->key = x->key;
		s->first_seen_ns = x->first_seen_ns;
		s->limit = x->limit;
		s->max_reqs = x->max_reqs;
		s->min_reqs = x->min_reqs;
		s->limit_source = x->limit_source;
		memcpy(s->port, x->port, sizeof(s->port));
	}
	e->last_s = iv->ts_s;
	s->acquires += x->acquires;
	s->handoffs += x->handoffs;
	s->releases += x->releases;
	s->sends += x->sends;
	s->connects += x->connects;
	s->preattach_releases += x->preattach_releases;
	s->retrans += x->retrans;
	s->ops += x->ops;
	s->bytes_written += x->bytes_written;
	s->bytes_read += x->bytes_read;
	s->at_limit_ns += x->at_limit_ns;
	s->busy_ns += x->busy_ns;
	s->span_ns += x->span_ns;
	for (int k = 0; k < WAIT_KINDS; k++)
		add_wait(&s->waits[k], &x->waits[k]);
	/* two transports under one series in an interval (the id reused): its time once */
	if (!x->shadowed)
		s->verdict_s[x->verdict.cls] += iv->interval_s;
	s->link_busy_bytes += link_Bps * x->busy_ns / 1e9;
	return 0;
}

static struct mount_sum *new_mount_sum(struct ledger *l, const char *mp, const struct view *live)
{
	struct mount_sum *m;
	char *name;

	if (l->nm == LEDGER_MAX_MOUNTS) {
		long i = IDLEST(l->m, l->nm, mount_in(live, l->m[_i].total.mountpoint));

		if (i < 0)
			return NULL;
		free((char *)l->m[i].total.mountpoint);
		free(l->m[i].ops);
		l->m[i] = l->m[--l->nm];
	}
	if (GROW(l->m, l->capm, l->nm + 1, 8))
		return NULL;
	name = strdup(mp);
	if (!name)
		return NULL;
	m = &l->m[l->nm++];
	memset(m, 0, sizeof(*m));
	m->total.mountpoint = name;
	return m;
}

static struct mount_op *op_of(struct mount_sum *m, const char *name)
{
	struct mount_op *o;

	for (size_t i = 0; i < m->nops; i++)
		if (!strncmp(m->ops[i].name, name, OPNAME_LEN))
			return &m->ops[i];
	if (GROW(m->ops, m->capops, m->nops + 1, 4))
		return NULL;
	o = &m->ops[m->nops++];
	memset(o, 0, sizeof(*o));
	o->mountpoint = m->total.mountpoint;
	memcpy(o->name, name, OPNAME_LEN);
	o->name[OPNAME_LEN - 1] = 0;
	return o;
}

static int add_mounts(struct ledger *l, const struct view *iv)
{
	int err = 0;

	for (size_t i = 0; i < iv->nmounts; i++) {
		const struct mount_total *t = &iv->mounts[i];
		const char *mp = mp_of(t->mountpoint);
		struct mount_sum *m = mount_sum_of(l, mp);

		if (!m)
			m = new_mount_sum(l, mp, iv);
		if (!m) {
			err = -ENOMEM;
			continue;
		}
		m->last_s = iv->ts_s;
		m->total.bytes_read += t->bytes_read;
		m->total.bytes_written += t->bytes_written;
		m->total.errors += t->errors;
	}
	for (size_t i = 0; i < iv->nmops; i++) {
		const struct mount_op *p = &iv->mops[i];
		struct mount_sum *m = mount_sum_of(l, mp_of(p->mountpoint));
		struct mount_op *o = m ? op_of(m, p->name) : NULL;

		if (!o) {
			err = -ENOMEM;
			continue;
		}
		o->count += p->count;
		o->ntrans += p->ntrans;
		o->errors += p->errors;
		o->bytes_sent += p->bytes_sent;
		o->bytes_recv += p->bytes_recv;
		for (int s = 0; s < STAGES; s++) {
			o->sum_ns[s] += p->sum_ns[s];
			for (int b = 0; b < LAT_BUCKETS; b++)
				o->hist[s][b] += p->hist[s][b];
		}
	}
	return err;
}

int ledger_add(struct ledger *l, const struct view *iv)
{
	int err = 0;

	for (size_t i = 0; i < iv->nxprts; i++)
		if (add_xprt(l, iv, &iv->xprts[i]))
			err = -ENOMEM;
	if (add_mounts(l, iv))
		err = -ENOMEM;
	return err;
}

int ledger_view(const struct ledger *l, const struct view *cum, struct view *out)
{
	size_t nops = 0;

	*out = *cum;
	out->nxprts = out->nmounts = out->nmops = 0;
	for (size_t i = 0; i < l->nm; i++)
		nops += l->m[i].nops;
	out->xprts = calloc(l->nx + 1, sizeof(*out->xprts));
	out->mounts = calloc(l->nm + 1, sizeof(*out->mounts));
	out->mops = calloc(nops + 1, sizeof(*out->mops));
	if (!out->xprts || !out->mounts || !out->mops) {
		ledger_view_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->nx; i++) {
		const struct xprt_sum *e = &l->x[i];

		if (!xprt_in(cum, &e->x) && cum->ts_s - e->last_s > LEDGER_KEEP_S)
			continue;
		out->xprts[out->nxprts] = e->x;
		out->xprts[out->nxprts++].shadowed = false;
	}
	for (size_t i = 0; i < l->nm; i++) {
		const struct mount_sum *m = &l->m[i];

		if (!mount_in(cum, m->total.mountpoint) && cum->ts_s - m->last_s > LEDGER_KEEP_S)
			continue;
		out->mounts[out->nmounts++] = m->total;
		memcpy(&out->mops[out->nmops], m->ops, m->nops * sizeof(*m->ops));
		out->nmops += m->nops;
	}
	return 0;
}

void ledger_view_free(struct view *out)
{
	free(out->xprts);
	free(out->mounts);
	free(out->mops);
	out->xprts = NULL;
	out->mounts = NULL;
	out->mops = NULL;
	out->nxprts = out->nmounts = out->nmops = 0;
}

void ledger_free(struct ledger *l)
{
	for (size_t i = 0; i < l->nm; i++) {
		free((char *)l->m[i].total.mountpoint);
		free(l->m[i].ops);
	}
	free(l->x);
	free(l->m);
	memset(l, 0, sizeof(*l));
}
