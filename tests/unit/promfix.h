/* SPDX-License-Identifier: GPL-2.0 */
/* Views built by hand for the textfile's tests (test_prom, test_cap), and counts of its series. */
#ifndef SLOTSCOPE_PROMFIX_H
#define SLOTSCOPE_PROMFIX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"

struct fixture {
	struct xprt_view x[16];
	struct mount_op m[32];
	struct mount_total t[8];
	struct view v;
};

static inline void add_xprt(struct fixture *f, __u32 id, const char *addr, const char *mnt)
{
	struct xprt_view *x = &f->x[f->v.nxprts++];

	memset(x, 0, sizeof(*x));
	x->key = 0x1000 + id;
	x->id = id;
	x->ident = IDENT_TCP;
	x->limit = 16;
	x->first_seen_ns = 1;
	x->link.port = -1;
	snprintf(x->addr, sizeof(x->addr), "%s", addr);
	x->nmounts = 1;
	x->mounts[0].mountpoint = mnt;
	f->v.xprts = f->x;
}

static inline void add_op(struct fixture *f, const char *mnt, const char *name, __u64 count)
{
	struct mount_op *m = &f->m[f->v.nmops++];
	size_t i;

	memset(m, 0, sizeof(*m));
	m->mountpoint = mnt;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->count = count;
	m->hist[STAGE_EXECUTE][20] = count;
	f->v.mops = f->m;
	for (i = 0; i < f->v.nmounts && strcmp(f->t[i].mountpoint, mnt); i++)
		;
	if (i == f->v.nmounts) {
		memset(&f->t[i], 0, sizeof(f->t[i]));
		f->t[f->v.nmounts++].mountpoint = mnt;
	}
	f->v.mounts = f->t;
}

static __attribute__((unused, noinline)) char *render_in(const struct prom_input *in)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(out_prom(f, in), 0);
	fclose(f);
	return buf;
}

static __attribute__((unused, noinline)) char *render(const struct view *v, bool detail)
{
	struct prom_input in = { .cum = v, .iv = v, .now_wall = 1, .detail = detail,
				 .version = "t", .kernel = "k" };

	return render_in(&in);
}

/* sample lines whose labels contain every one of @needles (and none of @not, if given) */
static inline int count_series(const char *text, const char *needle, const char *not)
{
	int n = 0;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		char *line = strndup(l, nl ? (size_t)(nl - l) : strlen(l));

		if (line[0] != '#' && strstr(line, needle) && (!not || !strstr(line, not)))
			n++;
		free(line);
		l = nl ? nl + 1 : l + strlen(l);
	}
	return n;
}

#endif
