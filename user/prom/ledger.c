// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "prom/ledger.h"
#include "lib/util.h"

static const char *mp_of(const char *mp)
{
	return mp ? mp : "";
}

/* the mount a transport counts under with --prom-rollup, "" for none known */
static const char *row_mp(const struct xprt_view *x)
{
	return mp_of(x->row_mount);
}

static bool is_series(const struct xprt_sum *e, const struct xprt_view *x)
{
	return e->id == x->id && e->ident == x->ident && !strcmp(e->addr, x->addr);
}

static struct xprt_sum *xprt_sum_of(const struct ledger *l, const struct xprt_view *x)
{
	for (size_t i = 0; i < l->nx; i++)
		if (is_series(&l->x[i], x))
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

static bool xprt_live(const struct view *v, const struct xprt_sum *e)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (is_series(e, &v->xprts[i]))
			return true;
	return false;
}

static bool mount_live(const struct view *v, const char *mp)
{
	for (size_t i = 0; i < v->nmounts; i++)
		if (!strcmp(mp_of(v->mounts[i].mountpoint), mp))
			return true;
	return false;
}

static bool row_live(const struct view *v, const struct roll_sum *r)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (!v->xprts[i].row_hidden && !strcmp(row_mp(&v->xprts[i]), r->mountpoint) &&
		    !strcmp(v->xprts[i].row_server, r->s.addr))
			return true;
	return false;
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

/* interval transport @x's figures added to its series' sums @e */
static void xprt_sum_add(struct xprt_sum *e, const struct view *iv, const struct xprt_view *x)
{
	e->last_s = iv->ts_s;
	if (!e->active_s || x->n.acquires || x->n.sends || x->ops || x->in_use_shown)
		e->active_s = iv->ts_s;
	xprt_counts_add(&e->n, &x->n);
	e->retrans += x->retrans;
	e->timeouts += x->timeouts;
	e->ops += x->ops;
	e->bytes_written += x->bytes_written;
	e->bytes_read += x->bytes_read;
	e->at_limit_ns += x->at_limit_ns;
	e->busy_ns += x->busy_ns;
	e->span_ns += x->span_ns;
	e->credit_at_limit_ns += (double)x->credit.at_limit_ns;
	e->credit_busy_ns += (double)x->credit.busy_ns;
	for (int k = 0; k < WAIT_KINDS; k++)
		add_wait(&e->waits[k], &x->waits[k]);
	for (int b = 0; b < LEVEL_BUCKETS; b++) {
		e->curve_rpcs[b] += x->curve.rpcs[b];
		e->curve_rtt_ns[b] += x->curve.rtt_ns[b];
		e->curve_exec_ns[b] += x->curve.exec_ns[b];
	}
	e->limit = x->limit;
	/* two transports under one series in an interval (the id reused): its time once, the shown one's */
	if (!x->shadowed)
		e->verdict_s[x->verdict.cls] += iv->interval_s;
	e->link_busy_bytes += x->link.gbps * 1e9 / 8 * x->busy_ns / 1e9;
}

static int add_xprt(struct ledger *l, const struct view *iv, const struct xprt_view *x)
{
	struct xprt_sum *e = xprt_sum_of(l, x);

	if (!e) {
		if (GROW(l->x, l->capx, l->nx + 1, 16))
			return -ENOMEM;
		e = &l->x[l->nx++];
		memset(e, 0, sizeof(*e));
		memcpy(e->addr, x->addr, sizeof(e->addr));
		e->ident = x->ident;
		e->id = x->id;
	}
	xprt_sum_add(e, iv, x);
	return 0;
}

static struct roll_sum *roll_sum_of(const struct ledger *l, const char *mp, const char *server)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->r[i].mountpoint, mp) && !strcmp(l->r[i].s.addr, server))
			return &l->r[i];
	return NULL;
}

/* interval transport @x's figures added to the row it counts under */
static void roll_sum_add(struct roll_sum *r, const struct view *iv, const struct xprt_view *x)
{
	xprt_sum_add(&r->s, iv, x);
	for (size_t g = 0; g < x->curve.ngroups; g++) {
		const struct curve_group *q = &x->curve.groups[g];

		r->q_rpcs[q->quarter] += (double)q->rpcs;
		r->q_rtt_ns[q->quarter] += q->rtt_sum_ns;
		r->q_exec_ns[q->quarter] += q->exec_sum_ns;
	}
}

static int add_rows(struct ledger *l, const struct view *iv)
{
	for (size_t i = 0; i < iv->nxprts; i++) {
		const struct xprt_view *x = &iv->xprts[i];
		struct roll_sum *r;

		if (x->row_hidden)
			continue;
		r = roll_sum_of(l, row_mp(x), x->row_server);
		if (!r) {
			char *name;

			if (GROW(l->r, l->capr, l->nr + 1, 8) || !(name = strdup(row_mp(x))))
				return -ENOMEM;
			r = &l->r[l->nr++];
			memset(r, 0, sizeof(*r));
			r->mountpoint = name;
			memcpy(r->s.addr, x->row_server, sizeof(r->s.addr));
		}
		roll_sum_add(r, iv, x);
	}
	return 0;
}

static void mount_total_add(struct mount_total *dst, const struct mount_total *src)
{
	dst->bytes_read += src->bytes_read;
	dst->bytes_written += src->bytes_written;
	dst->errors += src->errors;
	dst->other_ops += src->other_ops;
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

static struct mount_sum *new_mount_sum(struct ledger *l, const char *mp)
{
	struct mount_sum *m;
	char *name;

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

static int add_mounts(struct ledger *l, const struct view *iv)
{
	int err = 0;

	for (size_t i = 0; i < iv->nmounts; i++) {
		const struct mount_total *t = &iv->mounts[i];
		struct mount_sum *m = mount_sum_of(l, mp_of(t->mountpoint));

		if (!m)
			m = new_mount_sum(l, mp_of(t->mountpoint));
		if (!m) {
			err = -ENOMEM;
			continue;
		}
		m->last_s = iv->ts_s;
		mount_total_add(&m->total, t);
	}
	for (size_t i = 0; i < iv->nmops; i++) {
		const struct mount_op *p = &iv->mops[i];
		struct mount_sum *m = mount_sum_of(l, mp_of(p->mountpoint));
		struct mount_op *o = m ? op_of(m, p->name) : NULL;

		if (!o) {
			err = -ENOMEM;
			continue;
		}
		mount_op_add(o, p);
	}
	return err;
}

/*
 * A mount the sums know is live while a view or the mount table has it ("": while summed). Not
 * the view alone: a mount that did no RPC in the interval is still mounted, and taken for gone
 * it would be forgotten behind LEDGER_GONE_MAX idle others and come back from 0.
 */
static bool mount_present(const struct view *iv, const struct mount_table *mt, const char *mp)
{
	return !mp[0] || mount_live(iv, mp) || (mt && mounts_by_path(mt, mp));
}

/*
 * Series gone beyond LEDGER_GONE_MAX of a kind: those gone longest are forgotten. Gone as
 * ledger_view() has it, so nothing it writes is forgotten: a transport or row not in @iv, a
 * mount neither in @iv nor in @mt.
 */
static void forget(struct ledger *l, const struct view *iv, const struct mount_table *mt)
{
	for (;;) {
		size_t gone = 0;
		long old = -1;

		for (size_t i = 0; i < l->nx; i++)
			if (!xprt_live(iv, &l->x[i])) {
				gone++;
				if (old < 0 || l->x[i].last_s < l->x[old].last_s)
					old = (long)i;
			}
		if (gone <= LEDGER_GONE_MAX)
			break;
		l->x[old] = l->x[--l->nx];
	}
	for (;;) {
		size_t gone = 0;
		long old = -1;

		for (size_t i = 0; i < l->nm; i++)
			if (!mount_present(iv, mt, l->m[i].total.mountpoint)) {
				gone++;
				if (old < 0 || l->m[i].last_s < l->m[old].last_s)
					old = (long)i;
			}
		if (gone <= LEDGER_GONE_MAX)
			break;
		free((char *)l->m[old].total.mountpoint);
		free(l->m[old].ops);
		l->m[old] = l->m[--l->nm];
	}
	for (;;) {
		size_t gone = 0;
		long old = -1;

		for (size_t i = 0; i < l->nr; i++)
			if (!row_live(iv, &l->r[i])) {
				gone++;
				if (old < 0 || l->r[i].s.last_s < l->r[old].s.last_s)
					old = (long)i;
			}
		if (gone <= LEDGER_GONE_MAX)
			break;
		free(l->r[old].mountpoint);
		l->r[old] = l->r[--l->nr];
	}
}

int ledger_add(struct ledger *l, const struct view *iv, const struct mount_table *mt)
{
	int err = 0;

	for (int c = 0; c < NCOUNTERS; c++)
		l->counters[c] += iv->counters[c];
	for (size_t i = 0; i < iv->nxprts; i++)
		if (add_xprt(l, iv, &iv->xprts[i]))
			err = -ENOMEM;
	if (add_mounts(l, iv))
		err = -ENOMEM;
	if (!l->no_rows && add_rows(l, iv))
		err = -ENOMEM;
	forget(l, iv, mt);
	return err;
}

static void put_sums(struct xprt_view *x, const struct xprt_sum *e)
{
	x->n = e->n;
	x->retrans = e->retrans;
	x->timeouts = e->timeouts;
	x->ops = e->ops;
	x->bytes_written = e->bytes_written;
	x->bytes_read = e->bytes_read;
	x->at_limit_ns = e->at_limit_ns;
	x->busy_ns = e->busy_ns;
	x->span_ns = e->span_ns;
	x->credit.at_limit_ns = (__u64)e->credit_at_limit_ns;
	x->credit.busy_ns = (__u64)e->credit_busy_ns;
	memcpy(x->waits, e->waits, sizeof(x->waits));
	memcpy(x->curve.rpcs, e->curve_rpcs, sizeof(x->curve.rpcs));
	memcpy(x->curve.rtt_ns, e->curve_rtt_ns, sizeof(x->curve.rtt_ns));
	memcpy(x->curve.exec_ns, e->curve_exec_ns, sizeof(x->curve.exec_ns));
	curve_finish(&x->curve, e->limit ? e->limit : x->limit);
	memcpy(x->verdict_s, e->verdict_s, sizeof(x->verdict_s));
	x->link_busy_bytes = e->link_busy_bytes;
}

/* the interval's total of mount @mp ("" for none), or NULL */
static const struct mount_total *iv_mount(const struct view *iv, const char *mp)
{
	for (size_t i = 0; i < iv->nmounts; i++)
		if (!strcmp(mp_of(iv->mounts[i].mountpoint), mp))
			return &iv->mounts[i];
	return NULL;
}

/* mount @mp's ops into @out: the sums' and the interval's, merged by name */
static size_t mount_ops_plus(const struct mount_sum *m, const struct view *iv, const char *mp,
			     const char *as, struct mount_op *out)
{
	size_t n = 0;

	for (size_t k = 0; m && k < m->nops; k++) {
		out[n] = m->ops[k];
		out[n++].mountpoint = as;
	}
	for (size_t i = 0; i < iv->nmops; i++) {
		const struct mount_op *p = &iv->mops[i];
		size_t k;

		if (strcmp(mp_of(p->mountpoint), mp))
			continue;
		for (k = 0; k < n && strncmp(out[k].name, p->name, OPNAME_LEN); k++)
			;
		if (k == n) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].mountpoint = as;
			memcpy(out[n].name, p->name, OPNAME_LEN);
			out[n++].name[OPNAME_LEN - 1] = 0;
		}
		mount_op_add(&out[k], p);
	}
	return n;
}

/* one mount of the textfile's view: its sums @m (or none) with the interval's added */
static void put_mount(struct view *out, const struct mount_sum *m, const struct view *iv,
		      const struct mount_table *mt, const char *mp, const char *as)
{
	const struct mount_total *t = iv_mount(iv, mp);
	struct mount_total *o = &out->mounts[out->nmounts++];
	const struct nfs_mount *nm = mt && mp[0] ? mounts_by_path(mt, mp) : NULL;

	memset(o, 0, sizeof(*o));
	o->mountpoint = as;
	if (nm)
		mount_server(nm, o->server, sizeof(o->server));
	if (m)
		mount_total_add(o, &m->total);
	if (t)
		mount_total_add(o, t);
	out->nmops += mount_ops_plus(m, iv, mp, as, &out->mops[out->nmops]);
}

/* the rows of @iv's shown transports: each row's sums with the interval added, gauges combined */
static int put_rows(const struct ledger *l, const struct view *iv, struct view *out)
{
	struct roll_sum *t = view_alloc(iv->arena, iv->nxprts + 1, sizeof(*t), true);

	out->rows = view_alloc(iv->arena, iv->nxprts + 1, sizeof(*out->rows), true);
	if (!t || !out->rows) {
		view_release(iv->arena, t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < iv->nxprts; i++) {
		const struct xprt_view *x = &iv->xprts[i];
		struct mount_row *r;
		size_t k;

		if (x->row_hidden)
			continue;
		for (k = 0; k < out->nrows; k++)
			if (!strcmp(t[k].mountpoint, row_mp(x)) && !strcmp(t[k].s.addr, x->row_server))
				break;
		r = &out->rows[k];
		if (k == out->nrows) {
			const struct roll_sum *e = roll_sum_of(l, row_mp(x), x->row_server);

			out->nrows++;
			if (e)
				t[k] = *e;
			t[k].mountpoint = (char *)row_mp(x);
			memcpy(t[k].s.addr, x->row_server, sizeof(t[k].s.addr));
			r->mountpoint = x->row_mount;
			memcpy(r->server, x->row_server, sizeof(r->server));
		}
		roll_sum_add(&t[k], iv, x);
		/* a reused id's older transport counts, but the newer one's gauges stand for it */
		if (x->shadowed)
			continue;
		r->nxprts++;
		r->x.in_use += (__s32)x->in_use_shown;
		r->x.in_use_shown += x->in_use_shown;
		r->x.limit += x->limit;
		r->x.backlog_now += x->backlog_now;
		r->x.cwnd += x->cwnd;
		r->x.cong += x->cong;
		if (x->interval_peak > r->x.interval_peak)
			r->x.interval_peak = x->interval_peak;
		if (x->link.rate_gbps > r->x.link.rate_gbps)
			r->x.link.rate_gbps = x->link.rate_gbps;
	}
	for (size_t k = 0; k < out->nrows; k++) {
		struct xprt_view *x = &out->rows[k].x;
		struct curve_view *c = &x->curve;

		memcpy(x->addr, out->rows[k].server, sizeof(x->addr));
		x->link.port = -1;
		put_sums(x, &t[k].s);
		/* level buckets of different limits do not add up: the quarters do */
		memset(c, 0, sizeof(*c));
		for (unsigned int q = 0; q < 5; q++) {
			struct curve_group *g = &c->groups[c->ngroups++];

			g->quarter = q;
			g->rpcs = (__u64)t[k].q_rpcs[q];
			g->rtt_sum_ns = t[k].q_rtt_ns[q];
			g->exec_sum_ns = t[k].q_exec_ns[q];
			curve_group_means(g);
			c->total += g->rpcs;
		}
	}
	view_release(iv->arena, t);
	return 0;
}

/* a transport's mounts as the file names them: the ones filtered out are never written */
static void drop_hidden_mounts(struct xprt_view *x, const struct prom_mounts *pm)
{
	size_t n = 0;

	for (size_t m = 0; m < x->nmounts; m++)
		if (prom_mount_shown(pm, x->mounts[m].mountpoint))
			x->mounts[n++] = x->mounts[m];
	x->nmounts = n;
}

int ledger_view(const struct ledger *l, const struct view *iv, const struct mount_table *mt,
		const struct prom_mounts *pm, struct view *out)
{
	size_t nops = iv->nmops;

	memset(out, 0, sizeof(*out));
	out->arena = iv->arena;
	out->span = SPAN_SUMMARY;
	out->final = true;
	out->ts_s = iv->ts_s;
	out->wall = iv->wall;
	out->tun = iv->tun;
	for (int c = 0; c < NCOUNTERS; c++)
		out->counters[c] = l->counters[c] + iv->counters[c];
	out->drops = counters_drops(out->counters);
	for (size_t i = 0; i < l->nm; i++)
		nops += l->m[i].nops;
	/* each entry is written whole as it is taken (put_mount, mount_ops_plus) */
	out->xprts = view_alloc(iv->arena, iv->nxprts + 1, sizeof(*out->xprts), false);
	out->mounts = view_alloc(iv->arena, l->nm + iv->nmounts + 1, sizeof(*out->mounts), false);
	out->mops = view_alloc(iv->arena, nops + 1, sizeof(*out->mops), false);
	if (!out->xprts || !out->mounts || !out->mops || (pm && pm->rollup && put_rows(l, iv, out))) {
		ledger_view_free(out);
		return -ENOMEM;
	}
	/*
	 * one transport per series: the one it shows (the newer when the kernel reused the id),
	 * with the sums so far and every transport of the series in this interval
	 */
	for (size_t i = 0; i < iv->nxprts; i++) {
		const struct xprt_view *x = &iv->xprts[i];
		const struct xprt_sum *e = xprt_sum_of(l, x);
		struct xprt_sum t = { 0 };
		struct xprt_view *o;

		if (x->shadowed || x->row_hidden)
			continue;
		if (e)
			t = *e;
		memcpy(t.addr, x->addr, sizeof(t.addr));
		t.ident = x->ident;
		t.id = x->id;
		for (size_t j = 0; j < iv->nxprts; j++)
			if (is_series(&t, &iv->xprts[j]))
				xprt_sum_add(&t, iv, &iv->xprts[j]);
		if (iv->ts_s - t.active_s > LEDGER_IDLE_S)
			continue;
		o = &out->xprts[out->nxprts++];
		*o = *x;
		put_sums(o, &t);
		drop_hidden_mounts(o, pm);
		out->bytes_written += o->bytes_written;
		out->bytes_read += o->bytes_read;
	}
	/* the mounts the sums know that are live, then those new in this interval */
	for (size_t i = 0; i < l->nm; i++) {
		const struct mount_sum *m = &l->m[i];
		const char *mp = m->total.mountpoint;

		if (mount_present(iv, mt, mp) && prom_mount_shown(pm, mp))
			put_mount(out, m, iv, mt, mp, mp[0] ? mp : NULL);
	}
	for (size_t i = 0; i < iv->nmounts; i++) {
		const char *mp = mp_of(iv->mounts[i].mountpoint);

		if (!mount_sum_of(l, mp) && prom_mount_shown(pm, mp))
			put_mount(out, NULL, iv, mt, mp, iv->mounts[i].mountpoint);
	}
	return 0;
}

void ledger_view_free(struct view *out)
{
	view_release(out->arena, out->xprts);
	view_release(out->arena, out->mounts);
	view_release(out->arena, out->mops);
	view_release(out->arena, out->rows);
	out->xprts = NULL;
	out->mounts = NULL;
	out->mops = NULL;
	out->rows = NULL;
	out->nxprts = out->nmounts = out->nmops = out->nrows = 0;
}

void ledger_free(struct ledger *l)
{
	for (size_t i = 0; i < l->nm; i++) {
		free((char *)l->m[i].total.mountpoint);
		free(l->m[i].ops);
	}
	for (size_t i = 0; i < l->nr; i++)
		free(l->r[i].mountpoint);
	free(l->x);
	free(l->m);
	free(l->r);
	memset(l, 0, sizeof(*l));
}
