// SPDX-License-Identifier: GPL-2.0
/*
 * Every netdev under ROOT/sys/class/net and its counters: on a live sysfs from one rtnetlink
 * dump a sample, else (a fixture tree, a netdev the dump lacks, a refused dump) from its files.
 */
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
#include "links/link_int.h"
#include "lib/log.h"
#include "links/nl.h"
#include "lib/util.h"

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
			    struct link_sampler *pa)
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

static int cmp_netdev(const void *a, const void *b)
{
	return strcmp(((const struct netdev_stat *)a)->name, ((const struct netdev_stat *)b)->name);
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
static int nd_dump(struct link_sampler *pa, size_t nnd)
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
static int nd_cache_sync(struct link_sampler *pa, const struct link_sample *s, const uint64_t *ino)
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
static bool nd_from_dump(const struct link_sampler *pa, const char *sysfs_root, struct nd_cache *c,
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
int sample_netdevs(const char *sysfs_root, struct link_sample *s, struct link_sampler *pa)
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

/*
 * The netdev under a RoCE port: its own sample's row when this sample read it (the same tick's
 * counters, without reading the five files again), else read now.
 */
void port_netdev(const char *sysfs_root, const struct link_sample *s, const char *name,
			struct rdma_port *p, struct link_sampler *pa)
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
