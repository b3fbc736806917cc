// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "links/route.h"
#include "links/tcpwatch.h"
#include "lib/util.h"

/* a slot-bound transport's connection limits, read once in this many ticks */
#define CAPS_EVERY 10

static struct tw_entry *entry(struct tcp_watch *w, const struct xprt_snap *x)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->e[i].key == x->key && w->e[i].first_seen == x->s.first_seen_ns)
			return &w->e[i];
	if (GROW(w->e, w->cap, w->n + 1, 16))
		return NULL;
	memset(&w->e[w->n], 0, sizeof(w->e[0]));
	w->e[w->n].key = x->key;
	w->e[w->n].first_seen = x->s.first_seen_ns;
	return &w->e[w->n++];
}

/* @x's source port as its path says (sysfs xprt_info, 5.14): 0 when unknown */
static unsigned int sport_of(const struct xprt_snap *x, const struct linkmap *paths)
{
	struct link_path p;

	return paths && !linkmap_get(paths, x->key, x->s.first_seen_ns, &p) ? p.sport : 0;
}

/* @x's connection in the dump: by its source port, or the one connection to its server's port */
static const struct tcp_conn_stat *conn_of(const struct tcp_watch *w, const struct xprt_snap *x,
					   const struct linkmap *paths)
{
	const struct tcp_conn_stat *hit = NULL;
	unsigned int dport = (unsigned int)strtoul(x->s.port, NULL, 10), sport = sport_of(x, paths);
	struct sockaddr_storage ss;
	const void *addr;
	int family;

	/* as the route lookup reads it: an IPv6 link-local address's %scope taken off */
	if (parse_sockaddr(x->s.addr, dport, &ss))
		return NULL;
	family = ss.ss_family;
	addr = family == AF_INET ? (const void *)&((struct sockaddr_in *)&ss)->sin_addr :
				   (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
	for (size_t i = 0; i < w->ndump; i++) {
		const struct tcp_conn_stat *s = &w->dump[i];

		if (s->family != family || s->dport != dport || memcmp(s->daddr, addr, family == AF_INET ? 4 : 16))
			continue;
		if (sport && s->sport == sport)
			return s;
		if (!sport) {
			if (hit)
				return NULL;	/* several, and no port to tell them apart */
			hit = s;
		}
	}
	return hit;
}

/* which connections the dump asks the kernel for: the queued transports' */
struct dump_filter {
	unsigned int dport, sports[16];
	size_t nsports;
	bool need, v6, all_ports;
};

/*
 * Each TCP transport's entry marked seen, and queued when its RPCs waited for the connection a
 * tenth of the @span since the last tick; the dump's filter from the queued ones. Entries of
 * transports gone are dropped with their sums.
 */
static int mark_queued(struct tcp_watch *w, const struct snapshot *snap, const struct linkmap *paths,
		       __u64 span, struct dump_filter *f)
{
	size_t k = 0;

	for (size_t i = 0; i < w->n; i++)
		w->e[i].seen = false;
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_snap *x = &snap->xprts[i];
		unsigned int p = (unsigned int)strtoul(x->s.port, NULL, 10), sp;
		__u64 ns = x->s.waits[WAIT_SEND].sum_ns;
		struct tw_entry *e;

		if (x->s.ident != IDENT_TCP)
			continue;
		e = entry(w, x);
		if (!e)
			return -ENOMEM;
		/* a transport destroyed keeps its sums while it is reported, and is read no more */
		e->seen = true;
		if (x->s.destroyed_ns) {
			e->queued = false;
			continue;
		}
		e->queued = span && ns > e->waited && ns - e->waited >= span / 10;
		e->waited = ns;
		/*
		 * A slot-bound transport's connection is read too, for what bounds it past the
		 * slots (its window, buffer and round trip: the what-if's far steps), not summed.
		 * Those move slowly: once every CAPS_EVERY ticks is enough
		 */
		e->slotted = span && x->s.waits[WAIT_SLOT].sum_ns > e->slot_waited &&
			     x->s.waits[WAIT_SLOT].sum_ns - e->slot_waited >= span / 10 &&
			     (!e->caps_tick || w->tick - e->caps_tick >= CAPS_EVERY);
		e->slot_waited = x->s.waits[WAIT_SLOT].sum_ns;
		if (!e->queued && !e->slotted)
			continue;
		/* their source ports filtered in the kernel; else their one server port (2049) */
		sp = sport_of(x, paths);
		if (sp && f->nsports < sizeof(f->sports) / sizeof(f->sports[0]))
			f->sports[f->nsports++] = sp;
		else
			f->all_ports = false;
		f->dport = !f->need || f->dport == p ? p : 0;
		f->need = true;
		f->v6 = f->v6 || strchr(x->s.addr, ':');
	}
	for (size_t i = 0; i < w->n; i++)
		if (w->e[i].seen)
			w->e[k++] = w->e[i];
	w->n = k;
	return 0;
}

/*
 * Connection @s read for entry @e: what it did since the last tick added to the sums, when read
 * at the tick before too, the same connection. A reconnect keeps the source port and starts
 * tcp_info over: a busy time that went back is a new connection, read as a baseline. The 32-bit
 * counts wrap.
 */
static void conn_add(struct tcp_watch *w, struct tw_entry *e, const struct tcp_conn_stat *s, __u64 span)
{
	if (s->wnd_max > e->sum.wnd_max)
		e->sum.wnd_max = s->wnd_max;
	if (s->sndbuf > e->sum.sndbuf)
		e->sum.sndbuf = s->sndbuf;
	if (s->min_rtt_us && (!e->sum.min_rtt_us || s->min_rtt_us < e->sum.min_rtt_us))
		e->sum.min_rtt_us = s->min_rtt_us;
	e->caps_tick = w->tick;
	if (!e->queued) {
		/* its limits only: the next queued tick starts the sums from a baseline */
		e->tick = 0;
		goto ident;
	}
	e->sum.watched = true;
	if (e->tick + 1 == w->tick && e->raw.sport == s->sport && s->busy_us >= e->raw.busy_us &&
	    s->rwnd_us >= e->raw.rwnd_us && s->sndbuf_us >= e->raw.sndbuf_us) {
		e->sum.busy_us += s->busy_us - e->raw.busy_us;
		e->sum.rwnd_us += s->rwnd_us - e->raw.rwnd_us;
		e->sum.sndbuf_us += s->sndbuf_us - e->raw.sndbuf_us;
		e->sum.retrans += (uint32_t)((uint32_t)s->retrans - (uint32_t)e->raw.retrans);
		e->sum.segs_out += (uint32_t)((uint32_t)s->segs_out - (uint32_t)e->raw.segs_out);
		e->sum.read_us += span / 1000;
	}
	e->raw = *s;
	e->tick = w->tick;
ident:
	e->sum.key = e->key;
	e->sum.first_seen = e->first_seen;
	e->sum.family = s->family;
	memcpy(e->sum.daddr, s->daddr, sizeof(s->daddr));
	e->sum.dport = s->dport;
	e->sum.sport = s->sport;
}

/* the kernel's dump of the filtered connections, each queued transport's added to its sums */
static void conns_read(struct tcp_watch *w, const struct snapshot *snap, const struct linkmap *paths,
		       const struct dump_filter *f, __u64 span)
{
	int fd = w->fd - 1;

	if ((w->sample ? w->sample : tcp_conns_sample)(&fd, f->sports, f->all_ports ? f->nsports : 0, f->dport,
						     f->v6, &w->dump, &w->ndump, &w->dump_cap))
		w->ndump = 0;
	w->fd = fd + 1;
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_snap *x = &snap->xprts[i];
		const struct tcp_conn_stat *s;
		struct tw_entry *e;

		if (x->s.ident != IDENT_TCP || x->s.destroyed_ns || !(e = entry(w, x)) ||
		    !(e->queued || e->slotted) || !(s = conn_of(w, x, paths)))
			continue;
		conn_add(w, e, s, span);
	}
}

/* every connection's sums so far into the link sample */
static int sums_out(const struct tcp_watch *w, struct link_sample *l)
{
	size_t k = 0;

	l->ntcp = 0;
	free(l->tcp);
	l->tcp = NULL;
	for (size_t i = 0; i < w->n; i++)
		k += w->e[i].sum.family != 0;
	if (!k)
		return 0;
	l->tcp = malloc(k * sizeof(*l->tcp));
	if (!l->tcp)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		if (w->e[i].sum.family)
			l->tcp[l->ntcp++] = w->e[i].sum;
	return 0;
}

int tcp_watch_tick(struct tcp_watch *w, const struct snapshot *snap, const struct linkmap *paths, bool live,
		   struct link_sample *l)
{
	struct dump_filter f = { .all_ports = true };
	__u64 span = w->last_ts && snap->ts_ns > w->last_ts ? snap->ts_ns - w->last_ts : 0;
	int err;

	w->tick++;
	w->last_ts = snap->ts_ns;
	err = mark_queued(w, snap, paths, span, &f);
	if (err)
		return err;
	if (f.need && live)
		conns_read(w, snap, paths, &f, span);
	return sums_out(w, l);
}

void tcp_watch_free(struct tcp_watch *w)
{
	if (w->fd > 0)
		close(w->fd - 1);
	free(w->e);
	free(w->dump);
	memset(w, 0, sizeof(*w));
}
