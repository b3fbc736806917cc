// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom_cap.h"

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

static long place_of(const struct prom_cap *c, const char *mp)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->order[i], mp))
			return (long)i;
	return -1;
}

/* every mount point a series of @v is labelled with (or counted under), in the view's order */
static size_t view_mounts(const struct view *v, const char **out, size_t max)
{
	size_t n = 0;

#define PUT(mp)                                        \
	do {                                           \
		if (n < max)                           \
			out[n] = mp_of(mp);            \
		n++;                                   \
	} while (0)
	for (size_t i = 0; i < v->nmounts; i++)
		PUT(v->mounts[i].mountpoint);
	for (size_t i = 0; i < v->nmops; i++)
		PUT(v->mops[i].mountpoint);
	for (size_t i = 0; i < v->nxprts; i++)
		PUT(v->xprts[i].prom_mount);
	for (size_t i = 0; i < v->nrows; i++)
		PUT(v->rows[i].mountpoint);
#undef PUT
	return n;
}

/* the order made of @v's mounts: those gone forgotten, those new last, the others kept in place */
static int order_update(struct prom_cap *c, const struct view *v)
{
	size_t nm = view_mounts(v, NULL, 0), k = 0;
	const char **mps = calloc(nm ? nm : 1, sizeof(*mps));
	bool *seen = calloc(c->n + nm + 1, sizeof(*seen));
	int err = 0;

	if (!mps || !seen) {
		err = -ENOMEM;
		goto out;
	}
	view_mounts(v, mps, nm);
	for (size_t i = 0; i < nm; i++) {
		long at = place_of(c, mps[i]);

		if (at >= 0) {
			seen[at] = true;
			continue;
		}
		if (c->n == c->capn) {
			size_t cap = c->capn ? 2 * c->capn : 16;
			char **o = realloc(c->order, cap * sizeof(*o));

			if (!o) {
				err = -ENOMEM;
				goto out;
			}
			c->order = o;
			c->capn = cap;
		}
		c->order[c->n] = strdup(mps[i]);
		if (!c->order[c->n]) {
			err = -ENOMEM;
			goto out;
		}
		seen[c->n++] = true;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (seen[i])
			c->order[k++] = c->order[i];
		else
			free(c->order[i]);
	}
	c->n = k;
out:
	free(mps);
	free(seen);
	return err;
}

/*
 * @out: @v with only the series of the mounts whose place in the order @shown marks (a shallow
 * copy: its arrays are its own, what they point to @v's). 0 or -ENOMEM.
 */
static int view_of(const struct prom_cap *c, const struct view *v, const bool *shown, struct view *out)
{
#define KEEP(arr, n, field)                                                          \
	do {                                                                         \
		size_t k = 0;                                                        \
		out->arr = malloc((v->n ? v->n : 1) * sizeof(*v->arr));              \
		if (!out->arr)                                                       \
			return -ENOMEM;                                              \
		for (size_t i = 0; i < v->n; i++) {                                  \
			long at = place_of(c, mp_of(v->arr[i].field));               \
			if (at >= 0 && shown[at])                                    \
				out->arr[k++] = v->arr[i];                           \
		}                                                                    \
		out->n = k;                                                          \
	} while (0)

	*out = *v;
	out->arena = NULL;
	out->mounts = NULL;
	out->mops = NULL;
	out->xprts = NULL;
	out->rows = NULL;
	KEEP(mounts, nmounts, mountpoint);
	KEEP(mops, nmops, mountpoint);
	KEEP(xprts, nxprts, prom_mount);
	KEEP(rows, nrows, mountpoint);
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

/* the series of @in with @v as its textfile's view: -1 when out of memory */
static long series_of(struct prom_input *in, const struct view *v)
{
	const struct view *was = in->cum;
	char *text = NULL;
	size_t len = 0;
	long n;

	in->cum = v;
	n = render_to(in, &text, &len) ? -1 : (long)prom_series_in(text, len);
	in->cum = was;
	free(text);
	return n;
}

/* the series of @in with only the mounts @shown marks: -1 when out of memory */
static long series_shown(const struct prom_cap *c, struct prom_input *in, const bool *shown)
{
	struct view v;
	long n = view_of(c, in->cum, shown, &v) ? -1 : series_of(in, &v);

	view_of_free(&v);
	return n;
}

/*
 * How many mounts, first seen first, fit within the cap, marked in @shown: a mount's series are
 * those of a view of it alone less the node's own (a view of none), every series line being one
 * mount's or the node's. 0 or -ENOMEM.
 */
static int fit(const struct prom_cap *c, struct prom_input *in, bool *shown)
{
	bool *alone = calloc(c->n + 1, sizeof(*alone));
	long node, sum;
	int err = -ENOMEM;

	if (!alone)
		return -ENOMEM;
	memset(shown, 0, c->n * sizeof(*shown));
	node = series_shown(c, in, alone);
	if (node < 0)
		goto out;
	sum = node;
	for (size_t i = 0; i < c->n; i++) {
		long n;

		alone[i] = true;
		n = series_shown(c, in, alone);
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
	struct view capped = { 0 };
	bool *shown;
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
	if (!shown)
		return -ENOMEM;
	err = fit(c, in, shown);
	if (!err)
		err = view_of(c, full, shown, &capped);
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
