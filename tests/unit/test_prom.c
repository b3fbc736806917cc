// SPDX-License-Identifier: GPL-2.0
/*
 * The textfile's contract with a fleet: the series budget, fixed buckets folded exactly from the
 * BPF log2 buckets, one series per label set after an id reuse, label values that stay UTF-8,
 * and the ledger's sums over intervals. Views are built by hand, each test owning its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "prom/ledger.h"
#include "modelfix.h"
#include "out/output.h"
#include "promfix.h"
#include "lib/utf8.h"

/*
 * The budget docs/metrics.md's "Series budget" states, per transport, per mount and per node: a change
 * that adds a series anywhere fails here first.
 */
#define BUDGET_XPRT 66		/* 19 plain, 8 waits, the slot-wait histogram's 19, 10 in-flight, 9 verdict, info */
#define BUDGET_MOUNT_OPS 41	/* three 12-series op histograms, 4 counters, mount_info */
#define BUDGET_ANSWER 9		/* its server's 4 states, unanswered, oldest, silent, threshold, stuck */
#define BUDGET_MOUNT (BUDGET_MOUNT_OPS + BUDGET_ANSWER)
#define BUDGET_NODE 31		/* build, tracing, 7 drops, missed, corrections, mounts left out, 16 window,
				   2 window jobs, last update */

static void test_series_budget(void **state)
{
	static const char *const ops[] = { "READ", "WRITE", "COMMIT", "GETATTR", "LOOKUP", "ACCESS",
					   "CREATE", "REMOVE", "SETATTR", "FSSTAT", "READDIRPLUS", "NULL" };
	static const struct window ck[WIN_KINDS] = { { .kind = WIN_CHECKPOINT, .n = 1 },
						     { .kind = WIN_RESTORE, .n = 1 } };
	struct fixture *f = calloc(1, sizeof(*f));
	struct prom_input in = { .now_wall = 1, .version = "t", .kernel = "k", .windows = ck };
	int node;
	char *s;

	(void)state;
	/* nconnect 8 to one server, two mounts, a dozen ops each */
	for (__u32 i = 0; i < 8; i++)
		add_xprt(f, i, "10.0.0.1", "/mnt/a");
	for (size_t i = 0; i < 12; i++) {
		add_op(f, "/mnt/a", ops[i], 10);
		add_op(f, "/mnt/b", ops[i], 10);
	}
	static struct answer_row rows[2] = { { .mountpoint = "/mnt/a", .server = "10.0.0.1" },
					     { .mountpoint = "/mnt/b", .server = "10.0.0.1" } };
	f->v.answers = rows;
	f->v.nanswers = 2;
	in.cum = in.iv = &f->v;
	s = render_in(&in);
	for (__u32 i = 0; i < 8; i++) {
		char want[64];

		snprintf(want, sizeof(want), "xprt=\"%u\"", i);
		assert_int_equal(count_series(s, want, NULL), BUDGET_XPRT);
	}
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/b\"", "xprt="), BUDGET_MOUNT);
	node = count_series(s, "", NULL) - 8 * BUDGET_XPRT - 2 * BUDGET_MOUNT;
	print_message("per transport %d, per mount %d, the node's own %d: %d series\n", BUDGET_XPRT,
		      BUDGET_MOUNT, node, count_series(s, "", NULL));
	assert_int_equal(node, BUDGET_NODE);
	/* docs/metrics.md: nconnect 8 with two mounts, ~659 a node, ~39,500 for 60 nodes */
	assert_in_range(count_series(s, "", NULL), 649, 669);
	free(s);
	/* --prom-detail: every op and stage gets its histogram */
	s = render(&f->v, true);
	assert_int_equal(count_series(s, "slotscope_op_seconds_count{mountpoint=\"/mnt/b\"", NULL), 12 * STAGES);
	free(s);
	free(f);
}

/*
 * --prom-rollup: a mount's transports are one row of the per-transport families (no
 * transport_info), whatever its nconnect. Two mounts sharing eight transports: one row.
 */
#define BUDGET_ROW 65		/* BUDGET_XPRT less transport_info */

static void test_rollup_budget(void **state)
{
	static const struct window ck[WIN_KINDS] = { { .kind = WIN_CHECKPOINT, .n = 1 },
						     { .kind = WIN_RESTORE, .n = 1 } };
	struct fixture *f = calloc(1, sizeof(*f));
	struct prom_input in = { .now_wall = 1, .version = "t", .kernel = "k", .windows = ck, .rollup = true };
	struct ledger l = { 0 };
	struct view out;
	char *s;

	(void)state;
	for (__u32 i = 0; i < 8; i++) {
		add_xprt(f, i, "10.0.0.1", "/mnt/a");
		f->x[i].row_mount = "/mnt/a";
		snprintf(f->x[i].row_server, sizeof(f->x[i].row_server), "10.0.0.1");
		f->x[i].link.rate_gbps = 10 * (i % 3 + 1);
		f->x[i].limit = 16;
		f->x[i].interval_peak = i;
	}
	for (size_t i = 0; i < 12; i++) {
		static const char *const ops[] = { "READ", "WRITE", "COMMIT", "GETATTR", "LOOKUP", "ACCESS",
						   "CREATE", "REMOVE", "SETATTR", "FSSTAT", "READDIRPLUS", "NULL" };

		add_op(f, "/mnt/a", ops[i], 10);
		add_op(f, "/mnt/b", ops[i], 10);
	}
	assert_int_equal(ledger_view(&l, &f->v, NULL, &(struct prom_mounts){ .rollup = true }, &out), 0);
	in.cum = &out;
	in.iv = &f->v;
	s = render_in(&in);
	assert_int_equal(out.nrows, 1);
	assert_int_equal(count_series(s, "server=\"10.0.0.1\"", NULL), BUDGET_ROW);
	assert_int_equal(count_series(s, "xprt=", NULL), 0);
	print_message("rolled up: a row %d, two mounts' own %d, the node's %d: %d series\n", BUDGET_ROW,
		      2 * BUDGET_MOUNT_OPS, BUDGET_NODE, count_series(s, "", NULL));
	assert_int_equal(count_series(s, "", NULL), BUDGET_ROW + 2 * BUDGET_MOUNT_OPS + BUDGET_NODE);
	/* limits add up; the peak and the link rate are the highest one transport had */
	assert_non_null(strstr(s, "slotscope_slot_limit{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"} 128\n"));
	assert_non_null(strstr(s, "slotscope_slots_in_use_max{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"} 7\n"));
	assert_non_null(strstr(s, "slotscope_link_rate_bytes{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"} 3.75e+09\n"));
	free(s);
	ledger_view_free(&out);
	ledger_free(&l);
	free(f);
}

/* a mount's server as its transports spell it: addr=, else its source's host */
static void test_mount_server(void **state)
{
	static const struct { const char *source, *opts, *want; } c[] = {
		{ "10.0.0.1:/export", "rw,vers=3,proto=tcp,addr=10.0.0.1", "10.0.0.1" },
		{ "nfs.example:/export", "rw,vers=4.2,proto=tcp6,addr=fd00::1", "fd00::1" },
		{ "[fd00::2]:/export", "rw,vers=3", "fd00::2" },
		{ "srv:/x", "rw,vers=3,clientaddr=10.0.0.9", "srv" },
		{ "nohost", "rw", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct nfs_mount m = { .source = (char *)c[i].source, .opts = (char *)c[i].opts };
		char buf[ADDR_LEN] = "junk";

		mount_server(&m, buf, sizeof(buf));
		assert_string_equal(buf, c[i].want);
	}
}

static __u64 sample(const char *text, const char *series)
{
	const char *p = strstr(text, series);

	assert_non_null(p);
	return strtoull(p + strlen(series), NULL, 10);
}

static void test_fixed_buckets(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct wait_view *w;
	char *s, *empty;

	(void)state;
	add_xprt(f, 0, "10.0.0.1", "/mnt/a");
	empty = render(&f->v, false);
	w = &f->x[0].waits[WAIT_SLOT];
	w->buckets[0] = 1;		/* 0 ns */
	w->buckets[13] = 5;		/* [8.2, 16.4) us */
	w->buckets[14] = 7;		/* [16.4, 32.8) us */
	w->buckets[34] = 2;		/* [17.2, 34.4) s */
	w->buckets[35] = 3;		/* >= 34.4 s: only +Inf */
	w->count = 18;
	w->sum_ns = 123456789;
	s = render(&f->v, false);
	/* the same buckets whatever the data: 16 and +Inf */
	assert_int_equal(count_series(s, "slotscope_wait_duration_seconds_bucket{", NULL), 17);
	assert_int_equal(count_series(empty, "slotscope_wait_duration_seconds_bucket{", NULL), 17);
	assert_int_equal(sample(s, "kind=\"slot\",le=\"0.000016384\"} "), 6);
	assert_int_equal(sample(s, "kind=\"slot\",le=\"0.000032768\"} "), 13);
	assert_int_equal(sample(s, "kind=\"slot\",le=\"8.589934592\"} "), 13);
	assert_int_equal(sample(s, "kind=\"slot\",le=\"34.359738368\"} "), 15);
	assert_int_equal(sample(s, "kind=\"slot\",le=\"+Inf\"} "), 18);
	assert_non_null(strstr(s, "slotscope_wait_duration_seconds_sum{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"0\",kind=\"slot\"} 0.123456789\n"));
	assert_int_equal(sample(s, "slotscope_waits_total{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"0\",kind=\"slot\"} "), 18);
	free(s);
	free(empty);
	free(f);
}

/* the kernel gave a new transport to the same server the id of one destroyed this interval */
static void test_id_reuse_one_series(void **state)
{
	static struct snapfix a, b;
	struct xprt_stats *x;
	struct model_out m;
	char *s;

	(void)state;
	fx_init(&a, 1000000000ull);
	fx_init(&b, 2000000000ull);
	/* the old transport seen destroyed, the new one under its key and id */
	x = fx_xprt(&b, 0x1003, 3, IDENT_TCP, "10.0.0.1", 8);
	x->flags |= XF_DESTROYED;
	x = fx_xprt(&b, 0x1003, 3, IDENT_TCP, "10.0.0.1", 16);
	x->first_seen_ns = 99;
	assert_int_equal(fx_model(&m, SPAN_INTERVAL, &a, &b, NULL), 0);
	assert_true(m.view.xprts[0].shadowed != m.view.xprts[1].shadowed);
	assert_int_equal(m.view.xprts[m.view.xprts[0].shadowed ? 1 : 0].limit, 16);
	s = render(&m.view, false);
	assert_int_equal(count_series(s, "slotscope_slot_limit{", NULL), 1);
	assert_int_equal(sample(s, "slotscope_slot_limit{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"3\"} "), 16);
	/* no two sample lines share name and labels */
	for (const char *l = s; *l;) {
		const char *nl = strchr(l, '\n'), *sp = strrchr(l, ' ');
		char *key = strndup(l, (size_t)(sp && sp < nl ? sp - l : nl - l));

		if (key[0] != '#') {
			char *again = strstr(nl, key);

			assert_true(!again || again[strlen(key)] != ' ' || again[-1] != '\n');
		}
		free(key);
		l = nl + 1;
	}
	free(s);
	model_out_free(&m);
}

static void test_labels_stay_utf8(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *mnt = "/mnt/\xff\"a\\b\nc d\xc3\xa9";
	char *s;

	(void)state;
	add_xprt(f, 0, "10.0.0.1", mnt);
	add_op(f, mnt, "WRITE", 1);
	s = render(&f->v, false);
	/* name_next(): \xFF, a backslash doubled, the newline \x0A; then the format's escapes */
	assert_non_null(strstr(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/\\\\xFF\\\"a\\\\\\\\b\\\\x0Ac d\xc3\xa9\"} 0\n"));
	for (const unsigned char *p = (const unsigned char *)s; *p; p += utf8_seq_len(p))
		assert_true(utf8_seq_len(p) > 0);
	free(s);
	free(f);
}

/*
 * A byte that is not UTF-8 and the characters that would spell it apart: a path holding the byte
 * 0xE9 and one holding "\xE9" are two series, not one written twice (which node_exporter rejects).
 */
static void test_names_never_collide(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *latin1 = "/mnt/caf\xe9", *spelt = "/mnt/caf\\xE9";
	char *s, *a, *b;

	(void)state;
	add_xprt(f, 0, "10.0.0.1", latin1);
	add_op(f, latin1, "WRITE", 1);
	add_op(f, spelt, "WRITE", 1);
	s = render(&f->v, false);
	a = strstr(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/caf\\\\xE9\"}");
	b = strstr(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/caf\\\\\\\\xE9\"}");
	assert_non_null(a);
	assert_non_null(b);
	free(s);
	free(f);
}

static void test_waiting_for_nfs(void **state)
{
	struct prom_input in = { .now_wall = 5, .version = "v", .kernel = "k" };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(out_prom(f, &in), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nslotscope_tracing 0\n"));
	assert_int_equal(count_series(buf, "slotscope_", "#"), 3);
	free(buf);
}

static const struct xprt_view *series(const struct view *v, __u32 id, const char *addr)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (v->xprts[i].id == id && !strcmp(v->xprts[i].addr, addr))
			return &v->xprts[i];
	return NULL;
}

/*
 * The textfile's transport counters are sums per series: a transport whose address and kernel id
 * were reused goes on in the series it had (no counter reset), two transports under one series in
 * an interval count its time once, only series the view has are written, and one that comes back
 * goes on from where it was unless LEDGER_GONE_MAX others went since.
 */
static void test_ledger(void **state)
{
	struct fixture *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const struct xprt_view *x;
	struct ledger l = { 0 };
	struct view out;

	(void)state;
	add_xprt(a, 0, "10.0.0.1", "/mnt/a");
	add_xprt(a, 1, "10.0.0.2", "/mnt/b");
	a->v.interval_s = 2;
	a->v.ts_s = 100;
	a->x[0].verdict.cls = V_SLOT;
	a->x[0].busy_ns = 1e9;
	a->x[0].n.acquires = 10;
	a->x[0].link.gbps = 8;		/* 1 GB/s for the one busy second */
	a->x[1].verdict.cls = V_IDLE;
	a->x[1].n.acquires = 4;
	assert_int_equal(ledger_add(&l, &a->v, NULL), 0);
	a->x[0].verdict.cls = V_SERVER;
	/* the id reused within the interval: the old transport's last figures and the new one's */
	add_xprt(a, 0, "10.0.0.1", "/mnt/a");
	a->x[2].key = 0x9000;
	a->x[2].first_seen_ns = 7;
	a->x[2].n.acquires = 3;
	a->x[2].verdict.cls = V_SERVER;	/* the series takes the verdict of the one it shows */
	a->x[0].shadowed = true;
	a->v.ts_s = 102;
	assert_int_equal(ledger_add(&l, &a->v, NULL), 0);
	/* the cumulative view: transport 1 gone, 0's series now the new transport, 5 new */
	add_xprt(b, 0, "10.0.0.1", "/mnt/a");
	add_xprt(b, 5, "10.0.0.1", "/mnt/a");
	b->x[0].key = 0x9000;
	b->x[0].first_seen_ns = 7;
	b->x[1].n.acquires = 9;
	b->v.ts_s = 103;
	assert_int_equal(ledger_view(&l, &b->v, NULL, NULL, &out), 0);
	x = series(&out, 0, "10.0.0.1");
	assert_non_null(x);
	assert_true(x->verdict_s[V_SLOT] == 2 && x->verdict_s[V_SERVER] == 2);
	assert_true(x->link_busy_bytes == 2e9);
	assert_int_equal(x->n.acquires, 10 + 10 + 3);
	assert_int_equal(x->key, 0x9000);
	assert_null(series(&out, 1, "10.0.0.2"));		/* gone: not written */
	assert_int_equal(series(&out, 5, "10.0.0.1")->n.acquires, 9);	/* new: this interval's */
	assert_int_equal(out.nxprts, 2);
	ledger_view_free(&out);
	/* transport 1's series comes back: it goes on from its sums */
	b->v.nxprts = 0;
	add_xprt(b, 1, "10.0.0.2", "/mnt/b");
	b->x[0].n.acquires = 1;
	b->v.ts_s = 104;
	/* the textfile's view is the sums with the interval added, before the sums take it */
	assert_int_equal(ledger_view(&l, &b->v, NULL, NULL, &out), 0);
	assert_int_equal(series(&out, 1, "10.0.0.2")->n.acquires, 4 + 4 + 1);
	ledger_view_free(&out);
	assert_int_equal(ledger_add(&l, &b->v, NULL), 0);
	/*
	 * idle (no slot taken, nothing sent or held) for LEDGER_IDLE_S: out of the exposition; its
	 * next RPC brings it back with its counters where they were
	 */
	b->x[0].n.acquires = 0;
	for (double t = 105; t <= 104 + LEDGER_IDLE_S + 1; t++) {
		b->v.ts_s = t;
		assert_int_equal(ledger_view(&l, &b->v, NULL, NULL, &out), 0);
		if (t - 104 <= LEDGER_IDLE_S)
			assert_non_null(series(&out, 1, "10.0.0.2"));
		else
			assert_null(series(&out, 1, "10.0.0.2"));
		ledger_view_free(&out);
		assert_int_equal(ledger_add(&l, &b->v, NULL), 0);
	}
	b->x[0].n.acquires = 2;
	b->v.ts_s = 500;
	assert_int_equal(ledger_view(&l, &b->v, NULL, NULL, &out), 0);
	assert_int_equal(series(&out, 1, "10.0.0.2")->n.acquires, 4 + 4 + 1 + 2);
	ledger_view_free(&out);
	assert_int_equal(ledger_add(&l, &b->v, NULL), 0);
	/* more series gone than are remembered: those gone longest are forgotten */
	for (int i = 0; i < LEDGER_GONE_MAX + 5; i++) {
		b->v.nxprts = 0;
		add_xprt(b, 100 + i, "10.0.0.9", "/mnt/z");
		b->v.ts_s = 600 + i;
		assert_int_equal(ledger_add(&l, &b->v, NULL), 0);
	}
	assert_int_equal(l.nx, LEDGER_GONE_MAX + 1);
	assert_true(l.nr > 0);
	ledger_free(&l);
	/* without --prom-rollup the rows are not summed; the series' sums are the same */
	struct ledger n = { .no_rows = true };

	assert_int_equal(ledger_add(&n, &b->v, NULL), 0);
	assert_int_equal(n.nr, 0);
	assert_int_equal(n.nx, 1);
	ledger_free(&n);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_budget),
		cmocka_unit_test(test_rollup_budget),
		cmocka_unit_test(test_mount_server),
		cmocka_unit_test(test_fixed_buckets),
		cmocka_unit_test(test_id_reuse_one_series),
		cmocka_unit_test(test_labels_stay_utf8),
		cmocka_unit_test(test_names_never_collide),
		cmocka_unit_test(test_waiting_for_nfs),
		cmocka_unit_test(test_ledger),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
