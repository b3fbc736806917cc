// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>
#include <sys/utsname.h>
#include "engine/engine.h"
#include "out/json.h"
#include "out/out_json_int.h"
#include "out/output.h"
#include "lib/uhist.h"
#include "model/verdict.h"

/*
 * The JSON lines' schema: bumped whenever a field's meaning changes (added fields do not bump it),
 * so a consumer can tell the numbers it reads (docs/json.md, "schema")
 */
#define JSON_SCHEMA 2

static void hist_json(struct jw *w, const char *key, const __u64 *b)
{
	jw_arr(w, key);
	for (unsigned int i = 0; i < LAT_BUCKETS; i++) {
		if (!b[i])
			continue;
		jw_arr(w, NULL);
		jw_u64(w, NULL, lat_bucket_hi(i));
		jw_u64(w, NULL, b[i]);
		jw_end_arr(w);
	}
	jw_end_arr(w);
}

/* an object opened for level bucket @b of a transport of @limit slots: its "from" and "to" */
static void bucket_obj(struct jw *w, unsigned int b, __u32 limit)
{
	unsigned int lo, hi;

	level_bucket_range(b, limit, &lo, &hi);
	jw_obj(w, NULL);
	jw_u64(w, "from", lo);
	jw_u64(w, "to", hi);
}

static void wait_json(struct jw *w, const char *key, const struct wait_view *wv)
{
	jw_obj(w, key);
	jw_u64(w, "count", wv->count);
	jw_u64(w, "sum_ns", wv->sum_ns);
	jw_u64(w, "max_ns", wv->max_ns);
	jw_dbl(w, "p50_ns", wv->p50_ns);
	jw_dbl(w, "p99_ns", wv->p99_ns);
	hist_json(w, "hist", wv->buckets);
	jw_end_obj(w);
}

static void verdict_json(struct jw *w, const struct xprt_view *x)
{
	const struct verdict *d = &x->verdict;

	jw_obj(w, "verdict");
	jw_str(w, "class", verdict_names[d->cls]);
	jw_str(w, "why", d->why);
	jw_str(w, "knob", d->cls == V_IDLE ? NULL : d->knob);
	jw_dbl(w, "achieved_Bps", d->achieved_Bps);
	jw_dbl(w, "ceiling_Bps", d->ceiling_Bps);
	jw_dbl(w, "held_idle_share", d->held_idle_share);
	jw_dbl(w, "stall_ceiling_Bps", d->stall_ceiling_Bps);
	jw_dbl(w, "link_Bps", d->link_Bps);
	jw_dbl(w, "full_pct", d->full_pct);
	jw_dbl(w, "link_util_pct", d->link_util_pct);
	jw_dbl(w, "rtt_ms", d->rtt_ms);
	jw_obj(w, "wait_share");
	for (int k = 0; k < WAIT_KINDS; k++)
		jw_dbl(w, wait_kind_names[k], d->wait_share[k]);
	jw_end_obj(w);
	jw_bool(w, "v41", d->v41);
	jw_arr(w, "flags");
	for (size_t i = 0; i < d->nflags; i++)
		jw_str(w, NULL, d->flags[i]);
	jw_end_arr(w);
	jw_arr(w, "what_if");
	for (size_t i = 0; i < d->nwhat_if; i++) {
		const struct what_if *wi = &d->what_if[i];

		jw_obj(w, NULL);
		jw_str(w, "knob", wi->knob);
		jw_u64(w, "from", wi->from);
		jw_u64(w, "to", wi->to);
		jw_dbl(w, "predicted_Bps_low", wi->low_Bps);
		jw_dbl(w, "predicted_Bps_high", wi->high_Bps);
		jw_str(w, "next_limit", wi->next_limit);
		jw_dbl(w, "in_flight", wi->in_flight);
		jw_dbl(w, "reach", wi->reach);
		jw_dbl(w, "cpu_Bps", wi->cpu_Bps > 0 ? wi->cpu_Bps : NAN);	/* null: unread */
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_str(w, "what_if_basis", d->what_if_why[0] ? d->what_if_why : NULL);
	jw_end_obj(w);
}

/* the in-flight curve: RPCs by the slots in use (their own included) when each took its slot */
static void curve_json(struct jw *w, const struct xprt_view *x)
{
	const struct curve_view *c = &x->curve;

	jw_arr(w, "inflight_curve");
	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		if (!c->rpcs[b])
			continue;
		bucket_obj(w, b, x->limit);
		jw_u64(w, "rpcs", c->rpcs[b]);
		jw_dbl(w, "rtt_mean_ns", c->rtt_mean_ns[b]);
		jw_dbl(w, "execute_mean_ns", c->exec_mean_ns[b]);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void xprt_json(struct jw *w, const struct view *v, const struct xprt_view *x)
{
	jw_obj(w, NULL);
	jw_u64(w, "id", x->id);
	jw_str(w, "proto", proto_name(x->ident));
	jw_str(w, "server", x->addr);
	jw_str(w, "port", x->port);
	jw_u64(w, "limit", x->limit);
	jw_str(w, "limit_source", x->limit_source);
	jw_u64(w, "max_reqs", x->max_reqs);
	jw_u64(w, "min_reqs", x->min_reqs);
	jw_i64(w, "in_use", x->in_use);
	jw_u64(w, "peak", x->peak);
	jw_u64(w, "interval_peak", x->interval_peak);
	jw_bool(w, "warming_up", x->warming_up);
	jw_bool(w, "destroyed", x->destroyed);
	jw_str(w, "role", x->metadata ? "metadata" : "data");
	jw_dbl(w, "span_s", x->span_ns / 1e9);
	jw_dbl(w, "at_limit_s", x->at_limit_ns / 1e9);
	jw_dbl(w, "at_limit_pct", x->full_pct);
	jw_dbl(w, "busy_s", x->busy_ns / 1e9);
	jw_dbl(w, "mean_in_use", x->mean_in_use);
	jw_arr(w, "levels");
	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		if (!x->level_ns[b])
			continue;
		bucket_obj(w, b, x->limit);
		jw_u64(w, "ns", x->level_ns[b]);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	curve_json(w, x);
	for (size_t i = 0; i < XPRT_COUNTS; i++)
		jw_u64(w, xprt_count_names[i], xprt_count(&x->n, i));
	jw_u64(w, "sends_kernel", x->sends_kernel);
	if (v->span == SPAN_INTERVAL)
		answer_json(w, &x->answer);
	jw_u64(w, "backlog_now", x->backlog_now);
	jw_u64(w, "backlog_max", x->backlog_max);
	jw_u64(w, "sending_max", x->sending_max);
	jw_u64(w, "num_reqs", x->num_reqs);
	jw_obj(w, "credits");
	jw_u64(w, "granted", x->cwnd);
	jw_u64(w, "in_use", x->cong);
	jw_u64(w, "min_granted", x->cwnd_min);
	jw_u64(w, "max_in_use", x->cong_max);
	/* against the grant in force at each moment (#46): null where not measured */
	if (x->credit.known) {
		jw_u64(w, "limit", x->credit.limit);
		jw_u64(w, "limit_min", x->credit.limit_min);
		jw_u64(w, "limit_max", x->credit.limit_max);
		jw_u64(w, "limit_changes", x->credit.limit_changes);
		jw_u64(w, "level", x->credit.level);
		jw_u64(w, "level_peak", x->credit.peak);
		jw_dbl(w, "busy_s", (double)x->credit.busy_ns / 1e9);
		jw_dbl(w, "at_limit_s", (double)x->credit.at_limit_ns / 1e9);
		jw_dbl(w, "at_limit_pct", x->credit.at_limit_pct);
	} else {
		jw_null(w, "limit");
		jw_null(w, "at_limit_pct");
	}
	jw_end_obj(w);
	jw_obj(w, "waits");
	for (int k = 0; k < WAIT_KINDS; k++)
		wait_json(w, wait_kind_names[k], &x->waits[k]);
	jw_end_obj(w);
	jw_u64(w, "ops", x->ops);
	jw_u64(w, "bytes_written", x->bytes_written);
	jw_u64(w, "bytes_read", x->bytes_read);
	jw_arr(w, "mounts");
	for (size_t i = 0; i < x->nmounts; i++) {
		jw_obj(w, NULL);
		jw_str(w, "mountpoint", x->mounts[i].mountpoint);
		jw_u64(w, "clid", x->mounts[i].clid);
		jw_u64(w, "ops", x->mounts[i].ops);
		jw_u64(w, "bytes_written", x->mounts[i].bytes_written);
		jw_u64(w, "bytes_read", x->mounts[i].bytes_read);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	verdict_json(w, x);
	if (x->link.tcp.known) {
		jw_obj(w, "connection");
		jw_dbl(w, "read_s", x->link.tcp.read_s);
		jw_dbl(w, "busy_s", x->link.tcp.busy_s);
		jw_dbl(w, "rwnd_limited_s", x->link.tcp.rwnd_s);
		jw_dbl(w, "sndbuf_limited_s", x->link.tcp.sndbuf_s);
		jw_u64(w, "segments", x->link.tcp.segs_out);
		jw_u64(w, "retransmits", x->link.tcp.retrans);
		jw_end_obj(w);
	} else {
		jw_null(w, "connection");
	}
	if (x->link.tcp.min_rtt_s > 0) {
		jw_obj(w, "connection_limits");
		jw_dbl(w, "window_max_bytes", x->link.tcp.wnd_max);
		jw_dbl(w, "sndbuf_bytes", x->link.tcp.sndbuf_bytes);
		jw_dbl(w, "min_rtt_ms", x->link.tcp.min_rtt_s * 1e3);
		jw_dbl(w, "most_Bps", x->link.tcp.most_Bps);
		jw_end_obj(w);
	} else {
		jw_null(w, "connection_limits");
	}
	if (v->links.sampled) {
		const struct xprt_link *k = &x->link;
		const struct port_delta *p = k->port >= 0 ? &v->links.ports[k->port] : NULL;

		jw_obj(w, "link");
		jw_str(w, "netdev", k->known && k->netdev[0] ? k->netdev : NULL);
		jw_str(w, "from", k->from);
		jw_str(w, "rdma_device", p ? p->dev : NULL);
		if (p)
			jw_u64(w, "rdma_port", p->port_num);
		else
			jw_null(w, "rdma_port");
		jw_dbl(w, "rate_gbps", k->rate_gbps);
		jw_str(w, "bytes_from", k->bytes_from);
		jw_dbl(w, "tx_gbps", k->tx_gbps);
		jw_dbl(w, "rx_gbps", k->rx_gbps);
		jw_dbl(w, "tx_util_pct", k->tx_util_pct);
		jw_dbl(w, "rx_util_pct", k->rx_util_pct);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static void links_json(struct jw *w, const struct view *v)
{
	const struct links_view *l = &v->links;

	jw_obj(w, "links");
	jw_str(w, "note", l->nports ? NULL : l->why_empty);
	jw_arr(w, "rdma_ports");
	for (size_t i = 0; i < l->nports; i++) {
		const struct port_delta *d = &l->ports[i];
		const struct rdma_port *p = d->port;

		jw_obj(w, NULL);
		jw_str(w, "device", d->dev);
		jw_u64(w, "port", d->port_num);
		jw_bool(w, "removed", d->removed);
		jw_bool(w, "added", d->added);
		if (p) {
			jw_str(w, "state", p->state);
			jw_str(w, "link_layer", p->link_layer);
			jw_str(w, "rate", p->rate_str);
			jw_dbl(w, "rate_gbps", p->rate_gbps);
			jw_str(w, "rate_from", p->rate_from_verbs ? "verbs" : "sysfs");
			jw_str(w, "netdev", p->nd.name[0] ? p->nd.name : NULL);
		}
		jw_str(w, "bytes_from", d->have_bytes ? d->bytes_from : NULL);
		jw_u64(w, "tx_bytes", d->tx_bytes);
		jw_u64(w, "rx_bytes", d->rx_bytes);
		jw_u64(w, "tx_packets", d->tx_pkts);
		jw_u64(w, "rx_packets", d->rx_pkts);
		jw_dbl(w, "tx_gbps", d->tx_gbps);
		jw_dbl(w, "rx_gbps", d->rx_gbps);
		jw_dbl(w, "tx_util_pct", d->tx_util_pct);
		jw_dbl(w, "rx_util_pct", d->rx_util_pct);
		jw_obj(w, "hw_counters");
		for (size_t c = 0; c < d->nhw; c++)
			jw_u64(w, d->hw[c].name, d->hw[c].v);
		jw_end_obj(w);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	/* the netdevs that matter: under an RDMA port or on a transport's route */
	jw_arr(w, "netdevs");
	for (size_t i = 0; i < l->nnds; i++) {
		const struct netdev_delta *n = &l->nds[i];

		if (!n->used)
			continue;
		jw_obj(w, NULL);
		jw_str(w, "name", n->name);
		jw_dbl(w, "speed_gbps", n->speed_gbps);
		jw_u64(w, "tx_bytes", n->tx_bytes);
		jw_u64(w, "rx_bytes", n->rx_bytes);
		jw_u64(w, "tx_packets", n->tx_packets);
		jw_u64(w, "rx_packets", n->rx_packets);
		jw_dbl(w, "tx_gbps", n->tx_gbps);
		jw_dbl(w, "rx_gbps", n->rx_gbps);
		jw_dbl(w, "tx_util_pct", n->tx_util_pct);
		jw_dbl(w, "rx_util_pct", n->rx_util_pct);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

static __u32 xprt_id_of(const struct xprt_index *ix, __u64 key)
{
	const struct xprt_view *x = xprt_index_find(ix, key);

	return x ? x->id : 0;
}

static void op_json(struct jw *w, const struct xprt_index *ix, const struct op_view *o)
{
	jw_obj(w, NULL);
	jw_u64(w, "xprt_id", xprt_id_of(ix, o->k.xprt));
	jw_u64(w, "clid", o->k.clid);
	jw_str(w, "mountpoint", o->mountpoint);
	jw_u64(w, "prog", o->k.prog);
	jw_u64(w, "vers", o->k.vers);
	jw_str(w, "op", o->name);
	jw_u64(w, "count", o->count);
	jw_u64(w, "ntrans", o->ntrans);
	jw_u64(w, "timeouts", o->timeouts);
	jw_u64(w, "errors", o->errors);
	jw_u64(w, "bytes_sent", o->bytes_sent);
	jw_u64(w, "bytes_recv", o->bytes_recv);
	for (int s = 0; s < STAGES; s++) {
		jw_obj(w, stage_names[s]);
		jw_u64(w, "sum_ns", o->sum_ns[s]);
		jw_dbl(w, "p50_ns", o->p50_ns[s]);
		jw_dbl(w, "p99_ns", o->p99_ns[s]);
		hist_json(w, "hist", o->hist[s]);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static void view_json(struct jw *w, const struct view *v);

void out_json(FILE *f, const struct view *v)
{
	struct jw w;

	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_str(&w, "type", v->final ? "summary" : "interval");
	jw_u64(&w, "schema", JSON_SCHEMA);
	view_json(&w, v);
	if (v->final) {
		jw_obj(&w, "self");
		jw_dbl(&w, "user_s", v->cost.user_s);
		jw_dbl(&w, "sys_s", v->cost.sys_s);
		jw_u64(&w, "max_rss_kib", v->cost.max_rss_kib);
		jw_dbl(&w, "startup_cpu_s", v->cost.startup_cpu_s);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_done(&w);
}

static void jobs_json(struct jw *w, const struct win_jobs *js)
{
	const struct win_job *top = js && js->nj ? &js->j[0] : NULL;

	jw_obj(w, "job");
	jw_str(w, "kind", top ? top->id.kind : "unknown");
	jw_str(w, "id", top && top->id.id[0] ? top->id.id : NULL);
	jw_end_obj(w);
	if (!js) {
		jw_null(w, "jobs_total");
		jw_null(w, "jobs");
		return;
	}
	/* every job, those past the ones listed too: what the listed ones are a part of */
	jw_obj(w, "jobs_total");
	jw_u64(w, "n", js->nj);
	jw_u64(w, "io_bytes", js->total);
	jw_u64(w, "rpc_bytes", js->rpc_total);
	jw_end_obj(w);
	jw_arr(w, "jobs");
	for (size_t i = 0; i < js->nj && i < WIN_JOBS_SHOWN; i++) {
		const struct win_job *j = &js->j[i];

		jw_obj(w, NULL);
		jw_str(w, "kind", j->id.kind);
		jw_str(w, "id", j->id.id[0] ? j->id.id : NULL);
		jw_str(w, "step", j->id.step[0] ? j->id.step : NULL);
		if (j->uid != JOB_UNKNOWN_UID)
			jw_u64(w, "uid", j->uid);
		else
			jw_null(w, "uid");
		jw_str(w, "user", j->user[0] ? j->user : NULL);
		jw_u64(w, "processes", j->nprocs);
		jw_u64(w, "io_bytes", j->bytes);
		jw_u64(w, "rpc_bytes", j->rpc_bytes);
		if (j->share >= 0)
			jw_dbl(w, "share", j->share);
		else
			jw_null(w, "share");
		jw_u64(w, "rpcs", j->rpcs);
		jw_obj(w, "rpc_seconds");
		jw_dbl(w, "total", j->rpc_s);
		for (int c = 0; c < JS_CAUSES; c++)
			jw_dbl(w, job_cause_names[c], j->cause_rpc_s[c]);
		jw_end_obj(w);
		jw_dbl(w, "active_s", j->active_s);
		jw_obj(w, "seconds");
		for (int c = 0; c < JS_CAUSES; c++)
			jw_dbl(w, job_cause_names[c], j->cause_s[c]);
		jw_end_obj(w);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

void out_window_json(FILE *f, const struct view *v, const struct window_view *c)
{
	struct jw w;

	jw_init(&w, f);
	jw_obj(&w, NULL);
	/* a checkpoint record keeps its type; a restore is a record of its own type */
	jw_str(&w, "type", win_kind_names[c->kind]);
	jw_u64(&w, "schema", JSON_SCHEMA);
	jw_str(&w, "kind", win_kind_names[c->kind]);
	jw_u64(&w, "n", c->n);
	jw_time(&w, "start_wall", c->start_wall);
	jw_time(&w, "end_wall", c->end_wall);
	jw_dbl(&w, "duration_s", c->secs);
	jw_dbl(&w, "bytes_written", c->bytes_written);
	jw_dbl(&w, "bytes_read", c->bytes_read);
	jw_dbl(&w, "GBps", c->GBps);
	jw_bool(&w, "mixed", c->mixed);
	jw_bool(&w, "cut", c->cut);
	jobs_json(&w, c->jobs);
	jw_arr(&w, "saturated");
	for (size_t i = 0; i < c->nsat; i++) {
		jw_obj(&w, NULL);
		jw_u64(&w, "xprt_id", c->sat[i].xprt_id);
		jw_dbl(&w, "saturated_s", c->sat[i].secs);
		if (c->sat[i].util_pct >= 0)
			jw_dbl(&w, "link_util_pct", c->sat[i].util_pct);
		else
			jw_null(&w, "link_util_pct");
		jw_u64(&w, "peak", c->sat[i].peak);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	view_json(&w, v);
	jw_end_obj(&w);
	jw_done(&w);
}

void out_audit_json(FILE *f, const struct audit *a)
{
	struct jw w;

	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "audit");
	jw_u64(&w, "schema", JSON_SCHEMA);
	jw_str(&w, "version", SLOTSCOPE_VERSION);
	{
		struct utsname u;

		jw_str(&w, "host", uname(&u) ? NULL : u.nodename);
		jw_str(&w, "kernel", uname(&u) ? NULL : u.release);
	}
	jw_obj(&w, "stack");
	jw_str(&w, "name", a->stack);
	jw_str(&w, "version", a->stack_version[0] ? a->stack_version : NULL);
	jw_u64(&w, "nconnect_max", a->nconnect_max);
	jw_end_obj(&w);
	jw_i64(&w, "tcp_max_slot_table_entries", a->tcp_max_slots);
	jw_i64(&w, "rdma_slot_table_entries", a->rdma_slots);
	jw_i64(&w, "max_session_slots", a->max_session_slots);
	jw_i64(&w, "tcp_wmem_max", a->tcp_wmem_max);
	jw_bool(&w, "sysfs", a->have_sysfs);
	jw_arr(&w, "transports");
	for (size_t i = 0; i < a->nx; i++) {
		const struct audit_xprt *x = &a->x[i];

		jw_obj(&w, NULL);
		jw_u64(&w, "id", x->id);
		jw_u64(&w, "switch", x->switch_id);
		jw_str(&w, "proto", x->proto);
		jw_str(&w, "server", x->dstaddr);
		jw_u64(&w, "port", x->dst_port);
		jw_u64(&w, "max_slots", x->max_slots);
		jw_u64(&w, "num_reqs", x->num_reqs);
		jw_u64(&w, "backlog", x->backlog_q_len);
		jw_u64(&w, "cong_win", x->cong_win);
		jw_bool(&w, "main", x->main);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_arr(&w, "mounts");
	for (size_t i = 0; i < a->nm; i++) {
		const struct audit_mount *m = &a->m[i];

		jw_obj(&w, NULL);
		jw_str(&w, "mountpoint", m->m->mountpoint);
		jw_str(&w, "source", m->m->source);
		jw_str(&w, "vers", m->vers);
		jw_str(&w, "proto", m->proto);
		jw_str(&w, "server", m->addr);
		jw_u64(&w, "rsize", m->rsize);
		jw_u64(&w, "wsize", m->wsize);
		jw_u64(&w, "nconnect", m->nconnect);
		jw_u64(&w, "transports", m->xprts);
		jw_u64(&w, "addresses", m->naddrs);
		if (m->remoteports[0])
			jw_str(&w, "remoteports", m->remoteports);
		else
			jw_null(&w, "remoteports");
		if (m->localports[0])
			jw_str(&w, "localports", m->localports);
		else
			jw_null(&w, "localports");
		jw_u64(&w, "max_slots", m->max_slots);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_arr(&w, "warnings");
	for (size_t i = 0; i < a->nwarn; i++)
		jw_str(&w, NULL, a->warn[i]);
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_done(&w);
}

static void view_json(struct jw *w, const struct view *v)
{
	struct xprt_index ix;

	jw_dbl(w, "ts", v->ts_s);
	jw_time(w, "wall", v->wall);
	jw_dbl(w, "interval_s", v->interval_s);
	jw_dbl(w, "cpu_busy_pct", v->cpu_busy_pct >= 0 ? v->cpu_busy_pct : NAN);	/* null: unread */
	jw_arr(w, "transports");
	for (size_t i = 0; i < v->nxprts; i++)
		xprt_json(w, v, &v->xprts[i]);
	jw_end_arr(w);
	/* each op and session names its transport by id */
	xprt_index_make(&ix, v);
	jw_arr(w, "ops");
	for (size_t i = 0; i < v->nops; i++)
		if (v->ops[i].count || v->final)
			op_json(w, &ix, &v->ops[i]);
	jw_end_arr(w);
	jw_arr(w, "sessions");
	for (size_t i = 0; i < v->nsessions; i++) {
		const struct session_view *s = &v->sessions[i];

		jw_obj(w, NULL);
		jw_u64(w, "xprt_id", xprt_id_of(&ix, s->xprt));
		jw_u64(w, "clid", s->clid);
		jw_str(w, "mountpoint", s->mountpoint);
		jw_u64(w, "max_slots", s->s.max_slots);
		jw_i64(w, "target_highest_slotid", (__s32)s->s.target_highest_slotid);
		jw_i64(w, "highest_used_slotid", (__s32)s->s.highest_used_slotid);
		jw_i64(w, "server_highest_slotid", (__s32)s->s.server_highest_slotid);
		jw_u64(w, "peak_used_slotid", s->s.peak_used_slotid);
		jw_u64(w, "sequences", s->sequences);
		/* the limit in force and the time against it (#46): null where not measured */
		if (s->levels_known) {
			jw_u64(w, "limit", s->s.limit);
			jw_u64(w, "limit_min", s->s.limit_min);
			jw_u64(w, "limit_max", s->s.limit_max);
			jw_u64(w, "limit_changes", s->limit_changes);
			jw_u64(w, "in_use", s->s.level);
			jw_u64(w, "in_use_peak", s->s.level_peak);
			jw_dbl(w, "busy_s", (double)s->busy_ns / 1e9);
			jw_dbl(w, "at_limit_s", (double)s->at_limit_ns / 1e9);
			jw_dbl(w, "at_limit_pct", s->at_limit_pct);
		} else {
			jw_null(w, "limit");
			jw_null(w, "at_limit_pct");
		}
		jw_end_obj(w);
	}
	jw_end_arr(w);
	xprt_index_free(&ix);
	if (v->span == SPAN_INTERVAL)
		answers_json(w, v);
	if (v->links.sampled)
		links_json(w, v);
	jw_obj(w, "counters");
	for (int c = 0; c < NCOUNTERS; c++)
		jw_u64(w, counter_names[c], v->counters[c]);
	jw_end_obj(w);
}
