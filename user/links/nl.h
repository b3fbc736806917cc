/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel itself decided about a transport's path, asked over netlink: the route it
 * resolves for a (source, destination) pair, and the RDMA device and port each kernel rdma_cm
 * connection is bound to. Both answer for the machine's live state, so they have no fixture root;
 * callers fall back to the file parsers of route.h when asked to read a fixture tree.
 */
#ifndef SLOTSCOPE_NL_H
#define SLOTSCOPE_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/types.h>

/*
 * The output interface the kernel picks for @dst (an AF_INET or AF_INET6 sockaddr; an IPv6 scope
 * id is honoured) from @src (NULL or family AF_UNSPEC: no source), policy rules and metrics
 * included. 0 or -errno.
 */
int nl_route_dev(const struct sockaddr *dst, const struct sockaddr *src, char *ifname, size_t len);

struct rdma_conn {
	char dev[64];
	unsigned int port;		/* 0: not bound to a port yet */
	char owner[32];			/* kernel module that made it ("rpcrdma"), "" for user ones */
	struct sockaddr_storage src, dst;
};

/* Every rdma_cm connection id of every RDMA device (the restrack table "rdma res show cm_id"). */
int nl_rdma_conns(struct rdma_conn **out, size_t *n);

/* a link's counters as RTM_GETSTATS gives them: the rtnl_link_stats64 sysfs's statistics/ show */
struct nl_link_stat {
	int ifindex;
	__u64 tx_bytes, rx_bytes, tx_packets, rx_packets;
};

/*
 * Every link of this network namespace with its counters, in one RTM_GETSTATS dump, sorted by
 * ifindex (*@out grown as needed, *@cap its room). *@fd: a rtnetlink socket the caller keeps
 * between dumps, opened here when < 0. 0 or -errno.
 */
int nl_link_stats(int *fd, struct nl_link_stat **out, size_t *n, size_t *cap);
/* the link of @ifindex in @ls (as nl_link_stats() sorted it), or NULL */
const struct nl_link_stat *nl_link_find(const struct nl_link_stat *ls, size_t n, int ifindex);

/*
 * One datagram (@n bytes) of the replies to request @seq: each message to @cb until NLMSG_DONE (a
 * dump) or the first reply (a get). NL_MORE while the answer goes on, else its result: 0, the
 * kernel's -errno, or @cb's first (*@failed: kept across a dump's datagrams). A message whose
 * length runs past the datagram ends the walk; nothing past @n is read.
 */
#define NL_MORE 1
int nl_walk(const void *buf, size_t n, __u32 seq, bool dump, int *failed,
	    int (*cb)(const struct nlmsghdr *, void *), void *arg);

/* NL_BUF bytes: a netlink buffer, as nl_talk() reads into */
#define NL_BUF 65536
/* a netlink socket of @proto, bound, with a receive timeout: the fd or -errno */
int nl_open(int proto);
/* send @req on @fd and walk its answer (nl_walk()) into @buf (NL_BUF bytes): 0 or -errno */
int nl_talk(int fd, struct nlmsghdr *req, char *buf, int (*cb)(const struct nlmsghdr *, void *), void *arg);

/*
 * A dump's messages of @type, each parsed by @parse into the next element (@size bytes) of a
 * growing array (*@out, *@n of *@cap; @first when it starts empty): nl_acc_cb() is the nl_talk()
 * callback. A message @parse says is not one (-ENOENT) is skipped; a malformed one fails the
 * dump (-EBADMSG).
 */
struct nl_acc {
	__u16 type;
	int (*parse)(const void *buf, size_t len, void *elem);
	size_t size, first;
	void *out;			/* the array's pointer, by address */
	size_t *n, *cap;
};
int nl_acc_cb(const struct nlmsghdr *h, void *arg);

/*
 * The dumps a tick repeats (sock_diag's connections, rtnetlink's link stats), on a socket the
 * caller keeps in *@fd so that a tick does not open one: opened of @proto when < 0, closed and set
 * to -1 when a dump fails (its rest could answer the next request). The @nreq requests in turn,
 * until one fails, each walked by nl_acc_cb() into @a (*@a->n from 0; 0 on failure). 0 or -errno.
 */
int nl_dump_kept(int *fd, int proto, struct nlmsghdr *const *req, size_t nreq, struct nl_acc *a);

/* The RDMA netlink and rtnetlink reply parsers, apart from their sockets, for the fuzzer. */
int nl_parse_route_reply(const void *buf, size_t len, int *oif);
int nl_parse_cm_ids(const void *buf, size_t len, struct rdma_conn **out, size_t *n, size_t *cap);
/* one RTM_NEWSTATS message's payload: 0, -ENOENT without the 64-bit link counters, or -EINVAL */
int nl_parse_link_stats(const void *buf, size_t len, struct nl_link_stat *st);

#endif
