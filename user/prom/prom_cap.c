// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom/prom_cap.h"

size_t prom_series_in(const char *text, size_t len)
{
	size_t n = 0;
	bool start = true;

	for (size_t i = 0; i < len; i++) {
		if (start && text[i] != '#' && text[i] != '\n')
			n++;
		start = text[i] == '\n';
	}
	return n;
}

static int render_to(const struct prom_input *in, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	bool ok = f && !out_prom(f, in) && !ferror(f);

	if (f && fclose(f))
		ok = false;
	if (!ok) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return ok ? 0 : -ENOMEM;
}

static const char *mp_of(const char *mp)
{
	return mp ? mp : "";
}

/*
 * Mount points to their place in the order, by open addressing: a node with thousands of per-job
 * mounts is the one the cap is for, and a search of the order per series would cost it seconds.
 */
struct places {
	size_t mask;
	long *slot;			/* a place in c->order, -1: empty */
	const struct prom_cap *c;
};

static size_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static long place_of(const struct places *p, const char *mp)
{
	for (size_t i = hash_of(mp) & p->mask;; i = (i + 1) & p->mask) {
		if (p->slot[i] < 0)
			return -1;
		if (!strcmp(p->c->order[p->slot[i]], mp))
			return p->slot[i];
	}
}

/* @p of @c's order, with room for @more entries besides */
static int places_init(struct places *p, const struct prom_cap *c, size_t more)
{
	size_t n = 16;

	while (n < 2 * (c->n + more) + 1)
		n *= 2;
	p->c = c;
	p->mask = n - 1;
	p->slot = malloc(n * sizeof(*p->slot));
	if (!p->slot)
		return -ENOMEM;
	memset(p->slot, 0xff, n * sizeof(*p->slot));
	for (size_t k = 0; k < c->n; k++) {
		size_t i = hash_of(c->order[k]) & p->mask;

		while (p->slot[i] >= 0)
			i = (i + 1) & p->mask;
		p->slot[i] = (long)k;
	}
	return 0;
}

/*
 * Where a transport's series count: the first placed of the mounts it serves (--prom-rollup's
 * mount and every one it names), so a transport two mounts share stays with the one that was
 * shown first whichever the model puts it under.
 */
static long xprt_place(const struct places *p, const struct xprt_view *x)
{
	long best = place_of(p, mp_of(x->row_mount));

	for (size_t m = 0; m < x->nmounts; m++) {
		long at = place_of(p, mp_of(x->mounts[m].mountpoint));

		if (at >= 0 && (best < 0 || at < best))
			best = at;
	}
	return best;
}

/* calls @fn with every mount point a series of @v counts under, in the view's order */
#define FOR_VIEW_MOUNTS(v, fn, arg)                                                \
	do {                                                                       \
		for (size_t i_ = 0; i_ < (v)->nmounts; i_++)                        \
			fn(arg, mp_of((v)->mounts[i_].mountpoint));                 \
		for (size_t i_ = 0; i_ < (v)->nmops; i_++)                          \
			fn(arg, mp_of((v)->mops[i_].mountpoint));                   \
		for (size_t i_ = 0; i_ < (v)->nxprts; i_++) {                       \
			fn(arg, mp_of((v)->xprts[i_].row_mount));                  \
			for (size_t m_ = 0; m_ < (v)->xprts[i_].nmounts; m_++)      \
				fn(arg, mp_of((v)->xprts[i_].mounts[m_].mountpoint)); \
		}                                                                  \
		for (size_t i_ = 0; i_ < (v)->nrows; i_++)                          \
			fn(arg, mp_of((v)->rows[i_].mountpoint));                   \
	} while (0)

struct update {
	struct prom_cap *c;
	struct places p;
	bool *seen;
	int err;
};

static void see(struct update *u, const char *mp)
{
	struct prom_cap *c = u->c;
	long at = u->err ? 0 : place_of(&u->p, mp);
	size_t i;

	if (u->err)
		return;
	if (at >= 0) {
		u->seen[at] = true;
		return;
	}
	/* new: last in the order (places_init left room for every mount of the view) */
	if (c->n == c->capn) {
		size_t cap = c->capn ? 2 * c->capn : 16;
		char **o = realloc(c->order, cap * sizeof(*o));

		if (!o) {
			u->err = -ENOMEM;
			return;
		}
		c->order = o;
		c->capn = cap;
	}
	c->order[c->n] = strdup(mp);
	if (!c->order[c->n]) {
		u->err = -ENOMEM;
		return;
	}
	for (i = hash_of(mp) & u->p.mask; u->p.slot[i] >= 0; i = (i + 1) & u->p.mask)
		;
	u->p.slot[i] = (long)c->n;
	u->seen[c->n++] = true;
}

static void count_one(size_t *n, const char *mp)
{
	(void)mp;
	(*n)++;
}

/* the order made of @v's mounts: those gone forgotten, those new last, the others kept in place */
static int order_update(struct prom_cap *c, const struct view *v)
{
	struct update u = { .c = c };
	size_t nm = 0, k = 0;

	FOR_VIEW_MOUNTS(v, count_one, &nm);
	u.seen = calloc(c->n + nm + 1, sizeof(*u.seen));
	if (!u.seen || places_init(&u.p, c, nm)) {
		free(u.seen);
		return -ENOMEM;
	}
	FOR_VIEW_MOUNTS(v, see, &u);
	if (!u.err) {
		for (size_t i = 0; i < c->n; i++) {
			if (u.seen[i])
				c->order[k++] = c->order[i];
			else
				free(c->order[i]);
		}
		c->n = k;
	}
	free(u.p.slot);
	free(u.seen);
	return u.err;
}

/* each element's place in the order, per array of the view (-1: none) */
struct view_places {
	long *mounts, *mops, *xprts, *rows;
};

static void view_places_free(struct view_places *vp)
{
	free(vp->mounts);
	free(vp->mops);
	free(vp->xprts);
	free(vp->rows);
}

static int view_places_of(const struct prom_cap *c, const struct view *v, struct view_places *vp)
{
	struct places p;

	memset(vp, 0, sizeof(*vp));
	if (places_init(&p, c, 0))
		return -ENOMEM;
	vp->mounts = malloc((v->nmounts + 1) * sizeof(long));
	vp->mops = malloc((v->nmops + 1) * sizeof(long));
	vp->xprts = malloc((v->nxprts + 1) * sizeof(long));
	vp->rows = malloc((v->nrows + 1) * sizeof(long));
	if (!vp->mounts || !vp->mops || !vp->xprts || !vp->rows) {
		free(p.slot);
		view_places_free(vp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->nmounts; i++)
		vp->mounts[i] = place_of(&p, mp_of(v->mounts[i].mountpoint));
	for (size_t i = 0; i < v->nmops; i++)
		vp->mops[i] = place_of(&p, mp_of(v->mops[i].mountpoint));
	for (size_t i = 0; i < v->nxprts; i++)
		vp->xprts[i] = xprt_place(&p, &v->xprts[i]);
	for (size_t i = 0; i < v->nrows; i++)
		vp->rows[i] = place_of(&p, mp_of(v->rows[i].mountpoint));
	free(p.slot);
	return 0;
}

/*
 * @out: @v with only the series of the mounts whose place @shown marks (a shallow copy: its
 * arrays are its own, what they point to @v's). 0 or -ENOMEM; view_of_free() either way.
 */
static int view_of(const struct view *v, const struct view_places *vp, const bool *shown,
		   struct view *out)
{
#define KEEP(arr, n)                                                                 \
	do {                                                                         \
		size_t k = 0;                                                        \
		out->arr = malloc((v->n ? v->n : 1) * sizeof(*v->arr));              \
		if (!out->arr)                                                       \
			return -ENOMEM;                                              \
		for (size_t i = 0; i < v->n; i++)                                    \
			if (vp->arr[i] >= 0 && shown[vp->arr[i]])                    \
				out->arr[k++] = v->arr[i];                           \
		out->n = k;                                                          \
	} while (0)

	*out = *v;
	out->arena = NULL;
	out->mounts = NULL;
	out->mops = NULL;
	out->xprts = NULL;
	out->rows = NULL;
	KEEP(mounts, nmounts);
	KEEP(mops, nmops);
	KEEP(xprts, nxprts);
	KEEP(rows, nrows);
#undef KEEP
	return 0;
}

static void view_of_free(struct view *v)
{
	free(v->mounts);
	free(v->mops);
	free(v->xprts);
	free(v->rows);
}

/* the series of @in with only the mounts @shown marks: -1 when out of memory */
static long series_shown(struct prom_input *in, const struct view_places *vp, const bool *shown)
{
	const struct view *was = in->cum;
	struct view v;
	char *text = NULL;
	size_t len = 0;
	long n = -1;

	if (!view_of(was, vp, shown, &v)) {
		in->cum = &v;
		n = render_to(in, &text, &len) ? -1 : (long)prom_series_in(text, len);
		in->cum = was;
		free(text);
	}
	view_of_free(&v);
	return n;
}

/*
 * How many mounts, first seen first, fit within the cap, marked in @shown: a mount's series are
 * those of a view of it alone less the node's own (a view of none), every series line being one
 * mount's or the node's. 0 or -ENOMEM.
 */
static int fit(const struct prom_cap *c, struct prom_input *in, const struct view_places *vp, bool *shown)
{
	bool *alone = calloc(c->n + 1, sizeof(*alone));
	long node, sum;
	int err = -ENOMEM;

	if (!alone)
		return -ENOMEM;
	memset(shown, 0, c->n * sizeof(*shown));
	node = series_shown(in, vp, alone);
	if (node < 0)
		goto out;
	sum = node;
	for (size_t i = 0; i < c->n; i++) {
		long n;

		alone[i] = true;
		n = series_shown(in, vp, alone);
		alone[i] = false;
		if (n < 0)
			goto out;
		sum += n - node;
		if ((size_t)sum > c->max)
			break;
		shown[i] = true;
	}
	err = 0;
out:
	free(alone);
	return err;
}

int prom_cap_render(struct prom_cap *c, struct prom_input *in, char **text, size_t *len)
{
	const struct view *full = in->cum;
	struct view_places vp = { 0 };
	struct view capped = { 0 };
	bool *shown = NULL;
	int err;

	*text = NULL;
	*len = 0;
	in->mounts_capped = 0;
	if (!c->max || !full) {
		c->left_out = 0;
		return render_to(in, text, len);
	}
	if ((err = order_update(c, full)) || (err = render_to(in, text, len)))
		return err;
	if (prom_series_in(*text, *len) <= c->max) {
		c->left_out = 0;
		return 0;
	}
	free(*text);
	*text = NULL;
	*len = 0;
	shown = calloc(c->n + 1, sizeof(*shown));
	err = shown ? view_places_of(c, full, &vp) : -ENOMEM;
	if (!err)
		err = fit(c, in, &vp, shown);
	if (!err)
		err = view_of(full, &vp, shown, &capped);
	if (!err) {
		c->left_out = 0;
		for (size_t i = 0; i < c->n; i++)
			c->left_out += !shown[i];
		in->cum = &capped;
		in->mounts_capped = c->left_out;
		err = render_to(in, text, len);
		in->cum = full;
	}
	view_of_free(&capped);
	view_places_free(&vp);
	free(shown);
	return err;
}

void prom_cap_free(struct prom_cap *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->order[i]);
	free(c->order);
	c->order = NULL;
	c->n = c->capn = 0;
}
