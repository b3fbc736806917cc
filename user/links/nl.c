// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/time.h>
#include <linux/netlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include "links/nl.h"
#include "lib/util.h"

/* attributes of one level into tb[type] (the last of a repeated type wins); 0 or -EINVAL */
static int attrs(const void *buf, size_t len, const struct nlattr **tb, int max)
{
	const unsigned char *p = buf;

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t alen = a->nla_len, step = NLA_ALIGN(alen);
		int type = a->nla_type & NLA_TYPE_MASK;

		if (alen < NLA_HDRLEN || alen > len)
			return -EINVAL;
		if (type <= max)
			tb[type] = a;
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

static const void *payload(const struct nlattr *a) { return (const char *)a + NLA_HDRLEN; }
static size_t payload_len(const struct nlattr *a) { return a->nla_len - NLA_HDRLEN; }

static int get_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || payload_len(a) < sizeof(*v))
		return -ENOENT;
	memcpy(v, payload(a), sizeof(*v));
	return 0;
}

static void get_str(const struct nlattr *a, char *out, size_t len)
{
	size_t n = a ? strnlen(payload(a), payload_len(a)) : 0;

	if (n >= len)
		n = len - 1;
	if (n)
		memcpy(out, payload(a), n);
	out[n] = '\0';
}

int nl_open(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	/* a kernel that never answers must not hang a tick */
	struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Send @req and hand every reply message to @cb until NLMSG_DONE (a dump) or the first reply (a
 * get). 0, the kernel's -errno, or @cb's first. A dump is read to its end even after @cb failed:
 * the socket is asked again, and must not find the rest of this answer first.
 */
int nl_walk(const void *buf, size_t n, __u32 seq, bool dump, int *failed,
	    int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	/*
	 * Signed: NLMSG_NEXT subtracts a message's aligned length, which for a last message not
	 * padded to 4 bytes is more than is left; unsigned, that wraps and the walk reads on past
	 * the datagram
	 */
	int left = n > NL_BUF ? NL_BUF : (int)n;

	for (const struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		int err;

		if (h->nlmsg_seq != seq)
			continue;	/* a late answer to an earlier request */
		if (h->nlmsg_type == NLMSG_DONE) {
			int derr = 0;

			/* a dump that failed midway says so in its DONE (netlink_dump_done(), 4.15) */
			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(derr)))
				memcpy(&derr, NLMSG_DATA(h), sizeof(derr));
			return *failed ? *failed : derr < 0 ? derr : 0;
		}
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EIO;
			if (e->error)
				return *failed ? *failed : e->error;
			if (!dump)
				return 0;
			continue;
		}
		if (*failed)
			continue;
		err = cb(h, arg);
		if (!dump)
			return err;
		*failed = err;
	}
	return NL_MORE;
}

int nl_talk(int fd, struct nlmsghdr *req, char *buf,
		   int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	static __u32 seq;
	bool dump = req->nlmsg_flags & NLM_F_DUMP;
	int failed = 0, rc;

	req->nlmsg_seq = ++seq;
	if (send(fd, req, req->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct sockaddr_nl from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, buf, NL_BUF, 0, (struct sockaddr *)&from, &flen);

		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -EIO;
		/* only the kernel answers: a datagram another process sent to our port is dropped */
		if (flen < sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0)
			continue;
		rc = nl_walk(buf, (size_t)n, req->nlmsg_seq, dump, &failed, cb, arg);
		if (rc != NL_MORE)
			return rc;
	}
}

int nl_parse_route_reply(const void *buf, size_t len, int *oif)
{
	const struct nlattr *tb[RTA_MAX + 1];
	uint32_t v;

	if (len < NLMSG_ALIGN(sizeof(struct rtmsg)) ||
	    attrs((const char *)buf + NLMSG_ALIGN(sizeof(struct rtmsg)),
		  len - NLMSG_ALIGN(sizeof(struct rtmsg)), tb, RTA_MAX) ||
	    get_u32(tb[RTA_OIF], &v))
		return -ENOENT;
	*oif = (int)v;
	return 0;
}

static int route_cb(const struct nlmsghdr *h, void *arg)
{
	if (h->nlmsg_type != RTM_NEWROUTE)
		return -EIO;
	return nl_parse_route_reply(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, arg);
}

/* not inlined: the attributes go past the header into the request's buffer, which GCC's object
 * size tracking of the header alone would flag */
static __attribute__((noinline)) void put_attr(struct nlmsghdr *h, unsigned short type,
					       const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = (unsigned short)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static const void *in_addr_of(const struct sockaddr *sa, size_t *len)
{
	if (sa && sa->sa_family == AF_INET) {
		*len = 4;
		return &((const struct sockaddr_in *)sa)->sin_addr;
	}
	if (sa && sa->sa_family == AF_INET6) {
		*len = 16;
		return &((const struct sockaddr_in6 *)sa)->sin6_addr;
	}
	return NULL;
}

int nl_route_dev(const struct sockaddr *dst, const struct sockaddr *src, char *ifname, size_t len)
{
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
		char attrs[64];
	} req = {
		.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
		.h.nlmsg_type = RTM_GETROUTE,
		.h.nlmsg_flags = NLM_F_REQUEST,
	};
	const void *d, *s;
	size_t dlen, slen;
	char *buf, name[IF_NAMESIZE];
	int fd, oif = 0, err;

	d = in_addr_of(dst, &dlen);
	if (!d)
		return -EAFNOSUPPORT;
	s = in_addr_of(src, &slen);
	if (s && slen != dlen)
		s = NULL;
	req.r.rtm_family = (unsigned char)dst->sa_family;
	req.r.rtm_dst_len = (unsigned char)(dlen * 8);
	put_attr(&req.h, RTA_DST, d, dlen);
	if (s) {
		req.r.rtm_src_len = (unsigned char)(slen * 8);
		put_attr(&req.h, RTA_SRC, s, slen);
	}
	/* the kernel's sunrpc sockets are root's: uidrange rules must see uid 0, not ours */
	{
		uint32_t uid = 0;

		put_attr(&req.h, RTA_UID, &uid, sizeof(uid));
	}
	if (dst->sa_family == AF_INET6 && ((const struct sockaddr_in6 *)dst)->sin6_scope_id) {
		uint32_t o = ((const struct sockaddr_in6 *)dst)->sin6_scope_id;

		put_attr(&req.h, RTA_OIF, &o, sizeof(o));
	}
	buf = malloc(NL_BUF);
	if (!buf)
		return -ENOMEM;
	fd = nl_open(NETLINK_ROUTE);
	err = fd < 0 ? fd : nl_talk(fd, &req.h, buf, route_cb, &oif);
	if (fd >= 0)
		close(fd);
	free(buf);
	if (err)
		return err;
	if (!if_indextoname((unsigned int)oif, name))
		return -errno;
	snprintf(ifname, len, "%s", name);
	return 0;
}

/* ---- RDMA: the restrack table of rdma_cm ids, per device (the kernel dumps one device a call) */

static void get_sockaddr(const struct nlattr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a)
		memcpy(ss, payload(a), payload_len(a) < sizeof(*ss) ? payload_len(a) : sizeof(*ss));
}

int nl_parse_cm_ids(const void *buf, size_t len, struct rdma_conn **out, size_t *n, size_t *cap)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1], *table;
	const unsigned char *p;
	char dev[64];
	size_t left;

	if (attrs(buf, len, tb, RDMA_NLDEV_ATTR_MAX))
		return -EINVAL;
	get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME], dev, sizeof(dev));
	table = tb[RDMA_NLDEV_ATTR_RES_CM_ID];
	if (!table)
		return 0;
	p = payload(table);
	left = payload_len(table);
	/* the table: a run of RES_CM_ID_ENTRY attributes, each nesting one id's attributes */
	while (left >= NLA_HDRLEN) {
		const struct nlattr *e = (const struct nlattr *)p, *et[RDMA_NLDEV_ATTR_MAX + 1];
		size_t step = NLA_ALIGN(e->nla_len);
		struct rdma_conn *c;
		uint32_t port = 0;
		int err;

		if (e->nla_len < NLA_HDRLEN || e->nla_len > left)
			return -EINVAL;
		if ((e->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY &&
		    !attrs(payload(e), payload_len(e), et, RDMA_NLDEV_ATTR_MAX)) {
			err = GROW(*out, *cap, *n + 1, 8);
			if (err)
				return err;
			c = &(*out)[(*n)++];
			memset(c, 0, sizeof(*c));
			snprintf(c->dev, sizeof(c->dev), "%s", dev);
			get_u32(et[RDMA_NLDEV_ATTR_PORT_INDEX], &port);
			c->port = port;
			get_str(et[RDMA_NLDEV_ATTR_RES_KERN_NAME], c->owner, sizeof(c->owner));
			get_sockaddr(et[RDMA_NLDEV_ATTR_RES_SRC_ADDR], &c->src);
			get_sockaddr(et[RDMA_NLDEV_ATTR_RES_DST_ADDR], &c->dst);
		}
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	return 0;
}

struct rdma_devs {
	uint32_t *idx;
	size_t n, cap;
};

static int dev_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	struct rdma_devs *d = arg;
	uint32_t idx;
	int err;

	if (attrs(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, tb, RDMA_NLDEV_ATTR_MAX) ||
	    get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &idx))
		return 0;
	err = GROW(d->idx, d->cap, d->n + 1, 4);
	if (!err)
		d->idx[d->n++] = idx;
	return err;
}

struct cm_acc {
	struct rdma_conn *c;
	size_t n, cap;
};

static int cm_cb(const struct nlmsghdr *h, void *arg)
{
	struct cm_acc *a = arg;
	int err = nl_parse_cm_ids(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, &a->c, &a->n, &a->cap);

	/* told apart from the kernel's -EINVAL for a device index gone since the first dump */
	return err == -EINVAL ? -EBADMSG : err;
}

int nl_rdma_conns(struct rdma_conn **out, size_t *n)
{
	struct {
		struct nlmsghdr h;
		char attrs[16];
	} req;
	struct rdma_devs d = { 0 };
	struct cm_acc a = { 0 };
	char *buf = malloc(NL_BUF);
	int fd, err;

	if (!buf)
		return -ENOMEM;
	fd = nl_open(NETLINK_RDMA);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(0);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	err = nl_talk(fd, &req.h, buf, dev_cb, &d);
	for (size_t i = 0; !err && i < d.n; i++) {
		memset(&req, 0, sizeof(req));
		req.h.nlmsg_len = NLMSG_LENGTH(0);
		req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET);
		req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		put_attr(&req.h, RDMA_NLDEV_ATTR_DEV_INDEX, &d.idx[i], sizeof(d.idx[i]));
		err = nl_talk(fd, &req.h, buf, cm_cb, &a);
		/* a device that went away between the two dumps has nothing to say (-EINVAL) */
		if (err == -ENODEV || err == -EINVAL)
			err = 0;
	}
	close(fd);
	free(buf);
	free(d.idx);
	if (err) {
		free(a.c);
		return err;
	}
	*out = a.c;
	*n = a.n;
	return 0;
}

int nl_parse_link_stats(const void *buf, size_t len, struct nl_link_stat *st)
{
	const size_t hdr = NLMSG_ALIGN(sizeof(struct if_stats_msg));
	const struct nlattr *tb[IFLA_STATS_MAX + 1];
	struct rtnl_link_stats64 v = { 0 };
	const struct if_stats_msg *m = buf;
	size_t n;

	if (len < hdr || attrs((const char *)buf + hdr, len - hdr, tb, IFLA_STATS_MAX))
		return -EINVAL;
	/* rx_packets, tx_packets, rx_bytes, tx_bytes lead the struct since it was made (2.6.35) */
	if (!tb[IFLA_STATS_LINK_64] || payload_len(tb[IFLA_STATS_LINK_64]) < 4 * sizeof(__u64))
		return -ENOENT;
	n = payload_len(tb[IFLA_STATS_LINK_64]);
	memcpy(&v, payload(tb[IFLA_STATS_LINK_64]), n < sizeof(v) ? n : sizeof(v));
	st->ifindex = (int)m->ifindex;
	st->tx_bytes = v.tx_bytes;
	st->rx_bytes = v.rx_bytes;
	st->tx_packets = v.tx_packets;
	st->rx_packets = v.rx_packets;
	return 0;
}

int nl_acc_cb(const struct nlmsghdr *h, void *arg)
{
	struct nl_acc *a = arg;
	char *elem;
	int err;

	if (h->nlmsg_type != a->type)
		return 0;
	err = grow(a->out, a->cap, *a->n + 1, a->size, a->first);
	if (err)
		return err;
	elem = *(char **)a->out + *a->n * a->size;
	err = a->parse(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, elem);
	if (err == -ENOENT)
		return 0;
	if (err)
		return -EBADMSG;
	++*a->n;
	return 0;
}

int nl_dump_kept(int *fd, int proto, struct nlmsghdr *const *req, size_t nreq, struct nl_acc *a)
{
	char *buf;
	int err = 0;

	*a->n = 0;
	if (*fd < 0) {
		*fd = nl_open(proto);
		if (*fd < 0)
			return *fd;
	}
	buf = malloc(NL_BUF);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < nreq && !err; i++)
		err = nl_talk(*fd, req[i], buf, nl_acc_cb, a);
	free(buf);
	if (err) {
		/* a dump cut short (a timeout) may answer the next request: a new socket then */
		close(*fd);
		*fd = -1;
		*a->n = 0;
	}
	return err;
}

static int parse_link_stats(const void *buf, size_t len, void *st)
{
	return nl_parse_link_stats(buf, len, st);
}

static int cmp_ifindex(const void *a, const void *b)
{
	const struct nl_link_stat *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

const struct nl_link_stat *nl_link_find(const struct nl_link_stat *ls, size_t n, int ifindex)
{
	const struct nl_link_stat k = { .ifindex = ifindex };

	return ifindex > 0 && n ? bsearch(&k, ls, n, sizeof(*ls), cmp_ifindex) : NULL;
}

/*
 * RTM_GETSTATS (10c9ead9f3c6, 4.7) asked for IFLA_STATS_LINK_64 alone: ~200 bytes a link, where
 * RTM_GETLINK's dump carries every attribute (1-2 KB a link), and where sysfs takes four files a
 * netdev, a node with hundreds of veths reads them all in a few datagrams. The same
 * dev_get_stats() answers both.
 */
int nl_link_stats(int *fd, struct nl_link_stat **out, size_t *n, size_t *cap)
{
	struct {
		struct nlmsghdr h;
		struct if_stats_msg m;
	} req;
	struct nlmsghdr *reqs[] = { &req.h };
	struct nl_acc a = { .type = RTM_NEWSTATS, .parse = parse_link_stats, .size = sizeof(**out), .first = 64,
			    .out = out, .n = n, .cap = cap };
	int err;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.m));
	req.h.nlmsg_type = RTM_GETSTATS;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.m.family = AF_UNSPEC;
	req.m.filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
	err = nl_dump_kept(fd, NETLINK_ROUTE, reqs, 1, &a);
	if (err)
		return err;
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_ifindex);
	return 0;
}
