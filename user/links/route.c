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
#include "host/xprtinfo.h"
#include "links/route.h"
#include "lib/util.h"

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

int tcp_conns_parse(FILE *f, int family, struct tcp_conns *t)
{
	unsigned char la[16], ra[16];
	char line[512], lhex[40], rhex[40];
	unsigned int lport, rport, st;
	int err;

	while (fgets(line, sizeof(line), f)) {
		struct tcp_conn *c;

		/* sl local_address rem_address st ...; the header line does not scan */
		if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x", lhex, &lport, rhex,
			   &rport, &st) != 5 ||
		    st != 1 || hexaddr(lhex, family, la) || hexaddr(rhex, family, ra))
			continue;	/* 1: TCP_ESTABLISHED */
		err = GROW(t->c, t->cap, t->n + 1, 16);
		if (err)
			return err;
		c = &t->c[t->n++];
		c->family = family;
		memcpy(c->la, la, sizeof(la));
		memcpy(c->ra, ra, sizeof(ra));
		c->lport = lport;
		c->rport = rport;
	}
	return 0;
}

int tcp_conns_local(const struct tcp_conns *t, int family, const void *dst, unsigned int dport,
		    unsigned int sport, void *local)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	const struct tcp_conn *found = NULL;

	for (size_t i = 0; i < t->n; i++) {
		const struct tcp_conn *c = &t->c[i];

		if (c->family != family || c->rport != dport || memcmp(c->ra, dst, alen) ||
		    (sport && c->lport != sport))
			continue;
		if (found && memcmp(found->la, c->la, alen))
			return -EEXIST;
		found = c;
	}
	if (!found)
		return -ENOENT;
	memcpy(local, found->la, alen);
	return 0;
}

void tcp_conns_free(struct tcp_conns *t)
{
	free(t->c);
	memset(t, 0, sizeof(*t));
}

int tcp_local_addr(FILE *f, int family, const void *dst, unsigned int dport, unsigned int sport,
		   void *local)
{
	struct tcp_conns t = { 0 };
	int err = tcp_conns_parse(f, family, &t);

	if (!err)
		err = tcp_conns_local(&t, family, dst, dport, sport, local);
	tcp_conns_free(&t);
	return err;
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

int tcp_conns_read(const char *procfs_root, struct tcp_conns *t)
{
	static const struct { const char *path; int family; } tab[] = {
		{ "/proc/net/tcp", AF_INET }, { "/proc/net/tcp6", AF_INET6 },
	};
	char path[512];
	int err = 0;

	for (size_t i = 0; i < 2 && !err; i++) {
		FILE *f;

		err = root_path(path, sizeof(path), procfs_root, "%s", tab[i].path);
		if (err)
			break;
		/* a kernel without IPv6 has no tcp6: its connections are none */
		f = fopen(path, "r");
		if (!f)
			continue;
		err = tcp_conns_parse(f, tab[i].family, t);
		fclose(f);
	}
	return err;
}

/* ".../xprt-ID-tcp/xprt_info" -> ID */
static int xprt_id_of(const char *path, unsigned int *id)
{
	const char *b = strrchr(path, '/');

	while (b && b > path && b[-1] != '/')
		b--;
	return b && sscanf(b, "xprt-%u-tcp/", id) == 1 ? 0 : -EINVAL;
}

static int cmp_port_id(const void *a, const void *b)
{
	const struct xprt_port *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int xprt_ports_read(const char *sysfs_root, struct xprt_ports *t)
{
	char pattern[512];
	unsigned int id;
	glob_t g;
	int err;

	err = root_path(pattern, sizeof(pattern), sysfs_root,
			"/sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*-tcp/xprt_info");
	if (err)
		return err;
	if (glob(pattern, 0, NULL, &g))
		return 0;	/* no sysfs (before 5.14), or no TCP transport */
	for (size_t i = 0; i < g.gl_pathc && !err; i++) {
		struct audit_xprt x = { 0 };
		FILE *f;

		if (xprt_id_of(g.gl_pathv[i], &id) || !(f = fopen(g.gl_pathv[i], "r")))
			continue;
		xprt_info_parse(f, &x);
		fclose(f);
		if (!x.src_port || x.src_port >= 65536)
			continue;
		err = GROW(t->p, t->cap, t->n + 1, 16);
		if (!err)
			t->p[t->n++] = (struct xprt_port){ .id = id, .port = x.src_port };
	}
	globfree(&g);
	if (t->n)
		qsort(t->p, t->n, sizeof(*t->p), cmp_port_id);
	return err;
}

int xprt_ports_get(const struct xprt_ports *t, unsigned int id, unsigned int *port)
{
	struct xprt_port k = { .id = id };
	const struct xprt_port *p = t->n ? bsearch(&k, t->p, t->n, sizeof(k), cmp_port_id) : NULL;

	if (!p)
		return -ENOENT;
	*port = p->port;
	return 0;
}

void xprt_ports_free(struct xprt_ports *t)
{
	free(t->p);
	memset(t, 0, sizeof(*t));
}
