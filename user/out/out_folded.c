// SPDX-License-Identifier: GPL-2.0
/*
 * Where RPC time goes: folded stacks (flamegraph.pl, inferno, speedscope read them) and a
 * self-contained SVG drawn from the same stacks, plus a time x latency heat map of slot waits.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"
#include "lib/utf8.h"
#include "lib/uhist.h"
#include "lib/util.h"

struct frame {
	char path[1536];	/* server;mountpoint;op;stage;bucket: each frame bounded by clean() */
	double us;
	__u64 count;
};

struct stacks {
	size_t n, cap;
	struct frame *f;
};

static const char *bucket_label(char *buf, size_t len, unsigned int b)
{
	double lo = (double)lat_bucket_lo(b), hi = (double)lat_bucket_hi(b);
	const char *u = "us";
	double div = 1e3;

	if (hi > 2e9)
		u = "s", div = 1e9;
	else if (hi > 2e6)
		u = "ms", div = 1e6;
	if (b == LAT_BUCKETS - 1)
		snprintf(buf, len, ">=%.3g%s", lo / div, u);
	else
		snprintf(buf, len, "%.3g..%.3g%s", lo / div, hi / div, u);
	return buf;
}

/*
 * A frame name: the name by name_next() (utf8.h: control characters, which would end a line or
 * break the SVG, and bytes that are not UTF-8 become \xHH, a backslash two), and the folded
 * format's separators, ';' and the space before the weight, \xHH too: a mount point named
 * anything stays one frame on one line and forges no other. A character is never cut in two.
 */
static void clean(char *dst, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t i = 0;

	while (*p) {
		char ch[NAME_CHAR_MAX + 1];
		size_t n;

		if (*p == ';' || *p == ' ')
			snprintf(ch, sizeof(ch), "\\x%02X", *p++);
		else
			name_next(&p, ch);
		n = strlen(ch);
		if (i + n + 1 > len)
			break;
		memcpy(dst + i, ch, n);
		i += n;
	}
	dst[i] = 0;
	if (!i)
		snprintf(dst, len, "-");
}

/*
 * A histogram's buckets as frames. The weights split the exact total time over the buckets in
 * proportion to count x bucket midpoint, so the stage's total is exact.
 */
static void add_hist(struct stacks *st, const char *prefix, const __u64 *b, __u64 sum_ns)
{
	double est = 0;

	for (unsigned int i = 0; i < LAT_BUCKETS; i++)
		est += (double)b[i] * ((double)lat_bucket_lo(i) + (double)lat_bucket_hi(i)) / 2;
	if (est <= 0 || !sum_ns)
		return;
	for (unsigned int i = 0; i < LAT_BUCKETS; i++) {
		double mid = ((double)lat_bucket_lo(i) + (double)lat_bucket_hi(i)) / 2;
		struct frame *f;
		char lab[48];

		if (!b[i])
			continue;
		if (GROW(st->f, st->cap, st->n + 1, 64))
			return;
		f = &st->f[st->n++];
		snprintf(f->path, sizeof(f->path), "%s;%s", prefix, bucket_label(lab, sizeof(lab), i));
		f->count = b[i];
		f->us = (double)sum_ns / 1e3 * ((double)b[i] * mid / est);
	}
}

static int cmp_frame(const void *a, const void *b)
{
	return strcmp(((const struct frame *)a)->path, ((const struct frame *)b)->path);
}

/* one stack per op and part of its time (enum op_part), split in the model */
static void collect(const struct view *v, struct stacks *st)
{
	char srv[128], mnt[1024], op[64], prefix[1300];

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *o = &v->ops[i];
		const struct xprt_view *x = view_xprt(v, o->k.xprt);

		clean(srv, sizeof(srv), x ? x->addr : "?");
		clean(mnt, sizeof(mnt), o->mountpoint);
		clean(op, sizeof(op), o->name);
		for (int p = 0; p < OP_PARTS; p++) {
			/* a part's spread: the slot waits' own (the transport's), else its stage's */
			const __u64 *b = p == PART_SLOT_WAIT ? (x ? x->waits[WAIT_SLOT].buckets : NULL) :
				p == PART_QUEUE ? o->hist[STAGE_QUEUE] :
				p == PART_RTT ? o->hist[STAGE_RTT] : o->hist[STAGE_EXECUTE];

			if (!b)
				continue;
			snprintf(prefix, sizeof(prefix), "%s;%s;%s;%s", srv, mnt, op, op_part_names[p]);
			add_hist(st, prefix, b, o->part_ns[p]);
		}
	}
	if (st->n)
		qsort(st->f, st->n, sizeof(st->f[0]), cmp_frame);
}

void out_folded(FILE *f, const struct view *v)
{
	struct stacks st;

	collect(v, &st);
	for (size_t i = 0; i < st.n; i++)
		if (st.f[i].us >= 0.5)
			fprintf(f, "%s %.0f\n", st.f[i].path, st.f[i].us);
	free(st.f);
	fflush(f);
}

/* ---- SVG */

#define SVG_W 1200.0
#define ROW 18.0
#define DEPTH 5

static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* the frame name at @depth of a folded path, or NULL */
static size_t part(const char *path, int depth, const char **start)
{
	const char *p = path;

	for (int d = 0; d < depth && p; d++) {
		p = strchr(p, ';');
		if (p)
			p++;
	}
	if (!p)
		return 0;
	*start = p;
	return strcspn(p, ";");
}

static unsigned int hue(const char *s, size_t n)
{
	unsigned int h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Icicle: depth 0 at the top. Sorted frames share prefixes, so each level's boxes are the runs
 * of equal prefixes. */
static void icicle(FILE *f, const struct stacks *st, double y0)
{
	double total = 0;

	for (size_t i = 0; i < st->n; i++)
		total += st->f[i].us;
	if (total <= 0) {
		fprintf(f, "<text x=\"10\" y=\"%.0f\">no RPC time recorded</text>\n", y0 + 14);
		return;
	}
	for (int d = 0; d < DEPTH; d++) {
		double x = 0;

		for (size_t i = 0; i < st->n;) {
			const char *name = st->f[i].path;
			size_t len = part(st->f[i].path, d, &name), j = i;
			size_t plen = (size_t)(name - st->f[i].path) + len;
			double us = 0, w;
			__u64 count = 0;
			unsigned int h;

			while (j < st->n && !strncmp(st->f[j].path, st->f[i].path, plen) &&
			       (st->f[j].path[plen] == ';' || !st->f[j].path[plen])) {
				us += st->f[j].us;
				count += st->f[j].count;
				j++;
			}
			/* a path shorter than DEPTH frames still moves the walk on */
			if (j == i) {
				us = st->f[i].us;
				count = st->f[i].count;
				j = i + 1;
			}
			w = us / total * (SVG_W - 20);
			h = hue(name, len);
			fprintf(f, "<g><title>");
			xml(f, st->f[i].path);
			fprintf(f, "%s: %.3f s, %.2f%% of RPC time, %llu RPCs</title>", "", us / 1e6,
				100 * us / total, (unsigned long long)count);
			fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
				   "fill=\"hsl(%u,70%%,%u%%)\" stroke=\"white\" stroke-width=\"0.5\"/>",
				10 + x, y0 + d * ROW, w, ROW - 1, 10 + h % 40, 55 + (h >> 8) % 20);
			/* a label when it fits: ~7 px a character */
			if (w > 30) {
				size_t fit = (size_t)(w / 7), cut = 0;
				char lab[512];

				/* whole characters only: a cut sequence is not XML */
				for (size_t c = 0; cut < len && c < fit && cut < sizeof(lab) - 5; c++) {
					size_t n = utf8_seq_len((const unsigned char *)name + cut);

					cut += n ? n : 1;
				}
				snprintf(lab, sizeof(lab), "%.*s", (int)(cut < len ? cut : len), name);
				fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", 10 + x + 3, y0 + d * ROW + 13);
				xml(f, lab);
				fputs("</text>", f);
			}
			fputs("</g>\n", f);
			x += w;
			i = j;
		}
	}
}

/*
 * The heat map's columns: one per interval, until HEAT_COLUMNS; then neighbours are merged and
 * each column covers twice as many intervals, so a week-long trace keeps a bounded map.
 */
#define HEAT_COLUMNS 512

int heat_add(struct heat_map *h, const struct view *v)
{
	struct heat_column *c;

	if (!h->span)
		h->span = 1;
	if (h->n && h->fill < h->span) {
		c = &h->cols[h->n - 1];
	} else {
		if (h->n == HEAT_COLUMNS) {
			for (size_t k = 0; k < HEAT_COLUMNS / 2; k++) {
				h->cols[k].wall = h->cols[2 * k].wall;
				for (int b = 0; b < LAT_BUCKETS; b++)
					h->cols[k].buckets[b] = h->cols[2 * k].buckets[b] +
								h->cols[2 * k + 1].buckets[b];
			}
			h->n = HEAT_COLUMNS / 2;
			h->span *= 2;
		}
		if (GROW(h->cols, h->cap, h->n + 1, 64))
			return -ENOMEM;
		c = &h->cols[h->n++];
		memset(c, 0, sizeof(*c));
		c->wall = v->wall;
		h->fill = 0;
	}
	h->fill++;
	for (size_t i = 0; i < v->nxprts; i++)
		for (int b = 0; b < LAT_BUCKETS; b++)
			c->buckets[b] += v->xprts[i].waits[WAIT_SLOT].buckets[b];
	return 0;
}

void heat_free(struct heat_map *h)
{
	free(h->cols);
	memset(h, 0, sizeof(*h));
}

static void heatmap(FILE *f, const struct heat_column *cols, size_t n, double y0)
{
	const double h = 200, cw = n ? (SVG_W - 80) / (double)n : 0;
	unsigned int lo = LAT_BUCKETS, hi = 0;
	__u64 max = 0;

	fprintf(f, "<text x=\"10\" y=\"%.0f\" font-weight=\"bold\">Slot waits over time "
		   "(rows: log2 latency buckets; darker: more waits)</text>\n", y0 - 6);
	for (size_t c = 0; c < n; c++)
		for (unsigned int b = 0; b < LAT_BUCKETS; b++)
			if (cols[c].buckets[b]) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
				max = cols[c].buckets[b] > max ? cols[c].buckets[b] : max;
			}
	if (!max) {
		fprintf(f, "<text x=\"10\" y=\"%.0f\">no slot waits</text>\n", y0 + 14);
		return;
	}
	for (size_t c = 0; c < n; c++)
		for (unsigned int b = lo; b <= hi; b++) {
			double rh = h / (hi - lo + 1), a;
			char lab[48];

			if (!cols[c].buckets[b])
				continue;
			a = 0.15 + 0.85 * log1p((double)cols[c].buckets[b]) / log1p((double)max);
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				   "fill=\"rgb(200,40,20)\" fill-opacity=\"%.3f\"><title>t+%.1fs %s: %llu waits"
				   "</title></rect>\n", 70 + c * cw, y0 + h - (b - lo + 1) * rh, cw, rh, a,
				cols[c].wall - cols[0].wall, bucket_label(lab, sizeof(lab), b),
				(unsigned long long)cols[c].buckets[b]);
		}
	for (unsigned int b = lo; b <= hi; b += (hi - lo) / 6 + 1) {
		char lab[48];

		fprintf(f, "<text x=\"2\" y=\"%.2f\" font-size=\"10\">%s</text>\n",
			y0 + h - (b - lo + 0.5) * h / (hi - lo + 1), bucket_label(lab, sizeof(lab), b));
	}
}

void out_svg(FILE *f, const struct view *v, const struct heat_map *heat)
{
	const double heat_y = 40 + DEPTH * ROW + 60;
	struct stacks st;

	collect(v, &st);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"12\">\n",
		SVG_W, heat_y + 240, SVG_W, heat_y + 240);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdf6\"/>\n");
	fprintf(f, "<text x=\"10\" y=\"20\" font-weight=\"bold\">slotscope: where RPC time went "
		   "(server / mount / op / stage / latency; width = time; hover for numbers)</text>\n");
	icicle(f, &st, 30);
	heatmap(f, heat ? heat->cols : NULL, heat ? heat->n : 0, heat_y);
	fputs("</svg>\n", f);
	free(st.f);
	fflush(f);
}
