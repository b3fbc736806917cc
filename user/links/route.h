/* SPDX-License-Identifier: GPL-2.0 */
/* Which netdev an RPC transport's traffic leaves by, from the kernel's routing tables. */
#ifndef SLOTSCOPE_ROUTE_H
#define SLOTSCOPE_ROUTE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>

/*
 * Which netdev traffic to @addr leaves by: the longest match in ROOT/proc/net/route (IPv4; 127/8
 * is lo) or ROOT/proc/net/ipv6_route (IPv6; "%iface" scope suffix wins). -ENOENT when no route
 * matches, -EAFNOSUPPORT for what is not an address.
 */
int route_netdev(const char *procfs_root, const char *addr, char *ifname, size_t len);
/*
 * The longest prefix of a /proc/net/route (AF_INET) or ipv6_route (AF_INET6) stream that covers
 * @addr (struct in_addr or in6_addr) names the netdev; 0 or -ENOENT.
 */
int route_best(FILE *f, int family, const void *addr, char *ifname, size_t len);

/* the established TCP connections of /proc/net/tcp and tcp6: one read for every transport */
struct tcp_conns {
	struct tcp_conn {
		int family;
		unsigned char la[16], ra[16];	/* struct in_addr or in6_addr */
		unsigned int lport, rport;
	} *c;
	size_t n, cap;
};
/* add the established connections of a /proc/net/tcp (AF_INET) or tcp6 (AF_INET6) stream; 0 or -ENOMEM */
int tcp_conns_parse(FILE *f, int family, struct tcp_conns *t);
/* the same from ROOT/proc/net/tcp and tcp6 (absent: none) */
int tcp_conns_read(const char *procfs_root, struct tcp_conns *t);
/*
 * The local address of the established TCP connection to @dst:@dport (struct in_addr or
 * in6_addr) from local port @sport (0: any). 0, -ENOENT when there is none, -EEXIST when
 * connections from different addresses match.
 */
int tcp_conns_local(const struct tcp_conns *t, int family, const void *dst, unsigned int dport,
		    unsigned int sport, void *local);
void tcp_conns_free(struct tcp_conns *t);
/* tcp_conns_parse and tcp_conns_local on one stream */
int tcp_local_addr(FILE *f, int family, const void *dst, unsigned int dport, unsigned int sport,
		   void *local);

/* every sunrpc TCP transport's source port, from one walk of ROOT/sys/kernel/sunrpc/xprt-switches */
struct xprt_ports {
	struct xprt_port {
		unsigned int id, port;
	} *p;			/* sorted by id */
	size_t n, cap;
};
/* 0 (none when there is no such sysfs, before 5.14) or -ENOMEM */
int xprt_ports_read(const char *sysfs_root, struct xprt_ports *t);
/* transport @id's source port: 0 or -ENOENT */
int xprt_ports_get(const struct xprt_ports *t, unsigned int id, unsigned int *port);
void xprt_ports_free(struct xprt_ports *t);
/* "10.0.0.1", "fd00::1", "fe80::1%eth1" -> a sockaddr with @port; -EAFNOSUPPORT otherwise */
int parse_sockaddr(const char *addr, unsigned int port, struct sockaddr_storage *ss);

#endif
