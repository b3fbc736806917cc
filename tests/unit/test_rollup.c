// SPDX-License-Identifier: GPL-2.0
/*
 * --prom-rollup over random histories: mounts come and go (autofs homes left out in half of
 * them), transports are made, replaced and reaped, ids reused; no counter of any file goes back,
 * no series is written twice, and every slot taken is in exactly one row. Views are made by
 * model_build() and the file by out_prom(), as the running trace makes them.
 *
 * SLOTSCOPE_PROM_DIR=DIR also writes every file of the random histories there, numbered, for
 * tests/host/test_counters.sh to put through promtool and node_exporter.
 */
#include <errno.h>
#include <sys/stat.h>
#include "rollfix.h"

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
		struct tf_view m;
		struct model_in in = { .span = SPAN_INTERVAL, .mounts = &mt, .prom = pm };
		char *text;

		step(s, t, pm);
		sim_mounts(s, &mt);
		in.from = &s->f[s->cur ^ 1].s;
		in.to = &now(s)->s;
		tf_build(&in, &sums, &m);
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
		assert_int_equal(ledger_add(&sums, &m.m.view, &mt), 0);
		tf_free(&m);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks_see),
		cmocka_unit_test(test_rollup_never_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
