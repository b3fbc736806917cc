// SPDX-License-Identifier: GPL-2.0
/*
 * fleetgen DIR NODES SECONDS: a simulated fleet for tests/host/test_fleet.sh. Every second, for
 * each node, a cumulative and an interval view are made from that node's script and written to
 * DIR/nodeN/slotscope.prom by slotscope's own writer (prom_write). The scripts:
 *
 *   tcp-idle    a TCP transport slot-bound, full 80 % of its busy time, its 10 GbE netdev at 2 %
 *   rdma-idle   an RDMA transport the same, its 100 Gb/s port at 3 %
 *   multirail   a storage-rail RDMA transport full, its port idle; the compute rail busy (no NFS)
 *   link-busy   slots full while the link is at 90 %: link-bound, no alert
 *   healthy     slots 20 % full, no slot wait to speak of
 *   churn       healthy, and its transport replaced every 5 s (a new kernel id, as per-job mounts)
 *
 * DIR/truth holds what a fleet query must find: the nodes the alert must name, the slot-bound
 * count, the fleet's checkpoint slot-bound share, and the exact p99 of every slot wait written.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "output.h"
#include "uhist.h"

enum script { TCP_IDLE, RDMA_IDLE, MULTIRAIL, LINK_BUSY, HEALTHY, CHURN };
static const char *const script_names[] = { "tcp-idle", "rdma-idle", "multirail", "link-busy",
					    "healthy", "churn" };

/* the fleet's make-up by node number: 8 tcp-idle, 6 rdma-idle, 1 multi-rail, 3 link-busy, ... */
static enum script script_of(int n)
{
	if (n < 8)
		return TCP_IDLE;
	if (n < 14)
		return RDMA_IDLE;
	if (n < 15)
		return MULTIRAIL;
	if (n < 18)
		return LINK_BUSY;
	if (n < 28)
		return HEALTHY;
	return CHURN;
}

struct node {
	enum script s;
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
};

/* slot waits per second per slot-bound transport, and their exact values' spread */
#define WAITS_PER_S 200

static __u64 *all_waits;
static size_t nwaits, capwaits;

static void record_wait(__u64 ns)
{
	if (nwaits == capwaits) {
		capwaits = capwaits ? capwaits * 2 : 1 << 16;
		all_waits = realloc(all_waits, capwaits * sizeof(*all_waits));
		if (!all_waits)
			exit(1);
	}
	all_waits[nwaits++] = ns;
}

static void node_init(struct node *d, int n)
{
	memset(d, 0, sizeof(*d));
	d->s = script_of(n);
	snprintf(d->addr, sizeof(d->addr), "10.%d.0.1", 1 + n % 4);
	d->id = (__u32)(n % 3);
	d->x.key = 0xffff000000000000ull + (__u64)n * 0x1000;
	d->x.first_seen_ns = 1;
	d->x.id = d->id;
	d->x.ident = d->s == RDMA_IDLE || d->s == MULTIRAIL ? IDENT_RDMA : IDENT_TCP;
	d->x.limit = d->x.ident == IDENT_RDMA ? 128 : 16;
	memcpy(d->x.addr, d->addr, sizeof(d->x.addr));
	d->x.link.port = -1;
	d->x.nmounts = 1;
	d->x.mounts[0].mountpoint = "/mnt/ckpt";
	d->mop.mountpoint = "/mnt/ckpt";
	strcpy(d->mop.name, "WRITE");
	d->mt.mountpoint = "/mnt/ckpt";
	if (d->x.ident == IDENT_RDMA) {
		/* port 0 carries NFS; on the multi-rail node port 1 is the compute rail */
		d->nports = d->s == MULTIRAIL ? 2 : 1;
		for (size_t i = 0; i < d->nports; i++) {
			snprintf(d->ports[i].dev, sizeof(d->ports[i].dev), "mlx5_%zu", i);
			d->ports[i].port = 1;
			d->ports[i].rate_gbps = 100;
			d->pd[i].port = &d->ports[i];
			snprintf(d->pd[i].dev, sizeof(d->pd[i].dev), "mlx5_%zu", i);
			d->pd[i].port_num = 1;
			d->pd[i].have_bytes = true;
		}
		d->x.link.port = 0;
		d->x.link.rate_gbps = 100;
	} else {
		strcpy(d->x.link.netdev, "eth0");
		d->x.link.rate_gbps = 10;
	}
}

/*
 * One second of a node: slot use and waits as its script says, its ledger sums, and a
 * checkpoint window that stays open (every second writes).
 */
static void node_step(struct node *d, double t)
{
	bool full = d->s != HEALTHY && d->s != CHURN;
	double busy = 1, at_limit = full ? 0.8 : 0.2, util = 0.2;
	enum verdict_class cls = full ? V_SLOT : V_CLIENT;

	switch (d->s) {
	case TCP_IDLE: util = 0.02; break;
	case RDMA_IDLE: util = 0.03; break;
	case MULTIRAIL: util = 0.01; break;
	case LINK_BUSY: util = 0.9; cls = V_LINK; break;
	default: break;
	}
	if (d->s == CHURN && t - d->started >= 5) {
		/* the old transport is gone, a new one has its address and the next id */
		memset(d->x.waits, 0, sizeof(d->x.waits));
		memset(d->x.verdict_s, 0, sizeof(d->x.verdict_s));
		d->x.busy_ns = d->x.at_limit_ns = d->x.link_busy_bytes = 0;
		d->x.acquires = d->x.sends = 0;
		d->x.first_seen_ns++;
		d->x.id = ++d->id;
		d->started = t;
	}
	d->x.busy_ns += busy * 1e9;
	d->x.at_limit_ns += at_limit * 1e9;
	d->x.verdict_s[cls] += 1;
	d->x.link_busy_bytes += util * d->x.link.rate_gbps * 1e9 / 8 * busy;
	d->x.acquires += 1000;
	d->x.sends += 1000;
	d->x.in_use = (__s32)(at_limit * d->x.limit);
	d->x.interval_peak = full ? d->x.limit : d->x.limit / 4;
	if (full) {
		/* waits spread over 1-8 ms, deterministic, recorded for the fleet's true p99 */
		for (int i = 0; i < WAITS_PER_S; i++) {
			__u64 ns = 1000000 + (__u64)((7000000.0 * ((i * 37 + (int)t * 11) % WAITS_PER_S)) / WAITS_PER_S);

			d->x.waits[WAIT_SLOT].buckets[lat_bucket(ns)]++;
			d->x.waits[WAIT_SLOT].count++;
			d->x.waits[WAIT_SLOT].sum_ns += ns;
			record_wait(ns);
		}
	}
	d->mop.count += 100;
	d->mop.hist[STAGE_EXECUTE][full ? 23 : 20] += 100;
	d->mop.sum_ns[STAGE_EXECUTE] += 100 * (full ? 10000000ull : 1500000ull);
	d->mt.bytes_written += 100 << 20;
	if (d->nports) {
		d->pd[0].tx_bytes += (uint64_t)(util * 100e9 / 8);
		if (d->nports > 1)
			d->pd[1].tx_bytes += (uint64_t)(0.95 * 100e9 / 8);	/* the busy compute rail */
	}
	d->ck[WIN_CHECKPOINT].started = 1;
	d->ck[WIN_CHECKPOINT].total.secs += 1;
	d->ck[WIN_CHECKPOINT].total.bytes += 100 << 20;
	if (cls == V_SLOT)
		d->ck[WIN_CHECKPOINT].total.slot_bound_secs += 1;
}

static int write_node(const char *dir, int n, struct node *d)
{
	struct view v = { .interval_s = 1, .nxprts = 1, .xprts = &d->x, .nmops = 1, .mops = &d->mop,
			  .nmounts = 1, .mounts = &d->mt };
	struct prom_input in = { .cum = &v, .iv = &v, .ck = d->ck, .version = "fleet",
				 .kernel = "6.1.0-sim" };
	struct timespec ts;
	char path[4096];

	v.links.sampled = d->nports > 0;
	v.links.nports = d->nports;
	v.links.ports = d->pd;
	clock_gettime(CLOCK_REALTIME, &ts);
	in.now_wall = (double)ts.tv_sec;
	snprintf(path, sizeof(path), "%s/node%d/slotscope.prom", dir, n);
	return prom_write(path, &in);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *dir;
	struct node *nodes;
	int nnodes, secs, slot_bound = 0;
	double sb = 0, total = 0;
	char path[4096];
	FILE *f;

	if (argc != 4 || (nnodes = atoi(argv[2])) < 1 || (secs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: fleetgen DIR NODES SECONDS\n");
		return 64;
	}
	dir = argv[1];
	nodes = calloc((size_t)nnodes, sizeof(*nodes));
	if (!nodes)
		return 1;
	for (int n = 0; n < nnodes; n++) {
		snprintf(path, sizeof(path), "%s/node%d", dir, n);
		if (mkdir(path, 0755) && errno != EEXIST)
			return 1;
		node_init(&nodes[n], n);
	}
	snprintf(path, sizeof(path), "%s/truth", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	for (int n = 0; n < nnodes; n++) {
		enum script s = nodes[n].s;

		fprintf(f, "node%d %s\n", n, script_names[s]);
		if (s == TCP_IDLE || s == RDMA_IDLE || s == MULTIRAIL)
			fprintf(f, "alert node%d\n", n);
		slot_bound += s != HEALTHY && s != CHURN && s != LINK_BUSY;
	}
	fprintf(f, "slot_bound_nodes %d\n", slot_bound);
	for (int t = 0; t < secs; t++) {
		struct timespec next;

		clock_gettime(CLOCK_MONOTONIC, &next);
		next.tv_sec += 1;
		for (int n = 0; n < nnodes; n++) {
			node_step(&nodes[n], t);
			if (write_node(dir, n, &nodes[n])) {
				fprintf(stderr, "fleetgen: cannot write node%d: %s\n", n, strerror(errno));
				return 1;
			}
		}
		if (t == 0) {
			/* what any window of the run must find: every second is the same */
			for (int n = 0; n < nnodes; n++) {
				sb += nodes[n].ck[WIN_CHECKPOINT].total.slot_bound_secs;
				total += nodes[n].ck[WIN_CHECKPOINT].total.secs;
			}
			qsort(all_waits, nwaits, sizeof(*all_waits), cmp_u64);
			fprintf(f, "checkpoint_slot_bound_ratio %.6f\n", sb / total);
			fprintf(f, "slot_wait_p99_seconds %.9f\n",
				(double)all_waits[(size_t)ceil(0.99 * (double)nwaits) - 1] / 1e9);
			fclose(f);
			f = NULL;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	free(all_waits);
	free(nodes);
	return 0;
}
