// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition, for node_exporter's textfile collector. Counters and histograms
 * come from the cumulative view (since attach), gauges from the last interval. Every family is
 * written in every file, every histogram with every bucket of its fixed set: a series that comes
 * and goes between scrapes breaks rate() and histogram_quantile(). The series budget (docs/metrics.md,
 * "Metrics") is kept here: per transport, per mount, per node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/outfile.h"
#include "lib/fmt.h"
#include "out/output.h"
#include "lib/uhist.h"
#include "lib/utf8.h"
#include "model/verdict.h"
#include "prom/out_prom_int.h"

/*
 * Bucket sets as log2 exponents of nanoseconds: "le" 2^e ns holds BPF buckets 0 .. e-1 exactly,
 * so folding them is lossless. Waits: 16 from 16 us to 34 s (slot waits under load run from tens
 * of microseconds on RDMA to seconds behind a full TCP table); ops: 9 from 33 us to 2.1 s, every
 * other power of two, so three ops per mount fit the mount's budget.
 */
static const unsigned char wait_le[] = { 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27, 29, 31, 33, 35 };
static const unsigned char op_le[] = { 15, 17, 19, 21, 23, 25, 27, 29, 31 };

/* 2^e ns in seconds, exactly: every power of two has a finite decimal expansion */
static void le_str_make(char *buf, size_t len, unsigned int e)
{
	unsigned long long ns = 1ull << e;
	int n = snprintf(buf, len, "%llu.%09llu", ns / 1000000000ull, ns % 1000000000ull);

	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = 0;
}

/* a bucket's "le", made once per exponent: the thousands of bucket lines of a write share them */
static const char *le_of(unsigned int e)
{
	static char made[64][32];

	if (e >= 64)
		e = 63;
	if (!made[e][0])
		le_str_make(made[e], sizeof(made[e]), e);
	return made[e];
}

/* a transport's identity: what stays true for its life (the kernel's id, never a rank) */
static void xlabels(FILE *f, const struct xprt_view *x)
{
	put_s(f, "server=\"");
	prom_lv(f, x->addr);
	put_s(f, "\",proto=\"");
	put_s(f, proto_name(x->ident));
	put_s(f, "\",xprt=\"");
	put_u64(f, x->id);
	putc_unlocked('"', f);
}

/*
 * The per-transport families' series: the transports, or with --prom-rollup the mounts' rows
 * (ledger.h), labelled with the mount and its server instead.
 */
static size_t nseries(const struct prom_input *in)
{
	return in->rollup ? in->cum->nrows : in->cum->nxprts;
}

/* series @i's figures, or NULL when it is not written (a reused id's older transport) */
static const struct xprt_view *series_at(const struct prom_input *in, size_t i)
{
	if (in->rollup)
		return &in->cum->rows[i].x;
	return in->cum->xprts[i].shadowed ? NULL : &in->cum->xprts[i];
}

static void series_labels(FILE *f, const struct prom_input *in, size_t i)
{
	const struct mount_row *r = in->rollup ? &in->cum->rows[i] : NULL;

	if (!r) {
		xlabels(f, &in->cum->xprts[i]);
		return;
	}
	put_s(f, "mountpoint=\"");
	prom_lv(f, r->mountpoint ? r->mountpoint : "");
	put_s(f, "\",server=\"");
	prom_lv(f, r->server);
	putc_unlocked('"', f);
}

/*
 * One histogram from log2 buckets: @les exponents, every one written, then +Inf, _sum, _count.
 * @labels is written as is after the family's own: the caller writes it with prom_lv().
 */
static void histogram(FILE *f, const char *name, void (*labels)(FILE *, const void *), const void *arg,
		      const unsigned char *les, size_t nles, const __u64 *b, __u64 sum_ns)
{
	__u64 cum = 0, total = hist_total(b, LAT_BUCKETS);
	unsigned int next = 0;

	for (size_t i = 0; i < nles; i++) {
		while (next < les[i] && next < LAT_BUCKETS - 1)
			cum += b[next++];
		put_s(f, "slotscope_");
		put_s(f, name);
		put_s(f, "_bucket{");
		labels(f, arg);
		put_s(f, ",le=\"");
		put_s(f, le_of(les[i]));
		put_s(f, "\"} ");
		put_u64(f, cum);
		putc_unlocked('\n', f);
	}
	put_s(f, "slotscope_");
	put_s(f, name);
	put_s(f, "_bucket{");
	labels(f, arg);
	put_s(f, ",le=\"+Inf\"} ");
	put_u64(f, total);
	put_s(f, "\nslotscope_");
	put_s(f, name);
	put_s(f, "_sum{");
	labels(f, arg);
	fprintf(f, "} %.9f\nslotscope_%s_count{", (double)sum_ns / 1e9, name);
	labels(f, arg);
	put_s(f, "} ");
	put_u64(f, total);
	putc_unlocked('\n', f);
}

struct wait_labels {
	const struct prom_input *in;
	size_t i;
	int kind;
};

static void wait_labels(FILE *f, const void *arg)
{
	const struct wait_labels *w = arg;

	series_labels(f, w->in, w->i);
	put_s(f, ",kind=\"");
	put_s(f, wait_kind_names[w->kind]);
	putc_unlocked('"', f);
}

struct op_labels {
	const struct mount_op *m;
	int stage;
};

static void op_labels(FILE *f, const void *arg)
{
	const struct op_labels *o = arg;

	put_s(f, "mountpoint=\"");
	prom_lv(f, o->m->mountpoint);
	put_s(f, "\",op=\"");
	put_s(f, o->m->name);
	put_s(f, "\",stage=\"");
	put_s(f, stage_names[o->stage]);
	putc_unlocked('"', f);
}

#define GETTER(n, expr) static double n(const struct xprt_view *x) { return (double)(expr); }
GETTER(g_in_use, x->in_use_shown)
GETTER(g_interval_peak, x->interval_peak)
GETTER(g_limit, x->limit)
GETTER(g_backlog, x->backlog_now)
GETTER(g_cwnd, x->cwnd)
GETTER(g_cong, x->cong)
GETTER(g_rate, x->link.rate_gbps * 1e9 / 8)
GETTER(g_at_limit, x->at_limit_ns / 1e9)
GETTER(g_busy, x->busy_ns / 1e9)
GETTER(g_acquires, x->n.acquires)
GETTER(g_handoffs, x->n.handoffs)
GETTER(g_held, x->n.held_idle)
GETTER(g_held_s, x->n.held_idle_ns / 1e9)
GETTER(g_sends, x->n.sends)
GETTER(g_connects, x->n.connects)
GETTER(g_recvs, x->n.recvs)
GETTER(g_timeouts, x->timeouts)
GETTER(g_retrans, x->retrans)
GETTER(g_link_busy, x->link_busy_bytes)
GETTER(g_credit_at_limit, x->credit.at_limit_ns / 1e9)
GETTER(g_credit_busy, x->credit.busy_ns / 1e9)

static const struct {
	const char *name, *help;
	double (*get)(const struct xprt_view *);
	bool counter;
	/* a transport whose credits are measured (RDMA, UDP; both cong hooks): a 0 is then a 0 */
	bool credit;
} per_xprt[] = {
	{ "slots_in_use", "RPC slots in use on the transport at the end of the interval.",
	  g_in_use, false, false },
	{ "slots_in_use_max", "Highest RPC slots in use in the last interval.",
	  g_interval_peak, false, false },
	{ "slot_limit", "RPC slot limit of the transport (its slot table, or the RDMA pool).",
	  g_limit, false, false },
	{ "backlog_tasks", "Tasks waiting for a slot at the last event.", g_backlog, false, false },
	{ "credits_granted", "RDMA/UDP congestion window (server credits), in requests.",
	  g_cwnd, false, false },
	{ "credits_in_use", "RDMA/UDP credits in use, in requests.", g_cong, false, false },
	{ "link_rate_bytes", "Rate of the link the transport's traffic crosses, bytes/s (0: unknown).",
	  g_rate, false, false },
	{ "slot_limit_seconds_total", "Time with every slot in use.", g_at_limit, true, false },
	{ "slot_busy_seconds_total", "Time with at least one slot in use.", g_busy, true, false },
	{ "slot_acquires_total", "Slots taken, handoffs included.", g_acquires, true, false },
	{ "slot_handoffs_total", "Slots handed from a release straight to a waiter.", g_handoffs, true, false },
	{ "slot_idle_held_total", "Delays a task sat out holding its slot (the RDMA backlog stall).",
	  g_held, true, false },
	{ "slot_idle_held_seconds_total", "Slot-seconds held idle in those delays.", g_held_s, true, false },
	{ "sends_total", "Successful RPC transmissions (mountstats sends).", g_sends, true, false },
	{ "connects_total", "Transport (re)connections (mountstats connect_count).", g_connects, true, false },
	{ "replies_total", "Replies the server sent that matched a request (mountstats recvs).", g_recvs, true, false },
	{ "retransmissions_total", "Transmissions beyond an RPC's first, over its ops.", g_retrans, true, false },
	{ "major_timeouts_total", "Major timeouts (timeo x retrans passed) of its RPCs, as mountstats counts them.", g_timeouts, true, false },
	{ "link_busy_bytes_total",
	  "Bytes the transport's link carried (busier direction) while the transport had a slot in use.",
	  g_link_busy, true, false },
	{ "credits_limit_seconds_total",
	  "Time with every credit the server granted at that moment in use (RDMA/UDP).",
	  g_credit_at_limit, true, true },
	{ "credits_busy_seconds_total", "Time with at least one credit in use (RDMA/UDP).",
	  g_credit_busy, true, true },
};

/*
 * The in-flight curve: RPCs by the share of the limit in use when each took its slot, quarters
 * and the limit itself (fixed label values whatever the limit), with their round trips summed:
 * rate(rtt) / rate(rpcs) is a quarter's mean RTT, and summed over the quarters the transport's,
 * which is what a fleet's rules want of every node. Execute times only with --prom-detail: the
 * RTT is the server's share, the one the budget pays for.
 */
static void inflight_curve(FILE *f, const struct prom_input *in)
{
	static const char *const q_names[5] = { "q1", "q2", "q3", "q4", "limit" };
	static const struct { const char *name, *help; } fam[3] = {
		{ "inflight_rpcs_total", "RPCs by the slots in use when each took its slot: the quarter of "
		  "the limit (q1..q4) or the limit itself." },
		{ "inflight_rtt_seconds_total", "Round trips of those RPCs, summed." },
		{ "inflight_execute_seconds_total", "Execute times of those RPCs, summed." },
	};

	for (int m = 0; m < (in->detail ? 3 : 2); m++) {
		prom_family(f, fam[m].name, "counter", fam[m].help);
		for (size_t i = 0; i < nseries(in); i++) {
			const struct xprt_view *x = series_at(in, i);

			for (unsigned int q = 0; x && q < 5; q++) {
				const struct curve_group *g = NULL;

				for (size_t j = 0; j < x->curve.ngroups; j++)
					if (x->curve.groups[j].quarter == q)
						g = &x->curve.groups[j];
				fprintf(f, "slotscope_%s{", fam[m].name);
				series_labels(f, in, i);
				if (m == 0)
					fprintf(f, ",in_flight=\"%s\"} %llu\n", q_names[q],
						(unsigned long long)(g ? g->rpcs : 0));
				else
					fprintf(f, ",in_flight=\"%s\"} %.9f\n", q_names[q],
						g ? (m == 1 ? g->rtt_sum_ns : g->exec_sum_ns) / 1e9 : 0.0);
			}
		}
	}
}

/* the transport's link and mounts: per transport only, so not with --prom-rollup */
static void transport_info(FILE *f, const struct prom_input *in)
{
	const struct view *cum = in->cum, *iv = in->iv;

	prom_family(f, "transport_info", "gauge",
	       "1 per transport, naming its link (netdev, RDMA device and port) and its mounts.");
	for (size_t i = 0; i < cum->nxprts; i++) {
		const struct xprt_view *x = &cum->xprts[i];
		/* the port is an index into the interval's ports, which the textfile's view copied */
		const struct port_delta *p = x->link.port >= 0 && (size_t)x->link.port < iv->links.nports
					     ? &iv->links.ports[x->link.port] : NULL;
		bool first = true;

		if (x->shadowed)
			continue;
		fputs("slotscope_transport_info{", f);
		xlabels(f, x);
		fputs(",netdev=\"", f);
		prom_lv(f, x->link.netdev);
		fputs("\",rdma_device=\"", f);
		prom_lv(f, p ? p->dev : "");
		fputs("\",port=\"", f);
		if (p)
			fprintf(f, "%u", p->port_num);
		fputs("\",mountpoint=\"", f);
		for (size_t m = 0; m < x->nmounts; m++)
			if (x->mounts[m].mountpoint) {
				if (!first)
					fputc(',', f);
				prom_lv(f, x->mounts[m].mountpoint);
				first = false;
			}
		fprintf(f, "\",limit_source=\"%s\"} 1\n", x->limit_source ? x->limit_source : "");
	}
}

/*
 * Gauges and counters alike from the textfile's view, whose transports carry the interval's
 * gauges beside the sums (ledger.h), and whose rows combine both per mount.
 */
static void per_transport(FILE *f, const struct prom_input *in)
{
	for (size_t m = 0; m < sizeof(per_xprt) / sizeof(per_xprt[0]); m++) {
		/* a family of every transport's is there with none; the credits' with one at least */
		bool head = !per_xprt[m].credit;

		if (head)
			prom_family(f, per_xprt[m].name, per_xprt[m].counter ? "counter" : "gauge",
				    per_xprt[m].help);
		for (size_t i = 0; i < nseries(in); i++) {
			const struct xprt_view *x = series_at(in, i);

			if (!x || (per_xprt[m].credit && (in->rollup || !x->credit.limit)))
				continue;
			if (!head)
				prom_family(f, per_xprt[m].name, per_xprt[m].counter ? "counter" : "gauge",
					    per_xprt[m].help);
			head = true;
			put_s(f, "slotscope_");
			put_s(f, per_xprt[m].name);
			putc_unlocked('{', f);
			series_labels(f, in, i);
			put_s(f, "} ");
			put_g9(f, per_xprt[m].get(x));
			putc_unlocked('\n', f);
		}
	}
	for (int s = 0; s < 2; s++) {
		if (s)
			prom_family(f, "wait_seconds_total", "counter", "Time spent waiting, by what was waited for.");
		else
			prom_family(f, "waits_total", "counter", "Waits ended, by what was waited for.");
		for (size_t i = 0; i < nseries(in); i++)
			for (int k = 0; k < WAIT_KINDS && series_at(in, i); k++) {
				const struct wait_view *w = &series_at(in, i)->waits[k];

				fprintf(f, "slotscope_%s{", s ? "wait_seconds_total" : "waits_total");
				series_labels(f, in, i);
				if (s)
					fprintf(f, ",kind=\"%s\"} %.9f\n", wait_kind_names[k], (double)w->sum_ns / 1e9);
				else
					fprintf(f, ",kind=\"%s\"} %llu\n", wait_kind_names[k],
						(unsigned long long)w->count);
			}
	}
	prom_family(f, "wait_duration_seconds", "histogram", in->detail
	       ? "Waits for a slot, the send queue or credits, a session slot, an rpc_delay."
	       : "Waits for a slot (--prom-detail: every kind).");
	for (size_t i = 0; i < nseries(in); i++)
		for (int k = 0; k < (in->detail ? WAIT_KINDS : 1) && series_at(in, i); k++) {
			struct wait_labels wl = { in, i, k };
			const struct wait_view *w = &series_at(in, i)->waits[k];

			histogram(f, "wait_duration_seconds", wait_labels, &wl, wait_le, sizeof(wait_le), w->buckets,
				  w->sum_ns);
		}
	inflight_curve(f, in);
	prom_family(f, "verdict_seconds_total", "counter",
	       "Time in each verdict class: what limited the transport, interval by interval.");
	for (size_t i = 0; i < nseries(in); i++)
		for (int c = 0; c < VERDICTS && series_at(in, i); c++) {
			fputs("slotscope_verdict_seconds_total{", f);
			series_labels(f, in, i);
			fprintf(f, ",class=\"%s\"} %.6f\n", verdict_names[c], series_at(in, i)->verdict_s[c]);
		}
	if (!in->rollup)
		transport_info(f, in);
}

static void per_mount(FILE *f, const struct prom_input *in)
{
	const struct view *cum = in->cum;

	prom_family(f, "op_seconds", "histogram", in->detail
	       ? "Per-op time by stage (queue, rtt, execute), as mountstats sums them, per mount."
	       : "Per-op execute time of READ, WRITE and COMMIT per mount (--prom-detail: every op and stage).");
	for (size_t i = 0; i < cum->nmops; i++) {
		const struct mount_op *m = &cum->mops[i];

		if (!in->detail && op_class(m->name) == OPC_OTHER)
			continue;
		for (int s = in->detail ? 0 : STAGE_EXECUTE; s < STAGES; s++) {
			struct op_labels ol = { m, s };

			histogram(f, "op_seconds", op_labels, &ol, op_le, sizeof(op_le), m->hist[s], m->sum_ns[s]);
		}
	}
	/*
	 * Per mount, the ops without a histogram, the payload and the failures. A mount's READ,
	 * WRITE and COMMIT series exist once it has done one; the counts are the histograms' _count.
	 */
	prom_family(f, "other_ops_total", "counter", "RPCs completed that have no op_seconds histogram.");
	for (size_t i = 0; i < cum->nmounts; i++) {
		const struct mount_total *t = &cum->mounts[i];

		/* with --prom-detail every op has its histogram */
		fputs("slotscope_other_ops_total{mountpoint=\"", f);
		prom_lv(f, t->mountpoint);
		fprintf(f, "\"} %llu\n", (unsigned long long)(in->detail ? 0 : t->other_ops));
	}
	{
		static const char *const what[] = { "read_bytes_total", "written_bytes_total",
						    "op_errors_total" };
		static const char *const help[] = { "Bytes READ returned (payload and header).",
						    "Bytes WRITE sent (payload and header).",
						    "RPCs that failed, every op." };

		for (int w = 0; w < 3; w++) {
			prom_family(f, what[w], "counter", help[w]);
			for (size_t i = 0; i < cum->nmounts; i++) {
				const struct mount_total *t = &cum->mounts[i];
				__u64 val[] = { t->bytes_read, t->bytes_written, t->errors };

				fprintf(f, "slotscope_%s{mountpoint=\"", what[w]);
				prom_lv(f, t->mountpoint);
				fprintf(f, "\"} %llu\n", (unsigned long long)val[w]);
			}
		}
	}
	/* the join of per-mount figures to a server: one per mount, ops of no mount left out */
	prom_family(f, "mount_info", "gauge", "1 per mount, naming the server it was mounted from (its addr= option).");
	for (size_t i = 0; i < cum->nmounts; i++) {
		const struct mount_total *t = &cum->mounts[i];

		if (!t->mountpoint)
			continue;
		fputs("slotscope_mount_info{mountpoint=\"", f);
		prom_lv(f, t->mountpoint);
		fputs("\",server=\"", f);
		prom_lv(f, t->server);
		fputs("\"} 1\n", f);
	}
}

/*
 * @s's series, when its levels are measured and its mount is one the exposition shows (the
 * series cap leaves mounts out of in->cum: their sessions go with them)
 */
static bool session_shown(const struct prom_input *in, const struct session_view *s)
{
	if (!s->levels_known || !s->mountpoint)
		return false;
	for (size_t i = 0; i < in->cum->nmounts; i++)
		if (in->cum->mounts[i].mountpoint && !strcmp(in->cum->mounts[i].mountpoint, s->mountpoint))
			return true;
	return false;
}

/*
 * An NFSv4.1 session's limit in force and its last interval's time at it (#46): the server may
 * move the limit during a run (nfsd sizes sessions on demand since 6.13-6.14). Two series per
 * session whose levels are measured, labelled by its mount; a family once, its series together.
 */
static void sessions(FILE *f, const struct prom_input *in)
{
	static const char *const fam[2][2] = {
		{ "session_slot_limit",
		  "An NFSv4.1 session's slots the server allows now (the client's max_slotid + 1)." },
		{ "session_at_limit_ratio",
		  "Share of the last interval's busy time a session had every slot its limit then allowed in use." },
	};

	for (int m = 0; m < 2; m++) {
		bool head = false;

		for (size_t i = 0; in->iv && i < in->iv->nsessions; i++) {
			const struct session_view *s = &in->iv->sessions[i];

			if (!session_shown(in, s))
				continue;
			if (!head)
				prom_family(f, fam[m][0], "gauge", fam[m][1]);
			head = true;
			fprintf(f, "slotscope_%s{mountpoint=\"", fam[m][0]);
			prom_lv(f, s->mountpoint);
			if (m == 0)
				fprintf(f, "\"} %u\n", s->s.limit);
			else
				fprintf(f, "\"} %.6g\n", s->at_limit_pct / 100);
		}
	}
}

static void links(FILE *f, const struct prom_input *in)
{
	const struct links_view *l = &in->cum->links;

	prom_family(f, "rdma_port_rate_bytes", "gauge", "RDMA port rate, bytes/s.");
	for (size_t i = 0; i < l->nports; i++)
		if (l->ports[i].port) {
			fputs("slotscope_rdma_port_rate_bytes{rdma_device=\"", f);
			prom_lv(f, l->ports[i].dev);
			fprintf(f, "\",port=\"%u\"} %.9g\n", l->ports[i].port_num,
				l->ports[i].port->rate_gbps * 1e9 / 8);
		}
	for (int rx = 0; rx < 2; rx++) {
		prom_family(f, rx ? "rdma_rx_bytes_total" : "rdma_tx_bytes_total", "counter",
		       rx ? "Bytes received on the RDMA port (PMA counters or its netdev), since attach."
			  : "Bytes sent on the RDMA port (PMA counters or its netdev), since attach.");
		for (size_t i = 0; i < l->nports; i++)
			if (l->ports[i].have_bytes) {
				fprintf(f, "slotscope_rdma_%s_bytes_total{rdma_device=\"", rx ? "rx" : "tx");
				prom_lv(f, l->ports[i].dev);
				fprintf(f, "\",port=\"%u\"} %llu\n", l->ports[i].port_num,
					(unsigned long long)(rx ? l->ports[i].rx_bytes : l->ports[i].tx_bytes));
			}
	}
	if (!in->detail)
		return;
	prom_family(f, "rdma_hw_stat_total", "counter", "Every hw_counters/ entry of the port, by name.");
	for (size_t i = 0; i < l->nports; i++)
		for (size_t c = 0; c < l->ports[i].nhw; c++) {
			fputs("slotscope_rdma_hw_stat_total{rdma_device=\"", f);
			prom_lv(f, l->ports[i].dev);
			fprintf(f, "\",port=\"%u\",counter=\"", l->ports[i].port_num);
			prom_lv(f, l->ports[i].hw[c].name);
			fprintf(f, "\"} %llu\n", (unsigned long long)l->ports[i].hw[c].v);
		}
}

int out_prom(FILE *f, const struct prom_input *in)
{
	const char *const lab[] = { "revision", "libbpf", "arch", "design" };
	const char *const val[] = { in->revision, in->libbpf, in->arch, in->design };

	prom_family(f, "build_info", "gauge", "1, labelled with slotscope's version, commit, libbpf, "
		    "architecture, the BPF design attached (\"\" while waiting for NFS) and the running kernel.");
	fputs("slotscope_build_info{version=\"", f);
	prom_lv(f, in->version);
	fputs("\",kernel=\"", f);
	prom_lv(f, in->kernel);
	for (size_t i = 0; i < sizeof(lab) / sizeof(lab[0]); i++) {
		if (!val[i])
			continue;
		fprintf(f, "\",%s=\"", lab[i]);
		prom_lv(f, val[i]);
	}
	fputs("\"} 1\n", f);
	prom_family(f, "tracing", "gauge", "1 while attached; 0 while waiting for NFS (sunrpc) to appear.");
	fprintf(f, "slotscope_tracing %d\n", in->cum != NULL);
	if (in->cum) {
		per_transport(f, in);
		per_mount(f, in);
		links(f, in);
		sessions(f, in);
		prom_answers(f, in);
		prom_windows(f, in);
		prom_family(f, "drops_total", "counter", "Events not counted because a BPF map was full.");
		for (int c = CNT_INFLIGHT_FULL; c <= CNT_JOBS_FULL; c++)
			fprintf(f, "slotscope_drops_total{map=\"%s\"} %llu\n", counter_names[c],
				(unsigned long long)in->cum->counters[c]);
		prom_family(f, "missed_events_total", "counter",
		       "Runs of slotscope's BPF programs the kernel skipped (one was already running on that CPU).");
		fprintf(f, "slotscope_missed_events_total %llu\n",
			(unsigned long long)in->cum->counters[CNT_RECURSION_MISSES]);
		prom_family(f, "level_corrections_total", "counter",
		       "Times a transport's slots in use disagreed with the kernel's own count (num_reqs) and were set to it.");
		fprintf(f, "slotscope_level_corrections_total %llu\n",
			(unsigned long long)in->cum->counters[CNT_LEVEL_CORRECTIONS]);
		prom_family(f, "exposition_mounts_left_out", "gauge",
		       "Mounts this exposition leaves out to stay within its series cap (--prom-max-series).");
		fprintf(f, "slotscope_exposition_mounts_left_out %zu\n", in->mounts_capped);
	}
	prom_family(f, "last_update_timestamp_seconds", "gauge", "When this file was written.");
	fprintf(f, "slotscope_last_update_timestamp_seconds %.3f\n", in->now_wall);
	/* a write error (ENOSPC) is the stream's: its writer reports it with its errno */
	return 0;
}

int out_prom_fn(FILE *f, const void *arg)
{
	return out_prom(f, arg);
}

int prom_write(const char *path, const struct prom_input *in)
{
	struct outfile o;
	int err = outfile_open(&o, path, false);

	if (!err)
		err = outfile_write(&o, out_prom_fn, in);
	outfile_close(&o);
	return err;
}
