// SPDX-License-Identifier: GPL-2.0
/*
 * The textfile's mounts: --prom-rollup's rows (a mount's transports summed, its counters never
 * going back when transports come, go or move between mounts), --prom-mount-include/-exclude,
 * and their options' errors. Snapshots and mount tables are stated as the kernel would hold them;
 * views are made by model_build() and the file by out_prom(), as the running trace makes them.
 *
 * SLOTSCOPE_PROM_DIR=DIR also writes every file of the random histories there, numbered, for
 * tests/host/test_counters.sh to put through promtool and node_exporter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "ledger.h"
#include "modelfix.h"
#include "output.h"
#include "prom_mounts.h"
#include "runbin.h"

#define GOLDEN FIXTURES "/../golden"

static void mount_table(struct mount_table *mt, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	memset(mt, 0, sizeof(*mt));
	assert_int_equal(mounts_parse(f, mt), 0);
	fclose(f);
}

static char *render(const struct model_out *m, bool rollup)
{
	struct prom_input in = { .cum = &m->totals, .iv = &m->view, .now_wall = 1800000000.0,
				 .rollup = rollup, .version = "0.0.0-test", .kernel = "6.1.0-test" };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(out_prom(f, &in), 0);
	fclose(f);
	return buf;
}

/* the value of the sample line that starts with @series (name and labels), or -1 when none */
static double value(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, series, n) && l[n] == ' ')
			return strtod(l + n + 1, NULL);
	return -1;
}

/* the sum of the sample lines of family @name whose labels hold @needle */
static double sum_of(const char *text, const char *name, const char *needle)
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

static int count_lines(const char *text, const char *needle)
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

static void test_globs(void **state)
{
	static const char *const bad[] = { "", "home/*", "/home/[ab", "/home/x\\", "/a/[[:alpha:]" };
	static const char *const good[] = { "/home/*", "*", "/mnt/[abc]", "/mnt/[]x]", "/x/[[:digit:]]*",
					    "/lit\\[", "?*" };
	struct prom_mounts pm = { .nexclude = 1, .exclude = { "/home/*" } };
	char why[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_int_equal(prom_mount_glob_check(bad[i], why, sizeof(why)), -EINVAL);
		assert_true(why[0]);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(prom_mount_glob_check(good[i], why, sizeof(why)), 0);
	/* exclude alone: the rest stays, ops of no mount too; a star crosses '/' */
	assert_false(prom_mount_shown(&pm, "/home/alice"));
	assert_false(prom_mount_shown(&pm, "/home/alice/scratch"));
	assert_true(prom_mount_shown(&pm, "/home"));
	assert_true(prom_mount_shown(&pm, "/mnt/ckpt"));
	assert_true(prom_mount_shown(&pm, NULL));
	/* an include keeps only what it names ("" is no mount's name), and exclude wins */
	pm.ninclude = 2;
	pm.include[0] = "/mnt/*";
	pm.include[1] = "/home/*";
	assert_true(prom_mount_shown(&pm, "/mnt/ckpt"));
	assert_false(prom_mount_shown(&pm, "/home/alice"));
	assert_false(prom_mount_shown(&pm, "/scratch"));
	assert_false(prom_mount_shown(&pm, NULL));
	assert_true(prom_mount_shown(NULL, "/home/alice"));
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
static void scene(struct snapfix *f, __u64 t, __u64 scale)
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
static void two_intervals(struct model_out *m, struct ledger *sums, struct snapfix *f,
			  const struct mount_table *mt, const struct prom_mounts *pm)
{
	struct model_in in = { .span = SPAN_INTERVAL, .from = &f[0].s, .to = &f[1].s, .mounts = mt,
			       .tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 },
			       .sums = sums, .prom = pm };

	scene(&f[0], 10, 0);
	scene(&f[1], 11, 1);
	scene(&f[2], 12, 2);
	assert_int_equal(model_build(&in, m), 0);
	assert_int_equal(ledger_add(sums, &m->view, mt), 0);
	model_out_free(m);
	in.from = &f[1].s;
	in.to = &f[2].s;
	assert_int_equal(model_build(&in, m), 0);
	assert_true(m->have_totals);
}

static const struct xprt_view *xprt_of(const struct view *v, __u64 key)
{
	const struct xprt_view *x = view_xprt(v, key);

	assert_non_null(x);
	return x;
}

static void test_owners(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	struct prom_mounts pm = { .nexclude = 1, .exclude = { "/mnt/a" } };
	struct ledger sums = { 0 };
	struct model_out m;
	const struct xprt_view *x;

	(void)state;
	mount_table(&mt, mounts_text);
	two_intervals(&m, &sums, f, &mt, NULL);
	/* shared: the first mount in path order, whichever carried its ops */
	x = xprt_of(&m.view, K_A1);
	assert_string_equal(x->prom_mount, "/mnt/a");
	assert_string_equal(x->prom_server, "10.0.0.1");
	/* only /mnt/b's ops, but mounted from the same server as /mnt/a: /mnt/a's too */
	assert_string_equal(xprt_of(&m.view, K_A2)->prom_mount, "/mnt/a");
	assert_string_equal(xprt_of(&m.view, K_H)->prom_mount, "/home/u1");
	/* no op since attach: the mount table's addr= and proto= */
	assert_string_equal(xprt_of(&m.view, K_C)->prom_mount, "/mnt/c");
	x = xprt_of(&m.view, K_LOST);
	assert_null(x->prom_mount);
	assert_string_equal(x->prom_server, "10.0.0.9");
	for (size_t i = 0; i < m.view.nxprts; i++)
		assert_false(m.view.xprts[i].prom_hidden);
	model_out_free(&m);
	ledger_free(&sums);
	/* /mnt/a filtered out: its transports count under /mnt/b, the next that they serve */
	two_intervals(&m, &sums, f, &mt, &pm);
	assert_string_equal(xprt_of(&m.view, K_A1)->prom_mount, "/mnt/b");
	assert_string_equal(xprt_of(&m.view, K_A2)->prom_mount, "/mnt/b");
	model_out_free(&m);
	ledger_free(&sums);
	/* both out: the transports leave the file; "" is out only under an include */
	pm.exclude[pm.nexclude++] = "/mnt/b";
	two_intervals(&m, &sums, f, &mt, &pm);
	assert_true(xprt_of(&m.view, K_A1)->prom_hidden);
	assert_true(xprt_of(&m.view, K_A2)->prom_hidden);
	assert_false(xprt_of(&m.view, K_LOST)->prom_hidden);
	model_out_free(&m);
	ledger_free(&sums);
	pm = (struct prom_mounts){ .ninclude = 1, .include = { "/mnt/*" } };
	two_intervals(&m, &sums, f, &mt, &pm);
	assert_true(xprt_of(&m.view, K_LOST)->prom_hidden);
	assert_true(xprt_of(&m.view, K_H)->prom_hidden);
	assert_false(xprt_of(&m.view, K_C)->prom_hidden);
	model_out_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

/* autofs homes left out: no series names them, their transport leaves, the rest stays whole */
static void test_filtered_file(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	struct prom_mounts pm = { .nexclude = 1, .exclude = { "/home/*" } };
	struct ledger sums = { 0 };
	struct model_out m;
	char *all, *s;

	(void)state;
	mount_table(&mt, mounts_text);
	two_intervals(&m, &sums, f, &mt, NULL);
	all = render(&m, false);
	model_out_free(&m);
	ledger_free(&sums);
	two_intervals(&m, &sums, f, &mt, &pm);
	s = render(&m, false);
	assert_null(strstr(s, "/home/"));
	assert_null(strstr(s, "server=\"10.0.0.2\""));
	assert_non_null(strstr(all, "/home/u1"));
	assert_non_null(strstr(all, "server=\"10.0.0.2\""));
	/* what stays is what the unfiltered file says */
	assert_true(value(s, "slotscope_slot_acquires_total{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\"}") ==
		    value(all, "slotscope_slot_acquires_total{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\"}"));
	assert_true(value(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}") ==
		    value(all, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}"));
	assert_true(value(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}") > 0);
	assert_int_equal(count_lines(s, "slotscope_mount_info{"), count_lines(all, "slotscope_mount_info{") - 1);
	free(s);
	model_out_free(&m);
	ledger_free(&sums);
	/* a shared transport's info names only the mounts shown */
	pm.exclude[0] = "/mnt/a";
	two_intervals(&m, &sums, f, &mt, &pm);
	s = render(&m, false);
	assert_non_null(strstr(s, "slotscope_transport_info{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\",netdev=\"\","
			       "rdma_device=\"\",port=\"\",mountpoint=\"/mnt/b\","));
	assert_non_null(strstr(all, "slotscope_transport_info{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\",netdev=\"\","
			       "rdma_device=\"\",port=\"\",mountpoint=\"/mnt/a,/mnt/b\","));
	free(s);
	free(all);
	model_out_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

static void golden(const char *name, const char *got)
{
	char path[512], *want = malloc(1 << 17);
	size_t wlen;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN, name);
	if (getenv("UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	f = fopen(path, "r");
	assert_non_null(f);
	wlen = fread(want, 1, (1 << 17) - 1, f);
	fclose(f);
	want[wlen] = 0;
	assert_string_equal(got, want);
	free(want);
}

/* the families --prom-rollup sums, with a sample line's labels after the transport's */
static const char *const summed[] = {
	"slotscope_slots_in_use", "slotscope_slot_limit", "slotscope_backlog_tasks",
	"slotscope_credits_granted", "slotscope_credits_in_use", "slotscope_slot_limit_seconds_total",
	"slotscope_slot_busy_seconds_total", "slotscope_slot_acquires_total", "slotscope_slot_handoffs_total",
	"slotscope_slot_idle_held_total", "slotscope_slot_idle_held_seconds_total",
	"slotscope_sends_total", "slotscope_connects_total", "slotscope_retransmissions_total",
	"slotscope_link_busy_bytes_total",
};

/*
 * Rolled up, a mount's row is its transports' series added up (the highest for the peak and the
 * link rate), checked against the per-transport file of the same history; the file is golden.
 */
static void test_rollup_sums(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	const struct prom_mounts rollup = { .rollup = true };
	struct ledger sums = { 0 };
	struct model_out m;
	char *per, *roll, row[128];

	(void)state;
	mount_table(&mt, mounts_text);
	two_intervals(&m, &sums, f, &mt, NULL);
	per = render(&m, false);
	model_out_free(&m);
	ledger_free(&sums);
	two_intervals(&m, &sums, f, &mt, &rollup);
	roll = render(&m, true);
	golden("metrics-rollup.prom", roll);
	/* no transport series and no transport_info; one row per mount with transports, and "" */
	assert_null(strstr(roll, "xprt=\""));
	assert_null(strstr(roll, "slotscope_transport_info"));
	assert_int_equal(count_lines(roll, "slotscope_slot_limit{"), 4);
	assert_int_equal(count_lines(roll, "slotscope_slot_limit{mountpoint=\"/mnt/b\""), 0);
	snprintf(row, sizeof(row), "mountpoint=\"/mnt/a\",server=\"10.0.0.1\"");
	for (size_t i = 0; i < sizeof(summed) / sizeof(summed[0]); i++) {
		char series[256];

		snprintf(series, sizeof(series), "%s{%s}", summed[i], row);
		assert_true(value(roll, series) >= 0);
		assert_true(value(roll, series) == sum_of(per, summed[i], "server=\"10.0.0.1\""));
	}
	/* 16 + 16 slots, 16 + 7 in use; the peak is the busier transport's */
	assert_true(value(roll, "slotscope_slot_limit{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 32);
	assert_true(value(roll, "slotscope_slots_in_use_max{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 16);
	assert_true(value(roll, "slotscope_slot_acquires_total{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 300);
	/* waits, the in-flight curve and the verdict time add up by label too */
	assert_true(sum_of(roll, "slotscope_waits_total", "mountpoint=\"/mnt/a\"") ==
		    sum_of(per, "slotscope_waits_total", "server=\"10.0.0.1\""));
	assert_true(value(roll, "slotscope_inflight_rpcs_total{mountpoint=\"/mnt/a\",server=\"10.0.0.1\",in_flight=\"limit\"}") ==
		    sum_of(per, "slotscope_inflight_rpcs_total", "in_flight=\"limit\""));
	assert_true(sum_of(roll, "slotscope_inflight_rpcs_total", "mountpoint=\"/mnt/a\"") == 2 * (60 + 40 + 50));
	assert_true(sum_of(roll, "slotscope_inflight_rtt_seconds_total", "mountpoint=\"/mnt/a\"") ==
		    sum_of(per, "slotscope_inflight_rtt_seconds_total", "server=\"10.0.0.1\""));
	assert_true(sum_of(roll, "slotscope_verdict_seconds_total", "mountpoint=\"/mnt/a\"") == 2 * 2);
	assert_true(value(roll, "slotscope_wait_seconds_count{mountpoint=\"/mnt/a\",server=\"10.0.0.1\",kind=\"slot\"}") == 60);
	/* the RDMA mount's row exists before its first op; the lost transport under "" */
	assert_true(value(roll, "slotscope_credits_granted{mountpoint=\"/mnt/c\",server=\"10.0.0.3\"}") == 64);
	assert_true(value(roll, "slotscope_slot_acquires_total{mountpoint=\"\",server=\"10.0.0.9\"}") == 4);
	/* the per-mount families and mount_info are the same either way */
	assert_true(value(roll, "slotscope_mount_info{mountpoint=\"/mnt/b\",server=\"10.0.0.1\"}") == 1);
	assert_true(value(roll, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}") ==
		    value(per, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}"));
	free(per);
	free(roll);
	model_out_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

/*
 * A random history: mounts come and go (autofs homes among them), transports are made, replaced
 * and reaped with their ids and addresses reused, mounts share a server's transports. Every
 * counter of every file stays at or above what it ever was, no series is written twice, and the
 * rows' slots add up to every slot the kernel took.
 */
#define PATHS 5
#define SRVS 2
#define MAXX FX_XPRTS

struct sim {
	struct snapfix f[2];		/* the previous snapshot and the one being made */
	int cur;
	bool mounted[PATHS];
	unsigned int clid[PATHS];
	bool id_used[64], slot_used[64], clid_used[64];
	__u64 taken, hidden_taken;	/* slots taken, and those under transports filtered out */
};

static const char *const paths[PATHS] = { "/mnt/a", "/mnt/b", "/home/u1", "/home/u2", "/scratch" };
static const int path_srv[PATHS] = { 0, 0, 1, 1, 1 };
static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)((rng >> 33) % n);
}

static unsigned int lowest_free(bool *used, unsigned int from)
{
	for (unsigned int i = from; i < 64; i++)
		if (!used[i]) {
			used[i] = true;
			return i;
		}
	fail_msg("out of ids");
	return 0;
}

static struct snapfix *now(struct sim *s)
{
	return &s->f[s->cur];
}

static size_t live_of(struct sim *s, int srv, size_t *idx)
{
	struct snapfix *f = now(s);
	char addr[16];
	size_t n = 0;

	snprintf(addr, sizeof(addr), "10.0.1.%d", srv + 1);
	for (size_t i = 0; i < f->s.nxprts; i++)
		if (!(f->x[i].s.flags & XF_DESTROYED) && !strcmp(f->x[i].s.addr, addr))
			idx[n++] = i;
	return n;
}

static void new_xprt(struct sim *s, int srv)
{
	struct snapfix *f = now(s);
	unsigned int slot = lowest_free(s->slot_used, 0);
	char addr[16];
	struct xprt_stats *x;

	if (f->s.nxprts == MAXX)
		return;
	snprintf(addr, sizeof(addr), "10.0.1.%d", srv + 1);
	/* the fixture's slot may hold a reaped transport's counts */
	memset(&f->x[f->s.nxprts], 0, sizeof(f->x[0]));
	x = fx_xprt(f, 0x5000 + slot, lowest_free(s->id_used, 0), IDENT_TCP, addr, 8 + 8 * rnd(3));
	x->first_seen_ns = f->s.ts_ns + 1;
}

/* engine_reap(): what the last file showed destroyed goes, with its ops */
static void reap(struct sim *s)
{
	struct snapfix *f = now(s);

	for (size_t i = 0; i < f->s.nxprts; i++) {
		__u64 key = f->x[i].key;

		if (!(f->x[i].s.flags & XF_DESTROYED))
			continue;
		for (size_t j = 0; j < f->s.nops; j++)
			if (f->o[j].k.xprt == key)
				f->o[j--] = f->o[--f->s.nops];
		s->id_used[f->x[i].s.id] = false;
		s->slot_used[key - 0x5000] = false;
		f->x[i--] = f->x[--f->s.nxprts];
	}
}

static void unmount(struct sim *s, int p)
{
	struct snapfix *f = now(s);
	size_t idx[MAXX], n;
	bool shared = false;

	s->mounted[p] = false;
	/* rpc_free_client(): the client goes, its ops' mount is to be learned again (forget_client) */
	for (size_t i = 0; i < f->s.nclients; i++)
		if (f->c[i].clid == s->clid[p])
			f->c[i--] = f->c[--f->s.nclients];
	for (size_t i = 0; i < f->s.nops; i++)
		if (f->o[i].k.clid == s->clid[p])
			f->o[i].s.client_done = 0;
	s->clid_used[s->clid[p]] = false;
	for (int q = 0; q < PATHS; q++)
		shared |= s->mounted[q] && path_srv[q] == path_srv[p];
	n = live_of(s, path_srv[p], idx);
	for (size_t i = 0; i < n && !shared; i++)
		now(s)->x[idx[i]].s.flags |= XF_DESTROYED;
}

static void io(struct sim *s, int p, const struct prom_mounts *pm)
{
	struct snapfix *f = now(s);
	size_t idx[MAXX], n = live_of(s, path_srv[p], idx), xi;
	struct op_snap *o = NULL;
	struct xprt_stats *x;
	__u64 ops = 1 + rnd(20);
	bool hidden = true;

	if (!n)
		return;
	xi = idx[rnd((unsigned int)n)];
	x = &f->x[xi].s;
	for (size_t i = 0; i < f->s.nops && !o; i++)
		if (f->o[i].k.xprt == f->x[xi].key && f->o[i].k.clid == s->clid[p])
			o = &f->o[i];
	if (!o) {
		if (f->s.nops == FX_OPS)
			return;
		memset(&f->o[f->s.nops], 0, sizeof(f->o[0]));
		fx_op(f, f->x[xi].key, s->clid[p], 7, "WRITE", 0, 0, 0);
		o = &f->o[f->s.nops - 1];
	}
	o->s.client_done = 1;
	o->s.c.count += ops;
	o->s.c.ntrans += ops;
	o->s.c.bytes_sent += ops * 65536;
	o->s.c.sum_ns[STAGE_RTT] += ops * 2000000;
	o->s.c.sum_ns[STAGE_EXECUTE] += ops * 3000000;
	o->s.c.hist[STAGE_RTT][lat_bucket(2000000)] += ops;
	o->s.c.hist[STAGE_EXECUTE][lat_bucket(3000000)] += ops;
	x->n.acquires += ops;
	x->n.sends += ops;
	x->level_ns[LEVEL_BUCKETS - 1] += 100000000;
	x->level_ns[2] += 50000000;
	x->curve[LEVEL_BUCKETS - 1].rpcs += ops;
	x->curve[LEVEL_BUCKETS - 1].rtt_ns += ops * 2000000;
	x->waits[WAIT_SLOT].count += ops;
	x->waits[WAIT_SLOT].sum_ns += ops * 1000000;
	x->waits[WAIT_SLOT].buckets[lat_bucket(1000000)] += ops;
	/* the truth: a transport serves every mount of its server; it is out when all of them are */
	for (int q = 0; q < PATHS; q++)
		if (path_srv[q] == path_srv[p] && s->mounted[q])
			hidden &= !prom_mount_shown(pm, paths[q]);
	s->taken += ops;
	if (hidden)
		s->hidden_taken += ops;
}

static void copy_fix(struct snapfix *dst, const struct snapfix *src, __u64 ts_ns)
{
	*dst = *src;
	dst->s.xprts = dst->x;
	dst->s.ops = dst->o;
	dst->s.clients = dst->c;
	dst->s.sessions = dst->ss;
	dst->s.ts_ns = ts_ns;
}

/* one second of the kernel: a mount or unmount now and then, a reconnect, I/O */
static void step(struct sim *s, int t, const struct prom_mounts *pm)
{
	int p = (int)rnd(PATHS);
	size_t idx[MAXX];

	s->cur ^= 1;
	copy_fix(now(s), &s->f[s->cur ^ 1], (__u64)t * 1000000000ull);
	reap(s);
	if (!rnd(3)) {
		if (!s->mounted[p]) {
			s->mounted[p] = true;
			s->clid[p] = lowest_free(s->clid_used, 1);
			fx_client(now(s), s->clid[p], 40 + p, 0);
			if (!live_of(s, path_srv[p], idx)) {
				new_xprt(s, path_srv[p]);
				if (rnd(2))
					new_xprt(s, path_srv[p]);	/* nconnect=2 */
			}
		} else {
			unmount(s, p);
		}
	}
	/* a reconnect that made a new transport in place of one of the server's */
	if (!rnd(8)) {
		int srv = (int)rnd(SRVS);
		size_t n = live_of(s, srv, idx);

		if (n) {
			now(s)->x[idx[rnd((unsigned int)n)]].s.flags |= XF_DESTROYED;
			new_xprt(s, srv);
		}
	}
	for (int q = 0; q < PATHS; q++)
		if (s->mounted[q] && rnd(3))
			io(s, q, pm);
}

static void sim_mounts(const struct sim *s, struct mount_table *mt)
{
	char text[2048];
	size_t len = (size_t)snprintf(text, sizeof(text), "21 1 0:20 / / rw - ext4 /dev/vda rw\n");

	for (int p = 0; p < PATHS; p++)
		if (s->mounted[p])
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%d 21 0:%d / %s rw - nfs 10.0.1.%d:/x rw,vers=3,proto=tcp,addr=10.0.1.%d\n",
						50 + p, 40 + p, paths[p], path_srv[p] + 1, path_srv[p] + 1);
	mount_table(mt, text);
}

/* a counter's highest value yet, per series */
struct seen {
	size_t n, cap;
	struct { char *series; double v; } *e;
};

static double *seen_at(struct seen *z, const char *series)
{
	for (size_t i = 0; i < z->n; i++)
		if (!strcmp(z->e[i].series, series))
			return &z->e[i].v;
	if (z->n == z->cap) {
		z->cap = z->cap ? 2 * z->cap : 256;
		z->e = realloc(z->e, z->cap * sizeof(*z->e));
		assert_non_null(z->e);
	}
	z->e[z->n].series = strdup(series);
	z->e[z->n].v = -1;
	return &z->e[z->n++].v;
}

static void seen_free(struct seen *z)
{
	for (size_t i = 0; i < z->n; i++)
		free(z->e[i].series);
	free(z->e);
}

/*
 * @text against what the files before it said: every counter and histogram line at or above its
 * highest yet, no series twice. @backs counts what went back and what was written twice, @lines
 * what was compared.
 */
static void check_file(const char *text, struct seen *hi, int *backs, int *lines)
{
	char counter_of[64][96] = { { 0 } };
	struct seen once = { 0 };
	size_t nc = 0;
	char *copy = strdup(text), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(l, ' '), name[96];
		double *was;
		bool counter = false;

		if (!strncmp(l, "# TYPE ", 7)) {
			char type[16];

			if (sscanf(l + 7, "%95s %15s", name, type) == 2 && nc < 64 &&
			    (!strcmp(type, "counter") || !strcmp(type, "histogram")))
				snprintf(counter_of[nc++], sizeof(counter_of[0]), "%s", name);
			continue;
		}
		if (l[0] == '#' || !sp)
			continue;
		*sp = 0;
		was = seen_at(&once, l);
		if (*was >= 0 && (*backs)++ < 5)
			print_message("twice: %s\n", l);
		*was = 1;
		for (size_t i = 0; i < nc && !counter; i++) {
			size_t k = strlen(counter_of[i]);

			counter = !strncmp(l, counter_of[i], k) && (l[k] == '{' || l[k] == 0 || l[k] == '_');
		}
		if (!counter)
			continue;
		was = seen_at(hi, l);
		(*lines)++;
		if (strtod(sp + 1, NULL) < *was) {
			if ((*backs)++ < 5)
				print_message("went back: %s %g -> %s\n", l, *was, sp + 1);
		} else {
			*was = strtod(sp + 1, NULL);
		}
	}
	seen_free(&once);
	free(copy);
}

/*
 * @steps seconds of history @seed through the textfile, as the trace makes it; the rows' slots
 * taken, as the last file that wrote each row says them, summed into *rows_taken.
 */
static void history(unsigned long long seed, int steps, const struct prom_mounts *pm, const char *dir,
		    struct sim *s, double *rows_taken, int *backs, int *lines)
{
	struct ledger sums = { 0 };
	struct seen hi = { 0 }, last = { 0 };

	memset(s, 0, sizeof(*s));
	rng = seed;
	s->clid_used[0] = true;
	fx_init(&s->f[0], 0);
	fx_init(&s->f[1], 0);
	for (int t = 1; t <= steps; t++) {
		struct mount_table mt;
		struct model_out m;
		struct model_in in = { .span = SPAN_INTERVAL, .mounts = &mt, .sums = &sums, .prom = pm };
		char *text;

		step(s, t, pm);
		sim_mounts(s, &mt);
		in.from = &s->f[s->cur ^ 1].s;
		in.to = &now(s)->s;
		assert_int_equal(model_build(&in, &m), 0);
		text = render(&m, pm->rollup);
		check_file(text, &hi, backs, lines);
		for (int p = 0; p < PATHS; p++)
			if (!prom_mount_shown(pm, paths[p]))
				assert_null(strstr(text, paths[p]));
		for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (!strncmp(l, "slotscope_slot_acquires_total{", 30)) {
				char series[256];
				const char *sp = strchr(l, ' ');

				snprintf(series, sizeof(series), "%.*s", (int)(sp - l), l);
				*seen_at(&last, series) = strtod(sp + 1, NULL);
			}
		if (dir) {
			char path[512];
			FILE *f;

			snprintf(path, sizeof(path), "%s/%04d.prom", dir, t);
			f = fopen(path, "w");
			assert_non_null(f);
			fputs(text, f);
			fclose(f);
		}
		free(text);
		assert_int_equal(ledger_add(&sums, &m.view, &mt), 0);
		model_out_free(&m);
		mounts_free(&mt);
	}
	*rows_taken = 0;
	for (size_t i = 0; i < last.n; i++)
		*rows_taken += last.e[i].v;
	seen_free(&hi);
	seen_free(&last);
	ledger_free(&sums);
}

/* the control: the checks see a counter that goes back and a series written twice */
static void test_checks_see(void **state)
{
	struct seen hi = { 0 };
	int backs = 0, lines = 0;

	(void)state;
	check_file("# TYPE slotscope_a_total counter\nslotscope_a_total{x=\"1\"} 5\n", &hi, &backs, &lines);
	check_file("# TYPE slotscope_a_total counter\nslotscope_a_total{x=\"1\"} 4\n", &hi, &backs, &lines);
	assert_int_equal(backs, 1);
	assert_int_equal(lines, 2);
	check_file("slotscope_g{x=\"1\"} 1\nslotscope_g{x=\"1\"} 2\n", &hi, &backs, &lines);
	assert_int_equal(backs, 2);
	seen_free(&hi);
}

static void test_rollup_never_back(void **state)
{
	const struct prom_mounts roll = { .rollup = true };
	const struct prom_mounts homes = { .rollup = true, .nexclude = 1, .exclude = { "/home/*" } };
	const char *dir = getenv("SLOTSCOPE_PROM_DIR");
	struct sim *s = calloc(1, sizeof(*s));
	int backs = 0, lines = 0;
	double rows;

	(void)state;
	for (unsigned long long seed = 1; seed <= 4; seed++) {
		char sub[512];

		if (dir) {
			snprintf(sub, sizeof(sub), "%s/s%llu", dir, seed);
			assert_true(!mkdir(sub, 0755) || errno == EEXIST);
		}
		history(seed, 300, seed & 1 ? &roll : &homes, dir ? sub : NULL, s, &rows, &backs, &lines);
		print_message("seed %llu: %d counter values, %d went back; slots %llu taken, %llu under "
			      "mounts left out, %g in the rows\n", seed, lines, backs,
			      (unsigned long long)s->taken, (unsigned long long)s->hidden_taken, rows);
		assert_int_equal(backs, 0);
		/* every slot taken is in exactly one row, unless its every mount was left out */
		assert_true(rows == (double)(s->taken - s->hidden_taken));
		assert_true(s->taken > 1000);
		if (seed % 2 == 0)
			assert_true(s->hidden_taken > 0);
	}
	free(s);
}

/*
 * A mount's two transports, one reaped with its ops: the row goes on from its own sum, where
 * adding up the live transports' sums would drop by the reaped one's.
 */
static void test_transport_leaves(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	struct ledger sums = { 0 };
	struct model_out m;
	const struct prom_mounts rollup = { .rollup = true };
	struct model_in in = { .span = SPAN_INTERVAL, .mounts = &mt, .sums = &sums, .prom = &rollup };
	const char *row = "slotscope_slot_acquires_total{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}";
	double before, after;
	char *text;

	(void)state;
	mount_table(&mt, mounts_text);
	scene(&f[0], 10, 0);
	scene(&f[1], 11, 1);
	in.from = &f[0].s;
	in.to = &f[1].s;
	assert_int_equal(model_build(&in, &m), 0);
	text = render(&m, true);
	before = value(text, row);
	free(text);
	assert_int_equal(ledger_add(&sums, &m.view, &mt), 0);
	model_out_free(&m);
	/* the second transport reaped, its ops with it; the first goes on */
	scene(&f[2], 12, 2);
	f[2].x[1] = f[2].x[--f[2].s.nxprts];
	for (size_t i = 0; i < f[2].s.nops; i++)
		if (f[2].o[i].k.xprt == K_A2)
			f[2].o[i--] = f[2].o[--f[2].s.nops];
	in.from = &f[1].s;
	in.to = &f[2].s;
	assert_int_equal(model_build(&in, &m), 0);
	text = render(&m, true);
	after = value(text, row);
	/* 150 before, then the first transport's 100 more: not 200, the one left's own sum */
	assert_true(before == 150);
	assert_true(after == 250);
	assert_true(value(text, "slotscope_slot_limit{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 16);
	free(text);
	model_out_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

/*
 * Many mounts, each mounted from its own server, each doing one burst of WRITEs and then nothing:
 * the mount table says they are there, so their series stay in every file with their counts,
 * however many sit idle (more than the ledger remembers gone). One unmounted leaves the file;
 * mounted again, it goes on from where it was.
 */
#define IDLE_MOUNTS 100
#define IDLE_VICTIM 7
#define IDLE_UNMOUNT 120
#define IDLE_REMOUNT 126
#define IDLE_STEPS 135

struct idlefix {
	struct snapshot s;
	struct xprt_snap x[IDLE_MOUNTS];
	struct op_snap o[IDLE_MOUNTS];
	struct client_snap c[IDLE_MOUNTS];
};

/* mount @i's WRITEs: one burst at @t = i + 1; the victim's new transport's when mounted again */
static __u64 idle_writes(int i, int t)
{
	if (i == IDLE_VICTIM && t > IDLE_UNMOUNT)
		return t >= IDLE_REMOUNT ? 10 : 0;
	return t > i ? 10 : 0;
}

static bool idle_mounted(int i, int t)
{
	return i != IDLE_VICTIM || t < IDLE_UNMOUNT || t >= IDLE_REMOUNT;
}

/* the kernel at @t seconds: the victim's first transport destroyed at its unmount, then reaped */
static void idle_scene(struct idlefix *f, int t)
{
	memset(f, 0, sizeof(*f));
	f->s.ts_ns = (__u64)t * 1000000000ull;
	f->s.epoch = (__u32)t;
	f->s.xprts = f->x;
	f->s.ops = f->o;
	f->s.clients = f->c;
	for (int i = 0; i < IDLE_MOUNTS; i++) {
		bool again = i == IDLE_VICTIM && t >= IDLE_REMOUNT;
		__u64 n = idle_writes(i, t);
		struct xprt_snap *x;
		struct op_snap *o;

		if (!idle_mounted(i, t) && t > IDLE_UNMOUNT)
			continue;
		x = &f->x[f->s.nxprts++];
		x->key = (again ? 0x8000 : 0x7000) + (__u64)i;
		x->s.id = (__u32)i;
		x->s.ident = IDENT_TCP;
		x->s.limit = x->s.max_reqs = 16;
		x->s.first_seen_ns = again ? (__u64)IDLE_REMOUNT * 1000000000ull : 1;
		snprintf(x->s.addr, sizeof(x->s.addr), "10.0.3.%d", i + 1);
		snprintf(x->s.port, sizeof(x->s.port), "2049");
		x->s.n.acquires = x->s.n.sends = n;
		if (!idle_mounted(i, t))
			x->s.flags |= XF_DESTROYED;
		else
			f->c[f->s.nclients++] = (struct client_snap){ .clid = (__u32)(again ? 300 + i : 1 + i),
								      .ci.dev = (__u32)(again ? 400 + i : 200 + i) };
		if (!n)
			continue;
		o = &f->o[f->s.nops++];
		o->k = (struct op_key){ .xprt = x->key, .clid = (__u32)(again ? 300 + i : 1 + i),
					.prog = 100003, .vers = 3, .proc = 7 };
		snprintf(o->s.name, sizeof(o->s.name), "WRITE");
		o->s.c.count = o->s.c.ntrans = n;
		o->s.c.bytes_sent = n * 65536;
		o->s.c.sum_ns[STAGE_EXECUTE] = n * 3000000;
		o->s.c.hist[STAGE_EXECUTE][lat_bucket(3000000)] = n;
		o->s.client_done = 1;
	}
}

static void idle_mount_table(struct mount_table *mt, int t)
{
	char *text = malloc(IDLE_MOUNTS * 128);
	size_t len;

	assert_non_null(text);
	len = (size_t)sprintf(text, "21 1 0:20 / / rw - ext4 /dev/vda rw\n");
	for (int i = 0; i < IDLE_MOUNTS; i++)
		if (idle_mounted(i, t))
			len += (size_t)sprintf(text + len, "%d 21 0:%d / /mnt/p%03d rw - nfs 10.0.3.%d:/x "
					       "rw,vers=3,proto=tcp,addr=10.0.3.%d\n", 100 + i,
					       i == IDLE_VICTIM && t >= IDLE_REMOUNT ? 400 + i : 200 + i,
					       i, i + 1, i + 1);
	mount_table(mt, text);
	free(text);
}

static void test_idle_mounts(void **state)
{
	struct idlefix *f = calloc(2, sizeof(*f));

	(void)state;
	assert_non_null(f);
	for (int roll = 0; roll < 2; roll++) {
		const struct prom_mounts pm = { .rollup = roll };
		struct ledger sums = { 0 };

		idle_scene(&f[0], 0);
		for (int t = 1; t <= IDLE_STEPS; t++) {
			struct idlefix *prev = &f[(t - 1) & 1], *cur = &f[t & 1];
			struct mount_table mt;
			struct model_out m;
			struct model_in in = { .span = SPAN_INTERVAL, .from = &prev->s, .to = &cur->s,
					       .mounts = &mt, .sums = &sums, .prom = &pm,
					       .tun = { .tcp_max_slots = 16 } };
			const char *acq = roll ? "slotscope_slot_acquires_total{mountpoint=\"/mnt/p000\",server=\"10.0.3.1\"}"
					       : "slotscope_slot_acquires_total{server=\"10.0.3.1\",proto=\"tcp\",xprt=\"0\"}";
			double want_bytes = 0;
			int shown = 0;
			char *text;

			idle_scene(cur, t);
			idle_mount_table(&mt, t);
			assert_int_equal(model_build(&in, &m), 0);
			text = render(&m, roll);
			/* the mounts mounted that have done their burst, each with all it did */
			for (int i = 0; i < IDLE_MOUNTS; i++) {
				if (!idle_mounted(i, t) || t <= i)
					continue;
				shown++;
				want_bytes += (i == IDLE_VICTIM && t >= IDLE_REMOUNT ? 20 : 10) * 65536;
			}
			if (count_lines(text, "slotscope_mount_info{") != shown)
				fail_msg("%s file %d: %d mounts in mount_info, %d mounted with RPCs done",
					 roll ? "rollup" : "default", t, count_lines(text, "slotscope_mount_info{"), shown);
			assert_int_equal(count_lines(text, "slotscope_written_bytes_total{"), shown);
			assert_int_equal(count_lines(text, "slotscope_op_seconds_count{"), shown);
			assert_true(sum_of(text, "slotscope_written_bytes_total", NULL) == want_bytes);
			assert_true(value(text, "slotscope_written_bytes_total{mountpoint=\"/mnt/p000\"}") == 10 * 65536);
			assert_true(value(text, "slotscope_op_seconds_count{mountpoint=\"/mnt/p000\",op=\"WRITE\","
					  "stage=\"execute\"}") == 10);
			assert_true(value(text, "slotscope_mount_info{mountpoint=\"/mnt/p000\",server=\"10.0.3.1\"}") == 1);
			assert_true(value(text, acq) == 10);
			/* every transport, or every mount's row, is written whatever it did */
			assert_int_equal(count_lines(text, "slotscope_slot_limit{"),
					 IDLE_MOUNTS - (t > IDLE_UNMOUNT && t < IDLE_REMOUNT));
			if (t >= IDLE_UNMOUNT && t < IDLE_REMOUNT)
				assert_null(strstr(text, "/mnt/p007"));
			if (t >= IDLE_REMOUNT) {
				assert_true(value(text, "slotscope_written_bytes_total{mountpoint=\"/mnt/p007\"}") ==
					    20 * 65536);
				assert_true(value(text, roll ? "slotscope_slot_acquires_total{mountpoint=\"/mnt/p007\","
							       "server=\"10.0.3.8\"}"
							     : "slotscope_slot_acquires_total{server=\"10.0.3.8\","
							       "proto=\"tcp\",xprt=\"7\"}") == 20);
			}
			free(text);
			assert_int_equal(ledger_add(&sums, &m.view, &mt), 0);
			model_out_free(&m);
			mounts_free(&mt);
		}
		/* one sum a path: the victim's went on */
		assert_int_equal(sums.nm, IDLE_MOUNTS);
		ledger_free(&sums);
	}
	free(f);
}


static void test_options(void **state)
{
	static const struct {
		const char *argv[8];
		const char *says;
	} bad[] = {
		{ { "slotscope", "--prom-rollup", NULL },
		  "--prom-rollup shapes the Prometheus metrics only: give --prom-file PATH or --listen ADDR:PORT too" },
		{ { "slotscope", "--prom-per-transport", NULL }, "--prom-per-transport undoes --listen's per-mount default" },
		{ { "slotscope", "--listen", ":9", "--prom-per-transport", "--prom-rollup", NULL },
		  "--prom-per-transport and --prom-rollup ask for opposite rows" },
		{ { "slotscope", "--prom-mount-exclude", "/home/*", NULL }, "--prom-mount-exclude shapes" },
		{ { "slotscope", "--prom-file", "/tmp/x.prom", "--prom-mount-include", "home/*", NULL },
		  "invalid --prom-mount-include 'home/*': mount points are absolute paths" },
		{ { "slotscope", "--prom-file", "/tmp/x.prom", "--prom-mount-exclude", "/home/[ab", NULL },
		  "does not close" },
		{ { "slotscope", "--prom-file", "/tmp/x.prom", "--prom-mount-include", "/x", "--prom-mount-exclude",
		    "/x", NULL }, "is also excluded, and exclude wins" },
	};
	char err[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run_slotscope(-1, err, sizeof(err), bad[i].argv), 64);
		assert_non_null(strstr(err, bad[i].says));
		/* one line */
		assert_non_null(strchr(err, '\n'));
		assert_string_equal(strchr(err, '\n'), "\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_filtered_file),
		cmocka_unit_test(test_rollup_sums),
		cmocka_unit_test(test_checks_see),
		cmocka_unit_test(test_rollup_never_back),
		cmocka_unit_test(test_transport_leaves),
		cmocka_unit_test(test_idle_mounts),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
