// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA ports under ROOT/sys/class/infiniband: state, rate (libibverbs' when given), PMA and
 * hw_counters, the netdev under a RoCE port; their attributes kept between samples.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/log.h"
#include "links/link_int.h"
#include "lib/util.h"

int parse_rate(const char *s, double *gbps)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || strncmp(end, " Gb/sec", 7))
		return -EINVAL;
	*gbps = v;
	return 0;
}

double verbs_rate_gbps(unsigned int speed, unsigned int width)
{
	/* per-lane Gb/s of IBV_SPEED_* (1 SDR ... 256 XDR), lanes of IBV_WIDTH_* (1 1x ... 16 2x) */
	static const double lane[] = { 2.5, 5, 10, 10.3125, 14.0625, 25.78125, 50, 100, 200 };
	static const unsigned int lanes[] = { 1, 4, 8, 12, 2 };
	int s = __builtin_ffs((int)speed) - 1, w = __builtin_ffs((int)width) - 1;

	if (s < 0 || s >= (int)(sizeof(lane) / sizeof(lane[0])) || w < 0 ||
	    w >= (int)(sizeof(lanes) / sizeof(lanes[0])))
		return 0;
	/* FDR10 and EDR are quoted at their data rates (10 and 25) by the kernel's rate file */
	if (speed == 8)
		return 10.0 * lanes[w];
	if (speed == 32)
		return 25.0 * lanes[w];
	if (speed == 16)
		return 14.0 * lanes[w];
	return lane[s] * lanes[w];
}

static int cmp_port(const void *a, const void *b)
{
	const struct rdma_port *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	return c ? c : (int)x->port - (int)y->port;
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct hw_counter *)a)->name, ((const struct hw_counter *)b)->name);
}

static int read_port(const char *sysfs_root, const struct link_sample *s, const char *dev,
		     unsigned int port, const struct port_attr *cached, struct rdma_port *p,
		     struct link_sampler *pa)
{
	static const char *const pc[] = { "port_xmit_data", "port_rcv_data", "port_xmit_packets",
					  "port_rcv_packets" };
	char dir[384], path[512], buf[128];
	struct dirent *de;
	int err;
	DIR *d;

	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = port;
	err = root_path(dir, sizeof(dir), sysfs_root, "/sys/class/infiniband/%s/ports/%u", dev,
			port);
	if (err)
		return err;
	if (cached) {
		snprintf(p->state, sizeof(p->state), "%s", cached->state);
		snprintf(p->rate_str, sizeof(p->rate_str), "%s", cached->rate_str);
		p->rate_gbps = cached->rate_gbps;
		snprintf(p->link_layer, sizeof(p->link_layer), "%s", cached->link_layer);
	} else {
		snprintf(path, sizeof(path), "%s/state", dir);
		/* "4: ACTIVE" */
		if (read_line(path, buf, sizeof(buf)) == 0)
			snprintf(p->state, sizeof(p->state), "%s",
				 strchr(buf, ' ') ? strchr(buf, ' ') + 1 : buf);
		snprintf(path, sizeof(path), "%s/rate", dir);
		if (read_line(path, p->rate_str, sizeof(p->rate_str)) == 0)
			parse_rate(p->rate_str, &p->rate_gbps);
	}
	if (!cached) {
		snprintf(path, sizeof(path), "%s/link_layer", dir);
		read_line(path, p->link_layer, sizeof(p->link_layer));
	}
	/* rxe has no counters/ at all; mlx5 may answer "N/A (no PMA)" */
	for (int i = 0; i < PORT_COUNTERS; i++) {
		snprintf(path, sizeof(path), "%s/counters/%s", dir, pc[i]);
		if (kept_read_u64(pa, path, &p->pc[i]) == 0)
			p->pc_valid |= 1u << i;
	}
	snprintf(path, sizeof(path), "%s/hw_counters", dir);
	d = opendir(path);
	while (d && (de = readdir(d)) && p->nhw < MAX_HW_COUNTERS) {
		struct hw_counter *c = &p->hw[p->nhw];

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan"))
			continue;
		snprintf(path, sizeof(path), "%s/hw_counters/%s", dir, de->d_name);
		snprintf(c->name, sizeof(c->name), "%s", de->d_name);
		if (kept_read_u64(pa, path, &c->v) == 0)
			p->nhw++;
	}
	if (d)
		closedir(d);
	qsort(p->hw, p->nhw, sizeof(p->hw[0]), cmp_counter);
	/* the netdev of a RoCE port: the first GID's (kept with the attributes) */
	if (cached) {
		if (cached->ndev[0])
			port_netdev(sysfs_root, s, cached->ndev, p, pa);
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%d", dir, i);
		if (read_line(path, buf, sizeof(buf)) == 0 && buf[0]) {
			port_netdev(sysfs_root, s, buf, p, pa);
			break;
		}
	}
	return 0;
}

/* the port's kept attributes if fresh, else NULL; *slot is where to keep a new read (or NULL) */
static const struct port_attr *attrs_of(struct link_sampler *pa, const char *dev, unsigned int port,
					uint64_t now, struct port_attr **slot)
{
	*slot = NULL;
	if (!pa)
		return NULL;
	for (size_t i = 0; i < pa->n; i++)
		if (pa->a[i].port == port && !strcmp(pa->a[i].dev, dev)) {
			*slot = &pa->a[i];
			return now - pa->a[i].read_ns < PORT_ATTR_REFRESH_NS ? &pa->a[i] : NULL;
		}
	if (GROW(pa->a, pa->cap, pa->n + 1, 4))
		return NULL;
	*slot = &pa->a[pa->n++];
	memset(*slot, 0, sizeof(**slot));
	snprintf((*slot)->dev, sizeof((*slot)->dev), "%s", dev);
	(*slot)->port = port;
	return NULL;
}

void link_sampler_free(struct link_sampler *attrs)
{
	while (attrs->nkept)
		kept_drop(attrs, attrs->nkept - 1);
	free(attrs->kept);
	if (attrs->nl_sock)
		close(attrs->nl_sock - 1);
	free(attrs->ls);
	free(attrs->ndc);
	free(attrs->a);
	free(attrs->rates);
	memset(attrs, 0, sizeof(*attrs));
}

static int sample(const char *sysfs_root, const struct verbs_rate *rates, size_t nrates,
		  struct link_sampler *attrs, struct link_sample *s)
{
	char ib[512], path[512];
	struct dirent *de, *pe;
	struct timespec ts;
	size_t cap = 0;
	DIR *d, *pd;
	int err;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->ts_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	err = root_path(ib, sizeof(ib), sysfs_root, "/sys/class/infiniband");
	if (!err)
		err = sample_netdevs(sysfs_root, s, attrs);
	if (err) {
		link_sample_free(s);
		return err;
	}
	d = opendir(ib);
	if (!d) {
		snprintf(s->why_empty, sizeof(s->why_empty),
			 "no RDMA devices: %s does not exist (no RDMA driver loaded)", ib);
		return 0;
	}
	if (!rates && attrs && attrs->read_rates) {
		if (!attrs->rates_ns || s->ts_ns - attrs->rates_ns >= PORT_ATTR_REFRESH_NS) {
			const char *why = "";

			free(attrs->rates);
			attrs->rates = NULL;
			attrs->nrates = 0;
			attrs->rates_ns = s->ts_ns;
			/* without verbs, sysfs's rates stand; said once, by the first ask */
			if (attrs->read_rates(&attrs->rates, &attrs->nrates, &why) && !attrs->a)
				pr_info("link rates from sysfs only: %s\n", why);
		}
		rates = attrs->rates;
		nrates = attrs->nrates;
	}
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		err = root_path(path, sizeof(path), sysfs_root, "/sys/class/infiniband/%s/ports",
				de->d_name);
		pd = err ? NULL : opendir(path);
		while (pd && (pe = readdir(pd))) {
			unsigned int port;
			char *end;

			port = (unsigned int)strtoul(pe->d_name, &end, 10);
			if (pe->d_name[0] == '.' || *end)
				continue;
			const struct port_attr *fresh;
			struct port_attr *slot;

			err = GROW(s->ports, cap, s->n + 1, 4);
			if (err)
				break;
			fresh = attrs_of(attrs, de->d_name, port, s->ts_ns, &slot);
			err = read_port(sysfs_root, s, de->d_name, port, fresh, &s->ports[s->n], attrs);
			if (err)
				break;
			/* kept only when read: a failed read is tried again at the next sample */
			if (slot && !fresh && s->ports[s->n].state[0] && s->ports[s->n].rate_str[0]) {
				slot->read_ns = s->ts_ns;
				snprintf(slot->state, sizeof(slot->state), "%s", s->ports[s->n].state);
				snprintf(slot->rate_str, sizeof(slot->rate_str), "%s", s->ports[s->n].rate_str);
				slot->rate_gbps = s->ports[s->n].rate_gbps;
				snprintf(slot->link_layer, sizeof(slot->link_layer), "%s",
					 s->ports[s->n].link_layer);
				snprintf(slot->ndev, sizeof(slot->ndev), "%s", s->ports[s->n].nd.name);
			}
			for (size_t r = 0; r < nrates; r++)
				if (!strcmp(rates[r].dev, de->d_name) && rates[r].port == port && rates[r].gbps > 0) {
					s->ports[s->n].rate_gbps = rates[r].gbps;
					s->ports[s->n].rate_from_verbs = true;
				}
			s->n++;
		}
		if (pd)
			closedir(pd);
	}
	closedir(d);
	if (err) {
		link_sample_free(s);
		return err;
	}
	/* directory order is the file system's: sort, so output is stable */
	if (s->n)
		qsort(s->ports, s->n, sizeof(*s->ports), cmp_port);
	if (!s->n)
		snprintf(s->why_empty, sizeof(s->why_empty),
			 "no RDMA devices: %s is empty", ib);
	return 0;
}

int link_sample(const char *sysfs_root, const struct verbs_rate *rates, size_t nrates,
		struct link_sampler *attrs, struct link_sample *s)
{
	int err = sample(sysfs_root, rates, nrates, attrs, s);

	kept_sweep(attrs);
	return err;
}

void link_sample_free(struct link_sample *s)
{
	free(s->ports);
	free(s->nds);
	free(s->tcp);
	s->ports = NULL;
	s->nds = NULL;
	s->tcp = NULL;
	s->n = s->nnd = s->ntcp = 0;
}

int link_sample_dup(struct link_sample *dst, const struct link_sample *src)
{
	*dst = *src;
	dst->ports = src->n ? malloc(src->n * sizeof(*src->ports)) : NULL;
	dst->nds = src->nnd ? malloc(src->nnd * sizeof(*src->nds)) : NULL;
	dst->tcp = src->ntcp ? malloc(src->ntcp * sizeof(*src->tcp)) : NULL;
	if ((src->n && !dst->ports) || (src->nnd && !dst->nds) || (src->ntcp && !dst->tcp)) {
		link_sample_free(dst);
		return -ENOMEM;
	}
	if (src->n)
		memcpy(dst->ports, src->ports, src->n * sizeof(*src->ports));
	if (src->nnd)
		memcpy(dst->nds, src->nds, src->nnd * sizeof(*src->nds));
	if (src->ntcp)
		memcpy(dst->tcp, src->tcp, src->ntcp * sizeof(*src->tcp));
	return 0;
}
