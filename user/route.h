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

/*
 * The local address of the established TCP connection to @dst:@dport in a /proc/net/tcp
 * (AF_INET, struct in_addr) or tcp6 (AF_INET6, in6_addr) stream, from local port @sport (0: any).
 * 0, -ENOENT when there is none, -EEXIST when connections from different addresses match.
 */
int tcp_local_addr(FILE *f, int family, const void *dst, unsigned int dport, unsigned int sport,
		   void *local);
/* the same on ROOT/proc/net/tcp or tcp6, with @dst a string as route_netdev takes it */
int tcp_source(const char *procfs_root, const char *dst, unsigned int dport, unsigned int sport,
	       struct sockaddr_storage *src);
/* the source port of sunrpc transport @id (ROOT/sys/kernel/sunrpc/.../xprt-ID-tcp/xprt_info) */
int xprt_src_port(const char *sysfs_root, unsigned int id, unsigned int *port);
/* "10.0.0.1", "fd00::1", "fe80::1%eth1" -> a sockaddr with @port; -EAFNOSUPPORT otherwise */
int parse_sockaddr(const char *addr, unsigned int port, struct sockaddr_storage *ss);

#endif
