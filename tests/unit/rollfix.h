/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the textfile's mount tests share: a mount table parsed from its text, the file rendered as
 * the trace writes it, its sample lines read back, and one fixed scene of four mounts over three
 * servers' transports taken through two intervals of the ledger.
 */
#ifndef SLOTSCOPE_ROLLFIX_H
#define SLOTSCOPE_ROLLFIX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "prom/ledger.h"
#include "prom/totals.h"
#include "modelfix.h"
#include "out/output.h"
#include "model/prom_mounts.h"

static inline void mount_table(struct mount_table *mt, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	memset(mt, 0, sizeof(*mt));
	assert_int_equal(mounts_parse(f, mt), 0);
	fclose(f);
}

/* an interval as the trace makes the textfile: the model's view, then the textfile's totals of it */
struct tf_view {
	struct model_out m;
	struct view totals;
};

static inline void tf_build(const struct model_in *in, const struct ledger *sums, struct tf_view *o)
{
	struct textfile_in t = { .sums = sums, .iv = &o->m.view, .mounts = in->mounts, .prom = in->prom };

	assert_int_equal(model_build(in, &o->m), 0);
	assert_int_equal(textfile_totals(&t, &o->totals), 0);
}

static inline void tf_free(struct tf_view *o)
{
	textfile_totals_free(&o->totals);
	model_out_free(&o->m);
}

static inline char *render(const struct tf_view *m, bool rollup)
{
	struct prom_input in = { .cum = &m->totals, .iv = &m->m.view, .now_wall = 1800000000.0,
				 .rollup = rollup, .version = "0.0.0-test", .kernel = "6.1.0-test" };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(out_prom(f, &in), 0);
	fclose(f);
	return buf;
}

/* the value of the sample line that starts with @series (name and labels), or -1 when none */
static inline double value(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, series, n) && l[n] == ' ')
			return strtod(l + n + 1, NULL);
	return -1;
}

/* the sum of the sample lines of family @name whose labels hold @needle */
static inline double sum_of(const char *text, const char *name, const char *needle)
{
	size_t n = strlen(name);
	double s = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *nl = strchr(l, '\n');

		char *line = strndup(l, nl ? (size_t)(nl - l) : strlen(l));

		if (!strncmp(line, name, n) && line[n] == '{' && (!needle || strstr(line, needle)))
			s += strtod(strrchr(line, ' ') + 1, NULL);
		free(line);
	}
	return s;
}

static inline int count_lines(const char *text, const char *needle)
{
	int n = 0;

	/* from one match to the next, each line counted once: a strstr per line is quadratic */
	for (const char *at = strstr(text, needle); at; ) {
		const char *bol = at, *nl;

		while (bol > text && bol[-1] != '\n')
			bol--;
		if (bol[0] != '#')
			n++;
		nl = strchr(at, '\n');
		at = nl ? strstr(nl + 1, needle) : NULL;
	}
	return n;
}

/*
 * /mnt/a and /mnt/b from one server share its nconnect transports; /home/u1 is another server's;
 * /mnt/c an RDMA mount that has done nothing since attach; one transport serves no mount known.
 */
static const char mounts_text[] =
	"21 1 0:20 / / rw - ext4 /dev/vda rw\n"
	"40 21 0:41 / /mnt/b rw - nfs 10.0.0.1:/export rw,vers=3,proto=tcp,addr=10.0.0.1\n"
	"41 21 0:40 / /mnt/a rw - nfs 10.0.0.1:/export rw,vers=3,proto=tcp,addr=10.0.0.1\n"
	"42 21 0:42 / /home/u1 rw - nfs 10.0.0.2:/home/u1 rw,vers=3,proto=tcp,addr=10.0.0.2\n"
	"43 21 0:43 / /mnt/c rw - nfs 10.0.0.3:/c rw,vers=3,proto=rdma,addr=10.0.0.3\n";

#define K_A1 0x1001
#define K_A2 0x1002
#define K_H 0x1003
#define K_C 0x1004
#define K_LOST 0x1005

/* the kernel at @t seconds, every count @scale times what one second does */
static inline void scene(struct snapfix *f, __u64 t, __u64 scale)
{
	struct xprt_stats *x;

	fx_init(f, t * 1000000000ull);
	fx_client(f, 4, 40, 0);			/* /mnt/a */
	fx_client(f, 5, 41, 0);			/* /mnt/b */
	fx_client(f, 6, 42, 0);			/* /home/u1 */
	x = fx_xprt(f, K_A1, 1, IDENT_TCP, "10.0.0.1", 16);
	x->in_use = 16;
	x->peak = 16;
	x->backlog_now = 3;
	x->n.acquires = 100 * scale;
	x->curve[LEVEL_BUCKETS - 1].rpcs = 60 * scale;
	x->curve[LEVEL_BUCKETS - 1].rtt_ns = 60 * scale * 4000000;
	x->curve[1].rpcs = 40 * scale;
	x->curve[1].rtt_ns = 40 * scale * 1000000;
	fx_levels(x, 0.8e9 * (double)scale, 50);
	x->waits[WAIT_SLOT].count = 30 * scale;
	x->waits[WAIT_SLOT].sum_ns = 30 * scale * 2000000;
	x->waits[WAIT_SLOT].buckets[lat_bucket(2000000)] = 30 * scale;
	x = fx_xprt(f, K_A2, 2, IDENT_TCP, "10.0.0.1", 16);
	x->in_use = 7;
	x->peak = 9;
	x->n.acquires = 50 * scale;
	x->curve[3].rpcs = 50 * scale;
	x->curve[3].rtt_ns = 50 * scale * 2000000;
	fx_levels(x, 0.5e9 * (double)scale, 0);
	x = fx_xprt(f, K_H, 3, IDENT_TCP, "10.0.0.2", 32);
	x->in_use = 1;
	x->peak = 2;
	x->n.acquires = 7 * scale;
	fx_levels(x, 0.1e9 * (double)scale, 0);
	x = fx_xprt(f, K_C, 4, IDENT_RDMA, "10.0.0.3", 128);
	x->cwnd = 64;
	x = fx_xprt(f, K_LOST, 5, IDENT_TCP, "10.0.0.9", 16);
	x->n.acquires = 2 * scale;
	/* both mounts' clients on the first transport, only /mnt/b's on the second */
	fx_op(f, K_A1, 4, 7, "WRITE", 60 * scale, 5000000, 3000000)->bytes_sent = 60 * scale * 1048576;
	fx_op(f, K_A1, 5, 7, "WRITE", 40 * scale, 5000000, 3000000)->bytes_sent = 40 * scale * 1048576;
	fx_op(f, K_A2, 5, 7, "WRITE", 50 * scale, 4000000, 2000000)->bytes_sent = 50 * scale * 1048576;
	fx_op(f, K_H, 6, 6, "READ", 7 * scale, 1000000, 500000)->bytes_recv = 7 * scale * 4096;
	/* a lease renewal: a client with no superblock */
	fx_op(f, K_LOST, 0, 0, "NULL", 2 * scale, 100000, 100000);
	/* every client placed, as the kernel's first op of each did */
	for (size_t i = 0; i < f->s.nops; i++)
		f->o[i].s.client_done = 1;
	/* the interval's peak is the epoch's; every slot sent, a fifth handed off */
	f->s.epoch = (__u32)t;
	for (size_t i = 0; i < f->s.nxprts; i++) {
		x = &f->x[i].s;
		x->epoch_of[t & 1] = (__u32)t;
		x->epoch_peak[t & 1] = x->peak;
		x->n.sends = x->n.acquires;
		x->n.handoffs = x->n.acquires / 5;
		x->n.connects = 1 + scale;
	}
}

/* two intervals through the sums, as the trace makes the textfile; @pm as the options give it */
static inline void two_intervals(struct tf_view *m, struct ledger *sums, struct snapfix *f,
				 const struct mount_table *mt, const struct prom_mounts *pm)
{
	struct model_in in = { .span = SPAN_INTERVAL, .from = &f[0].s, .to = &f[1].s, .mounts = mt,
			       .tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 },
			       .prom = pm };

	scene(&f[0], 10, 0);
	scene(&f[1], 11, 1);
	scene(&f[2], 12, 2);
	tf_build(&in, sums, m);
	assert_int_equal(ledger_add(sums, &m->m.view, mt), 0);
	tf_free(m);
	in.from = &f[1].s;
	in.to = &f[2].s;
	tf_build(&in, sums, m);
}

#endif
