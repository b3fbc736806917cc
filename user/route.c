// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
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

/* /proc/net/tcp prints each address word as the kernel holds it: "%08X" of a native __be32 */
static int hexaddr(const char *hex, int family, void *out)
{
	size_t words = family == AF_INET6 ? 4 : 1;
	unsigned int w[4];

	if (strlen(hex) != 8 * words)
		return -EINVAL;
	for (size_t i = 0; i < words; i++)
		if (sscanf(hex + 8 * i, "%8x", &w[i]) != 1)
			return -EINVAL;
	memcpy(out, w, 4 * words);
	return 0;
}

int tcp_local_addr(FILE *f, int family, const void *dst, unsigned int dport, unsigned int sport,
		   void *local)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	unsigned char la[16], ra[16], found[16];
	char line[512], lhex[40], rhex[40];
	unsigned int lport, rport, st;
	bool have = false;

	while (fgets(line, sizeof(line), f)) {
		/* sl local_address rem_address st ...; the header line does not scan */
		if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x", lhex, &lport, rhex,
			   &rport, &st) != 5 ||
		    hexaddr(lhex, family, la) || hexaddr(rhex, family, ra))
			continue;
		if (st != 1 || rport != dport || memcmp(ra, dst, alen) || (sport && lport != sport))
			continue;	/* 1: TCP_ESTABLISHED */
		if (have && memcmp(found, la, alen))
			return -EEXIST;
		memcpy(found, la, alen);
		have = true;
	}
	if (!have)
		return -ENOENT;
	memcpy(local, found, alen);
	return 0;
}

int parse_sockaddr(const char *addr, unsigned int port, struct sockaddr_storage *ss)
{
	const char *pct = strchr(addr, '%');
	char host[INET6_ADDRSTRLEN + 1];

	memset(ss, 0, sizeof(*ss));
	if (!pct) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)port);
			return 0;
		}
	}
	if (snprintf(host, sizeof(host), "%.*s", pct ? (int)(pct - addr) : (int)strlen(addr), addr) >=
	    (int)sizeof(host))
		return -EAFNOSUPPORT;
	{
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -EAFNOSUPPORT;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (pct && pct[1])
			s6->sin6_scope_id = strspn(pct + 1, "0123456789") == strlen(pct + 1) ?
						    (uint32_t)strtoul(pct + 1, NULL, 10) :
						    if_nametoindex(pct + 1);
	}
	return 0;
}

int tcp_source(const char *procfs_root, const char *dst, unsigned int dport, unsigned int sport,
	       struct sockaddr_storage *src)
{
	struct sockaddr_storage d;
	char path[512];
	const void *a;
	void *out;
	FILE *f;
	int err = parse_sockaddr(dst, 0, &d);

	if (err)
		return err;
	memset(src, 0, sizeof(*src));
	src->ss_family = d.ss_family;
	if (d.ss_family == AF_INET) {
		a = &((struct sockaddr_in *)&d)->sin_addr;
		out = &((struct sockaddr_in *)src)->sin_addr;
	} else {
		a = &((struct sockaddr_in6 *)&d)->sin6_addr;
		out = &((struct sockaddr_in6 *)src)->sin6_addr;
	}
	err = root_path(path, sizeof(path), procfs_root,
			d.ss_family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6");
	if (err)
		return err;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	err = tcp_local_addr(f, d.ss_family, a, dport, sport, out);
	fclose(f);
	return err;
}

int xprt_src_port(const char *sysfs_root, unsigned int id, unsigned int *port)
{
	char pattern[512], line[128];
	unsigned int v;
	glob_t g;
	int err;

	err = root_path(pattern, sizeof(pattern), sysfs_root,
			"/sys/kernel/sunrpc/xprt-switches/switch-*/xprt-%u-tcp/xprt_info", id);
	if (err)
		return err;
	if (glob(pattern, 0, NULL, &g))
		return -ENOENT;
	err = -ENOENT;
	for (size_t i = 0; i < g.gl_pathc && err; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "src_port=%u", &v) == 1 && v && v < 65536) {
				*port = v;
				err = 0;
			}
		fclose(f);
	}
	globfree(&g);
	return err;
}
