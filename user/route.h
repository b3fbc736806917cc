/* SPDX-License-Identifier: GPL-2.0 */
/* Which netdev an RPC transport's traffic leaves by, from the kernel's routing tables. */
#ifndef SLOTSCOPE_ROUTE_H
#define SLOTSCOPE_ROUTE_H

#include <stddef.h>
#include <stdio.h>

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

#endif
