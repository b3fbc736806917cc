// SPDX-License-Identifier: GPL-2.0
/*
 * Pure arithmetic on two link samples (rdma.h): counter deltas that survive a wrap, per-port
 * and per-netdev rates and utilisation, and lookups of a port by device or by netdev.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "links/rdma.h"

/*
 * A counter that went down was reset (perfquery -R, a driver reload, a re-created netdev): what
 * it holds now was counted since. Only a 32-bit counter in its top 1/16 is taken to have wrapped;
 * a 64-bit one never does in a tick, and InfiniBand's 32-bit PMA counters saturate instead.
 */
uint64_t counter_delta(uint64_t old, uint64_t now)
{
	if (now >= old)
		return now - old;
	if (old <= UINT32_MAX && old > UINT32_MAX - (UINT32_MAX >> 4))
		return (uint64_t)UINT32_MAX - old + now + 1;
	return now;
}

/* bytes over @secs as Gb/s each way, and as a share of a link of @rate_gbps (0: unknown) */
static void link_rates(uint64_t tx, uint64_t rx, double secs, double rate_gbps, double *tx_gbps,
		       double *rx_gbps, double *tx_util_pct, double *rx_util_pct)
{
	if (secs <= 0)
		return;
	*tx_gbps = (double)tx * 8 / secs / 1e9;
	*rx_gbps = (double)rx * 8 / secs / 1e9;
	if (rate_gbps > 0) {
		*tx_util_pct = 100 * *tx_gbps / rate_gbps;
		*rx_util_pct = 100 * *rx_gbps / rate_gbps;
	}
}

int netdev_delta(const struct link_sample *a, const struct link_sample *b, struct netdev_delta **out,
		 size_t *n)
{
	double secs = (double)(b->ts_ns - a->ts_ns) / 1e9;
	struct netdev_delta *d = calloc(b->nnd + 1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	*n = 0;
	for (size_t i = 0; i < b->nnd; i++)
		for (size_t j = 0; j < a->nnd; j++) {
			const struct netdev_stat *o = &a->nds[j], *c = &b->nds[i];
			struct netdev_delta *x = &d[*n];

			if (strcmp(o->name, c->name))
				continue;
			snprintf(x->name, sizeof(x->name), "%s", c->name);
			x->speed_gbps = c->speed_gbps;
			x->tx_bytes = counter_delta(o->tx_bytes, c->tx_bytes);
			x->rx_bytes = counter_delta(o->rx_bytes, c->rx_bytes);
			x->tx_packets = counter_delta(o->tx_packets, c->tx_packets);
			x->rx_packets = counter_delta(o->rx_packets, c->rx_packets);
			link_rates(x->tx_bytes, x->rx_bytes, secs, x->speed_gbps, &x->tx_gbps, &x->rx_gbps,
				   &x->tx_util_pct, &x->rx_util_pct);
			(*n)++;
			break;
		}
	*out = d;
	return 0;
}

static const struct rdma_port *find_port(const struct link_sample *s, const char *dev, unsigned int port)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ports[i].dev, dev) && s->ports[i].port == port)
			return &s->ports[i];
	return NULL;
}

static void port_delta(struct port_delta *d, const struct rdma_port *o, const struct rdma_port *p,
		       double secs)
{
	unsigned int both = o->pc_valid & p->pc_valid;

	d->port = p;
	d->secs = secs;
	/* PMA counters see RDMA traffic the netdev does not (offloaded RoCE); rxe has none */
	if ((both & 3) == 3) {
		d->have_bytes = true;
		d->bytes_from = "counters";
		/* 4-byte words (IBA 16.1.3.5); a 32-bit counter wraps in words, not bytes */
		d->tx_bytes = 4 * counter_delta(o->pc[PC_XMIT_WORDS], p->pc[PC_XMIT_WORDS]);
		d->rx_bytes = 4 * counter_delta(o->pc[PC_RCV_WORDS], p->pc[PC_RCV_WORDS]);
		if ((both & 12) == 12) {
			d->tx_pkts = counter_delta(o->pc[PC_XMIT_PKTS], p->pc[PC_XMIT_PKTS]);
			d->rx_pkts = counter_delta(o->pc[PC_RCV_PKTS], p->pc[PC_RCV_PKTS]);
		}
	} else if (o->nd.valid && p->nd.valid && !strcmp(o->nd.name, p->nd.name)) {
		d->have_bytes = true;
		d->bytes_from = "netdev";
		d->tx_bytes = counter_delta(o->nd.tx_bytes, p->nd.tx_bytes);
		d->rx_bytes = counter_delta(o->nd.rx_bytes, p->nd.rx_bytes);
		d->tx_pkts = counter_delta(o->nd.tx_packets, p->nd.tx_packets);
		d->rx_pkts = counter_delta(o->nd.rx_packets, p->nd.rx_packets);
	}
	if (d->have_bytes)
		link_rates(d->tx_bytes, d->rx_bytes, secs, p->rate_gbps, &d->tx_gbps, &d->rx_gbps,
			   &d->tx_util_pct, &d->rx_util_pct);
	for (size_t i = 0; i < p->nhw; i++)
		for (size_t j = 0; j < o->nhw; j++)
			if (!strcmp(p->hw[i].name, o->hw[j].name)) {
				struct hw_counter *c = &d->hw[d->nhw++];

				*c = p->hw[i];
				c->v = counter_delta(o->hw[j].v, p->hw[i].v);
				break;
			}
}

int link_delta(const struct link_sample *a, const struct link_sample *b, struct port_delta **out,
	       size_t *n)
{
	double secs = (double)(b->ts_ns - a->ts_ns) / 1e9;
	struct port_delta *d = calloc(a->n + b->n + 1, sizeof(*d));
	size_t k = 0;

	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		const struct rdma_port *o = find_port(a, b->ports[i].dev, b->ports[i].port);

		snprintf(d[k].dev, sizeof(d[k].dev), "%s", b->ports[i].dev);
		d[k].port_num = b->ports[i].port;
		if (o)
			port_delta(&d[k], o, &b->ports[i], secs);
		else {
			d[k].port = &b->ports[i];
			d[k].added = true;
		}
		k++;
	}
	for (size_t i = 0; i < a->n; i++)
		if (!find_port(b, a->ports[i].dev, a->ports[i].port)) {
			snprintf(d[k].dev, sizeof(d[k].dev), "%s", a->ports[i].dev);
			d[k].port_num = a->ports[i].port;
			d[k++].removed = true;
		}
	*out = d;
	*n = k;
	return 0;
}

int port_of_netdev(const struct link_sample *s, const char *ifname)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ports[i].nd.name[0] && !strcmp(s->ports[i].nd.name, ifname))
			return (int)i;
	return -1;
}

int port_index(const struct link_sample *s, const char *dev, unsigned int port)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ports[i].port == port && !strcmp(s->ports[i].dev, dev))
			return (int)i;
	return -1;
}
