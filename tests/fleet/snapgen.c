// SPDX-License-Identifier: GPL-2.0
/*
 * snapgen DIR STEPS SEED: random snapshot sequences for tests/host/test_counters.sh. A simulated
 * kernel (the BPF maps as slotscope.bpf.c keeps them) lives through mounts and unmounts of a few
 * servers' exports, transports destroyed and reaped, kernel ids, device numbers, client ids and
 * object addresses reused as the kernel's IDAs and allocators reuse them, NFSv4.1 sessions made
 * anew at the same address, and copies of a transport torn by a concurrent event. Every second
 * the maps are read as engine_snapshot() does and the textfile is made as slotscope's tick makes
 * it (interval view into the ledger, cumulative view, prom_write) into DIR/NNNN.prom.
 *
 * SNAPGEN_CUMULATIVE=1 writes the cumulative view made from two snapshots instead: the control
 * that shows the test's checks catch counters that go back.
 *
 * DIR/truth: what was written at each mount path, and the slots taken under each transport
 * series (server, id), over the whole run, as the simulation did them, for the test to compare.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "engine/engine.h"
#include "prom/ledger.h"
#include "prom/totals.h"
#include "model/model.h"
#include "out/output.h"
#include "model/view.h"

#define NSERVERS 3
#define NPATHS 6
#define MAXX 16
#define MAXO 256
#define MAXC 32
#define MAXS 8

static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)((rng >> 33) % n);
}

struct sim {
	double t;				/* seconds */
	size_t nx, no, nc, ns;
	struct xprt_snap x[MAXX];
	struct op_snap o[MAXO];
	struct client_snap c[MAXC];
	struct session_snap s[MAXS];
	struct {
		bool mounted;
		int server;
		unsigned int minor;
		__u32 clid;
	} m[NPATHS];
	bool id_used[64], clid_used[64], minor_used[64], slot_used[64];
	/* the truth */
	__u64 written[NPATHS];
	struct { char addr[ADDR_LEN]; __u32 id; __u64 acquires; } series[256];
	size_t nseries;
};

static const char *path_of(int p)
{
	static const char *const paths[NPATHS] = { "/mnt/a", "/mnt/b", "/mnt/ckpt", "/mnt/caf\xc3\xa9",
						   "/scratch/job 1", "/mnt/d" };
	return paths[p];
}

/* the lowest free number, as the kernel's IDAs hand them out */
static unsigned int ida(bool *used, unsigned int from)
{
	for (unsigned int i = from; i < 64; i++)
		if (!used[i]) {
			used[i] = true;
			return i;
		}
	fprintf(stderr, "snapgen: out of ids\n");
	exit(1);
}

static __u64 now_ns(const struct sim *s)
{
	return (__u64)(s->t * 1e9);
}

static void new_xprt(struct sim *s, int server)
{
	struct xprt_snap *x = &s->x[s->nx++];
	unsigned int slot = ida(s->slot_used, 0);

	memset(x, 0, sizeof(*x));
	/* an object address as the allocator reuses them */
	x->key = 0xffff888000100000ull + slot * 0x1000;
	x->s.id = ida(s->id_used, 0);
	x->s.ident = IDENT_TCP;
	x->s.max_reqs = x->s.limit = 16;
	snprintf(x->s.addr, sizeof(x->s.addr), "10.0.0.%d", server + 1);
	snprintf(x->s.port, sizeof(x->s.port), "2049");
	x->s.first_seen_ns = x->s.last_change_ns = now_ns(s) + 1;
}

static int xprts_of(const struct sim *s, int server, size_t *idx)
{
	char addr[ADDR_LEN];
	int n = 0;

	snprintf(addr, sizeof(addr), "10.0.0.%d", server + 1);
	for (size_t i = 0; i < s->nx; i++)
		if (!(s->x[i].s.flags & XF_DESTROYED) && !strcmp(s->x[i].s.addr, addr))
			idx[n++] = i;
	return n;
}

static void destroy(struct sim *s, size_t i)
{
	s->x[i].s.flags |= XF_DESTROYED;
	s->x[i].s.destroyed_ns = now_ns(s);
}

static void truth_acquires(struct sim *s, const struct xprt_stats *x, __u64 n)
{
	size_t i;

	for (i = 0; i < s->nseries; i++)
		if (s->series[i].id == x->id && !strcmp(s->series[i].addr, x->addr))
			break;
	if (i == s->nseries) {
		memcpy(s->series[i].addr, x->addr, ADDR_LEN);
		s->series[i].id = x->id;
		s->nseries++;
	}
	s->series[i].acquires += n;
}

/* rpc_free_client() as handle_clnt_free sees it: the client's mount is to be learned again */
static void clnt_free(struct sim *s, __u32 clid)
{
	for (size_t i = 0; i < s->nc; i++)
		if (s->c[i].clid == clid)
			s->c[i--] = s->c[--s->nc];
	for (size_t i = 0; i < s->no; i++)
		if (s->o[i].k.clid == clid)
			s->o[i].s.client_done = 0;
	s->clid_used[clid] = false;
}

static void write_io(struct sim *s, int p)
{
	size_t idx[MAXX], i;
	int n = xprts_of(s, s->m[p].server, idx);
	struct xprt_snap *x;
	struct op_snap *o = NULL;
	__u64 ops = 1 + rnd(40), bytes = ops * 1048576 + rnd(4096);

	if (!n)
		return;
	x = &s->x[idx[rnd(n)]];
	for (i = 0; i < s->no && !o; i++)
		if (s->o[i].k.xprt == x->key && s->o[i].k.clid == s->m[p].clid && s->o[i].k.proc == 7)
			o = &s->o[i];
	if (!o) {
		if (s->no == MAXO)
			return;
		o = &s->o[s->no++];
		memset(o, 0, sizeof(*o));
		o->k = (struct op_key){ .xprt = x->key, .clid = s->m[p].clid, .prog = 100003, .vers = 3,
					.proc = 7 };
		snprintf(o->s.name, sizeof(o->s.name), "WRITE");
	}
	/* page I/O tells the client's superblock (note_client) */
	for (i = 0; i < s->nc && s->c[i].clid != s->m[p].clid; i++)
		;
	if (i == s->nc && s->nc < MAXC) {
		s->c[s->nc].clid = s->m[p].clid;
		s->c[s->nc++].ci = (struct client_info){ .dev = (0u << 20) | s->m[p].minor };
	}
	o->s.client_done = 1;
	o->s.c.count += ops;
	o->s.c.ntrans += ops;
	o->s.c.bytes_sent += bytes;
	o->s.c.sum_ns[STAGE_RTT] += ops * 2000000;
	o->s.c.sum_ns[STAGE_EXECUTE] += ops * 5000000;
	o->s.c.hist[STAGE_RTT][lat_bucket(2000000)] += ops;
	o->s.c.hist[STAGE_EXECUTE][lat_bucket(5000000)] += ops;
	s->written[p] += bytes;
	x->s.n.acquires += ops;
	x->s.n.releases += ops;
	x->s.n.sends += ops;
	x->s.level_ns[LEVEL_BUCKETS - 1] += 300000000;
	x->s.level_ns[3] += 200000000;
	x->s.waits[WAIT_SLOT].count += ops / 2;
	x->s.waits[WAIT_SLOT].sum_ns += ops / 2 * 1000000;
	x->s.waits[WAIT_SLOT].buckets[lat_bucket(1000000)] += ops / 2;
	truth_acquires(s, &x->s, ops);
}

static void step_kernel(struct sim *s)
{
	int p = rnd(NPATHS);

	/* a mount or an unmount now and then; the kernel's numbers reused as it does */
	if (!rnd(4)) {
		if (!s->m[p].mounted) {
			size_t idx[MAXX];
			int srv = rnd(NSERVERS);

			s->m[p].mounted = true;
			s->m[p].server = srv;
			s->m[p].minor = 32 + ida(s->minor_used, 0);
			s->m[p].clid = ida(s->clid_used, 1);
			if (!xprts_of(s, srv, idx) && s->nx + 2 <= MAXX) {
				new_xprt(s, srv);
				if (rnd(2))
					new_xprt(s, srv);	/* nconnect=2 */
			}
		} else {
			bool shared = false;
			size_t idx[MAXX];
			int n;

			s->m[p].mounted = false;
			s->minor_used[s->m[p].minor - 32] = false;
			clnt_free(s, s->m[p].clid);
			for (int q = 0; q < NPATHS; q++)
				shared |= s->m[q].mounted && s->m[q].server == s->m[p].server;
			n = xprts_of(s, s->m[p].server, idx);
			for (int i = 0; i < n && !shared; i++)
				destroy(s, idx[i]);
		}
	}
	/* one of a server's two transports replaced (a reconnect that made a new one) */
	if (!rnd(10)) {
		size_t idx[MAXX];
		int srv = rnd(NSERVERS), n = xprts_of(s, srv, idx);

		if (n == 2 && s->nx < MAXX) {
			destroy(s, idx[rnd(2)]);
			new_xprt(s, srv);
		}
	}
	/* a session made anew at its old address */
	if (!rnd(6)) {
		if (s->ns < MAXS && !rnd(2)) {
			struct session_snap *q = &s->s[s->ns++];

			memset(q, 0, sizeof(*q));
			q->key = 0xffff888000900000ull + rnd(2) * 0x1000;
			for (size_t i = 0; i + 1 < s->ns; i++)
				if (s->s[i].key == q->key) {
					s->s[i] = *q;
					s->ns--;
					q = &s->s[i];
					break;
				}
			q->s.first_ns = now_ns(s);
			q->s.clid = 0;
		}
	}
	for (size_t i = 0; i < s->ns; i++)
		s->s[i].s.sequences += 1 + rnd(1000);
	for (int q = 0; q < NPATHS; q++)
		if (s->m[q].mounted && rnd(3))
			write_io(s, q);
}

static int take(struct sim *s, struct snapshot *snap, bool torn)
{
	memset(snap, 0, sizeof(*snap));
	snap->ts_ns = now_ns(s);
	snap->nxprts = s->nx;
	snap->nops = s->no;
	snap->nclients = s->nc;
	snap->nsessions = s->ns;
	snap->xprts = malloc((s->nx + 1) * sizeof(*snap->xprts));
	snap->ops = malloc((s->no + 1) * sizeof(*snap->ops));
	snap->clients = malloc((s->nc + 1) * sizeof(*snap->clients));
	snap->sessions = malloc((s->ns + 1) * sizeof(*snap->sessions));
	if (!snap->xprts || !snap->ops || !snap->clients || !snap->sessions)
		return -ENOMEM;
	memcpy(snap->xprts, s->x, s->nx * sizeof(*snap->xprts));
	memcpy(snap->ops, s->o, s->no * sizeof(*snap->ops));
	memcpy(snap->clients, s->c, s->nc * sizeof(*snap->clients));
	memcpy(snap->sessions, s->s, s->ns * sizeof(*snap->sessions));
	/* a copy that took the stretch start from before an event and its time from after it */
	if (torn && s->nx)
		snap->xprts[rnd(s->nx)].s.level_ns[LEVEL_BUCKETS - 1] += 250000000;
	return 0;
}

/* engine_reap(): the transports @snap saw destroyed go, and what refers only to them */
static void reap(struct sim *s)
{
	for (size_t i = 0; i < s->nx; i++) {
		__u64 key = s->x[i].key;

		if (!(s->x[i].s.flags & XF_DESTROYED))
			continue;
		for (size_t j = 0; j < s->no; j++)
			if (s->o[j].k.xprt == key)
				s->o[j--] = s->o[--s->no];
		s->id_used[s->x[i].s.id] = false;
		s->slot_used[(key - 0xffff888000100000ull) / 0x1000] = false;
		s->x[i--] = s->x[--s->nx];
	}
}

static int mount_table(const struct sim *s, struct mount_table *mt)
{
	char buf[4096];
	size_t len = 0;
	FILE *f;
	int err;

	len += snprintf(buf + len, sizeof(buf) - len, "21 1 0:20 / / rw - ext4 /dev/vda rw\n");
	for (int p = 0; p < NPATHS; p++) {
		char esc[64];
		size_t k = 0;

		if (!s->m[p].mounted)
			continue;
		/* mountinfo escapes a space as \040 */
		for (const char *c = path_of(p); *c && k + 5 < sizeof(esc); c++)
			k += *c == ' ' ? (size_t)snprintf(esc + k, 5, "\\040") : (esc[k] = *c, 1);
		esc[k] = 0;
		len += snprintf(buf + len, sizeof(buf) - len,
				"%d 21 0:%u / %s rw,relatime - nfs 10.0.0.%d:/export rw,vers=3,proto=tcp,addr=10.0.0.%d\n",
				40 + p, s->m[p].minor, esc, s->m[p].server + 1, s->m[p].server + 1);
	}
	f = fmemopen(buf, len, "r");
	if (!f)
		return -errno;
	err = mounts_parse(f, mt);
	fclose(f);
	return err;
}

int main(int argc, char **argv)
{
	struct snapshot start = { 0 }, prev = { 0 }, cur;
	struct level_marks marks = { 0 };
	struct ledger l = { 0 };
	struct sim *s;
	char path[4096];
	int steps;
	FILE *t;

	if (argc != 4) {
		fprintf(stderr, "usage: snapgen DIR STEPS SEED\n");
		return 2;
	}
	steps = atoi(argv[2]);
	rng = strtoull(argv[3], NULL, 0);
	s = calloc(1, sizeof(*s));
	if (!s || (mkdir(argv[1], 0755) && errno != EEXIST)) {
		perror("snapgen");
		return 1;
	}
	s->clid_used[0] = true;		/* clid 0: the first client made, never an NFS mount's here */
	for (int i = 1; i <= steps; i++) {
		struct prom_input in = { .now_wall = 1e9 + i, .version = "test", .kernel = "sim" };
		struct mount_table mt = { 0 };
		struct model_in mi = { .span = SPAN_INTERVAL, .from = &prev, .to = &cur, .mounts = &mt };
		struct model_in ci = { .span = SPAN_SUMMARY, .from = &start, .to = &cur, .mounts = &mt };
		struct model_out iv, cv;
		struct textfile_in ti = { .sums = &l, .iv = &iv.view, .mounts = &mt };
		struct view totals;

		s->t = i;
		step_kernel(s);
		if (take(s, &cur, !rnd(5)) || level_marks_apply(&marks, &cur) || mount_table(s, &mt)) {
			fprintf(stderr, "snapgen: step %d failed\n", i);
			return 1;
		}
		/* the interval and the textfile's sums of it, as the running trace makes them */
		if (model_build(&mi, &iv) || model_build(&ci, &cv) || textfile_totals(&ti, &totals)) {
			fprintf(stderr, "snapgen: out of memory\n");
			return 1;
		}
		/* SNAPGEN_CUMULATIVE=1: the textfile as it was made before the ledger (a control) */
		in.cum = getenv("SNAPGEN_CUMULATIVE") ? &cv.view : &totals;
		in.iv = &iv.view;
		snprintf(path, sizeof(path), "%s/%04d.prom", argv[1], i);
		if (prom_write(path, &in)) {
			fprintf(stderr, "snapgen: cannot write %s\n", path);
			return 1;
		}
		textfile_totals_free(&totals);
		if (ledger_add(&l, &iv.view, &mt)) {
			fprintf(stderr, "snapgen: out of memory\n");
			return 1;
		}
		model_out_free(&iv);
		model_out_free(&cv);
		mounts_free(&mt);
		reap(s);
		snapshot_free(&prev);
		prev = cur;
	}
	snprintf(path, sizeof(path), "%s/truth", argv[1]);
	t = fopen(path, "w");
	if (!t)
		return 1;
	for (int p = 0; p < NPATHS; p++)
		if (s->written[p])
			fprintf(t, "written\t%s\t%llu\n", path_of(p), (unsigned long long)s->written[p]);
	for (size_t i = 0; i < s->nseries; i++)
		fprintf(t, "acquires\t%s\t%u\t%llu\n", s->series[i].addr, s->series[i].id,
			(unsigned long long)s->series[i].acquires);
	fclose(t);
	snapshot_free(&prev);
	level_marks_free(&marks);
	ledger_free(&l);
	free(s);
	return 0;
}
