/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which link a transport's traffic crosses, as the kernel decided it. An RDMA transport is on the
 * device and port its own rdma_cm connection is bound to; a TCP transport leaves by the route the
 * kernel resolves for its socket's source and destination, policy rules and metrics included.
 * Where neither can be asked (a fixture tree, no netlink), the longest prefix of the main table
 * stands in. Answers are kept per transport and asked again every LINK_REFRESH_S, so a reconnect
 * that moved a transport to another rail shows within that time at one netlink query per
 * transport, not one per tick.
 */
#ifndef SLOTSCOPE_LINKMAP_H
#define SLOTSCOPE_LINKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define LINK_REFRESH_S 10.0

struct link_path {
	char netdev[32];		/* "" when unknown */
	char rdma_dev[64];		/* set from the connection itself */
	unsigned int rdma_port;
	unsigned int sport;		/* a TCP transport's source port (sysfs xprt_info, 5.14); 0: unknown */
	/*
	 * "connection": the transport's own rdma_cm id; "route": the kernel's route lookup for the
	 * transport's addresses; "table": the longest prefix of /proc/net/route (no policy rules)
	 */
	const char *from;
};

struct rdma_conn;

struct linkmap {
	const char *procfs_root, *sysfs_root;
	bool live;			/* the roots are the machine's own: netlink answers for them */
	struct lm_entry {
		__u64 key, first_seen;
		double at, used;	/* CLOCK_MONOTONIC s of the answer, of its last use */
		struct link_path p;
	} *e;
	size_t n, cap;
	struct rdma_conn *conns;	/* the rdma_cm table, read at most once per refresh */
	size_t nconns;
	double conns_at;
};

void linkmap_init(struct linkmap *m, const char *procfs_root, const char *sysfs_root);
void linkmap_free(struct linkmap *m);

struct lm_xprt {
	__u64 key, first_seen;
	unsigned int id, ident;
	const char *addr, *port;
};

struct snapshot;
/*
 * Ask for the paths of @s's transports whose answer is older than LINK_REFRESH_S (or new): the
 * kernel where it can be asked, else the longest prefix in ROOT/proc/net/route. 0 or -ENOMEM.
 */
int linkmap_update(struct linkmap *m, const struct snapshot *s);
/* the path of a transport as last asked (0), or -ENOENT when nothing knows it */
int linkmap_get(const struct linkmap *m, __u64 key, __u64 first_seen, struct link_path *p);

#endif
