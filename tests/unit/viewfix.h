/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the view tests and the golden outputs share: two recorded snapshots of a TCP transport, an
 * interval view of them made as the running trace makes it, and the renderers into memory.
 */
#ifndef SLOTSCOPE_VIEWFIX_H
#define SLOTSCOPE_VIEWFIX_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include "out/output.h"
#include "model/model.h"
#include "model/verdict.h"


#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif
#define GOLDEN FIXTURES "/../golden"

static struct xprt_snap xs_prev, xs_cur;
static struct op_snap os_prev, os_cur, os_other;
static struct client_snap cs = { .clid = 3, .ci = { .dev = 32 } };	/* 0:32 is /mnt/a */

/* A TCP transport limited to 16 slots, 1 s apart: 0.6 s of that second at the limit. */
static inline void make_snaps(struct snapshot *prev, struct snapshot *cur)
{
	struct xprt_stats *p = &xs_prev.s, *c = &xs_cur.s;

	memset(prev, 0, sizeof(*prev));
	memset(cur, 0, sizeof(*cur));
	memset(&xs_prev, 0, sizeof(xs_prev));
	xs_prev.key = 0xffff888012345000ull;
	p->id = 4;
	p->ident = IDENT_TCP;
	p->max_reqs = 16;
	p->limit = 16;
	p->min_reqs = 2;
	strcpy(p->addr, "127.0.0.11");
	strcpy(p->port, "2049");
	p->first_seen_ns = 1000000000ull;
	p->in_use = 2;
	p->level_ns[0] = 500000000ull;
	p->level_ns[2] = 500000000ull;
	p->n.acquires = 10;
	p->n.releases = 8;
	p->n.sends = 10;
	p->n.connects = 1;
	p->curve[2].rpcs = 8;
	p->curve[2].rtt_ns = 8 * 1000000ull;
	p->curve[2].exec_ns = 8 * 1200000ull;
	xs_cur = xs_prev;
	c->in_use = 16;
	c->level_ns[2] += 100000000ull;
	c->level_ns[8] += 300000000ull;
	c->level_ns[LEVEL_BUCKETS - 1] += 600000000ull;
	c->peak = 16;
	c->epoch_of[1] = 7;		/* epoch 7 ended with this snapshot */
	c->epoch_peak[1] = 16;
	c->epoch_of[0] = 6;
	c->epoch_peak[0] = 9;
	c->n.acquires = 150;
	c->n.handoffs = 100;
	c->n.releases = 134;
	c->n.sends = 150;
	c->n.connects = 3;
	c->backlog_now = 40;
	c->backlog_max = 48;
	c->waits[WAIT_SLOT].count = 100;
	c->waits[WAIT_SLOT].sum_ns = 100 * 3000000ull;
	c->waits[WAIT_SLOT].max_ns = 9000000;
	c->waits[WAIT_SLOT].buckets[21] = 100;	/* [2.1 ms, 4.2 ms) */
	/* the interval's 126 releases by the level each took its slot at: the RTT grows with it */
	c->curve[2].rpcs += 6;
	c->curve[2].rtt_ns += 6 * 1500000ull;
	c->curve[2].exec_ns += 6 * 2000000ull;
	c->curve[8].rpcs += 20;
	c->curve[8].rtt_ns += 20 * 1800000ull;
	c->curve[8].exec_ns += 20 * 4000000ull;
	c->curve[LEVEL_BUCKETS - 1].rpcs += 100;
	c->curve[LEVEL_BUCKETS - 1].rtt_ns += 100 * 2100000ull;
	c->curve[LEVEL_BUCKETS - 1].exec_ns += 100 * 5300000ull;

	memset(&os_prev, 0, sizeof(os_prev));
	os_prev.k = (struct op_key){ .xprt = xs_prev.key, .clid = 3, .prog = 100003, .vers = 3, .proc = 7 };
	strcpy(os_prev.s.name, "WRITE");
	os_prev.s.c.count = 4;
	os_prev.s.c.bytes_sent = 4 * 1048700;
	os_cur = os_prev;
	os_cur.s.c.count = 132;
	os_cur.s.c.ntrans = 128;
	os_cur.s.c.bytes_sent = 132 * 1048700ull;
	os_cur.s.c.sum_ns[STAGE_RTT] = 128 * 2000000ull;
	os_cur.s.c.hist[STAGE_RTT][20] = 128;
	os_cur.s.c.sum_ns[STAGE_EXECUTE] = 128 * 5000000ull;
	os_cur.s.c.hist[STAGE_EXECUTE][22] = 128;
	/* a client with no mount (lease renewal): shown with a null mount point */
	memset(&os_other, 0, sizeof(os_other));
	os_other.k = (struct op_key){ .xprt = xs_prev.key, .clid = 9, .prog = 100003, .vers = 4, .proc = 1 };
	strcpy(os_other.s.name, "RENEW");
	os_other.s.c.count = 1;

	prev->ts_ns = 10000000000ull;
	prev->epoch = 6;
	prev->nxprts = 1;
	prev->xprts = &xs_prev;
	prev->nops = 1;
	prev->ops = &os_prev;
	cur->ts_ns = 11000000000ull;
	cur->epoch = 7;
	cur->nxprts = 1;
	cur->xprts = &xs_cur;
	cur->nops = 2;
	cur->ops = (struct op_snap[2]){ 0 };
	cur->nclients = 1;
	cur->clients = &cs;
}

/* an interval view of @a .. @b, made as the running trace makes it */
static inline int build(struct view *v, const struct snapshot *a, const struct snapshot *b,
		 const struct mount_table *mt)
{
	struct model_in in = { .span = SPAN_INTERVAL, .from = a, .to = b, .mounts = mt,
			       .tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 } };
	struct model_out m;
	int err = model_build(&in, &m);

	*v = m.view;
	return err;
}
static inline char *render(void (*fn)(FILE *, const struct view *), const struct view *v, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	fn(f, v);
	fclose(f);
	return buf;
}

/*
 * A checkpoint begun twice and ended once, so the window families carry numbers, and its job; a
 * restore ended with nobody seen behind it.
 */
static struct win_job prom_jobs[] = {
	{ .id = { .kind = "slurm", .id = "4242", .step = "step_0", .uid = JOB_UNKNOWN_UID }, .uid = 1000,
	  .user = "alice", .nprocs = 3, .bytes = 3000, .share = 1 },
};
static const struct window prom_ck[WIN_KINDS] = {
	{ .kind = WIN_CHECKPOINT, .started = 2, .n = 1, .total = { 12.5, 3e9, 4 }, .ended = { 10, 2.5e9, 4 },
	  .ended_wall = 1799999990, .ended_jobs = { .j = prom_jobs, .nj = 1 } },
	{ .kind = WIN_RESTORE, .started = 1, .n = 1, .total = { 3, 1e9, 3 }, .ended = { 3, 1e9, 3 },
	  .ended_wall = 1799999980 },
};

/* the textfile's view of the sums when a test has one, else @v stands for it */
static const struct view *prom_totals;

static bool prom_detail;
/* the jobs' users in labels (--prom-user): the goldens show them */
static bool prom_user = true;

static inline void prom_render(FILE *f, const struct view *v)
{
	struct prom_input in = { .cum = prom_totals ? prom_totals : v, .iv = v, .windows = prom_ck,
				 .detail = prom_detail, .user = prom_user,
				 .now_wall = 1800000000.0,
				 .version = "0.0.0-test", .kernel = "6.1.0-test", .revision = "0123456789ab",
				 .libbpf = "1.1", .arch = "amd64", .design = "functions" };

	assert_int_equal(out_prom(f, &in), 0);
}

/* every histogram's buckets are cumulative and end in +Inf with _count's value */
static inline void check_cumulative(const char *text)
{
	char name[256], prev_name[256] = "";
	unsigned long long prev = 0, v;
	const char *line = text;

	while (line && *line) {
		const char *le = strstr(line, ",le=\"");
		const char *nl = strchr(line, '\n');

		if (le && le < nl && sscanf(line, "%255[^{]", name) == 1) {
			const char *val = strrchr(line, ' ');
			char *copy = strndup(line, (size_t)(le - line));

			assert_non_null(val);
			v = strtoull(val + 1, NULL, 10);
			if (!strcmp(copy, prev_name))
				assert_true(v >= prev);
			snprintf(prev_name, sizeof(prev_name), "%s", copy);
			prev = v;
			free(copy);
		} else if (strstr(line, "_count{") && strstr(line, "_count{") < nl) {
			const char *val = strrchr(line, ' ');

			/* _count follows its +Inf bucket */
			assert_true(strtoull(val + 1, NULL, 10) == prev);
		}
		line = nl ? nl + 1 : NULL;
	}
}

#endif
