// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "engine.h"
#include "output.h"
#include "uhist.h"

/* 1.23ms style: 3 significant digits, unit picked from the value */
static const char *dur(char *buf, size_t len, double ns)
{
	if (ns <= 0)
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", ns / 1e9);
	return buf;
}

/* RTT percentiles of all ops on a transport: merge their histograms */
static void rtt_pct(const struct view *v, __u64 xprt, double *p50, double *p99)
{
	__u64 h[LAT_BUCKETS] = { 0 };

	for (size_t i = 0; i < v->nops; i++)
		if (v->ops[i].k.xprt == xprt)
			for (int b = 0; b < LAT_BUCKETS; b++)
				h[b] += v->ops[i].hist[STAGE_RTT][b];
	*p50 = hist_quantile(h, LAT_BUCKETS, 0.5);
	*p99 = hist_quantile(h, LAT_BUCKETS, 0.99);
}

void out_text(FILE *f, const struct view *v)
{
	double secs = v->interval_s > 0 ? v->interval_s : 1;
	int shown = 0;

	for (size_t i = 0; i < v->nxprts; i++) {
		const struct xprt_view *x = &v->xprts[i];
		const struct wait_view *sw = &x->waits[WAIT_SLOT];
		char a[24], b[16], c[16], d[16], e[16], srv[24];
		double r50, r99;

		if (!v->final && xprt_view_idle(x))
			continue;
		if (!shown++) {
			fprintf(f, v->final ? "\nSummary over %.1fs\n" : "\n%.1fs interval\n", v->interval_s);
			fprintf(f, "%-4s %-5s %-18s %11s %6s %5s %17s %7s %7s %15s\n", "ID", "PROTO", "SERVER",
				"SLOTS/LIMIT", "%FULL", "WAIT", "SLOTWAIT p50/p99", "OPS/s", "WR MB/s",
				"RTT p50/p99");
		}
		rtt_pct(v, x->key, &r50, &r99);
		snprintf(srv, sizeof(srv), "%.18s", x->addr);
		snprintf(a, sizeof(a), "%u/%u", v->final ? x->peak : x->interval_peak, x->limit);
		fprintf(f, "%-4u %-5s %-18s %11s %5.1f%% %5u %8s/%-8s %7.0f %7.1f %7s/%s%s\n", x->id,
			proto_name(x->ident), srv, a,
			x->span_ns > 0 ? 100.0 * x->at_limit_ns / x->span_ns : 0.0,
			v->final ? x->backlog_max : x->backlog_now, dur(b, sizeof(b), sw->p50_ns),
			dur(c, sizeof(c), sw->p99_ns), (double)x->ops / secs,
			(double)x->bytes_written / secs / 1e6, dur(d, sizeof(d), r50),
			dur(e, sizeof(e), r99), x->warming_up ? " (warming up)" : "");
	}
	if (v->final && !shown)
		fprintf(f, "\nSummary over %.1fs: no RPC transport was active\n", v->interval_s);
	fflush(f);
}
