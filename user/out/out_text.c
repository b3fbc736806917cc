// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <time.h>
#include "engine/engine.h"
#include "lib/fmt.h"
#include "out/output.h"
#include "lib/util.h"
#include "lib/uhist.h"
#include "lib/utf8.h"
#include "model/verdict.h"

#define WIDTH TEXT_WIDTH

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

static const char *clock_str(char *buf, size_t len, double wall)
{
	time_t t = (time_t)wall;
	struct tm tm;

	if (wall <= 0 || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%02d:%02d:%02d.%d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)((wall - (double)t) * 10));
	return buf;
}

static void header(FILE *f)
{
	fprintf(f, "%3s %-5s %-22s %-13s %7s %s\n", "ID", "PROTO", "SERVER", "STATE", "OLDEST", "MOUNTS");
	fprintf(f, "    %-14s %6s %4s %17s %6s %7s %7s %15s %6s %5s\n", "NOW/MAX/LIMIT", "%FULL",
		"WAIT", "SLOTWAIT p50/p99", "OPS/s", "WR MB/s", "RD MB/s", "RTT p50/p99", "LINK", "%RATE");
}

/* names reach the terminal by name_next() (utf8.h): no ESC, OSC or CR of a user's making */
static void mounts_str(char *buf, size_t len, const struct xprt_view *x)
{
	char name[256];
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < x->nmounts && o < len; i++)
		if (x->mounts[i].mountpoint)
			o += snprintf(buf + o, len - o, "%s%s", o ? " " : "",
				      name_str(name, sizeof(name), x->mounts[i].mountpoint));
	if (!o)
		snprintf(buf, len, "-");
}

/*
 * "if KNOB FROM->TO: LOW-HIGH (NEXT); ->TO: ...", a knob named once; a step past the curve's
 * reach "at least LOW, at most HIGH (then unknown)"
 */
static void what_if_line(FILE *f, const struct verdict *vd)
{
	char line[1024], r[48], lo[48];
	size_t o = 0;

	if (!vd->nwhat_if)
		return;
	for (size_t i = 0; i < vd->nwhat_if && o < sizeof(line); i++) {
		const struct what_if *w = &vd->what_if[i];
		bool same = i && !strcmp(vd->what_if[i - 1].knob, w->knob);

		if (same)
			o += snprintf(line + o, sizeof(line) - o, "; ->%u: ", w->to);
		else
			o += snprintf(line + o, sizeof(line) - o, "%sif %s %u->%u: ", i ? "; " : "",
				      w->knob, w->from, w->to);
		if (o >= sizeof(line))
			break;
		if (w->next_limit == whatif_unknown && w->high_Bps > w->low_Bps)
			o += snprintf(line + o, sizeof(line) - o, "at least %s, at most %s (then %s)",
				      fmt_rate(lo, sizeof(lo), w->low_Bps, w->low_Bps),
				      fmt_rate(r, sizeof(r), w->high_Bps, w->high_Bps), w->next_limit);
		else
			o += snprintf(line + o, sizeof(line) - o, "%s (then %s)",
				      fmt_rate(r, sizeof(r), w->low_Bps, w->high_Bps), w->next_limit);
	}
	print_wrapped(f, "    ?> ", line);
	print_wrapped(f, "       ", vd->what_if_why);
}

/* the in-flight curve by quarters of the limit: "in flight when taken (RPCs, mean RTT): ..." */
static void curve_line(FILE *f, const struct curve_view *c)
{
	char line[400], t[16];
	size_t o;

	if (!c->ngroups)
		return;
	o = (size_t)snprintf(line, sizeof(line), "in flight when taken (RPCs, mean RTT):");
	for (size_t i = 0; i < c->ngroups && o < sizeof(line); i++) {
		const struct curve_group *g = &c->groups[i];

		if (g->lo == g->hi)
			o += snprintf(line + o, sizeof(line) - o, " %u: ", g->lo);
		else
			o += snprintf(line + o, sizeof(line) - o, " %u-%u: ", g->lo, g->hi);
		if (o < sizeof(line))
			o += snprintf(line + o, sizeof(line) - o, "%llu, %s%s",
				      (unsigned long long)g->rpcs, dur(t, sizeof(t), g->rtt_mean_ns),
				      i + 1 < c->ngroups ? ";" : "");
	}
	print_wrapped(f, "    ~  ", line);
}

void out_xprt_row(FILE *f, const struct xprt_view *x, bool with_verdict)
{
	const struct wait_view *sw = &x->waits[WAIT_SLOT];
	char srv[64], mnt[256], slots[32], b[16], c[16], d[16], e[16], link[16], pct[16], a[64];
	const struct verdict *vd = &x->verdict;

	snprintf(srv, sizeof(srv), "%s:%s", name_str(a, sizeof(a), x->addr), x->port);
	mounts_str(mnt, sizeof(mnt), x);
	fprintf(f, "%3u %-5s %-22.22s %-13s %7s %.50s%s\n", x->id, proto_name(x->ident), srv,
		x->answer.threshold_s > 0 ? answer_state_names[x->answer.state] : "-", x->answer.unanswered ?
		dur(c, sizeof(c), x->answer.oldest_s * 1e9) : "-", mnt, x->warming_up ? " (warming up)" : "");
	snprintf(slots, sizeof(slots), "%d/%u/%u", x->in_use, x->interval_peak, x->limit);
	if (x->link.rate_gbps > 0 || x->link.bytes_from) {
		snprintf(link, sizeof(link), "%.2f", x->link.gbps);
		if (x->link.rate_gbps > 0)
			snprintf(pct, sizeof(pct), "%.1f%%", x->link.util_pct);
		else
			snprintf(pct, sizeof(pct), "-");
	} else {
		snprintf(link, sizeof(link), "-");
		snprintf(pct, sizeof(pct), "-");
	}
	snprintf(e, sizeof(e), "%s/", dur(b, sizeof(b), sw->p50_ns));
	fprintf(f, "    %-14s %5.1f%% %4u %8s%-9s %6.0f %7.1f %7.1f %7s/%-7s %6s %5s\n", slots,
		x->full_pct,
		x->backlog_shown, e, dur(c, sizeof(c), sw->p99_ns),
		x->ops_per_s, x->write_Bps / 1e6, x->read_Bps / 1e6, dur(d, sizeof(d), x->rtt_p50_ns),
		dur(b, sizeof(b), x->rtt_p99_ns), link,
		pct);
	if (!with_verdict)
		return;
	if (vd->cls == V_IDLE)
		return;
	{
		char line[320];

		snprintf(line, sizeof(line), "%s: %s", verdict_names[vd->cls], vd->why);
		print_wrapped(f, "    => ", line);
		print_wrapped(f, "       ", vd->knob);
		what_if_line(f, vd);
		curve_line(f, &x->curve);
		for (size_t i = 0; i < vd->nflags; i++)
			print_wrapped(f, "    !! ", vd->flags[i]);
	}
}

void out_text(FILE *f, const struct view *v)
{
	char t[32];
	int shown = 0;

	for (size_t i = 0; i < v->nxprts; i++) {
		const struct xprt_view *x = &v->xprts[i];

		if (!v->final && xprt_view_idle(x))
			continue;
		if (!shown++) {
			if (v->final)
				fprintf(f, "\nSummary: %.1fs traced\n", v->interval_s);
			else
				fprintf(f, "\n%s  interval %.1fs\n", clock_str(t, sizeof(t), v->wall), v->interval_s);
			header(f);
		}
		out_xprt_row(f, x, true);
	}
	if (v->final && !shown)
		fprintf(f, "\nSummary: %.1fs traced; no RPC transport was active\n", v->interval_s);
	/* a session's slots against the limit in force, which its server may move (#46) */
	for (size_t i = 0; i < v->nsessions; i++) {
		const struct session_view *s = &v->sessions[i];

		if (!s->levels_known || !s->busy_ns)
			continue;
		fprintf(f, "  session %s: %llu of %u slots in use (limit %u..%u, %llu changes), at the limit "
			"%.1f%% of %.2fs busy\n", s->mountpoint ? s->mountpoint : "?",
			(unsigned long long)s->s.level, s->s.limit, s->s.limit_min, s->s.limit_max,
			(unsigned long long)s->limit_changes, s->at_limit_pct, (double)s->busy_ns / 1e9);
	}
	/* a transport's credits against the server's grant in force, which moves (#46) */
	for (size_t i = 0; i < v->nxprts; i++) {
		const struct credit_view *c = &v->xprts[i].credit;

		if (!c->known || !c->busy_ns)
			continue;
		fprintf(f, "  credits %u: %u of %u in use (grant %u..%u, %llu changes), at the grant "
			"%.1f%% of %.2fs busy\n", v->xprts[i].id, c->level, c->limit, c->limit_min,
			c->limit_max, (unsigned long long)c->limit_changes, c->at_limit_pct,
			(double)c->busy_ns / 1e9);
	}
	out_answers_text(f, v);
	if (v->final && v->links.sampled && !v->links.nports)
		fprintf(f, "(%s)\n", v->links.why_empty);
	if (v->final && v->drops)
		fprintf(f, "warning: %llu events not counted: BPF maps full (see --json counters)\n",
			(unsigned long long)v->drops);
	fflush(f);
}

void out_window_text(FILE *f, const struct view *v, const struct window_view *c)
{
	char a[32], b[32];

	const struct win_jobs *js = c->jobs;

	fprintf(f, "\n%s %u: %s -> %s, %.1f s, %.1f MiB %s, %.3f GB/s%s%s\n",
		c->kind == WIN_RESTORE ? "Restore" : "Checkpoint", c->n,
		clock_str(a, sizeof(a), c->start_wall), clock_str(b, sizeof(b), c->end_wall), c->secs,
		(c->kind == WIN_RESTORE ? c->bytes_read : c->bytes_written) / 1048576,
		c->kind == WIN_RESTORE ? "read" : "written", c->GBps,
		c->mixed ? (c->kind == WIN_RESTORE ? " (mixed: writes too)" : " (mixed: reads too)") : "",
		c->cut ? " (cut at --window-max: the next goes on)" : "");
	if (js && !js->nj)
		fprintf(f, "  job: unknown (no process seen using its mounts)\n");
	for (size_t i = 0; js && i < js->nj && i < WIN_JOBS_SHOWN; i++) {
		const struct win_job *j = &js->j[i];
		char id[256], step[128], user[128];

		/* cgroup and user names are any user's to choose */
		fprintf(f, "  job: %s %s%s%s", j->id.kind, name_str(id, sizeof(id), j->id.id),
			j->id.step[0] ? " step " : "", name_str(step, sizeof(step), j->id.step));
		if (j->user[0])
			fprintf(f, ", user %s", name_str(user, sizeof(user), j->user));
		else if (j->uid != JOB_UNKNOWN_UID)
			fprintf(f, ", uid %u", j->uid);
		fprintf(f, ", %u process%s", j->nprocs, j->nprocs == 1 ? "" : "es");
		if (j->share >= 0)
			fprintf(f, ", %.0f%% of their RPC bytes", 100 * j->share);
		fputc('\n', f);
		/* where its RPCs' time went, as seconds of its time in the window: what its writers waited on */
		if (j->rpc_s > 0) {
			fprintf(f, "    its %llu RPCs, its %.1f s of the window by cause:",
				(unsigned long long)j->rpcs, j->active_s);
			for (int k = 0; k < JS_CAUSES; k++)
				if (j->cause_s[k] >= 0.05)
					fprintf(f, " %s %.1f", job_cause_names[k], j->cause_s[k]);
			fputc('\n', f);
		}
	}
	header(f);
	for (size_t i = 0; i < v->nxprts; i++) {
		const struct xprt_view *x = &v->xprts[i];
		const struct window_sat_view *s = window_view_sat(c, x->key);

		if (xprt_view_idle(x))
			continue;
		out_xprt_row(f, x, true);
		if (s && s->secs > 0 && s->util_pct >= 0)
			fprintf(f, "    link while the slots were full (%.1f s): %.2f%% of %.1f Gb/s\n",
				s->secs, s->util_pct, x->link.rate_gbps);
		else if (s && s->secs > 0)
			fprintf(f, "    slots full for %.1f s; link rate unknown\n", s->secs);
	}
	fflush(f);
}
