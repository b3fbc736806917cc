// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "view.h"
#include "uhist.h"
#include "util.h"
#include "verdict.h"

const char *const wait_kind_names[WAIT_KINDS] = { "slot", "send", "session", "delay" };
const char *const stage_names[STAGES] = { "queue", "rtt", "execute" };
const char *const counter_names[NCOUNTERS] = {
	"inflight_full", "waiters_full", "xprts_full", "ops_full", "clients_full", "sessions_full",
	"preattach_release", "backchannel_release", "recursion_misses",
};

/* a client without a superblock of its own belongs to the mount of the client it was made from */
static const char *mountpoint_of(const struct snapshot *s, const struct mount_table *mt, __u32 clid)
{
	const struct nfs_mount *m;

	/* the chain is short (ACL client -> mount's client -> nfs_client's): a bound, not a walk */
	for (int depth = 0; depth < 4; depth++) {
		const struct client_info *ci = NULL;

		for (size_t i = 0; i < s->nclients && !ci; i++)
			if (s->clients[i].clid == clid)
				ci = &s->clients[i].ci;
		if (!ci)
			return NULL;
		if (ci->dev) {
			m = mt ? mounts_by_kdev(mt, ci->dev) : NULL;
			return m ? m->mountpoint : NULL;
		}
		/* 0 is no parent: clid 0 is the first client made, so never one made from another */
		if (!ci->parent)
			return NULL;
		clid = ci->parent;
	}
	return NULL;
}

static void wait_view(struct wait_view *w, const struct wait_hist *cur, const struct wait_hist *prev)
{
	w->count = delta_u64(cur->count, prev ? prev->count : 0);
	w->sum_ns = delta_u64(cur->sum_ns, prev ? prev->sum_ns : 0);
	w->max_ns = cur->max_ns;
	hist_sub(w->buckets, cur->buckets, prev ? prev->buckets : NULL, LAT_BUCKETS);
	w->p50_ns = hist_quantile(w->buckets, LAT_BUCKETS, 0.50);
	w->p99_ns = hist_quantile(w->buckets, LAT_BUCKETS, 0.99);
}

static void xprt_view(struct xprt_view *v, const struct xprt_snap *c, const struct xprt_snap *p,
		      __u32 epoch, bool final)
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
	v->min_reqs = x->min_reqs;
	memcpy(v->addr, x->addr, sizeof(v->addr));
	memcpy(v->port, x->port, sizeof(v->port));
	v->addr[ADDR_LEN - 1] = v->port[PORT_LEN - 1] = 0;
	v->in_use = x->in_use;
	v->peak = x->peak;
	if (final)
		v->interval_peak = x->peak;
	else if (x->epoch_of[epoch & 1] == epoch)
		v->interval_peak = x->epoch_peak[epoch & 1];
	else
		v->interval_peak = v->in_use > 0 ? (__u32)v->in_use : 0;	/* no change in it */
	v->destroyed = x->flags & XF_DESTROYED;
	hist_sub(v->level_ns, x->level_ns, o ? o->level_ns : NULL, LEVEL_BUCKETS);
	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		unsigned int lo = level_bucket_low(b, x->limit);
		unsigned int hi = b + 1 < LEVEL_BUCKETS ? level_bucket_low(b + 1, x->limit) - 1 : lo;

		if (hi < lo)
			hi = lo;
		v->span_ns += (double)v->level_ns[b];
		weighted += (double)v->level_ns[b] * (lo + hi) / 2.0;
		if (b > 0)
			v->busy_ns += (double)v->level_ns[b];
	}
	v->at_limit_ns = (double)v->level_ns[LEVEL_BUCKETS - 1];
	v->full_pct = v->busy_ns > 0 ? 100.0 * v->at_limit_ns / v->busy_ns : 0;
	v->mean_in_use = v->span_ns > 0 ? weighted / v->span_ns : 0;
#define D(f) delta_u64(x->f, o ? o->f : 0)
	v->acquires = D(acquires);
	v->handoffs = D(handoffs);
	v->releases = D(releases);
	v->sends = D(sends);
	v->connects = D(connects);
	v->preattach_releases = D(preattach_releases);
#undef D
	v->warming_up = v->preattach_releases > 0;
	v->backlog_now = x->backlog_now;
	v->backlog_max = x->backlog_max;
	v->sending_max = x->sending_max;
	v->num_reqs = x->num_reqs;
	v->cwnd = x->cwnd;
	v->cong = x->cong;
	v->cwnd_min = x->cwnd_min;
	v->cong_max = x->cong_max;
	for (int k = 0; k < WAIT_KINDS; k++)
		wait_view(&v->waits[k], &x->waits[k], o ? &o->waits[k] : NULL);
}

static void op_view(struct op_view *v, const struct op_snap *c, const struct op_snap *p)
{
	const struct op_stats *x = &c->s, *o = p ? &p->s : NULL;

	memset(v, 0, sizeof(*v));
	v->k = c->k;
	memcpy(v->name, x->name, sizeof(v->name));
	v->name[OPNAME_LEN - 1] = 0;
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
		v->p50_ns[s] = hist_quantile(v->hist[s], LAT_BUCKETS, 0.50);
		v->p99_ns[s] = hist_quantile(v->hist[s], LAT_BUCKETS, 0.99);
	}
#undef D
}

static int by_id(const void *a, const void *b)
{
	const struct xprt_view *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Ops of a transport, summed and split per mount. */
static void attribute_ops(struct view *v)
{
	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *op = &v->ops[i];
		struct xprt_view *x = NULL;
		struct mount_view *m = NULL;
		__u64 wr = 0, rd = 0;

		for (size_t j = 0; j < v->nxprts && !x; j++)
			if (v->xprts[j].key == op->k.xprt)
				x = &v->xprts[j];
		if (!x)
			continue;
		/* NFS READ/WRITE in every version share the name */
		if (!strcmp(op->name, "WRITE"))
			wr = op->bytes_sent;
		else if (!strcmp(op->name, "READ"))
			rd = op->bytes_recv;
		x->ops += op->count;
		x->retrans += op->ntrans > op->count ? op->ntrans - op->count : 0;
		x->bytes_written += wr;
		x->bytes_read += rd;
		/* a mount's clients (its own, its ACL client, clones) are one mount */
		for (size_t j = 0; j < x->nmounts && !m; j++)
			if (x->mounts[j].clid == op->k.clid ||
			    (op->mountpoint && x->mounts[j].mountpoint &&
			     !strcmp(x->mounts[j].mountpoint, op->mountpoint)))
				m = &x->mounts[j];
		if (m && op->k.clid < m->clid)
			m->clid = op->k.clid;
		if (!m && x->nmounts < sizeof(x->mounts) / sizeof(x->mounts[0])) {
			m = &x->mounts[x->nmounts++];
			m->clid = op->k.clid;
			m->mountpoint = op->mountpoint;
		}
		if (m) {
			m->ops += op->count;
			m->bytes_written += wr;
			m->bytes_read += rd;
		}
	}
}

/* the transport's first sight under @key, or 0 when @s has none */
static __u64 first_seen_of(const struct snapshot *s, __u64 key)
{
	for (size_t i = 0; i < s->nxprts; i++)
		if (s->xprts[i].key == key && !(s->xprts[i].s.flags & XF_DESTROYED))
			return s->xprts[i].s.first_seen_ns;
	for (size_t i = 0; i < s->nxprts; i++)
		if (s->xprts[i].key == key)
			return s->xprts[i].s.first_seen_ns;
	return 0;
}

/*
 * The op's entry in @prev, if it is the same op: after a reap the kernel may put a new transport
 * at the address of the old, whose ops start from zero under the same key.
 */
static const struct op_snap *prev_op(const struct snapshot *prev, const struct snapshot *cur,
				     const struct op_key *k)
{
	const struct op_snap *p = snapshot_find_op(prev, k);

	if (p && first_seen_of(prev, k->xprt) != first_seen_of(cur, k->xprt))
		return NULL;
	return p;
}

int view_build(struct view *v, const struct snapshot *prev, const struct snapshot *cur,
	       const struct mount_table *mt, bool final)
{
	memset(v, 0, sizeof(*v));
	v->final = final;
	v->ts_s = (double)cur->ts_ns / 1e9;
	v->interval_s = prev->ts_ns ? (double)(cur->ts_ns - prev->ts_ns) / 1e9 : 0;
	v->xprts = calloc(cur->nxprts + 1, sizeof(*v->xprts));
	v->ops = calloc(cur->nops + 1, sizeof(*v->ops));
	v->sessions = calloc(cur->nsessions + 1, sizeof(*v->sessions));
	if (!v->xprts || !v->ops || !v->sessions) {
		view_free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cur->nxprts; i++) {
		const struct xprt_snap *c = &cur->xprts[i];

		xprt_view(&v->xprts[v->nxprts++], c, snapshot_find_xprt(prev, c->key, c->s.first_seen_ns),
			  cur->epoch, final);
	}
	for (size_t i = 0; i < cur->nops; i++) {
		struct op_view *o = &v->ops[v->nops++];

		op_view(o, &cur->ops[i], prev_op(prev, cur, &cur->ops[i].k));
		o->mountpoint = mountpoint_of(cur, mt, o->k.clid);
	}
	for (size_t i = 0; i < cur->nsessions; i++) {
		struct session_view *s = &v->sessions[v->nsessions++];
		__u64 before = 0;

		s->key = cur->sessions[i].key;
		s->s = cur->sessions[i].s;
		s->xprt = s->s.xprt;
		s->clid = s->s.clid;
		s->mountpoint = mountpoint_of(cur, mt, s->clid);
		/* a session made anew at a reused address starts its own count */
		for (size_t j = 0; j < prev->nsessions; j++)
			if (prev->sessions[j].key == s->key && prev->sessions[j].s.first_ns == s->s.first_ns)
				before = prev->sessions[j].s.sequences;
		s->sequences = delta_u64(s->s.sequences, before);
	}
	for (int c = 0; c < NCOUNTERS; c++)
		v->counters[c] = delta_u64(cur->counters[c], prev->counters[c]);
	/* map order is hash order: rows in the order the kernel made the transports */
	qsort(v->xprts, v->nxprts, sizeof(*v->xprts), by_id);
	attribute_ops(v);
	return 0;
}

static void map_link(struct xprt_view *x, const struct links_view *l, const struct link_sample *b,
		     const char *procfs_root, struct linkmap *m)
{
	struct lm_xprt lx = { .key = x->key, .first_seen = x->first_seen_ns, .id = x->id,
			      .ident = x->ident, .addr = x->addr, .port = x->port };
	struct xprt_link *k = &x->link;
	struct link_path path;
	int pi;

	k->port = -1;
	if (linkmap_path(m, procfs_root, &lx, &path))
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

int view_add_links(struct view *v, const struct link_sample *a, const struct link_sample *b,
		   const char *procfs_root, struct linkmap *m)
{
	struct links_view *l = &v->links;
	int err;

	l->sampled = true;
	snprintf(l->why_empty, sizeof(l->why_empty), "%s", b->why_empty);
	err = link_delta(a, b, &l->ports, &l->nports);
	if (!err)
		err = netdev_delta(a, b, &l->nds, &l->nnds);
	if (err)
		return err;
	for (size_t i = 0; i < v->nxprts; i++)
		map_link(&v->xprts[i], l, b, procfs_root, m);
	return 0;
}

void view_free(struct view *v)
{
	free(v->links.ports);
	free(v->links.nds);
	free(v->xprts);
	free(v->ops);
	free(v->sessions);
	free(v->mops);
	free(v->mounts);
	memset(v, 0, sizeof(*v));
}

bool xprt_view_idle(const struct xprt_view *x)
{
	return x->acquires == 0 && x->releases == 0 && x->sends == 0 && x->in_use == 0 &&
	       x->waits[WAIT_SLOT].count == 0;
}

const struct xprt_view *view_xprt(const struct view *v, __u64 key)
{
	for (size_t i = 0; i < v->nxprts; i++)
		if (v->xprts[i].key == key)
			return &v->xprts[i];
	return NULL;
}

/*
 * Ops per mount and name over the view's transports (after any --mount filter). A mount's
 * clients and transports are one series: node_exporter rejects a textfile whose series repeat.
 */
static void mount_ops(struct view *v)
{
	v->mops = calloc(v->nops + 1, sizeof(*v->mops));
	v->mounts = calloc(v->nops + 1, sizeof(*v->mounts));
	if (!v->mops || !v->mounts) {
		free(v->mops);
		free(v->mounts);
		v->mops = NULL;
		v->mounts = NULL;
		return;
	}
	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *p = &v->ops[i];
		const char *mp = p->mountpoint;
		struct mount_op *m = NULL;
		struct mount_total *t = NULL;

		if (!p->count || !view_xprt(v, p->k.xprt))
			continue;
		for (size_t k = 0; k < v->nmounts && !t; k++)
			if (same_mount(v->mounts[k].mountpoint, mp))
				t = &v->mounts[k];
		if (!t) {
			t = &v->mounts[v->nmounts++];
			t->mountpoint = mp;
		}
		/* NFS READ/WRITE in every version share the name */
		if (!strcmp(p->name, "READ"))
			t->bytes_read += p->bytes_recv;
		else if (!strcmp(p->name, "WRITE"))
			t->bytes_written += p->bytes_sent;
		t->errors += p->errors;
		for (size_t k = 0; k < v->nmops && !m; k++)
			if (!strcmp(v->mops[k].name, p->name) && same_mount(v->mops[k].mountpoint, mp))
				m = &v->mops[k];
		if (!m) {
			m = &v->mops[v->nmops++];
			m->mountpoint = mp;
			memcpy(m->name, p->name, sizeof(m->name));
		}
		{
			struct mount_op one = { .count = p->count, .ntrans = p->ntrans, .errors = p->errors,
						.bytes_sent = p->bytes_sent, .bytes_recv = p->bytes_recv };

			memcpy(one.sum_ns, p->sum_ns, sizeof(one.sum_ns));
			memcpy(one.hist, p->hist, sizeof(one.hist));
			mount_op_add(m, &one);
		}
	}
}

void mount_op_add(struct mount_op *dst, const struct mount_op *src)
{
	dst->count += src->count;
	dst->ntrans += src->ntrans;
	dst->errors += src->errors;
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_recv += src->bytes_recv;
	for (int st = 0; st < STAGES; st++) {
		dst->sum_ns[st] += src->sum_ns[st];
		for (int b = 0; b < LAT_BUCKETS; b++)
			dst->hist[st][b] += src->hist[st][b];
	}
}

/* the figures each row shows: rates, RTT over every op of the transport, the busier direction */
/* every op's times added to its transport's sums, once */
static void op_sums(struct view *v)
{
	for (size_t i = 0; i < v->nxprts; i++) {
		struct xprt_view *x = &v->xprts[i];

		x->op_count = x->exec_ns = x->rtt_ns = x->queue_ns = x->data_ops = x->data_rtt_ns = 0;
		memset(x->rtt_hist, 0, sizeof(x->rtt_hist));
	}
	for (size_t i = 0; i < v->nops; i++) {
		const struct op_view *o = &v->ops[i];
		struct xprt_view *x = (struct xprt_view *)view_xprt(v, o->k.xprt);

		if (!x || !o->count)
			continue;
		x->op_count += (double)o->count;
		x->exec_ns += (double)o->sum_ns[STAGE_EXECUTE];
		x->rtt_ns += (double)o->sum_ns[STAGE_RTT];
		x->queue_ns += (double)o->sum_ns[STAGE_QUEUE];
		/* NFS READ/WRITE in every version share the name */
		if (!strcmp(o->name, "WRITE") || !strcmp(o->name, "READ")) {
			x->data_ops += (double)o->count;
			x->data_rtt_ns += (double)o->sum_ns[STAGE_RTT];
		}
		for (int b = 0; b < LAT_BUCKETS; b++)
			x->rtt_hist[b] += o->hist[STAGE_RTT][b];
	}
}

static void xprt_figures(const struct view *v, struct xprt_view *x)
{
	double secs = v->interval_s > 0 ? v->interval_s : 1;
	struct xprt_link *k = &x->link;

	x->ops_per_s = (double)x->ops / secs;
	x->write_Bps = (double)x->bytes_written / secs;
	x->read_Bps = (double)x->bytes_read / secs;
	x->rtt_p50_ns = hist_quantile(x->rtt_hist, LAT_BUCKETS, 0.5);
	x->rtt_p99_ns = hist_quantile(x->rtt_hist, LAT_BUCKETS, 0.99);
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

void view_finish(struct view *v)
{
	struct rusage ru;

	shadow(v);
	op_sums(v);
	for (size_t i = 0; i < v->nxprts; i++) {
		xprt_figures(v, &v->xprts[i]);
		verdict_for(v, &v->xprts[i], &v->xprts[i].verdict);
	}
	mount_ops(v);
	if (v->final && !getrusage(RUSAGE_SELF, &ru)) {
		v->self_user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		v->self_sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		v->self_max_rss_kib = (__u64)ru.ru_maxrss;
	}
}
