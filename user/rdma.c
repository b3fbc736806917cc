// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "log.h"
#include "nl.h"
#include "rdma.h"
#include "util.h"

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

/* the file's first line, from its start; -errno */
static int pread_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void kept_drop(struct port_attrs *pa, size_t i)
{
	close(pa->kept[i].fd);
	free(pa->kept[i].path);
	pa->kept[i] = pa->kept[--pa->nkept];
}

/*
 * @path's counter, through @pa's kept descriptor when it has one (found where the last sample's
 * order puts it, else by a scan), else opened now and kept. A read that fails (the device gone:
 * -ENODEV) drops the descriptor and is the caller's failure, as a failed open was.
 */
static int kept_read_u64(struct port_attrs *pa, const char *path, uint64_t *v)
{
	struct statfs sfs;
	char buf[64];
	size_t i;
	int fd, err;

	if (!pa)
		return read_u64(path, v);
	i = pa->kept_next < pa->nkept && !strcmp(pa->kept[pa->kept_next].path, path) ? pa->kept_next
										       : pa->nkept;
	for (size_t j = 0; i == pa->nkept && j < pa->nkept; j++)
		if (!strcmp(pa->kept[j].path, path))
			i = j;
	if (i < pa->nkept) {
		err = pread_line(pa->kept[i].fd, buf, sizeof(buf));
		if (err) {
			kept_drop(pa, i);
			return err;
		}
		pa->kept[i].used = true;
		pa->kept_next = i + 1;
		return parse_u64(buf, v);
	}
	if (pa->nkept >= KEPT_FILES_MAX)
		return read_u64(path, v);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = pread_line(fd, buf, sizeof(buf));
	if (!err)
		err = parse_u64(buf, v);
	/*
	 * kept only when it reads as a counter ("N/A (no PMA)" is asked again next time) and is
	 * sysfs's, whose file of a device gone fails its reads (-ENODEV); a fixture tree's plain
	 * file would read on
	 */
	if (err || fstatfs(fd, &sfs) || sfs.f_type != SYSFS_MAGIC ||
	    GROW(pa->kept, pa->kept_cap, pa->nkept + 1, 32)) {
		close(fd);
		return err;
	}
	pa->kept[pa->nkept] = (struct kept_file){ .path = strdup(path), .fd = fd, .used = true };
	if (!pa->kept[pa->nkept].path) {
		close(fd);
		return 0;
	}
	pa->kept_next = ++pa->nkept;
	return 0;
}

/* the end of a sample: files it did not read are closed */
static void kept_sweep(struct port_attrs *pa)
{
	if (!pa)
		return;
	for (size_t i = pa->nkept; i-- > 0;)
		if (!pa->kept[i].used)
			kept_drop(pa, i);
	for (size_t i = 0; i < pa->nkept; i++)
		pa->kept[i].used = false;
	pa->kept_next = 0;
}

/* /sys/class/net/@name/speed in Gb/s; 0 when unknown (virtual devices answer EINVAL or -1) */
static double netdev_speed(const char *sysfs_root, const char *name)
{
	char path[512];
	long mbps;

	if (root_path(path, sizeof(path), sysfs_root, "/sys/class/net/%s/speed", name) == 0 &&
	    read_long(path, &mbps) == 0 && mbps > 0)
		return mbps / 1000.0;
	return 0;
}

static int netdev_read_kept(const char *sysfs_root, const char *name, struct netdev_stat *st,
			    struct port_attrs *pa)
{
	static const char *const f[] = { "tx_bytes", "rx_bytes", "tx_packets", "rx_packets" };
	uint64_t *v[] = { &st->tx_bytes, &st->rx_bytes, &st->tx_packets, &st->rx_packets };
	char path[512];
	int err;

	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", name);
	for (int i = 0; i < 4; i++) {
		err = root_path(path, sizeof(path), sysfs_root, "/sys/class/net/%s/statistics/%s",
				name, f[i]);
		if (!err)
			err = kept_read_u64(pa, path, v[i]);
		if (err)
			return err;
	}
	st->speed_gbps = netdev_speed(sysfs_root, name);
	st->valid = true;
	return 0;
}

int netdev_read(const char *sysfs_root, const char *name, struct netdev_stat *st)
{
	return netdev_read_kept(sysfs_root, name, st, NULL);
}

static int cmp_port(const void *a, const void *b)
{
	const struct rdma_port *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	return c ? c : (int)x->port - (int)y->port;
}

static int cmp_netdev(const void *a, const void *b)
{
	return strcmp(((const struct netdev_stat *)a)->name, ((const struct netdev_stat *)b)->name);
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct hw_counter *)a)->name, ((const struct hw_counter *)b)->name);
}

/*
 * The netdev under a RoCE port: its own sample's row when this sample read it (the same tick's
 * counters, without reading the five files again), else read now.
 */
static void port_netdev(const char *sysfs_root, const struct link_sample *s, const char *name,
			struct rdma_port *p, struct port_attrs *pa)
{
	struct netdev_stat k;
	const struct netdev_stat *nd;

	snprintf(k.name, sizeof(k.name), "%s", name);
	nd = s && s->nnd ? bsearch(&k, s->nds, s->nnd, sizeof(*s->nds), cmp_netdev) : NULL;
	if (nd)
		p->nd = *nd;
	else
		netdev_read_kept(sysfs_root, name, &p->nd, pa);
	snprintf(p->nd.name, sizeof(p->nd.name), "%s", name);
}

static int read_port(const char *sysfs_root, const struct link_sample *s, const char *dev,
		     unsigned int port, const struct port_attr *cached, struct rdma_port *p,
		     struct port_attrs *pa)
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

/*
 * Whether ROOT/sys/class/net is a sysfs (a fixture tree is not), whose netdevs the dump can
 * answer for: / or, for a container, the host's sysfs under --sysfs-root.
 */
static bool root_sysfs(const char *sysfs_root)
{
	struct statfs sfs;
	char path[512];

	return root_path(path, sizeof(path), sysfs_root, "/sys/class/net") == 0 && statfs(path, &sfs) == 0 &&
	       sfs.f_type == SYSFS_MAGIC;
}

/* the links' counters of this sample, asked of rtnetlink; files from then on if it cannot answer */
static int nd_dump(struct port_attrs *pa, size_t nnd)
{
	int fd = pa->nl_sock - 1, err = nl_link_stats(&fd, &pa->ls, &pa->nls, &pa->ls_cap);

	pa->nl_sock = fd + 1;
	/* links in sysfs and none in the dump: not an answer to trust */
	if (!err && !pa->nls && nnd)
		err = -ENODATA;
	if (!err) {
		if (!pa->nl_said)
			pr_debug("netdev counters: one rtnetlink dump a sample (%zu links)\n", pa->nls);
		pa->nl_said = true;
		return 0;
	}
	/* refused for good (a seccomp filter, a kernel without RTM_GETSTATS); else asked again */
	if (err == -EPERM || err == -EACCES || err == -EAFNOSUPPORT || err == -EPROTONOSUPPORT ||
	    err == -EOPNOTSUPP || err == -EINVAL) {
		pa->nl_off = true;
		pr_info("netdev counters from sysfs files: rtnetlink's link stats: %s\n", strerror(-err));
	}
	return err;
}

/*
 * @pa's netdev cache made to hold exactly the netdevs of @s (both sorted by name), @ino their
 * sysfs directories' inode numbers: one still there under its directory (kernfs keeps a node
 * across a rename, a device made anew has another) keeps its ifindex and speed, any other
 * starts unread. 0 or -ENOMEM.
 */
static int nd_cache_sync(struct port_attrs *pa, const struct link_sample *s, const uint64_t *ino)
{
	struct nd_cache *c = s->nnd ? calloc(s->nnd, sizeof(*c)) : NULL;
	size_t j = 0;

	if (s->nnd && !c)
		return -ENOMEM;
	for (size_t i = 0; i < s->nnd; i++) {
		int d = 1;

		while (j < pa->nndc && (d = strcmp(pa->ndc[j].name, s->nds[i].name)) < 0)
			j++;
		if (j < pa->nndc && !d && pa->ndc[j].ino == ino[i]) {
			c[i] = pa->ndc[j++];
			continue;
		}
		snprintf(c[i].name, sizeof(c[i].name), "%s", s->nds[i].name);
		c[i].ino = ino[i];
		c[i].ifindex = -1;
	}
	free(pa->ndc);
	pa->ndc = c;
	pa->nndc = s->nnd;
	return 0;
}

/*
 * sysfs's ifindex of netdev @name, if this process's network namespace has the same netdev under
 * it (-1: none; 0: another's): the dump answers for this namespace only, and a sysfs mounted
 * from another one names its own devices, whose ifindexes repeat across namespaces.
 */
static int read_ifindex(const char *sysfs_root, const char *name)
{
	char path[512];
	long v;

	if (root_path(path, sizeof(path), sysfs_root, "/sys/class/net/%s/ifindex", name) ||
	    read_long(path, &v) || v <= 0 || v > INT32_MAX)
		return -1;
	return if_nametoindex(name) == (unsigned int)v ? (int)v : 0;
}

/*
 * Netdev @c's counters from the sample's dump, into @st; false when the dump has no link of its
 * ifindex (sysfs and this process in different network namespaces, or the netdev gone).
 */
static bool nd_from_dump(const struct port_attrs *pa, const char *sysfs_root, struct nd_cache *c,
			 struct netdev_stat *st, uint64_t now)
{
	const struct nl_link_stat *l;
	bool fresh = c->ifindex < 0;

	if (fresh)
		c->ifindex = read_ifindex(sysfs_root, c->name);
	l = nl_link_find(pa->ls, pa->nls, c->ifindex);
	/* gone from the dump since its ifindex was read: asked again (a move between namespaces) */
	if (!l && !fresh && c->ifindex > 0) {
		c->ifindex = read_ifindex(sysfs_root, c->name);
		l = nl_link_find(pa->ls, pa->nls, c->ifindex);
	}
	if (!l)
		return false;
	if (!c->speed_ns || now - c->speed_ns >= PORT_ATTR_REFRESH_NS) {
		c->speed_gbps = netdev_speed(sysfs_root, c->name);
		c->speed_ns = now;
	}
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", c->name);
	st->tx_bytes = l->tx_bytes;
	st->rx_bytes = l->rx_bytes;
	st->tx_packets = l->tx_packets;
	st->rx_packets = l->rx_packets;
	st->speed_gbps = c->speed_gbps;
	st->valid = true;
	return true;
}

/* a netdev's directory in /sys/class/net: its name and inode number, as readdir gives them */
struct nd_ent {
	char name[32];
	uint64_t ino;
};

static int cmp_nd_ent(const void *a, const void *b)
{
	return strcmp(((const struct nd_ent *)a)->name, ((const struct nd_ent *)b)->name);
}

/*
 * Every netdev of ROOT/sys/class/net, sorted by name. Where that is a sysfs, with @pa, their
 * counters come from one rtnetlink dump (a node with hundreds of veths read four files of each
 * at every sample); a netdev the dump does not answer for, a fixture tree, or no dump: the files.
 */
static int sample_netdevs(const char *sysfs_root, struct link_sample *s, struct port_attrs *pa)
{
	struct nd_ent *ents = NULL;
	size_t cap = 0, n = 0, k = 0;
	uint64_t *ino = NULL;
	char path[512];
	struct dirent *de;
	bool dump;
	int err;
	DIR *d;

	err = root_path(path, sizeof(path), sysfs_root, "/sys/class/net");
	if (err)
		return err;
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		err = GROW(ents, cap, n + 1, 8);
		if (err)
			break;
		snprintf(ents[n].name, sizeof(ents[n].name), "%s", de->d_name);
		ents[n++].ino = de->d_ino;
	}
	if (d)
		closedir(d);
	if (!err && n) {
		qsort(ents, n, sizeof(*ents), cmp_nd_ent);
		s->nds = calloc(n, sizeof(*s->nds));
		ino = calloc(n, sizeof(*ino));
		err = s->nds && ino ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++) {
		snprintf(s->nds[i].name, sizeof(s->nds[i].name), "%s", ents[i].name);
		ino[i] = ents[i].ino;
	}
	free(ents);
	if (err) {
		free(ino);
		return err;
	}
	s->nnd = n;
	dump = pa && !pa->nl_off && n && root_sysfs(sysfs_root) && nd_dump(pa, n) == 0 &&
	       nd_cache_sync(pa, s, ino) == 0;
	free(ino);
	for (size_t i = 0; i < s->nnd; i++) {
		char name[sizeof(s->nds[i].name)];

		memcpy(name, s->nds[i].name, sizeof(name));
		if ((dump && nd_from_dump(pa, sysfs_root, &pa->ndc[i], &s->nds[k], s->ts_ns)) ||
		    netdev_read_kept(sysfs_root, name, &s->nds[k], pa) == 0)
			k++;
	}
	s->nnd = k;
	return 0;
}

/* the port's kept attributes if fresh, else NULL; *slot is where to keep a new read (or NULL) */
static const struct port_attr *attrs_of(struct port_attrs *pa, const char *dev, unsigned int port,
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

void port_attrs_free(struct port_attrs *attrs)
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
		  struct port_attrs *attrs, struct link_sample *s)
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
		struct port_attrs *attrs, struct link_sample *s)
{
	int err = sample(sysfs_root, rates, nrates, attrs, s);

	kept_sweep(attrs);
	return err;
}

void link_sample_free(struct link_sample *s)
{
	free(s->ports);
	free(s->nds);
	s->ports = NULL;
	s->nds = NULL;
	s->n = s->nnd = 0;
}

int link_sample_dup(struct link_sample *dst, const struct link_sample *src)
{
	*dst = *src;
	dst->ports = src->n ? malloc(src->n * sizeof(*src->ports)) : NULL;
	dst->nds = src->nnd ? malloc(src->nnd * sizeof(*src->nds)) : NULL;
	if ((src->n && !dst->ports) || (src->nnd && !dst->nds)) {
		link_sample_free(dst);
		return -ENOMEM;
	}
	if (src->n)
		memcpy(dst->ports, src->ports, src->n * sizeof(*src->ports));
	if (src->nnd)
		memcpy(dst->nds, src->nds, src->nnd * sizeof(*src->nds));
	return 0;
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
			if (secs > 0) {
				x->tx_gbps = (double)x->tx_bytes * 8 / secs / 1e9;
				x->rx_gbps = (double)x->rx_bytes * 8 / secs / 1e9;
			}
			if (x->speed_gbps > 0) {
				x->tx_util_pct = 100 * x->tx_gbps / x->speed_gbps;
				x->rx_util_pct = 100 * x->rx_gbps / x->speed_gbps;
			}
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
	if (d->have_bytes && secs > 0) {
		d->tx_gbps = (double)d->tx_bytes * 8 / secs / 1e9;
		d->rx_gbps = (double)d->rx_bytes * 8 / secs / 1e9;
		if (p->rate_gbps > 0) {
			d->tx_util_pct = 100 * d->tx_gbps / p->rate_gbps;
			d->rx_util_pct = 100 * d->rx_gbps / p->rate_gbps;
		}
	}
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
