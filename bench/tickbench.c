// SPDX-License-Identifier: GPL-2.0
/*
 * tickbench DIR: the user-space work of one `--json` tick with a textfile, natively, for 1, 16 and
 * 64 TCP transports (nconnect 16 to four servers at most, a mount each) with 6 ops each, every
 * transport busy, and 64 with 63 idle and one busy. Synthetic snapshots stand for the BPF maps
 * (no BPF, no root): each tick the busy transports' counters move on, the snapshot is copied as
 * engine_snapshot() hands one over, and the tick does what trace_tick() does with it: the
 * interval view with the textfile's sums (model_build), the JSON line (into /dev/null), the
 * textfile (prom_write into DIR: render, fsync, rename) and ledger_add. Reported per tick:
 * process CPU of those steps (CLOCK_PROCESS_CPUTIME_ID) and minor page faults (getrusage); not
 * timed: the maps' reads, sysfs, mountinfo, the snapshot's copy.
 *
 * A first pass of HASH_TICKS ticks hashes every byte written (the JSON lines and each textfile),
 * so that a change meant to leave the output alone can be checked against the hash before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include "hist.h"
#include "prom/ledger.h"
#include "prom/totals.h"
#include "model/model.h"
#include "out/output.h"
#include "lib/util.h"

#define OPS 6
#define HASH_TICKS 20

static const char *const opnames[OPS] = { "READ", "WRITE", "COMMIT", "GETATTR", "LOOKUP", "ACCESS" };
static const __u32 procs[OPS] = { 6, 7, 21, 1, 3, 4 };

struct sim {
	size_t nx;
	struct snapshot s;
};

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static void die(const char *what)
{
	fprintf(stderr, "tickbench: %s\n", what);
	exit(1);
}

static void sim_init(struct sim *m, size_t nx)
{
	size_t nservers = (nx + 15) / 16;

	memset(m, 0, sizeof(*m));
	m->nx = nx;
	m->s.xprts = calloc(nx, sizeof(*m->s.xprts));
	m->s.ops = calloc(nx * OPS, sizeof(*m->s.ops));
	m->s.clients = calloc(nservers, sizeof(*m->s.clients));
	if (!m->s.xprts || !m->s.ops || !m->s.clients)
		die("out of memory");
	for (size_t i = 0; i < nservers; i++) {
		m->s.clients[i].clid = 1 + (__u32)i;
		m->s.clients[i].ci.dev = 40 + (__u32)i;		/* 0:40+i */
	}
	m->s.nclients = nservers;
	/* map order is hash order: the transports and ops in a scrambled order, as the kernel's */
	for (size_t n = 0; n < nx; n++) {
		size_t i = (n * 37 + 11) % nx;
		struct xprt_snap *x = &m->s.xprts[n];

		x->key = 0xffff888000100000ull + i * 0x1000;
		x->s.id = (__u32)i;
		x->s.ident = IDENT_TCP;
		x->s.limit = x->s.max_reqs = 16;
		x->s.min_reqs = 2;
		snprintf(x->s.addr, sizeof(x->s.addr), "10.0.0.%zu", 1 + i / 16);
		snprintf(x->s.port, sizeof(x->s.port), "2049");
		x->s.first_seen_ns = 1000 + i;
	}
	m->s.nxprts = nx;
	for (size_t n = 0; n < nx * OPS; n++) {
		size_t j = (n * 97 + 5) % (nx * OPS), i = j / OPS, k = j % OPS;
		struct op_snap *o = &m->s.ops[n];

		o->k = (struct op_key){ .xprt = 0xffff888000100000ull + i * 0x1000,
					.clid = 1 + (__u32)(i / 16), .prog = 100003, .vers = 3,
					.proc = procs[k] };
		snprintf(o->s.name, sizeof(o->s.name), "%s", opnames[k]);
		o->s.client_done = 1;
	}
	m->s.nops = nx * OPS;
}

/* one second of traffic on transport @i (its key's index) and its ops */
static void sim_busy(struct sim *m, size_t i, unsigned int tick)
{
	__u64 key = 0xffff888000100000ull + i * 0x1000;
	__u64 ops = 100 + (tick * 7 + i) % 50;

	for (size_t n = 0; n < m->s.nxprts; n++) {
		struct xprt_stats *x = &m->s.xprts[n].s;
		unsigned int lvl = 1 + (tick + (unsigned int)i) % (LEVEL_BUCKETS - 1);

		if (m->s.xprts[n].key != key)
			continue;
		x->n.acquires += ops;
		x->n.releases += ops;
		x->n.sends += ops;
		x->in_use = (__s32)(tick % 17);
		x->peak = 16;
		x->epoch_of[m->s.epoch & 1] = m->s.epoch;
		x->epoch_peak[m->s.epoch & 1] = 16;
		x->level_ns[lvl] += 600000000;
		x->level_ns[0] += 400000000;
		x->curve[lvl].rpcs += ops;
		x->curve[lvl].rtt_ns += ops * 2000000;
		x->curve[lvl].exec_ns += ops * 5000000;
		x->waits[WAIT_SLOT].count += ops / 4;
		x->waits[WAIT_SLOT].sum_ns += ops / 4 * 1000000;
		x->waits[WAIT_SLOT].buckets[lat_bucket(1000000)] += ops / 4;
		x->waits[WAIT_SLOT].max_ns = 3000000;
		x->backlog_now = tick % 5;
		x->backlog_max = 9;
	}
	for (size_t n = 0; n < m->s.nops; n++) {
		struct op_stats *o = &m->s.ops[n].s;
		__u64 c = ops + n % 3, exec = 3000000 + (tick % 9) * 250000;

		if (m->s.ops[n].k.xprt != key)
			continue;
		o->c.count += c;
		o->c.ntrans += c + (tick % 11 == 0);
		o->c.bytes_sent += !strcmp(o->name, "WRITE") ? c * 1048576 : c * 200;
		o->c.bytes_recv += !strcmp(o->name, "READ") ? c * 1048576 : c * 120;
		o->c.sum_ns[STAGE_QUEUE] += c * 10000;
		o->c.sum_ns[STAGE_RTT] += c * 2000000;
		o->c.sum_ns[STAGE_EXECUTE] += c * exec;
		o->c.hist[STAGE_QUEUE][lat_bucket(10000)] += c;
		o->c.hist[STAGE_RTT][lat_bucket(2000000)] += c;
		o->c.hist[STAGE_EXECUTE][lat_bucket(exec)] += c;
	}
}

static void sim_step(struct sim *m, size_t busy, unsigned int tick)
{
	m->s.epoch++;
	m->s.ts_ns += 1000000000ull;
	for (size_t i = 0; i < busy; i++)
		sim_busy(m, i, tick);
}

static void sim_free(struct sim *m)
{
	free(m->s.xprts);
	free(m->s.ops);
	free(m->s.clients);
}

/*
 * @n records of @rsz bytes from @src into a new *@arr as read_map() (engine_read.c) makes them:
 * batches of 64 keys and values into buffers of their own, the array grown as they come, so the
 * allocator sees what it sees in slotscope
 */
static void read_like(void **arr, const void *src, size_t n, size_t ksz, size_t vsz, size_t rsz)
{
	char *keys = NULL, *vals = NULL, *a = NULL;
	size_t kcap = 0, vcap = 0, cap = 0;

	if (grow(&keys, &kcap, 64, ksz, 64) || grow(&vals, &vcap, 64, vsz, 64))
		die("out of memory");
	for (size_t done = 0; done < n || !done;) {
		size_t cnt = n - done < 64 ? n - done : 64;

		for (size_t i = 0; i < cnt; i++) {
			memcpy(keys + i * ksz, (const char *)src + (done + i) * rsz, ksz);
			memcpy(vals + i * vsz, (const char *)src + (done + i) * rsz + rsz - vsz, vsz);
		}
		if (grow(&a, &cap, done + cnt, rsz, 16))
			die("out of memory");
		for (size_t i = 0; i < cnt; i++)
			memcpy(a + (done + i) * rsz, (const char *)src + (done + i) * rsz, rsz);
		done += cnt;
		if (!cnt)
			break;
	}
	free(keys);
	free(vals);
	*arr = a;
}

/* the snapshot engine_snapshot() would hand over */
static void take(struct snapshot *dst, const struct snapshot *src)
{
	*dst = *src;
	read_like((void **)&dst->xprts, src->xprts, src->nxprts, sizeof(__u64),
		  sizeof(struct xprt_stats), sizeof(struct xprt_snap));
	read_like((void **)&dst->ops, src->ops, src->nops, sizeof(struct op_key),
		  sizeof(struct op_stats), sizeof(struct op_snap));
	read_like((void **)&dst->clients, src->clients, src->nclients, sizeof(__u32),
		  sizeof(struct client_info), sizeof(struct client_snap));
	dst->sessions = NULL;
	dst->jobio = NULL;
}

static void mount_table(size_t nx, struct mount_table *mt)
{
	char buf[8192];
	size_t len = 0;
	FILE *f;

	len += snprintf(buf + len, sizeof(buf) - len, "21 1 0:20 / / rw - ext4 /dev/vda rw\n");
	for (size_t s = 0; s < (nx + 15) / 16; s++)
		len += snprintf(buf + len, sizeof(buf) - len,
				"%zu 21 0:%zu / /mnt/s%zu rw,relatime - nfs 10.0.0.%zu:/export "
				"rw,vers=3,nconnect=16,proto=tcp,addr=10.0.0.%zu\n",
				40 + s, 40 + s, s, s + 1, s + 1);
	f = fmemopen(buf, len, "r");
	if (!f || mounts_parse(f, mt))
		die("cannot parse the mount table");
	fclose(f);
}

static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

static unsigned long long hash_file(unsigned long long h, const char *path)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		die("cannot read the textfile back");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		h = fnv(h, buf, n);
	fclose(f);
	return h;
}

struct result {
	double us[4];		/* model, JSON, textfile, ledger */
	double faults;
	unsigned long long hash;
};

/*
 * bench/insncount.c's mark (nopl with the displacement "SLOT", a no-op natively): under
 * `qemu-x86_64 -plugin insncount.so` the user-space instructions between two marks are counted,
 * the same from run to run where time is not (make bench-tick's instruction table)
 */
static inline void mark(void)
{
#ifdef __x86_64__
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x53, 0x4c, 0x4f, 0x54" ::: "memory");
#endif
}

/*
 * @ticks ticks over @nx transports, @busy of them busy. @hash: every byte written hashed (the
 * JSON into memory), not timed.
 */
static void run(const char *dir, size_t nx, size_t busy, int ticks, bool hash, struct result *res,
		FILE *null)
{
	struct snapshot prev = { 0 }, cur;
	struct mount_table mt = { 0 };
	struct ledger l = { .no_rows = true };	/* as slotscope without --prom-rollup */
	static struct view_arena arena;		/* as struct run's */
	struct sim m;
	char path[4096];
	long f0 = 0;

	memset(res, 0, sizeof(*res));
	res->hash = 14695981039346656037ull;
	sim_init(&m, nx);
	mount_table(nx, &mt);
	snprintf(path, sizeof(path), "%s/tickbench.prom", dir);
	if (snapshot_dup(&prev, &m.s))
		die("out of memory");
	for (int t = 1; t <= ticks; t++) {
		struct model_in in = { .arena = &arena, .span = SPAN_INTERVAL, .from = &prev, .to = &cur, .mounts = &mt,
				       .tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 },
				       .wall = 1.7e9 + t };
		struct prom_input pin = { .now_wall = 1.7e9 + t, .version = "bench", .kernel = "k" };
		struct model_out out;
		struct view totals;
		struct textfile_in tin = { .sums = &l, .iv = &out.view, .mounts = &mt };
		double c[5];
		long f[2];

		sim_step(&m, busy, (unsigned int)t);
		take(&cur, &m.s);
		f[0] = minflt();
		c[0] = cpu_us();
		if (!hash)
			mark();
		/* the model and the textfile's totals of it: one phase, as it was one call before */
		if (model_build(&in, &out) || textfile_totals(&tin, &totals))
			die("out of memory");
		if (!hash)
			mark();
		c[1] = cpu_us();
		if (hash) {
			char *buf = NULL;
			size_t len = 0;
			FILE *ms = open_memstream(&buf, &len);

			if (!ms)
				die("out of memory");
			out_json(ms, &out.view);
			fclose(ms);
			res->hash = fnv(res->hash, buf, len);
			free(buf);
		} else {
			out_json(null, &out.view);
			fflush(null);
		}
		if (!hash)
			mark();
		c[2] = cpu_us();
		pin.cum = &totals;
		pin.iv = &out.view;
		if (prom_write(path, &pin))
			die("cannot write the textfile");
		if (!hash)
			mark();
		c[3] = cpu_us();
		textfile_totals_free(&totals);
		if (ledger_add(&l, &out.view, &mt))
			die("out of memory");
		model_out_free(&out);
		view_arena_tick(&arena);
		if (!hash)
			mark();
		c[4] = cpu_us();
		f[1] = minflt();
		if (hash)
			res->hash = hash_file(res->hash, path);
		/* the first tick warms the allocator and the page cache: not counted */
		if (t > 1) {
			for (int k = 0; k < 4; k++)
				res->us[k] += c[k + 1] - c[k];
			f0 += f[1] - f[0];
		}
		snapshot_free(&prev);
		prev = cur;
	}
	for (int k = 0; k < 4; k++)
		res->us[k] /= ticks - 1;
	res->faults = (double)f0 / (ticks - 1);
	snapshot_free(&prev);
	ledger_free(&l);
	mounts_free(&mt);
	sim_free(&m);
	remove(path);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	int ticks = argc > 2 ? atoi(argv[2]) : 300;
	static const struct { size_t nx, busy; const char *what; } cases[] = {
		{ 1, 1, "1" }, { 16, 16, "16" }, { 64, 64, "64" }, { 64, 1, "64: 63 idle + 1 busy" },
	};
	FILE *null = fopen("/dev/null", "w");

	if (!null || ticks < 2)
		die("usage: tickbench [DIR [TICKS >= 2]]");
	printf("| transports | model us | JSON us | textfile us | ledger us | CPU us per tick | "
	       "minor faults per tick | output hash |\n|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result h, r;

		run(dir, cases[i].nx, cases[i].busy, HASH_TICKS, true, &h, null);
		run(dir, cases[i].nx, cases[i].busy, ticks, false, &r, null);
		printf("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %016llx |\n", cases[i].what,
		       r.us[0], r.us[1], r.us[2], r.us[3], r.us[0] + r.us[1] + r.us[2] + r.us[3],
		       r.faults, h.hash);
	}
	fclose(null);
	return 0;
}
