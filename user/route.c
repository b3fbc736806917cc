// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "route.h"
#include "util.h"

static int hexbytes(const char *hex, unsigned char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &out[i]) != 1)
			return -EINVAL;
	return 0;
}

/* A /proc/net/route line: its prefix length if it is up and covers @addr, else -1. */
static int match4(const char *line, const void *addr, char *iface)
{
	const struct in_addr *a = addr;
	unsigned int dst, gw, flags, mask;

	/* Iface Destination Gateway Flags RefCnt Use Metric Mask ...; hex in network order */
	if (sscanf(line, "%63s %x %x %x %*d %*d %*d %x", iface, &dst, &gw, &flags, &mask) != 5 ||
	    !(flags & 1) || (a->s_addr & mask) != dst)	/* RTF_UP */
		return -1;
	return __builtin_popcount(mask);
}

/* The same for a /proc/net/ipv6_route line. */
static int match6(const char *line, const void *addr, char *iface)
{
	const struct in6_addr *a = addr;
	unsigned int plen, flags;
	unsigned char dst[16];
	char dsthex[33];

	/* dst plen src splen nexthop metric refcnt use flags iface; hex, no separators */
	if (sscanf(line, "%32s %x %*s %*x %*s %*x %*x %*x %x %63s", dsthex, &plen, &flags, iface) != 4 ||
	    plen > 128 || hexbytes(dsthex, dst, 16) || !(flags & 1))
		return -1;
	for (unsigned int bit = 0; bit < plen; bit += 8) {
		unsigned int n = plen - bit >= 8 ? 8 : plen - bit;
		unsigned char m = (unsigned char)(0xff00 >> n);

		if ((a->s6_addr[bit / 8] & m) != (dst[bit / 8] & m))
			return -1;
	}
	return (int)plen;
}

int route_best(FILE *f, int family, const void *addr, char *ifname, size_t len)
{
	int (*match)(const char *, const void *, char *) = family == AF_INET6 ? match6 : match4;
	char line[512], iface[64], best[64] = "";
	int bestbits = -1, bits;

	while (fgets(line, sizeof(line), f))
		if ((bits = match(line, addr, iface)) > bestbits) {
			bestbits = bits;
			snprintf(best, sizeof(best), "%s", iface);
		}
	if (bestbits < 0)
		return -ENOENT;
	snprintf(ifname, len, "%s", best);
	return 0;
}

static int best_route(const char *path, int family, const void *addr, char *ifname, size_t len)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return -errno;
	err = route_best(f, family, addr, ifname, len);
	fclose(f);
	return err;
}

/*
 * IPv4 from /proc/net/route, which lacks the local table: 127/8 always leaves by lo. IPv6 from
 * /proc/net/ipv6_route, every table, the local one included, so a local server address resolves
 * to lo as the kernel sends it; a link-local address carries its interface ("fe80::1%eth0",
 * rpc_ntop's scope suffix), and that interface is the answer.
 */
int route_netdev(const char *procfs_root, const char *addr, char *ifname, size_t len)
{
	char path[512], host[INET6_ADDRSTRLEN + 1];
	const char *pct = strchr(addr, '%');
	struct in6_addr a6;
	struct in_addr a;
	int err;

	if (inet_pton(AF_INET, addr, &a) == 1) {
		if ((ntohl(a.s_addr) >> 24) == 127) {
			snprintf(ifname, len, "lo");
			return 0;
		}
		err = root_path(path, sizeof(path), procfs_root, "/proc/net/route");
		return err ? err : best_route(path, AF_INET, &a, ifname, len);
	}
	snprintf(host, sizeof(host), "%.*s", pct ? (int)(pct - addr) : (int)strlen(addr), addr);
	if (inet_pton(AF_INET6, host, &a6) != 1)
		return -EAFNOSUPPORT;
	if (pct && pct[1] && strspn(pct + 1, "0123456789") != strlen(pct + 1)) {
		snprintf(ifname, len, "%s", pct + 1);
		return 0;
	}
	err = root_path(path, sizeof(path), procfs_root, "/proc/net/ipv6_route");
	return err ? err : best_route(path, AF_INET6, &a6, ifname, len);
}
