// SPDX-License-Identifier: GPL-2.0
/*
 * model_build(): snapshots, links, mounts and the caller's settings in, the finished view out.
 * The order of its steps is this file's, not its callers'.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "host/audit.h"
#include "host/cpustat.h"
#include "model/model.h"
#include "model/owners.h"
#include "model/snapindex.h"
#include "lib/uhist.h"
#include "lib/util.h"
#include "model/verdict.h"
#include "model/whatif.h"

static void wait_view(struct wait_view *w, const struct wait_hist *cur, const struct wait_hist *prev)
{
	w->count = delta_u64(cur->count, prev ? prev->count : 0);
	w->sum_ns = delta_u64(cur->sum_ns, prev ? prev->sum_ns : 0);
	w->max_ns = cur->max_ns;
	hist_sub(w->buckets, cur->buckets, prev ? prev->buckets : NULL, LAT_BUCKETS);
	hist_p50_p99(w->buckets, LAT_BUCKETS, &w->p50_ns, &w->p99_ns);
}

static void curve_view(struct curve_view *c, const struct xprt_stats *x, const struct xprt_stats *o)
{
	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		const struct curve_point *p = &x->curve[b], *q = o ? &o->curve[b] : NULL;

		c->rpcs[b] = delta_u64(p->rpcs, q ? q->rpcs : 0);
		c->rtt_ns[b] = delta_u64(p->rtt_ns, q ? q->rtt_ns : 0);
		c->exec_ns[b] = delta_u64(p->exec_ns, q ? q->exec_ns : 0);
	}
	curve_finish(c, x->limit);
}

/*
 * A level the kernel cannot hold, bounded: where the limit is proven (max_reqs over TCP and UDP,
 * a pool counted or proven by BTF), num_reqs never passes it (xprt_dynamic_alloc_slot() allocates
 * only while num_reqs < max_reqs; an RDMA pool holds its own count of requests), and a count that
 * did is a race between CPUs the next event's correction (level_cap()) already mends; its time is
 * in the limit's bucket either way. A peak of 17 of 16 was that (test_level_truth, 6.12, CI, once in
 * about 60 runs after five races were closed one by one). An assumed or inferred pool's limit is
 * a guess a higher level raises, so it bounds nothing.
 */
static __u32 level_bounded(__u32 level, const struct xprt_view *v)
{
	return v->limit_firm && level > v->limit ? v->limit : level;
}

static void xprt_view(struct xprt_view *v, const struct xprt_snap *c, const struct xprt_snap *p,
		      __u32 epoch, enum view_span span)
{
	const struct xprt_stats *x = &c->s, *o = p ? &p->s : NULL;
	double weighted = 0;

	memset(v, 0, sizeof(*v));
	v->key = c->key;
	v->first_seen_ns = x->first_seen_ns;
	v->id = x->id;
	v->ident = x->ident;
	v->limit = x->limit;
	v->max_reqs = x->max_reqs;
	v->limit_source = limit_source_name(x->flags);
	v->limit_firm = x->limit && !(x->flags & (XF_LIMIT_ASSUMED | XF_LIMIT_INFERRED));
	v->min_reqs = x->min_reqs;
	memcpy(v->addr, x->addr, sizeof(v->addr));
	memcpy(v->port, x->port, sizeof(v->port));
	v->addr[ADDR_LEN - 1] = v->port[PORT_LEN - 1] = 0;
	v->in_use = x->in_use;
	v->in_use_shown = level_bounded(x->in_use > 0 ? (__u32)x->in_use : 0, v);
	v->peak = level_bounded(x->peak, v);
	/* a window's peak is its detector's (window_peaks), set once the view is made */
	if (span == SPAN_SUMMARY)
		v->interval_peak = v->peak;
	else if (x->epoch_of[epoch & 1] == epoch)
		v->interval_peak = level_bounded(x->epoch_peak[epoch & 1], v);
	else
		v->interval_peak = v->in_use_shown;	/* no change in it */
	v->destroyed = x->flags & XF_DESTROYED;
	v->metadata = x->flags & XF_METADATA;
	hist_sub(v->level_ns, x->level_ns, o ? o->level_ns : NULL, LEVEL_BUCKETS);
	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		unsigned int lo, hi;

		level_bucket_range(b, x->limit, &lo, &hi);
		v->span_ns += (double)v->level_ns[b];
		weighted += (double)v->level_ns[b] * (lo + hi) / 2.0;
		if (b > 0)
			v->busy_ns += (double)v->level_ns[b];
	}
	curve_view(&v->curve, x, o);
	curve_view(&v->curve_all, x, NULL);
	v->at_limit_ns = (double)v->level_ns[LEVEL_BUCKETS - 1];
	v->full_pct = v->busy_ns > 0 ? 100.0 * v->at_limit_ns / v->busy_ns : 0;
	v->mean_in_use = v->span_ns > 0 ? weighted / v->span_ns : 0;
#define D(f) delta_u64(x->f, o ? o->f : 0)
#undef D
	xprt_counts_delta(&v->n, &x->n, o ? &o->n : NULL);
	v->sends_kernel = x->sends_base + x->n.sends;
	v->warming_up = v->n.preattach_releases > 0;
	v->backlog_now = x->backlog_now;
	v->backlog_max = x->backlog_max;
	v->backlog_shown = span == SPAN_INTERVAL ? x->backlog_now : x->backlog_max;
	v->sending_max = x->sending_max;
	v->num_reqs = x->num_reqs;
	v->cwnd = x->cwnd;
	v->cong = x->cong;
	v->cwnd_min = x->cwnd_min;
	v->cong_max = x->cong_max;
	credit_view(&v->credit, &x->credit, o ? &o->credit : NULL);
	v->unanswered = c->unanswered;
	v->oldest_sent_ns = c->oldest_sent_ns;
	v->last_answer_ns = x->last_answer_ns;
	for (int k = 0; k < WAIT_KINDS; k++)
		wait_view(&v->waits[k], &x->waits[k], o ? &o->waits[k] : NULL);
}

static void op_view(struct op_view *v, const struct op_snap *c, const struct op_snap *p)
{
	const struct op_counts *x = &c->s.c, *o = p ? &p->s.c : NULL;

	memset(v, 0, sizeof(*v));
	v->k = c->k;
	memcpy(v->name, c->s.name, sizeof(v->name));
	v->name[OPNAME_LEN - 1] = 0;
	v->client_done = c->s.client_done;
#define D(f) delta_u64(x->f, o ? o->f : 0)
	v->count = D(count);
	v->ntrans = D(ntrans);
	v->timeouts = D(timeouts);
	v->errors = D(errors);
	v->bytes_sent = D(bytes_sent);
	v->bytes_recv = D(bytes_recv);
	for (int s = 0; s < STAGES; s++) {
		v->sum_ns[s] = D(sum_ns[s]);
		hist_sub(v->hist[s], x->hist[s], o ? o->hist[s] : NULL, LAT_BUCKETS);
		hist_p50_p99(v->hist[s], LAT_BUCKETS, &v->p50_ns[s], &v->p99_ns[s]);
	}
#undef D
}

static int by_id(const void *a, const void *b)
{
	const struct xprt_view *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every per-object view of @from .. @to, transports in the order the kernel made them. */
static int build(struct view *v, const struct model_in *in)
{
	const struct snapshot *prev = in->from, *cur = in->to;
	struct snap_index pix, cix;

	v->arena = in->arena;
	v->span = in->span;
	v->final = in->span == SPAN_SUMMARY;
	v->ts_s = (double)cur->ts_ns / 1e9;
	v->interval_s = prev->ts_ns ? (double)(cur->ts_ns - prev->ts_ns) / 1e9 : 0;
	v->tun = in->tun;
	v->wall = in->wall;
	v->cost = in->cost;
	/* xprt_view() and op_view() clear each entry they fill */
	v->xprts = view_alloc(in->arena, cur->nxprts + 1, sizeof(*v->xprts), false);
	v->ops = view_alloc(in->arena, cur->nops + 1, sizeof(*v->ops), false);
	v->sessions = view_alloc(in->arena, cur->nsessions + 1, sizeof(*v->sessions), true);
	if (!v->xprts || !v->ops || !v->sessions)
		return -ENOMEM;
	snap_index_make(&pix, prev, true, in->arena);
	snap_index_make(&cix, cur, false, in->arena);
	for (size_t i = 0; i < cur->nxprts; i++) {
		const struct xprt_snap *c = &cur->xprts[i];

		xprt_view(&v->xprts[v->nxprts++], c, snap_index_xprt(&pix, c->key, c->s.first_seen_ns),
			  cur->epoch, in->span);
	}
	for (size_t i = 0; i < cur->nops; i++) {
		struct op_view *o = &v->ops[v->nops++];

		op_view(o, &cur->ops[i], snap_index_prev_op(&pix, &cix, &cur->ops[i].k));
		o->mountpoint = mountpoint_of(cur, in->mounts, o->k.clid);
	}
	snap_index_free(&pix);
	snap_index_free(&cix);
	sessions_view(v, prev, cur, in->mounts);
	for (int c = 0; c < NCOUNTERS; c++)
		v->counters[c] = delta_u64(cur->counters[c], prev->counters[c]);
	v->drops = counters_drops(v->counters);
	/*
	 * map order is hash order: rows in the order the kernel made the transports. The array's
	 * (a slot per id) mostly comes in that order already, and a view is kilobytes a transport:
	 * the sort's copies were a tenth of a busy tick's model (glibc's merge sort is stable, so
	 * leaving a sorted array as it is changes nothing)
	 */
	for (size_t i = 1; i < v->nxprts; i++)
		if (by_id(&v->xprts[i - 1], &v->xprts[i]) > 0) {
			qsort(v->xprts, v->nxprts, sizeof(*v->xprts), by_id);
			break;
		}
	return 0;
}

static void map_link(struct xprt_view *x, const struct links_view *l, const struct link_sample *b,
		     const struct linkmap *m)
{
	struct xprt_link *k = &x->link;
	struct link_path path;
	int pi;

	k->port = -1;
	if (!m || linkmap_get(m, x->key, x->first_seen_ns, &path))
		return;
	k->from = path.from;
	pi = path.rdma_port ? port_index(b, path.rdma_dev, path.rdma_port) : -1;
	/* a RoCE port's netdev is the one its GIDs are bound to, whatever the route said */
	if (pi >= 0 && b->ports[pi].nd.name[0])
		snprintf(k->netdev, sizeof(k->netdev), "%s", b->ports[pi].nd.name);
	else
		snprintf(k->netdev, sizeof(k->netdev), "%s", path.netdev);
	k->known = k->netdev[0] || pi >= 0;
	if (pi < 0 && k->netdev[0])
		pi = port_of_netdev(b, k->netdev);
	if (pi >= 0)
		for (size_t i = 0; i < l->nports; i++)
			if (l->ports[i].port == &b->ports[pi]) {
				const struct port_delta *d = &l->ports[i];

				k->port = (int)i;
				k->rate_gbps = b->ports[pi].rate_gbps;
				if (d->have_bytes) {
					k->bytes_from = d->bytes_from;
					k->tx_gbps = d->tx_gbps;
					k->rx_gbps = d->rx_gbps;
					k->tx_util_pct = d->tx_util_pct;
					k->rx_util_pct = d->rx_util_pct;
				}
				return;
			}
	for (size_t i = 0; i < l->nnds; i++)
		if (!strcmp(l->nds[i].name, k->netdev)) {
			const struct netdev_delta *d = &l->nds[i];

			k->bytes_from = "netdev";
			k->rate_gbps = d->speed_gbps;
			k->tx_gbps = d->tx_gbps;
			k->rx_gbps = d->rx_gbps;
			k->tx_util_pct = d->tx_util_pct;
			k->rx_util_pct = d->rx_util_pct;
		}
}

/* link deltas over the view, and each transport's link */
static int add_links(struct view *v, const struct model_in *in)
{
	struct links_view *l = &v->links;
	int err;

	if (!in->lfrom || !in->lto)
		return 0;
	l->sampled = true;
	snprintf(l->why_empty, sizeof(l->why_empty), "%s", in->lto->why_empty);
	err = link_delta(in->lfrom, in->lto, &l->ports, &l->nports);
	if (!err)
		err = netdev_delta(in->lfrom, in->lto, &l->nds, &l->nnds);
	if (err)
		return err;
	for (size_t i = 0; i < v->nxprts; i++)
		map_link(&v->xprts[i], l, in->lto, in->paths);
	return 0;
}

/*
 * each TCP transport's connection while it queued, between the view's two ends (tcpwatch.h), and
 * the most it can carry as last read (a slot-bound one's too)
 */
static void add_tcp(struct view *v, const struct model_in *in)
{
	if (!in->tfrom || !in->tto)
		return;
	for (size_t i = 0; i < in->tto->ntcp; i++) {
		const struct tcp_conn_stat *t = &in->tto->tcp[i];

		for (size_t j = 0; j < v->nxprts; j++)
			if (v->xprts[j].key == t->key && v->xprts[j].first_seen_ns == t->first_seen) {
				tcp_sum_delta(in->tfrom->tcp, in->tfrom->ntcp, in->tto->tcp, in->tto->ntcp, t->key,
					      t->first_seen, &v->xprts[j].link.tcp);
				v->xprts[j].link.tcp.most_Bps = whatif_conn_cap(v, &v->xprts[j]);
			}
	}
}

static bool shown(const struct model_in *in, const struct xprt_view *x)
{
	if (!in->nfilters)
		return true;
	for (size_t i = 0; i < in->nfilters; i++)
		if (mount_xprt_match(&in->filters[i], x->addr, proto_name(x->ident)))
			return true;
	return false;
}

/*
 * The transports --mount did not ask for go, and their ops and sessions with them; @ix is then
 * made of the transports left, which stay where they are from here on.
 */
static void filter(struct view *v, const struct model_in *in, struct xprt_index *ix)
{
	size_t n = 0, m = 0;

	for (size_t i = 0; i < v->nxprts; i++)
		if (shown(in, &v->xprts[i]))
			v->xprts[n++] = v->xprts[i];
	v->nxprts = n;
	xprt_index_make(ix, v);
	for (size_t i = 0; i < v->nops; i++)
		if (xprt_index_find(ix, v->ops[i].k.xprt))
			v->ops[m++] = v->ops[i];
	v->nops = m;
	m = 0;
	for (size_t i = 0; i < v->nsessions; i++)
		if (xprt_index_find(ix, v->sessions[i].xprt))
			v->sessions[m++] = v->sessions[i];
	v->nsessions = m;
}

static void set_peaks(struct view *v, const struct model_in *in)
{
	for (size_t i = 0; i < v->nxprts; i++)
		for (size_t j = 0; j < in->npeaks; j++)
			if (in->peaks[j].key == v->xprts[i].key)
				v->xprts[i].interval_peak = level_bounded(in->peaks[j].peak, &v->xprts[i]);
}

/* a mount's row on @x: the one mount rule of every view (same_mount), first seen first */
static struct mount_view *xprt_mount(struct xprt_view *x, const struct op_view *op)
{
	for (size_t j = 0; j < x->nmounts; j++)
		if (same_mount(x->mounts[j].mountpoint, op->mountpoint)) {
			if (op->k.clid < x->mounts[j].clid)
				x->mounts[j].clid = op->k.clid;
			return &x->mounts[j];
		}
	if (x->nmounts == sizeof(x->mounts) / sizeof(x->mounts[0]))
		return NULL;
	x->mounts[x->nmounts] = (struct mount_view){ .mountpoint = op->mountpoint, .clid = op->k.clid };
	return &x->mounts[x->nmounts++];
}

/* a mount's entry in the view's per-mount totals */
static struct mount_total *mount_total_of(struct view *v, const char *mp)
{
	for (size_t k = 0; k < v->nmounts; k++)
		if (same_mount(v->mounts[k].mountpoint, mp))
			return &v->mounts[k];
	memset(&v->mounts[v->nmounts], 0, sizeof(v->mounts[0]));
	v->mounts[v->nmounts].mountpoint = mp;
	return &v->mounts[v->nmounts++];
}

static struct mount_op *mount_op_of(struct view *v, const char *mp, const char *name)
{
	struct mount_op *m;

	for (size_t k = 0; k < v->nmops; k++)
		if (!strcmp(v->mops[k].name, name) && same_mount(v->mops[k].mountpoint, mp))
			return &v->mops[k];
	m = &v->mops[v->nmops++];
	memset(m, 0, sizeof(*m));
	m->mountpoint = mp;
	memcpy(m->name, name, sizeof(m->name));
	return m;
}

/*
 * Every op once: its transport's sums and per-mount split, the view's per-mount and per-op series
 * (a mount's clients and transports are one series: node_exporter rejects a textfile whose series
 * repeat), the view's payload.
 */
static int op_sums(struct view *v, const struct xprt_index *ix)
{
	/* room for an entry per op, of which few are used: each is cleared as it is taken */
	v->mops = view_alloc(v->arena, v->nops + 1, sizeof(*v->mops), false);
	v->mounts = view_alloc(v->arena, v->nops + 1, sizeof(*v->mounts), false);
	if (!v->mops || !v->mounts)
		return -ENOMEM;
	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *o = &v->ops[i];
		struct xprt_view *x = (struct xprt_view *)xprt_index_find(ix, o->k.xprt);
		struct mount_view *mv;
		struct mount_total *t;
		__u64 wr, rd;

		if (!x || !o->count)
			continue;
		op_payload(o->name, o->bytes_sent, o->bytes_recv, &wr, &rd);
		x->ops += o->count;
		x->retrans += o->ntrans > o->count ? o->ntrans - o->count : 0;
		x->timeouts += o->timeouts;
		x->bytes_written += wr;
		x->bytes_read += rd;
		v->bytes_written += wr;
		v->bytes_read += rd;
		x->op_count += (double)o->count;
		x->exec_ns += (double)o->sum_ns[STAGE_EXECUTE];
		x->rtt_ns += (double)o->sum_ns[STAGE_RTT];
		x->queue_ns += (double)o->sum_ns[STAGE_QUEUE];
		if (op_class(o->name) == OPC_READ || op_class(o->name) == OPC_WRITE) {
			x->data_ops += (double)o->count;
			x->data_rtt_ns += (double)o->sum_ns[STAGE_RTT];
		}
		for (int b = 0; b < LAT_BUCKETS; b++)
			x->rtt_hist[b] += o->hist[STAGE_RTT][b];
		mv = xprt_mount(x, o);
		if (mv) {
			mv->ops += o->count;
			mv->bytes_written += wr;
			mv->bytes_read += rd;
		}
		t = mount_total_of(v, o->mountpoint);
		t->bytes_read += rd;
		t->bytes_written += wr;
		t->errors += o->errors;
		if (op_class(o->name) == OPC_OTHER)
			t->other_ops += o->count;
		{
			struct mount_op one = { .count = o->count, .ntrans = o->ntrans, .errors = o->errors,
						.bytes_sent = o->bytes_sent, .bytes_recv = o->bytes_recv };

			memcpy(one.sum_ns, o->sum_ns, sizeof(one.sum_ns));
			memcpy(one.hist, o->hist, sizeof(one.hist));
			mount_op_add(mount_op_of(v, o->mountpoint, o->name), &one);
		}
	}
	return 0;
}

/* each op's execute time in parts (enum op_part), once its transport's queue time is summed */
static void op_parts(struct view *v, const struct xprt_index *ix)
{
	for (size_t i = 0; i < v->nops; i++) {
		struct op_view *o = &v->ops[i];
		const struct xprt_view *x = xprt_index_find(ix, o->k.xprt);
		double queue = (double)o->sum_ns[STAGE_QUEUE], slot = 0;
		__u64 qr = o->sum_ns[STAGE_QUEUE] + o->sum_ns[STAGE_RTT];

		if (x && x->queue_ns > 0) {
			slot = (double)x->waits[WAIT_SLOT].sum_ns;
			slot = (slot < x->queue_ns ? slot : x->queue_ns) * queue / x->queue_ns;
		}
		o->part_ns[PART_SLOT_WAIT] = (__u64)slot;
		o->part_ns[PART_QUEUE] = (__u64)(queue - slot);
		o->part_ns[PART_RTT] = o->sum_ns[STAGE_RTT];
		o->part_ns[PART_OTHER] = o->sum_ns[STAGE_EXECUTE] > qr ? o->sum_ns[STAGE_EXECUTE] - qr : 0;
	}
}

static void xprt_figures(const struct view *v, struct xprt_view *x)
{
	double secs;
	struct xprt_link *k = &x->link;

	/* one time base for every rate of a transport: a summary's, its own span since first seen */
	x->rate_s = v->final && x->span_ns > 0 ? x->span_ns / 1e9 : v->interval_s;
	secs = x->rate_s > 0 ? x->rate_s : 1;

	x->saturated = v->interval_s > 0 && x->at_limit_ns >= 0.5 * v->interval_s * 1e9;
	x->ops_per_s = (double)x->ops / secs;
	x->write_Bps = (double)x->bytes_written / secs;
	x->read_Bps = (double)x->bytes_read / secs;
	hist_p50_p99(x->rtt_hist, LAT_BUCKETS, &x->rtt_p50_ns, &x->rtt_p99_ns);
	k->gbps = k->tx_gbps > k->rx_gbps ? k->tx_gbps : k->rx_gbps;
	k->util_pct = k->tx_util_pct > k->rx_util_pct ? k->tx_util_pct : k->rx_util_pct;
}

/* the kernel reuses ids: of two transports alike in server, protocol and id, the newer stands */
static void shadow(struct view *v)
{
	for (size_t i = 0; i < v->nxprts; i++) {
		struct xprt_view *x = &v->xprts[i];

		for (size_t j = 0; j < v->nxprts && !x->shadowed; j++) {
			const struct xprt_view *y = &v->xprts[j];

			if (j == i || y->id != x->id || y->ident != x->ident || strcmp(y->addr, x->addr))
				continue;
			x->shadowed = x->destroyed != y->destroyed ? x->destroyed
								  : y->first_seen_ns > x->first_seen_ns ||
								    (y->first_seen_ns == x->first_seen_ns && j > i);
		}
	}
}

/* the netdevs that matter: under an RDMA port or on a transport's route */
static void netdevs_used(struct view *v)
{
	struct links_view *l = &v->links;

	for (size_t i = 0; i < l->nnds; i++) {
		struct netdev_delta *n = &l->nds[i];

		n->used = false;
		for (size_t j = 0; j < v->nxprts && !n->used; j++)
			n->used = v->xprts[j].link.known && !strcmp(v->xprts[j].link.netdev, n->name);
		for (size_t j = 0; j < l->nports && !n->used; j++)
			n->used = l->ports[j].port && !strcmp(l->ports[j].port->nd.name, n->name);
	}
}

int model_build(const struct model_in *in, struct model_out *out)
{
	struct view *v = &out->view;
	struct xprt_index ix = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = build(v, in);
	if (!err)
		err = add_links(v, in);
	if (!err) {
		add_tcp(v, in);
		v->cpu_busy_pct = in->tfrom && in->tto ? cpustat_busy_pct(&in->tfrom->cpu, &in->tto->cpu) : -1;
		filter(v, in, &ix);
		if (in->span == SPAN_WINDOW)
			set_peaks(v, in);
		shadow(v);
		err = op_sums(v, &ix);
	}
	if (!err) {
		op_parts(v, &ix);
		netdevs_used(v);
		for (size_t i = 0; i < v->nxprts; i++) {
			xprt_figures(v, &v->xprts[i]);
			verdict_for(v, &v->xprts[i], &v->xprts[i].verdict);
		}
		/* every interval the textfile's sums could take: rows need the mount each time */
		if (in->span == SPAN_INTERVAL) {
			prom_owners(v, in->mounts, in->prom, &ix);
			err = answer_view(v, in);
		}
	}
	xprt_index_free(&ix);
	if (err)
		model_out_free(out);
	return err;
}

void model_out_free(struct model_out *out)
{
	view_free(&out->view);
	memset(out, 0, sizeof(*out));
}
