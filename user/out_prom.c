// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition, for node_exporter's textfile collector. Counters and histograms
 * come from the cumulative view (since attach); gauges from the latest interval.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "output.h"
#include "uhist.h"
#include "verdict.h"

/* label values: backslash, double quote and newline escaped */
static void lv(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP slotscope_%s %s\n# TYPE slotscope_%s %s\n", name, help, name, type);
}

/* the transport's index among those to the same server and protocol: low cardinality */
static unsigned int xprt_index(const struct view *v, const struct xprt_view *x)
{
	unsigned int n = 0;

	for (size_t i = 0; i < v->nxprts; i++)
		if (v->xprts[i].id < x->id && v->xprts[i].ident == x->ident &&
		    !strcmp(v->xprts[i].addr, x->addr))
			n++;
	return n;
}

static void xlabels(FILE *f, const struct view *v, const struct xprt_view *x)
{
	fputs("server=\"", f);
	lv(f, x->addr);
	fprintf(f, "\",proto=\"%s\",transport=\"%u\"", proto_name(x->ident), xprt_index(v, x));
}

static const struct xprt_view *xprt_of(const struct view *v, __u64 key)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (v->xprts[i].key == key)
			return &v->xprts[i];
	return NULL;
}

static bool same_series(const struct op_view *a, const struct op_view *b)
{
	if (a->k.xprt != b->k.xprt || strcmp(a->name, b->name))
		return false;
	if (!a->mountpoint || !b->mountpoint)
		return !a->mountpoint && !b->mountpoint;
	return !strcmp(a->mountpoint, b->mountpoint);
}

/*
 * The view's ops summed per series: several rpc_clnts of one mount (NFSv3's ACL client, clones)
 * or several clients of no mount can share an op name on a transport, and node_exporter rejects
 * the whole textfile when a series repeats. @out holds v->nops; returns how many series.
 */
static size_t op_series(const struct view *v, struct op_view *out)
{
	size_t n = 0, k;

	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *p = &v->ops[i];

		if (!p->count || !xprt_of(v, p->k.xprt))
			continue;
		for (k = 0; k < n && !same_series(&out[k], p); k++)
			;
		if (k == n) {
			out[n++] = *p;
			continue;
		}
		out[k].count += p->count;
		out[k].ntrans += p->ntrans;
		out[k].errors += p->errors;
		out[k].bytes_sent += p->bytes_sent;
		out[k].bytes_recv += p->bytes_recv;
		for (int s = 0; s < STAGES; s++) {
			out[k].sum_ns[s] += p->sum_ns[s];
			for (int b = 0; b < LAT_BUCKETS; b++)
				out[k].hist[s][b] += p->hist[s][b];
		}
	}
	return n;
}

/* a cumulative histogram: le in seconds from log2 ns buckets, then +Inf, _sum and _count */
static void histogram(FILE *f, const char *name, const char *labels, const __u64 *b, __u64 sum_ns)
{
	__u64 cum = 0;
	unsigned int last = 0;

	for (unsigned int i = 0; i < LAT_BUCKETS; i++)
		if (b[i])
			last = i;
	/* up to the last non-empty bucket: the rest would repeat the count */
	for (unsigned int i = 0; i <= last && i < LAT_BUCKETS - 1; i++) {
		cum += b[i];
		fprintf(f, "slotscope_%s_bucket{%s,le=\"%.9g\"} %llu\n", name, labels,
			(double)lat_bucket_hi(i) / 1e9, (unsigned long long)cum);
	}
	cum = hist_total(b, LAT_BUCKETS);
	fprintf(f, "slotscope_%s_bucket{%s,le=\"+Inf\"} %llu\n", name, labels, (unsigned long long)cum);
	fprintf(f, "slotscope_%s_sum{%s} %.9f\n", name, labels, (double)sum_ns / 1e9);
	fprintf(f, "slotscope_%s_count{%s} %llu\n", name, labels, (unsigned long long)cum);
}

static void xprt_gauge(FILE *f, const struct view *v, const char *name, double (*get)(const struct xprt_view *))
{
	for (size_t i = 0; i < v->nxprts; i++) {
		fprintf(f, "slotscope_%s{", name);
		xlabels(f, v, &v->xprts[i]);
		fprintf(f, "} %.9g\n", get(&v->xprts[i]));
	}
}

#define GETTER(n, expr) static double n(const struct xprt_view *x) { return (double)(expr); }
GETTER(g_in_use, x->in_use > 0 ? x->in_use : 0)
GETTER(g_interval_peak, x->interval_peak)
GETTER(g_limit, x->limit)
GETTER(g_at_limit, x->at_limit_ns / 1e9)
GETTER(g_busy, x->busy_ns / 1e9)
GETTER(g_backlog, x->backlog_now)
GETTER(g_cwnd, x->cwnd)
GETTER(g_cong, x->cong)
GETTER(g_acquires, x->acquires)
GETTER(g_handoffs, x->handoffs)
GETTER(g_sends, x->sends)
GETTER(g_connects, x->connects)
GETTER(g_rate, x->link.rate_gbps * 1e9 / 8)

int out_prom(FILE *f, const struct view *cum, const struct view *iv, double now_wall)
{
	struct op_view *ser;
	size_t nser;
	char labels[512];

	/* per transport: gauges from the interval, counters since attach */
	static const struct {
		const char *name, *help;
		double (*get)(const struct xprt_view *);
		bool counter;
	} per_xprt[] = {
		{ "slots_in_use", "RPC slots in use on the transport now.", g_in_use, false },
		{ "slots_in_use_max", "Highest RPC slots in use in the last interval.", g_interval_peak, false },
		{ "slot_limit", "RPC slot limit of the transport.", g_limit, false },
		{ "slot_limit_seconds_total", "Time with every slot in use.", g_at_limit, true },
		{ "slot_busy_seconds_total", "Time with at least one slot in use.", g_busy, true },
		{ "slot_acquires_total", "Slots taken, handoffs included.", g_acquires, true },
		{ "slot_handoffs_total", "Slots handed from a release straight to a waiter.", g_handoffs, true },
		{ "sends_total", "Successful RPC transmissions (mountstats sends).", g_sends, true },
		{ "connects_total", "Transport (re)connections (mountstats connect_count).", g_connects, true },
		{ "backlog_tasks", "Tasks waiting for a slot at the last event.", g_backlog, false },
		{ "credits_granted", "RDMA/UDP congestion window (server credits), in requests.", g_cwnd, false },
		{ "credits_in_use", "RDMA/UDP credits in use, in requests.", g_cong, false },
	};

	/* before the first line: a file without its ops would pass for a whole one */
	ser = calloc(cum->nops + 1, sizeof(*ser));
	if (!ser)
		return -ENOMEM;
	nser = op_series(cum, ser);
	for (size_t i = 0; i < sizeof(per_xprt) / sizeof(per_xprt[0]); i++) {
		family(f, per_xprt[i].name, per_xprt[i].counter ? "counter" : "gauge", per_xprt[i].help);
		xprt_gauge(f, per_xprt[i].counter ? cum : iv, per_xprt[i].name, per_xprt[i].get);
	}

	family(f, "wait_seconds", "histogram",
	       "Waits for a slot, the send queue or credits, a session slot, an rpc_delay.");
	for (size_t i = 0; i < cum->nxprts; i++)
		for (int k = 0; k < WAIT_KINDS; k++) {
			const struct wait_view *w = &cum->xprts[i].waits[k];
			FILE *l = fmemopen(labels, sizeof(labels), "w");

			xlabels(l, cum, &cum->xprts[i]);
			fprintf(l, ",kind=\"%s\"", wait_kind_names[k]);
			fputc(0, l);
			fclose(l);
			histogram(f, "wait_seconds", labels, w->buckets, w->sum_ns);
		}

	for (int s = 0; s < STAGES; s++) {
		char name[64], help[128];

		snprintf(name, sizeof(name), "op_%s_seconds", stage_names[s]);
		snprintf(help, sizeof(help), "Per-op %s time, as mountstats sums it.", stage_names[s]);
		family(f, name, "histogram", help);
		for (size_t i = 0; i < nser; i++) {
			const struct op_view *o = &ser[i];
			const struct xprt_view *x = xprt_of(cum, o->k.xprt);
			FILE *l = fmemopen(labels, sizeof(labels), "w");

			xlabels(l, cum, x);
			fputs(",mountpoint=\"", l);
			lv(l, o->mountpoint ? o->mountpoint : "");
			fprintf(l, "\",op=\"%s\"", o->name);
			fputc(0, l);
			fclose(l);
			histogram(f, name, labels, o->hist[s], o->sum_ns[s]);
		}
	}
	{
		static const char *const what[] = { "ops_total", "op_bytes_sent_total",
						    "op_bytes_received_total", "op_errors_total",
						    "op_retransmissions_total" };
		static const char *const help[] = { "RPCs completed.", "Bytes sent by RPCs.",
						    "Bytes received by RPCs.", "RPCs that failed.",
						    "Transmissions beyond the first." };

		for (int m = 0; m < 5; m++) {
			family(f, what[m], "counter", help[m]);
			for (size_t i = 0; i < nser; i++) {
				const struct op_view *o = &ser[i];
				const struct xprt_view *x = xprt_of(cum, o->k.xprt);
				__u64 v[] = { o->count, o->bytes_sent, o->bytes_recv, o->errors,
					      o->ntrans > o->count ? o->ntrans - o->count : 0 };

				fprintf(f, "slotscope_%s{", what[m]);
				xlabels(f, cum, x);
				fputs(",mountpoint=\"", f);
				lv(f, o->mountpoint ? o->mountpoint : "");
				fprintf(f, "\",op=\"%s\"} %llu\n", o->name, (unsigned long long)v[m]);
			}
		}
	}

	family(f, "verdict", "gauge", "What limits the transport in the last interval: 1 for its class.");
	for (size_t i = 0; i < iv->nxprts; i++) {
		const struct verdict *d = &iv->xprts[i].verdict;

		for (int c = 0; c < VERDICTS; c++) {
			fputs("slotscope_verdict{", f);
			xlabels(f, iv, &iv->xprts[i]);
			fprintf(f, ",class=\"%s\"} %d\n", verdict_names[c], c == (int)d->cls);
		}
	}
	family(f, "link_rate_bytes", "gauge", "Rate of the link the transport crosses, bytes/s (0: unknown).");
	xprt_gauge(f, iv, "link_rate_bytes", g_rate);

	if (cum->links.sampled) {
		const struct links_view *l = &cum->links;

		family(f, "rdma_port_rate_bytes", "gauge", "RDMA port rate, bytes/s.");
		for (size_t i = 0; i < l->nports; i++)
			if (l->ports[i].port)
				fprintf(f, "slotscope_rdma_port_rate_bytes{device=\"%s\",port=\"%u\"} %.9g\n",
					l->ports[i].dev, l->ports[i].port_num,
					l->ports[i].port->rate_gbps * 1e9 / 8);
		for (int rx = 0; rx < 2; rx++) {
			family(f, rx ? "rdma_rx_bytes_total" : "rdma_tx_bytes_total", "counter",
			       rx ? "Bytes received on the RDMA port (PMA counters or its netdev)."
				  : "Bytes sent on the RDMA port (PMA counters or its netdev).");
			for (size_t i = 0; i < l->nports; i++)
				if (l->ports[i].have_bytes)
					fprintf(f, "slotscope_rdma_%s_bytes_total{device=\"%s\",port=\"%u\"} %llu\n",
						rx ? "rx" : "tx", l->ports[i].dev, l->ports[i].port_num,
						(unsigned long long)(rx ? l->ports[i].rx_bytes : l->ports[i].tx_bytes));
		}
		family(f, "rdma_hw_stat_total", "counter", "Every hw_counters/ entry of the port, by name.");
		for (size_t i = 0; i < l->nports; i++)
			for (size_t c = 0; c < l->ports[i].nhw; c++)
				fprintf(f, "slotscope_rdma_hw_stat_total{device=\"%s\",port=\"%u\",counter=\"%s\"} %llu\n",
					l->ports[i].dev, l->ports[i].port_num, l->ports[i].hw[c].name,
					(unsigned long long)l->ports[i].hw[c].v);
	}
	family(f, "drops_total", "counter", "Events not counted because a BPF map was full.");
	for (int c = CNT_INFLIGHT_FULL; c <= CNT_SESSIONS_FULL; c++)
		fprintf(f, "slotscope_drops_total{map=\"%s\"} %llu\n", counter_names[c],
			(unsigned long long)cum->counters[c]);
	family(f, "missed_events_total", "counter",
	       "Runs of slotscope's BPF programs the kernel skipped (one was already running on that CPU).");
	fprintf(f, "slotscope_missed_events_total %llu\n", (unsigned long long)cum->counters[CNT_RECURSION_MISSES]);
	family(f, "last_update_timestamp_seconds", "gauge", "When this file was written.");
	fprintf(f, "slotscope_last_update_timestamp_seconds %.3f\n", now_wall);
	free(ser);
	return 0;
}

int prom_write(const char *path, const struct view *cum, const struct view *iv, double now_wall)
{
	const char *slash = strrchr(path, '/');
	char tmp[4096];
	int fd, err = 0;
	FILE *f;

	/* same directory, so the rename is atomic; O_EXCL|O_NOFOLLOW: never through a link */
	if (slash)
		snprintf(tmp, sizeof(tmp), "%.*s/.%s.%d.tmp", (int)(slash - path), path, slash + 1, getpid());
	else
		snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", path, getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644);	/* whatever the umask */
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = out_prom(f, cum, iv, now_wall);
	if (!err && (fflush(f) || ferror(f)))
		err = -(errno ? errno : EIO);
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
