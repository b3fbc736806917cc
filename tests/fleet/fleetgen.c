// SPDX-License-Identifier: GPL-2.0
/*
 * fleetgen DIR NODES SECONDS: a simulated fleet for tests/host/test_fleet.sh. Every TICK_S, for
 * each node, a cumulative and an interval view are made from that node's script and written to
 * DIR/nodeN/slotscope.prom by slotscope's own writer (prom_write), and every node's GPUs to
 * DIR/dcgm/dcgm.prom as dcgm-exporter shows them. Ticks of a fifth of a second keep the counters
 * a 1 s scrape sees within 0.2 s of its time, so rates over a few seconds are not aliased by the
 * writes. The scripts:
 *
 *   tcp-idle    a TCP transport slot-bound, full 80 % of its busy time, its 10 GbE netdev at 2 %
 *   rdma-idle   an RDMA transport the same, its 100 Gb/s port at 3 %
 *   multirail   a storage-rail RDMA transport full, its port idle; the compute rail busy (no NFS)
 *   link-busy   slots full while the link is at 90 %: link-bound, no alert
 *   healthy     slots 20 % full, no slot wait to speak of
 *   churn       healthy, and its transport replaced every 5 s (a new kernel id, as per-job mounts)
 *   knee        writes a checkpoint to KNEE_ADDR, which takes KNEE_K nodes' demand: past KNEE_K
 *               writers each gets KNEE_K/n of it and the RTT grows as n/KNEE_K (slots full, the
 *               server the cause); 12 start together, then two more every STEP_S to KNEE_WRITERS
 *   own         writes a checkpoint to OWN_ADDR slot-bound on its own (small slot tables, the RTT
 *               flat; half of them at 40 % of the others' rate); 2 start, one more every STEP_S
 *
 * The knee and own scripts start when DIR/go appears (the test makes it once Prometheus scrapes),
 * so Prometheus sees their sweep from its beginning. Every node has GPUS GPUs: those of its job
 * idle while it waits on a checkpoint (always for the stalled scripts, from its start for knee
 * and own), two of another job's always busy on odd nodes, one unallocated always idle on some.
 *
 * DIR/truth holds what a fleet query must find: the nodes the alert must name, the slot-bound
 * count, the knee's server and its scripted KNEE_K, the server with none, when the script's end
 * state has lasted long enough (script_end_s, since go); DIR/truth.final, written one second
 * into the end state, the fleet's checkpoint slot-bound share and the exact p99 of every slot
 * wait written in that second; DIR/gpu.truth, every tick, the wall time and the GPU-seconds lost
 * so far (GPUs idle x seconds slot-bound in a checkpoint, counted by the script).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib/outfile.h"
#include "out/output.h"
#include "lib/uhist.h"

enum script { TCP_IDLE, RDMA_IDLE, MULTIRAIL, LINK_BUSY, HEALTHY, CHURN, KNEE, OWN };
static const char *const script_names[] = { "tcp-idle", "rdma-idle", "multirail", "link-busy",
					    "healthy", "churn", "knee", "own" };

#define TICK_S 0.2
#define KNEE_ADDR "10.8.0.1"
#define OWN_ADDR "10.8.0.2"
#define KNEE_K 24
#define KNEE_WRITERS 36
#define KNEE_FIRST 12
#define OWN_NODES 12
#define STEP_S 6
#define KNEE_Bps 2e9			/* a knee writer's own demand */
#define KNEE_RTT_S 0.002
#define OWN_RTT_S 0.001
#define RPC_BYTES 1048576.0
#define GPUS 8
/* the first 28 nodes' scripts are fixed; churn fills up to the knee writers and own nodes */
#define FIXED_NODES 28
#define MIN_NODES (FIXED_NODES + 1 + KNEE_WRITERS + OWN_NODES)

static double join_s(enum script s, int k)
{
	if (s == KNEE)
		return k < KNEE_FIRST ? 0 : STEP_S * (1 + (k - KNEE_FIRST) / 2);
	return k < 2 ? 0 : STEP_S * (k - 1);
}

static double last_join_s(void)
{
	return fmax(join_s(KNEE, KNEE_WRITERS - 1), join_s(OWN, OWN_NODES - 1));
}

/* the fleet's make-up by node number: 8 tcp-idle, 6 rdma-idle, 1 multi-rail, 3 link-busy, ... */
static enum script script_of(int n, int nnodes, int *k)
{
	int knee0 = nnodes - OWN_NODES - KNEE_WRITERS, own0 = nnodes - OWN_NODES;

	*k = 0;
	if (n < 8)
		return TCP_IDLE;
	if (n < 14)
		return RDMA_IDLE;
	if (n < 15)
		return MULTIRAIL;
	if (n < 18)
		return LINK_BUSY;
	if (n < FIXED_NODES)
		return HEALTHY;
	if (n < knee0)
		return CHURN;
	*k = n < own0 ? n - knee0 : n - own0;
	return n < own0 ? KNEE : OWN;
}

enum gpu_role { GPU_JOB, GPU_OTHER, GPU_FREE };
enum dcgm_metric { DCGM_PROF, DCGM_UTIL, DCGM_BOTH };

struct node {
	int n;
	enum script s;
	double join;			/* knee, own: seconds after go */
	double own_Bps;			/* own: its rate, set by its slot table */
	char addr[ADDR_LEN];
	struct xprt_view x;
	struct mount_op mop;
	struct mount_total mt;
	struct rdma_port ports[2];
	struct port_delta pd[2];
	size_t nports;
	struct window ck[WIN_KINDS];	/* the checkpoints move; no restores */
	__u32 id;
	double started;
	double bytes_frac;		/* written bytes not yet whole */
	double rpcs_frac;
	/* this tick: slot-bound in a checkpoint, and its job's GPUs idle */
	bool blocked, gpus_idle;
	enum gpu_role gpu[GPUS];
	enum dcgm_metric metric;
	char dcgm_instance[64], hostname[64];
};

/* slot waits per second per slot-bound transport, and their exact values' spread */
#define WAITS_PER_S 200
#define TICKS_PER_S 5

static __u64 *all_waits;
static size_t nwaits, capwaits;
static bool recording;

static void record_wait(__u64 ns)
{
	if (!recording)
		return;
	if (nwaits == capwaits) {
		capwaits = capwaits ? capwaits * 2 : 1 << 16;
		all_waits = realloc(all_waits, capwaits * sizeof(*all_waits));
		if (!all_waits)
			exit(1);
	}
	all_waits[nwaits++] = ns;
}

static void gpus_init(struct node *d)
{
	int n = d->n;

	for (int g = 0; g < GPUS; g++)
		d->gpu[g] = GPU_JOB;
	if (n % 2) {
		d->gpu[6] = GPU_OTHER;
		d->gpu[7] = GPU_OTHER;
	}
	if (n % 7 == 3)
		d->gpu[7] = GPU_FREE;
	/* both names on different nodes; on some both, where GPU_UTIL's coarse % says busy */
	d->metric = n % 10 == 9 ? DCGM_BOTH : n % 2 ? DCGM_UTIL : DCGM_PROF;
	/* dcgm-exporter's own target: by IP with the node's Hostname, or by name with an FQDN */
	if (n % 5 == 4) {
		snprintf(d->dcgm_instance, sizeof(d->dcgm_instance), "10.20.%d.%d:9400", n / 250, 1 + n % 250);
		snprintf(d->hostname, sizeof(d->hostname), "node%d", n);
	} else if (n % 7 == 5) {
		snprintf(d->dcgm_instance, sizeof(d->dcgm_instance), "node%d:9400", n);
		snprintf(d->hostname, sizeof(d->hostname), "node%d.cluster.local", n);
	} else {
		snprintf(d->dcgm_instance, sizeof(d->dcgm_instance), "node%d:9400", n);
		snprintf(d->hostname, sizeof(d->hostname), "node%d", n);
	}
}

static void node_init(struct node *d, int n, int nnodes)
{
	int k;

	memset(d, 0, sizeof(*d));
	d->n = n;
	d->s = script_of(n, nnodes, &k);
	d->join = join_s(d->s, k);
	d->own_Bps = k < OWN_NODES / 2 ? 1e9 : 0.4e9;
	if (d->s == KNEE)
		snprintf(d->addr, sizeof(d->addr), KNEE_ADDR);
	else if (d->s == OWN)
		snprintf(d->addr, sizeof(d->addr), OWN_ADDR);
	else
		snprintf(d->addr, sizeof(d->addr), "10.%d.0.1", 1 + n % 4);
	d->id = (__u32)(n % 3);
	d->x.key = 0xffff000000000000ull + (__u64)n * 0x1000;
	d->x.first_seen_ns = 1;
	d->x.id = d->id;
	d->x.ident = d->s == RDMA_IDLE || d->s == MULTIRAIL || d->s == KNEE ? IDENT_RDMA : IDENT_TCP;
	d->x.limit = d->x.ident == IDENT_RDMA ? 128 : 16;
	memcpy(d->x.addr, d->addr, sizeof(d->x.addr));
	d->x.link.port = -1;
	d->x.nmounts = 1;
	d->x.mounts[0].mountpoint = "/mnt/ckpt";
	d->mop.mountpoint = "/mnt/ckpt";
	strcpy(d->mop.name, "WRITE");
	d->mt.mountpoint = "/mnt/ckpt";
	memcpy(d->mt.server, d->addr, sizeof(d->mt.server));
	if (d->x.ident == IDENT_RDMA) {
		/* port 0 carries NFS; on the multi-rail node port 1 is the compute rail */
		d->nports = d->s == MULTIRAIL ? 2 : 1;
		for (size_t i = 0; i < d->nports; i++) {
			snprintf(d->ports[i].dev, sizeof(d->ports[i].dev), "mlx5_%zu", i);
			d->ports[i].port = 1;
			/* a knee writer's 25 Gb/s RoCE port stays busy past the knee: no paradox alert */
			d->ports[i].rate_gbps = d->s == KNEE ? 25 : 100;
			d->pd[i].port = &d->ports[i];
			snprintf(d->pd[i].dev, sizeof(d->pd[i].dev), "mlx5_%zu", i);
			d->pd[i].port_num = 1;
			d->pd[i].have_bytes = true;
		}
		d->x.link.port = 0;
		d->x.link.rate_gbps = d->ports[0].rate_gbps;
	} else {
		strcpy(d->x.link.netdev, "eth0");
		d->x.link.rate_gbps = d->s == OWN ? 100 : 10;
	}
	gpus_init(d);
}

/* the curve's two groups: RPCs that found slots free (q1) and those that took the last (limit) */
static void curve_add(struct node *d, double rpcs, double rtt_s, bool at_limit)
{
	struct curve_view *c = &d->x.curve;
	unsigned int q = at_limit ? 4 : 0;
	size_t g;
	__u64 whole;

	for (g = 0; g < c->ngroups && c->groups[g].quarter != q; g++)
		;
	if (g == c->ngroups) {
		c->groups[g].quarter = q;
		c->ngroups++;
	}
	d->rpcs_frac += rpcs;
	whole = (__u64)d->rpcs_frac;
	d->rpcs_frac -= (double)whole;
	c->groups[g].rpcs += whole;
	c->groups[g].rtt_sum_ns += (double)whole * rtt_s * 1e9;
}

/*
 * One tick of a node: slot use and waits as its script says, its ledger sums, and a checkpoint
 * window open while it writes. @t: seconds since the start; @tgo: since go (< 0 before);
 * @kn: knee writers writing now.
 */
static void node_step(struct node *d, double t, double tgo, int kn)
{
	bool writing = (d->s != KNEE && d->s != OWN) || (tgo >= 0 && tgo >= d->join);
	bool full = d->s != HEALTHY && d->s != CHURN;
	double busy = 1, at_limit = full ? 0.8 : 0.2, util = 0.2, Bps = 100 * 1048576.0, rtt = 0.001;
	enum verdict_class cls = full ? V_SLOT : V_CLIENT;

	switch (d->s) {
	case TCP_IDLE: util = 0.02; break;
	case RDMA_IDLE: util = 0.03; break;
	case MULTIRAIL: util = 0.01; break;
	case LINK_BUSY: util = 0.9; cls = V_LINK; break;
	case KNEE:
		Bps = KNEE_Bps * fmin(1, (double)KNEE_K / kn);
		rtt = KNEE_RTT_S * fmax(1, (double)kn / KNEE_K);
		full = kn > KNEE_K;
		cls = full ? V_SLOT : V_CLIENT;
		at_limit = full ? 0.9 : 0.3;
		util = Bps / (d->x.link.rate_gbps * 1e9 / 8);
		break;
	case OWN:
		Bps = d->own_Bps;
		rtt = OWN_RTT_S;
		util = Bps / (d->x.link.rate_gbps * 1e9 / 8);
		break;
	default: break;
	}
	d->blocked = false;
	d->gpus_idle = d->s == TCP_IDLE || d->s == RDMA_IDLE || d->s == MULTIRAIL || d->s == LINK_BUSY ||
		       ((d->s == KNEE || d->s == OWN) && writing);
	if (!writing)
		return;
	if (d->s == CHURN && t - d->started >= 5) {
		/* the old transport is gone, a new one has its address and the next id */
		memset(d->x.waits, 0, sizeof(d->x.waits));
		memset(d->x.verdict_s, 0, sizeof(d->x.verdict_s));
		memset(&d->x.curve, 0, sizeof(d->x.curve));
		d->x.busy_ns = d->x.at_limit_ns = d->x.link_busy_bytes = 0;
		d->x.n.acquires = d->x.n.sends = 0;
		d->x.first_seen_ns++;
		d->x.id = ++d->id;
		d->started = t;
	}
	d->x.busy_ns += busy * TICK_S * 1e9;
	d->x.at_limit_ns += at_limit * TICK_S * 1e9;
	d->x.verdict_s[cls] += TICK_S;
	d->x.link_busy_bytes += util * d->x.link.rate_gbps * 1e9 / 8 * busy * TICK_S;
	d->x.n.acquires += 1000 / TICKS_PER_S;
	d->x.n.sends += 1000 / TICKS_PER_S;
	d->x.in_use = (__s32)(at_limit * d->x.limit);
	d->x.interval_peak = full ? d->x.limit : d->x.limit / 4;
	curve_add(d, Bps / RPC_BYTES * TICK_S, rtt, full);
	if (full) {
		/*
		 * waits spread over 1-8 ms, deterministic: each whole second holds every one of the
		 * WAITS_PER_S values once, a fifth of them a tick
		 */
		int tick = (int)lround(t / TICK_S) % TICKS_PER_S, per = WAITS_PER_S / TICKS_PER_S;

		for (int i = tick * per; i < (tick + 1) * per; i++) {
			__u64 ns = 1000000 + (__u64)((7000000.0 * ((i * 37 + (int)t * 11) % WAITS_PER_S)) / WAITS_PER_S);

			d->x.waits[WAIT_SLOT].buckets[lat_bucket(ns)]++;
			d->x.waits[WAIT_SLOT].count++;
			d->x.waits[WAIT_SLOT].sum_ns += ns;
			record_wait(ns);
		}
	}
	d->mop.count += 100 / TICKS_PER_S;
	d->mop.hist[STAGE_EXECUTE][full ? 23 : 20] += 100 / TICKS_PER_S;
	d->mop.sum_ns[STAGE_EXECUTE] += 100 / TICKS_PER_S * (full ? 10000000ull : 1500000ull);
	d->bytes_frac += Bps * TICK_S;
	d->mt.bytes_written += (__u64)d->bytes_frac;
	d->bytes_frac -= floor(d->bytes_frac);
	if (d->nports) {
		d->pd[0].tx_bytes += (uint64_t)(util * d->ports[0].rate_gbps * 1e9 / 8 * TICK_S);
		if (d->nports > 1)
			d->pd[1].tx_bytes += (uint64_t)(0.95 * 100e9 / 8 * TICK_S);	/* the busy compute rail */
	}
	if (!d->ck[WIN_CHECKPOINT].started)
		d->ck[WIN_CHECKPOINT].started = 1;
	d->ck[WIN_CHECKPOINT].total.secs += TICK_S;
	d->ck[WIN_CHECKPOINT].total.bytes += Bps * TICK_S;
	if (cls == V_SLOT) {
		d->ck[WIN_CHECKPOINT].total.slot_bound_secs += TICK_S;
		d->blocked = true;
	}
}

static bool gpu_idle(const struct node *d, int g)
{
	return d->gpu[g] == GPU_FREE || (d->gpu[g] == GPU_JOB && d->gpus_idle);
}

static int gpus_idle(const struct node *d)
{
	int c = 0;

	for (int g = 0; g < GPUS; g++)
		c += gpu_idle(d, g);
	return c;
}

static int write_node(const char *dir, struct node *d)
{
	struct view v = { .interval_s = TICK_S, .nxprts = 1, .xprts = &d->x, .nmops = 1, .mops = &d->mop,
			  .nmounts = 1, .mounts = &d->mt };
	struct prom_input in = { .cum = &v, .iv = &v, .windows = d->ck, .version = "fleet",
				 .kernel = "6.1.0-sim" };
	struct timespec ts;
	char path[4096];

	v.links.sampled = d->nports > 0;
	v.links.nports = d->nports;
	v.links.ports = d->pd;
	clock_gettime(CLOCK_REALTIME, &ts);
	in.now_wall = (double)ts.tv_sec;
	snprintf(path, sizeof(path), "%s/node%d/slotscope.prom", dir, d->n);
	return prom_write(path, &in);
}

struct fleet {
	struct node *nodes;
	int nnodes;
};

/* dcgm-exporter's families and labels (3.x): gpu, UUID, device, modelName, Hostname, driver */
static int dcgm_fn(FILE *f, const void *arg)
{
	const struct fleet *fl = arg;
	static const char *const fam[2][2] = {
		{ "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active." },
		{ "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)." },
	};

	for (int m = 0; m < 2; m++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fam[m][0], fam[m][1], fam[m][0]);
		for (int i = 0; i < fl->nnodes; i++) {
			const struct node *d = &fl->nodes[i];

			if (d->metric != DCGM_BOTH && (int)d->metric != m)
				continue;
			for (int g = 0; g < GPUS; g++) {
				bool idle = gpu_idle(d, g);
				double v;

				if (m == 0)
					v = d->gpu[g] == GPU_FREE ? 0 : idle ? 0.02 : 0.85;
				else if (d->metric == DCGM_BOTH)
					/* any kernel in the sample period counts: the stall's polling loop */
					v = d->gpu[g] == GPU_FREE ? 0 : idle ? 35 : 93;
				else
					v = idle ? 0 : 93;
				fprintf(f, "%s{gpu=\"%d\",UUID=\"GPU-%08x-5a1e-4c0d-9f00-%012x\",device=\"nvidia%d\","
					"modelName=\"NVIDIA B200\",Hostname=\"%s\",DCGM_FI_DRIVER_VERSION=\"570.124.06\","
					"instance=\"%s\"} %g\n", fam[m][0], g, (unsigned)d->n, (unsigned)g, g,
					d->hostname, d->dcgm_instance, v);
			}
		}
	}
	return ferror(f) ? -EIO : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *dir;
	struct fleet fl;
	struct outfile dcgm;
	int nnodes, secs;
	double go = -1, gpu_lost = 0, record_from = -1, sb = 0, total = 0;
	char path[4096], dcgm_path[4096];
	FILE *f, *gt;
	struct timespec next;

	if (argc != 4 || (nnodes = atoi(argv[2])) < MIN_NODES || (secs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: fleetgen DIR NODES SECONDS (NODES >= %d)\n", MIN_NODES);
		return 64;
	}
	dir = argv[1];
	fl.nnodes = nnodes;
	fl.nodes = calloc((size_t)nnodes, sizeof(*fl.nodes));
	if (!fl.nodes)
		return 1;
	for (int n = 0; n < nnodes; n++) {
		snprintf(path, sizeof(path), "%s/node%d", dir, n);
		if (mkdir(path, 0755) && errno != EEXIST)
			return 1;
		node_init(&fl.nodes[n], n, nnodes);
	}
	snprintf(path, sizeof(path), "%s/dcgm", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return 1;
	/* outfile keeps the path it was given */
	snprintf(dcgm_path, sizeof(dcgm_path), "%s/dcgm/dcgm.prom", dir);
	if (outfile_open(&dcgm, dcgm_path, false))
		return 1;
	snprintf(path, sizeof(path), "%s/truth", dir);
	f = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/gpu.truth", dir);
	gt = fopen(path, "w");
	if (!f || !gt)
		return 1;
	for (int n = 0; n < nnodes; n++) {
		enum script s = fl.nodes[n].s;

		fprintf(f, "node%d %s\n", n, script_names[s]);
		/* slots full, link idle: the stalled scripts, and own nodes once they write */
		if (s == TCP_IDLE || s == RDMA_IDLE || s == MULTIRAIL || s == OWN)
			fprintf(f, "alert node%d\n", n);
	}
	fprintf(f, "knee_server %s %d\nknee_writers %d\nown_server %s\nown_nodes %d\n", KNEE_ADDR, KNEE_K,
		KNEE_WRITERS, OWN_ADDR, OWN_NODES);
	/* the [20s] windows of the scaled rules past the last join, and the 4 s rates after that */
	fprintf(f, "script_end_s %.0f\n", last_join_s() + 24);
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long tick = 0; tick < (long)secs * TICKS_PER_S; tick++) {
		double t = tick * TICK_S, tgo;
		struct timespec wall;
		int kn = 0;

		if (go < 0) {
			snprintf(path, sizeof(path), "%s/go", dir);
			if (!access(path, F_OK))
				go = mono_now();
		}
		tgo = go < 0 ? -1 : mono_now() - go;
		for (int n = 0; n < nnodes; n++)
			kn += fl.nodes[n].s == KNEE && tgo >= 0 && tgo >= fl.nodes[n].join;
		/* one whole second of the end state, on the seconds the waits' pattern repeats on */
		if (record_from < 0 && tgo >= last_join_s() + 2 && tick % TICKS_PER_S == 0)
			record_from = t;
		recording = record_from >= 0 && t < record_from + 1 - TICK_S / 2;
		for (int n = 0; n < nnodes; n++) {
			struct node *d = &fl.nodes[n];
			double sb0 = d->ck[WIN_CHECKPOINT].total.slot_bound_secs, t0 = d->ck[WIN_CHECKPOINT].total.secs;

			node_step(d, t, tgo, kn);
			if (recording) {
				sb += d->ck[WIN_CHECKPOINT].total.slot_bound_secs - sb0;
				total += d->ck[WIN_CHECKPOINT].total.secs - t0;
			}
			if (write_node(dir, d)) {
				fprintf(stderr, "fleetgen: cannot write node%d: %s\n", n, strerror(errno));
				return 1;
			}
			if (d->blocked)
				gpu_lost += TICK_S * gpus_idle(d);
		}
		if (outfile_write(&dcgm, dcgm_fn, &fl)) {
			fprintf(stderr, "fleetgen: cannot write dcgm.prom\n");
			return 1;
		}
		clock_gettime(CLOCK_REALTIME, &wall);
		fprintf(gt, "%.3f %.3f\n", (double)wall.tv_sec + wall.tv_nsec / 1e9, gpu_lost);
		fflush(gt);
		if (record_from >= 0 && !recording && nwaits) {
			int slot_bound = 0;

			snprintf(path, sizeof(path), "%s/truth.final", dir);
			f = fopen(path, "w");
			if (!f)
				return 1;
			for (int n = 0; n < nnodes; n++)
				slot_bound += fl.nodes[n].blocked;
			qsort(all_waits, nwaits, sizeof(*all_waits), cmp_u64);
			fprintf(f, "slot_bound_nodes %d\n", slot_bound);
			fprintf(f, "checkpoint_slot_bound_ratio %.6f\n", sb / total);
			fprintf(f, "slot_wait_p99_seconds %.9f\n",
				(double)all_waits[(size_t)ceil(0.99 * (double)nwaits) - 1] / 1e9);
			fclose(f);
			nwaits = 0;
		}
		next.tv_nsec += (long)(TICK_S * 1e9);
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	outfile_close(&dcgm);
	fclose(gt);
	free(all_waits);
	free(fl.nodes);
	return 0;
}
