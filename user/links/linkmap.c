// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include "engine/engine.h"
#include "links/linkmap.h"
#include "slotscope.h"
#include "links/nl.h"
#include "links/route.h"
#include "lib/util.h"

/*
 * An entry not asked for this long belongs to a transport that is gone; and of the entries whose
 * transport was not in the last snapshot, only the LINK_GONE_MAX used last are kept: bounded by
 * time alone, per-job mounts (three transports each, with rpcbind's and mountd's) kept a
 * thousand answers nobody would ask for again.
 */
#define LINK_FORGET_S 300.0
#define LINK_GONE_MAX 64

void linkmap_init(struct linkmap *m, const char *procfs_root, const char *sysfs_root)
{
	memset(m, 0, sizeof(*m));
	m->procfs_root = procfs_root;
	m->sysfs_root = sysfs_root;
	m->live = (!procfs_root || !strcmp(procfs_root, "/")) && (!sysfs_root || !strcmp(sysfs_root, "/"));
}

void linkmap_free(struct linkmap *m)
{
	free(m->e);
	free(m->conns);
	memset(m, 0, sizeof(*m));
}

static bool same_endpoint(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
	return false;
}

/*
 * rpcrdma's connection to the server's address and port. A client's ids all go through one
 * route, so several transports to one server (nconnect) share a device; if they do not, which
 * is which cannot be told from the table, and the route answers instead.
 */
static int rdma_from_conn(struct linkmap *m, const struct sockaddr_storage *dst, struct link_path *p)
{
	const struct rdma_conn *hit = NULL;
	double t = clock_s(CLOCK_MONOTONIC);

	/* a table that could not be read is not asked again for every transport of the round */
	if (m->conns_at == 0 || t - m->conns_at >= LINK_REFRESH_S) {
		free(m->conns);
		m->conns = NULL;
		m->nconns = 0;
		/* a failed read leaves the table empty: the route answers until the next refresh */
		if (nl_rdma_conns(&m->conns, &m->nconns))
			m->nconns = 0;
		m->conns_at = t;
	}
	for (size_t i = 0; i < m->nconns; i++) {
		const struct rdma_conn *c = &m->conns[i];

		if (strcmp(c->owner, "rpcrdma") || !c->port || !same_endpoint(&c->dst, dst))
			continue;
		if (hit && (strcmp(hit->dev, c->dev) || hit->port != c->port))
			return -EEXIST;
		hit = c;
	}
	if (!hit)
		return -ENOENT;
	snprintf(p->rdma_dev, sizeof(p->rdma_dev), "%s", hit->dev);
	p->rdma_port = hit->port;
	p->from = "connection";
	/* the netdev under a RoCE port comes from the link sample; an IB port's (IPoIB) by route */
	nl_route_dev((const struct sockaddr *)dst, NULL, p->netdev, sizeof(p->netdev));
	return 0;
}

/*
 * What one round of refreshes reads once for all its TCP transports: every source port (one walk
 * of sunrpc's sysfs) and every established connection (one read of /proc/net/tcp and tcp6), where
 * a read per transport cost 64 sysfs walks and 64 parses at 64 transports.
 */
struct lm_round {
	bool read;
	struct xprt_ports ports;
	struct tcp_conns conns;
};

static void round_free(struct lm_round *r)
{
	xprt_ports_free(&r->ports);
	tcp_conns_free(&r->conns);
}

/* the source address of a TCP transport's connection: 0, or -errno and the route decides alone */
static int tcp_src(struct linkmap *m, struct lm_round *r, const struct lm_xprt *x,
		   const struct sockaddr_storage *dst, struct sockaddr_storage *src, unsigned int *sport_of)
{
	const bool v4 = dst->ss_family == AF_INET;
	const struct sockaddr_in *d4 = (const void *)dst;
	const struct sockaddr_in6 *d6 = (const void *)dst;
	unsigned int sport = 0;

	if (!r->read) {
		r->read = true;
		/* a failed read (out of memory) leaves a table short: the route decides alone */
		(void)xprt_ports_read(m->sysfs_root, &r->ports);
		(void)tcp_conns_read(m->procfs_root, &r->conns);
	}
	/* no sysfs (before 5.14) leaves the port open: any one connection to the server */
	xprt_ports_get(&r->ports, x->id, &sport);
	*sport_of = sport;
	memset(src, 0, sizeof(*src));
	src->ss_family = dst->ss_family;
	return tcp_conns_local(&r->conns, dst->ss_family, v4 ? (const void *)&d4->sin_addr : &d6->sin6_addr,
			       ntohs(v4 ? d4->sin_port : d6->sin6_port), sport,
			       v4 ? (void *)&((struct sockaddr_in *)src)->sin_addr :
				    &((struct sockaddr_in6 *)src)->sin6_addr);
}

static int resolve(struct linkmap *m, struct lm_round *r, const struct lm_xprt *x, struct link_path *p)
{
	unsigned int dport = (unsigned int)strtoul(x->port, NULL, 10);
	struct sockaddr_storage dst, src;
	const struct sockaddr *s = NULL;
	int err;

	memset(p, 0, sizeof(*p));
	err = parse_sockaddr(x->addr, dport, &dst);
	if (err)
		return err;
	if (x->ident == IDENT_RDMA && rdma_from_conn(m, &dst, p) == 0)
		return 0;
	if (x->ident == IDENT_TCP && tcp_src(m, r, x, &dst, &src, &p->sport) == 0)
		s = (const struct sockaddr *)&src;
	err = nl_route_dev((const struct sockaddr *)&dst, s, p->netdev, sizeof(p->netdev));
	/* a source the kernel no longer owns (an address just removed): the route without it */
	if (err && s)
		err = nl_route_dev((const struct sockaddr *)&dst, NULL, p->netdev, sizeof(p->netdev));
	if (err)
		return err;
	p->from = "route";
	return 0;
}

static int from_table(const char *procfs_root, const struct lm_xprt *x, struct link_path *p)
{
	memset(p, 0, sizeof(*p));
	if (route_netdev(procfs_root, x->addr, p->netdev, sizeof(p->netdev)))
		return -ENOENT;
	p->from = "table";
	return 0;
}

static int path_of(struct linkmap *m, struct lm_round *r, const struct lm_xprt *x, double t)
{
	struct lm_entry *e = NULL;
	size_t i;

	for (i = 0; i < m->n && !e; i++)
		if (m->e[i].key == x->key && m->e[i].first_seen == x->first_seen)
			e = &m->e[i];
	if (!e) {
		if (GROW(m->e, m->cap, m->n + 1, 8))
			return -ENOMEM;
		e = &m->e[m->n++];
		memset(e, 0, sizeof(*e));
		e->key = x->key;
		e->first_seen = x->first_seen;
		e->at = -LINK_REFRESH_S - 1;
	}
	e->used = t;
	if (t - e->at >= LINK_REFRESH_S) {
		if ((!m->live || resolve(m, r, x, &e->p)) && from_table(m->procfs_root, x, &e->p))
			memset(&e->p, 0, sizeof(e->p));
		e->at = t;
	}
	return 0;
}

/* after the update at @t: what @t did not ask for is gone, bounded by LINK_FORGET_S and LINK_GONE_MAX */
static void forget(struct linkmap *m, double t)
{
	size_t j = 0;

	for (size_t i = 0; i < m->n; i++)
		if (t - m->e[i].used < LINK_FORGET_S)
			m->e[j++] = m->e[i];
	m->n = j;
	for (;;) {
		size_t gone = 0, old = m->n;

		for (size_t i = 0; i < m->n; i++)
			if (m->e[i].used < t) {
				gone++;
				if (old == m->n || m->e[i].used < m->e[old].used)
					old = i;
			}
		if (gone <= LINK_GONE_MAX)
			break;
		m->e[old] = m->e[--m->n];
	}
}

int linkmap_update(struct linkmap *m, const struct snapshot *s)
{
	double t = clock_s(CLOCK_MONOTONIC);
	struct lm_round r = { 0 };
	int err = 0;

	for (size_t i = 0; i < s->nxprts; i++) {
		const struct xprt_stats *x = &s->xprts[i].s;
		char addr[ADDR_LEN], port[PORT_LEN];
		struct lm_xprt lx = { .key = s->xprts[i].key, .first_seen = x->first_seen_ns, .id = x->id,
				      .ident = x->ident, .addr = addr, .port = port };

		memcpy(addr, x->addr, sizeof(addr));
		memcpy(port, x->port, sizeof(port));
		addr[ADDR_LEN - 1] = port[PORT_LEN - 1] = 0;
		err = path_of(m, &r, &lx, t);
		if (err)
			break;
	}
	round_free(&r);
	forget(m, t);
	return err;
}

int linkmap_get(const struct linkmap *m, __u64 key, __u64 first_seen, struct link_path *p)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].key == key && m->e[i].first_seen == first_seen) {
			*p = m->e[i].p;
			return p->from ? 0 : -ENOENT;
		}
	return -ENOENT;
}
