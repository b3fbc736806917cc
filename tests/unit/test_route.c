// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include "links/nl.h"
#include "links/tcpdiag.h"
#include "links/route.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

static void test_route(void **state)
{
	char ifn[32], root[600];

	(void)state;
	assert_int_equal(route_netdev(FIXTURES, "127.0.0.11", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "lo");
	assert_int_equal(route_netdev(FIXTURES, "10.0.2.101", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "eth0");
	assert_int_equal(route_netdev(FIXTURES, "192.168.50.7", ifn, sizeof(ifn)), 0);	/* /24 beats /16 */
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "192.168.9.7", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "8.8.8.8", ifn, sizeof(ifn)), 0);		/* default */
	assert_string_equal(ifn, "eth0");
	/* IPv6: longest prefix over every table; a scope suffix names the interface */
	assert_int_equal(route_netdev(FIXTURES, "fd00:0:0:1::5", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "fd00:0:0:1::7", ifn, sizeof(ifn)), 0);	/* /128 local */
	assert_string_equal(ifn, "lo");
	assert_int_equal(route_netdev(FIXTURES, "fd00::9", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "eth0");
	assert_int_equal(route_netdev(FIXTURES, "fd00:0:0:2::9", ifn, sizeof(ifn)), 0);	/* down: default */
	assert_string_equal(ifn, "eth0");
	assert_int_equal(route_netdev(FIXTURES, "::1", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "lo");
	assert_int_equal(route_netdev(FIXTURES, "fe80::1%ens1f0", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "not-an-address", ifn, sizeof(ifn)), -97);
	assert_int_equal(route_netdev(FIXTURES "/nonexistent", "10.0.2.1", ifn, sizeof(ifn)), -2);
	/* a root too long for the path is not cut into some other file's name */
	memset(root, 'a', sizeof(root) - 1);
	root[sizeof(root) - 1] = 0;
	assert_int_equal(route_netdev(root, "10.0.2.1", ifn, sizeof(ifn)), -ENAMETOOLONG);
}

/* /proc/net/tcp as the kernel prints it: "%08X" of each native __be32 word, ports in hex */
static void test_tcp_source(void **state)
{
	static const char tcp[] =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
		"   0: 00000000:0801 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0\n"
		/* 192.168.100.4:709 -> 192.168.100.3:2049, established */
		"   1: 0464A8C0:02C5 0364A8C0:0801 01 00000000:00000000 00:00000000 00000000 0\n"
		/* the same server from .2:710, but closing (TIME_WAIT): not a transport's */
		"   2: 0264A8C0:02C6 0364A8C0:0801 06 00000000:00000000 00:00000000 00000000 0\n"
		/* another server */
		"   3: 0264A8C0:02C7 0164A8C0:0801 01 00000000:00000000 00:00000000 00000000 0\n";
	static const char two[] =
		"   1: 0464A8C0:02C5 0364A8C0:0801 01 0\n"
		"   2: 0264A8C0:02C6 0364A8C0:0801 01 0\n";
	struct in_addr dst, local, want;
	FILE *f;

	(void)state;
	inet_pton(AF_INET, "192.168.100.3", &dst);
	inet_pton(AF_INET, "192.168.100.4", &want);
	f = fmemopen((void *)tcp, sizeof(tcp) - 1, "r");
	assert_int_equal(tcp_local_addr(f, AF_INET, &dst, 2049, 0, &local), 0);
	assert_int_equal(local.s_addr, want.s_addr);
	rewind(f);
	assert_int_equal(tcp_local_addr(f, AF_INET, &dst, 2049, 710, &local), -ENOENT);
	rewind(f);
	assert_int_equal(tcp_local_addr(f, AF_INET, &dst, 20049, 0, &local), -ENOENT);
	fclose(f);
	/* two sources to one server: only the transport's own port tells them apart */
	f = fmemopen((void *)two, sizeof(two) - 1, "r");
	assert_int_equal(tcp_local_addr(f, AF_INET, &dst, 2049, 0, &local), -EEXIST);
	rewind(f);
	assert_int_equal(tcp_local_addr(f, AF_INET, &dst, 2049, 710, &local), 0);
	inet_pton(AF_INET, "192.168.100.2", &want);
	assert_int_equal(local.s_addr, want.s_addr);
	fclose(f);
}

/* every TCP transport's source port from one walk of sunrpc's sysfs; an RDMA transport has none */
static void test_xprt_ports(void **state)
{
	struct xprt_ports t = { 0 };
	unsigned int port = 0;

	(void)state;
	assert_int_equal(xprt_ports_read(FIXTURES "/audit", &t), 0);
	assert_int_equal(t.n, 4);
	assert_int_equal(xprt_ports_get(&t, 1, &port), 0);
	assert_int_equal(port, 889);
	assert_int_equal(xprt_ports_get(&t, 2, &port), 0);
	assert_int_equal(port, 842);
	assert_int_equal(xprt_ports_get(&t, 3, &port), 0);
	assert_int_equal(port, 828);
	assert_int_equal(xprt_ports_get(&t, 7, &port), 0);
	assert_int_equal(port, 700);
	assert_int_equal(xprt_ports_get(&t, 5, &port), -ENOENT);
	assert_int_equal(xprt_ports_get(&t, 4, &port), -ENOENT);
	xprt_ports_free(&t);
	/* no such sysfs (before 5.14): none, not an error */
	assert_int_equal(xprt_ports_read(FIXTURES "/links/t0", &t), 0);
	assert_int_equal(t.n, 0);
	xprt_ports_free(&t);
}

/* one table of both families answers for every transport; closing connections are not in it */
static void test_tcp_conns(void **state)
{
	static const char tcp[] =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
		"   1: 0464A8C0:02C5 0364A8C0:0801 01 00000000:00000000 00:00000000 00000000 0\n"
		"   2: 0264A8C0:02C6 0364A8C0:0801 06 00000000:00000000 00:00000000 00000000 0\n"
		"   3: 0264A8C0:02C7 0164A8C0:0801 01 00000000:00000000 00:00000000 00000000 0\n";
	struct tcp_conns t = { 0 };
	struct in_addr a, local, want;
	struct in6_addr a6, l6;
	FILE *f;

	(void)state;
	f = fmemopen((void *)tcp, sizeof(tcp) - 1, "r");
	assert_int_equal(tcp_conns_parse(f, AF_INET, &t), 0);
	fclose(f);
	assert_int_equal(t.n, 2);
	inet_pton(AF_INET, "192.168.100.1", &a);
	inet_pton(AF_INET, "192.168.100.2", &want);
	assert_int_equal(tcp_conns_local(&t, AF_INET, &a, 2049, 711, &local), 0);
	assert_int_equal(local.s_addr, want.s_addr);
	inet_pton(AF_INET, "192.168.100.3", &a);
	inet_pton(AF_INET, "192.168.100.4", &want);
	assert_int_equal(tcp_conns_local(&t, AF_INET, &a, 2049, 0, &local), 0);
	assert_int_equal(local.s_addr, want.s_addr);
	/* the TIME_WAIT one from .2:710 is not the transport's */
	assert_int_equal(tcp_conns_local(&t, AF_INET, &a, 2049, 710, &local), -ENOENT);
	/* an IPv6 destination is not matched against IPv4 rows */
	memset(&a6, 0, sizeof(a6));
	memcpy(&a6, &a, 4);
	assert_int_equal(tcp_conns_local(&t, AF_INET6, &a6, 2049, 0, &l6), -ENOENT);
	tcp_conns_free(&t);
}

static void test_tcp6_source(void **state)
{
	/* fd00::5 -> fd00::1 port 2049: each word the native u32 of its 4 bytes, printed %08X */
	char line[256], l[33], r[33];
	struct in6_addr dst, src, local;
	unsigned int w[4];
	FILE *f;

	(void)state;
	inet_pton(AF_INET6, "fd00::1", &dst);
	inet_pton(AF_INET6, "fd00::5", &src);
	memcpy(w, &src, 16);
	snprintf(l, sizeof(l), "%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
	memcpy(w, &dst, 16);
	snprintf(r, sizeof(r), "%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
	snprintf(line, sizeof(line), "   0: %s:0320 %s:0801 01 00000000:00000000\n", l, r);
	f = fmemopen(line, strlen(line), "r");
	assert_int_equal(tcp_local_addr(f, AF_INET6, &dst, 2049, 800, &local), 0);
	assert_memory_equal(&local, &src, 16);
	fclose(f);
}

static void test_parse_sockaddr(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

	(void)state;
	assert_int_equal(parse_sockaddr("10.1.2.3", 20049, &ss), 0);
	assert_int_equal(s4->sin_family, AF_INET);
	assert_int_equal(ntohs(s4->sin_port), 20049);
	assert_int_equal(parse_sockaddr("fe80::1%7", 2049, &ss), 0);
	assert_int_equal(s6->sin6_family, AF_INET6);
	assert_int_equal(s6->sin6_scope_id, 7);
	assert_int_equal(parse_sockaddr("10.1.2.3%eth0", 1, &ss), -EAFNOSUPPORT);
	assert_int_equal(parse_sockaddr("server", 1, &ss), -EAFNOSUPPORT);
}

/* an attribute as the uapi lays it out: header, payload, padding to 4 */
static size_t put(unsigned char *p, unsigned short type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (unsigned short)(NLA_HDRLEN + len), .nla_type = type };

	memcpy(p, &a, sizeof(a));
	memcpy(p + NLA_HDRLEN, data, len);
	memset(p + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return NLA_HDRLEN + NLA_ALIGN(len);
}

static size_t cm_entry(unsigned char *p, unsigned int port, const char *owner, const char *dst)
{
	struct sockaddr_storage d = { 0 };
	unsigned char e[512];
	size_t n = 0;

	assert_int_equal(parse_sockaddr(dst, 20049, &d), 0);
	if (port)
		n += put(e + n, RDMA_NLDEV_ATTR_PORT_INDEX, &port, sizeof(port));
	if (owner)
		n += put(e + n, RDMA_NLDEV_ATTR_RES_KERN_NAME, owner, strlen(owner) + 1);
	n += put(e + n, RDMA_NLDEV_ATTR_RES_DST_ADDR, &d, sizeof(d));
	return put(p, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY | NLA_F_NESTED, e, n);
}

/* one device's reply: its name, then a nested table of ids, each nesting its own attributes */
static void test_cm_ids(void **state)
{
	unsigned char msg[2048] __attribute__((aligned(4))), table[1536];
	struct rdma_conn *c = NULL;
	size_t n = 0, cap = 0, t = 0, m = 0;
	unsigned int idx = 3;

	(void)state;
	t += cm_entry(table + t, 1, "rpcrdma", "192.168.100.3");
	t += cm_entry(table + t, 0, NULL, "10.0.0.9");		/* a user's, not bound yet */
	m += put(msg + m, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, sizeof(idx));
	m += put(msg + m, RDMA_NLDEV_ATTR_DEV_NAME, "rxe1", 5);
	m += put(msg + m, RDMA_NLDEV_ATTR_RES_CM_ID | NLA_F_NESTED, table, t);
	assert_int_equal(nl_parse_cm_ids(msg, m, &c, &n, &cap), 0);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].dev, "rxe1");
	assert_int_equal(c[0].port, 1);
	assert_string_equal(c[0].owner, "rpcrdma");
	assert_int_equal(c[0].dst.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&c[0].dst)->sin_port), 20049);
	assert_int_equal(c[1].port, 0);
	assert_string_equal(c[1].owner, "");
	/* an attribute longer than what is left is refused, not read past */
	msg[m - t + 0] = 0xff;
	msg[m - t + 1] = 0x7f;
	assert_int_equal(nl_parse_cm_ids(msg, m, &c, &n, &cap), -EINVAL);
	free(c);
}

/*
 * One RTM_NEWSTATS payload: the ifindex and the four counters of IFLA_STATS_LINK_64, also when
 * an older kernel's struct is shorter than this header's; a message without them is -ENOENT (not
 * a link of ours), one whose attribute overruns it -EINVAL.
 */
static void test_link_stats(void **state)
{
	unsigned char msg[512] __attribute__((aligned(4)));
	struct rtnl_link_stats64 v = { .rx_packets = 11, .tx_packets = 22, .rx_bytes = 3333,
				       .tx_bytes = 4444, .rx_dropped = 9 };
	struct if_stats_msg h = { .family = AF_UNSPEC, .ifindex = 7,
				  .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64) };
	const size_t hdr = NLMSG_ALIGN(sizeof(h));
	struct nl_link_stat st = { 0 };
	size_t m;

	(void)state;
	memcpy(msg, &h, sizeof(h));
	m = hdr + put(msg + hdr, IFLA_STATS_LINK_64, &v, sizeof(v));
	assert_int_equal(nl_parse_link_stats(msg, m, &st), 0);
	assert_int_equal(st.ifindex, 7);
	assert_int_equal(st.tx_bytes, 4444);
	assert_int_equal(st.rx_bytes, 3333);
	assert_int_equal(st.tx_packets, 22);
	assert_int_equal(st.rx_packets, 11);
	/* a kernel whose struct ends early: the four counters lead it */
	m = hdr + put(msg + hdr, IFLA_STATS_LINK_64, &v, 4 * sizeof(__u64));
	memset(&st, 0, sizeof(st));
	assert_int_equal(nl_parse_link_stats(msg, m, &st), 0);
	assert_int_equal(st.tx_bytes, 4444);
	m = hdr + put(msg + hdr, IFLA_STATS_LINK_64, &v, 3 * sizeof(__u64));
	assert_int_equal(nl_parse_link_stats(msg, m, &st), -ENOENT);
	m = hdr + put(msg + hdr, IFLA_STATS_LINK_XSTATS, &v, sizeof(v));
	assert_int_equal(nl_parse_link_stats(msg, m, &st), -ENOENT);
	m = hdr + put(msg + hdr, IFLA_STATS_LINK_64, &v, sizeof(v));
	msg[hdr] = 0xff;
	msg[hdr + 1] = 0x7f;
	assert_int_equal(nl_parse_link_stats(msg, m, &st), -EINVAL);
	assert_int_equal(nl_parse_link_stats(msg, hdr - 1, &st), -EINVAL);
}

/*
 * One sock_diag answer: the peer and ports, and tcp_info's busy, rwnd- and sndbuf-limited times and
 * retransmissions; a tcp_info that ends before them (a kernel before 4.10) is -ENOENT. Between two
 * samples, a transport's sums in seconds, by its key and when it was made.
 */
static void test_tcp_diag(void **state)
{
	unsigned char msg[1024] __attribute__((aligned(4)));
	struct inet_diag_msg h = { .idiag_family = AF_INET, .idiag_state = 1 };
	struct tcp_info ti = { .tcpi_busy_time = 14812000, .tcpi_rwnd_limited = 400000,
			       .tcpi_sndbuf_limited = 96000, .tcpi_total_retrans = 7, .tcpi_segs_out = 900,
			       .tcpi_options = TCPI_OPT_WSCALE, .tcpi_snd_wscale = 7, .tcpi_min_rtt = 100250 };
	__u32 mem[SK_MEMINFO_VARS] = { [SK_MEMINFO_SNDBUF] = 4194304, [SK_MEMINFO_RCVBUF] = 131072 };
	const size_t hdr = NLMSG_ALIGN(sizeof(h));
	struct tcp_conn_stat a[2], b[3];
	struct tcp_limits l;
	unsigned char srv[4] = { 10, 0, 0, 1 };
	size_t m;

	(void)state;
	h.id.idiag_sport = htons(709);
	h.id.idiag_dport = htons(2049);
	memcpy(h.id.idiag_dst, srv, 4);
	memcpy(msg, &h, sizeof(h));
	m = hdr + put(msg + hdr, INET_DIAG_INFO, &ti, sizeof(ti));
	assert_int_equal(tcpdiag_parse(msg, m, &b[0]), 0);
	assert_int_equal(b[0].family, AF_INET);
	assert_int_equal(b[0].sport, 709);
	assert_int_equal(b[0].dport, 2049);
	assert_memory_equal(b[0].daddr, srv, 4);
	assert_int_equal(b[0].busy_us, 14812000);
	assert_int_equal(b[0].rwnd_us, 400000);
	assert_int_equal(b[0].sndbuf_us, 96000);
	assert_int_equal(b[0].retrans, 7);
	assert_int_equal(b[0].segs_out, 900);
	/* #62: what bounds its rate: 65535 << 7, 100.25 ms; no SK_MEMINFO asked: send buffer unread */
	assert_int_equal(b[0].wnd_max, 65535ull << 7);
	assert_int_equal(b[0].min_rtt_us, 100250);
	assert_int_equal(b[0].sndbuf, 0);
	/* with the socket's memory after it (the kernel sends it before INET_DIAG_INFO: either order) */
	m += put(msg + m, INET_DIAG_SKMEMINFO, mem, sizeof(mem));
	assert_int_equal(tcpdiag_parse(msg, m, &b[1]), 0);
	assert_int_equal(b[1].sndbuf, 4194304);
	m = hdr + put(msg + hdr, INET_DIAG_SKMEMINFO, mem, sizeof(mem));
	m += put(msg + m, INET_DIAG_INFO, &ti, sizeof(ti));
	assert_int_equal(tcpdiag_parse(msg, m, &b[1]), 0);
	assert_int_equal(b[1].sndbuf, 4194304);
	assert_int_equal(b[1].busy_us, 14812000);
	/* no window scale agreed: the 16-bit window */
	ti.tcpi_options = 0;
	m = hdr + put(msg + hdr, INET_DIAG_INFO, &ti, sizeof(ti));
	assert_int_equal(tcpdiag_parse(msg, m, &b[1]), 0);
	assert_int_equal(b[1].wnd_max, 65535);
	ti.tcpi_options = TCPI_OPT_WSCALE;
	m = hdr + put(msg + hdr, INET_DIAG_INFO, &ti, offsetof(struct tcp_info, tcpi_busy_time));
	assert_int_equal(tcpdiag_parse(msg, m, &b[1]), -ENOENT);
	assert_int_equal(tcpdiag_parse(msg, hdr, &b[1]), -ENOENT);
	m = hdr + put(msg + hdr, INET_DIAG_INFO, &ti, sizeof(ti));
	msg[hdr] = 0xff;
	msg[hdr + 1] = 0x7f;
	assert_int_equal(tcpdiag_parse(msg, m, &b[1]), -EINVAL);
	assert_int_equal(tcpdiag_parse(msg, sizeof(h) - 1, &b[1]), -EINVAL);

	/* a transport's sums (tcpwatch.h) between two samples; another transport's beside them */
	a[0] = b[0];
	a[0].key = b[0].key = 0xffff1000;
	a[0].first_seen = b[0].first_seen = 5;
	a[0].busy_us = 4000000;
	a[0].rwnd_us = 100000;
	a[0].retrans = 5;
	a[0].segs_out = 400;
	a[0].read_us = 6000000;
	b[0].read_us = 16500000;
	a[0].watched = b[0].watched = true;
	a[1] = a[0];
	a[1].key = 0xffff2000;
	b[1] = a[1];
	assert_int_equal(tcp_sum_delta(a, 2, b, 2, 0xffff1000, 5, &l), 0);
	assert_true(l.known);
	assert_true(l.wnd_max == 65535.0 * 128 && l.min_rtt_s > 0.10024 && l.min_rtt_s < 0.10026);
	assert_true(l.busy_s > 10.811 && l.busy_s < 10.813);
	assert_true(l.rwnd_s > 0.2999 && l.rwnd_s < 0.3001);
	assert_true(l.sndbuf_s == 0);
	assert_int_equal(l.retrans, 2);
	assert_int_equal(l.segs_out, 500);
	assert_true(l.read_s > 10.499 && l.read_s < 10.501);
	assert_int_equal(tcp_sum_delta(a, 2, b, 2, 0xffff2000, 5, &l), 0);
	assert_true(l.busy_s == 0);
	/* read for its limits only (slot-bound, never queued): no sums, its limits all the same */
	b[1].watched = false;
	assert_int_equal(tcp_sum_delta(a, 2, b, 2, 0xffff2000, 5, &l), -ENOENT);
	assert_false(l.known);
	assert_true(l.wnd_max == 65535.0 * 128);
	b[1].watched = true;
	/* new since @a: all of its sums; the same pointer made again (first_seen): another's */
	assert_int_equal(tcp_sum_delta(a, 0, b, 2, 0xffff1000, 5, &l), 0);
	assert_true(l.busy_s > 14.811 && l.busy_s < 14.813);
	assert_int_equal(tcp_sum_delta(a, 2, b, 2, 0xffff1000, 6, &l), -ENOENT);
	assert_false(l.known);
	/* sums that went back are not the same transport's: all of @b's */
	b[0].busy_us = 1000000;
	assert_int_equal(tcp_sum_delta(a, 2, b, 1, 0xffff1000, 5, &l), 0);
	assert_true(l.busy_s > 0.999 && l.busy_s < 1.001);
	/* gone */
	assert_int_equal(tcp_sum_delta(a, 2, b, 0, 0xffff1000, 5, &l), -ENOENT);
}

/* a message of a dump: header, payload, aligned */
static size_t nl_msg(unsigned char *p, unsigned short type, __u32 seq, const void *payload, size_t len)
{
	struct nlmsghdr h = { .nlmsg_len = (__u32)NLMSG_LENGTH(len), .nlmsg_type = type, .nlmsg_seq = seq };

	memcpy(p, &h, sizeof(h));
	memcpy(p + NLMSG_HDRLEN, payload, len);
	memset(p + NLMSG_HDRLEN + len, 0, NLMSG_ALIGN(len) - len);
	return NLMSG_HDRLEN + NLMSG_ALIGN(len);
}

static int parse_stats(const void *buf, size_t len, void *st)
{
	return nl_parse_link_stats(buf, len, st);
}

/*
 * A dump's accumulator: its type's messages parsed into the array, grown from nothing; another
 * type's passed over, one that is not a link of ours (-ENOENT) skipped; a malformed one fails.
 */
static void test_nl_acc(void **state)
{
	unsigned char buf[2048] __attribute__((aligned(4))), pl[512] __attribute__((aligned(4)));
	struct rtnl_link_stats64 v = { .tx_bytes = 4444 };
	struct if_stats_msg h = { .family = AF_UNSPEC, .ifindex = 7 };
	const size_t hdr = NLMSG_ALIGN(sizeof(h));
	struct nl_link_stat *ls = NULL;
	size_t n = 0, cap = 0, m = 0, pn;
	struct nl_acc a = { .type = RTM_NEWSTATS, .size = sizeof(*ls), .first = 2, .out = &ls, .n = &n,
			    .cap = &cap };
	int failed = 0;

	(void)state;
	a.parse = parse_stats;
	memcpy(pl, &h, sizeof(h));
	pn = hdr + put(pl + hdr, IFLA_STATS_LINK_64, &v, sizeof(v));
	m += nl_msg(buf + m, RTM_NEWSTATS, 5, pl, pn);
	m += nl_msg(buf + m, RTM_NEWLINK, 5, pl, pn);
	m += nl_msg(buf + m, RTM_NEWSTATS, 5, pl, hdr + put(pl + hdr, IFLA_STATS_LINK_XSTATS, &v, sizeof(v)));
	h.ifindex = 9;
	memcpy(pl, &h, sizeof(h));
	pn = hdr + put(pl + hdr, IFLA_STATS_LINK_64, &v, sizeof(v));
	m += nl_msg(buf + m, RTM_NEWSTATS, 5, pl, pn);
	assert_int_equal(nl_walk(buf, m, 5, true, &failed, nl_acc_cb, &a), NL_MORE);
	assert_int_equal(failed, 0);
	assert_int_equal(n, 2);
	assert_int_equal(ls[0].ifindex, 7);
	assert_int_equal(ls[1].ifindex, 9);
	assert_int_equal(ls[1].tx_bytes, 4444);
	/* an attribute that overruns its message */
	pl[hdr] = 0xff;
	pl[hdr + 1] = 0x7f;
	m = nl_msg(buf, RTM_NEWSTATS, 6, pl, pn);
	assert_int_equal(nl_walk(buf, m, 6, true, &failed, nl_acc_cb, &a), NL_MORE);
	assert_int_equal(failed, -EBADMSG);
	assert_int_equal(n, 2);
	free(ls);
}

static int count_cb(const struct nlmsghdr *h, void *arg)
{
	(void)h;
	(*(int *)arg)++;
	return 0;
}

/*
 * Replies walked within the datagram: a last message whose length is not a multiple of 4 (so
 * NLMSG_NEXT steps past the end), a length beyond the datagram, one shorter than a header, and an
 * answer to another request are taken for what they are, nothing past the bytes received read
 * (the buffers are exactly that long: ASan would see it).
 */
static void test_nl_walk_bounds(void **state)
{
	const size_t n = NLMSG_HDRLEN + 2;
	struct nlmsghdr *h = calloc(1, n);
	int calls = 0, failed = 0;

	(void)state;
	h->nlmsg_len = (__u32)n;	/* 18: its aligned length, 20, runs 2 past the datagram */
	h->nlmsg_type = 100;
	h->nlmsg_seq = 7;
	assert_int_equal(nl_walk(h, n, 7, true, &failed, count_cb, &calls), NL_MORE);
	assert_int_equal(calls, 1);
	/* a length beyond the datagram, then one shorter than a header: neither is a message */
	h->nlmsg_len = 4096;
	assert_int_equal(nl_walk(h, n, 7, true, &failed, count_cb, &calls), NL_MORE);
	h->nlmsg_len = 4;
	assert_int_equal(nl_walk(h, n, 7, true, &failed, count_cb, &calls), NL_MORE);
	assert_int_equal(calls, 1);
	/* another request's answer is skipped; ours ends a get */
	h->nlmsg_len = (__u32)n;
	assert_int_equal(nl_walk(h, n, 8, false, &failed, count_cb, &calls), NL_MORE);
	assert_int_equal(calls, 1);
	assert_int_equal(nl_walk(h, n, 7, false, &failed, count_cb, &calls), 0);
	assert_int_equal(calls, 2);
	free(h);
}

/* a dump's end: a bare DONE is success, one carrying a negative error (4.15 on) is that error */
static void test_nl_walk_done(void **state)
{
	struct {
		struct nlmsghdr h;
		int err;
	} d = { .h = { .nlmsg_type = NLMSG_DONE, .nlmsg_seq = 3 } };
	int calls = 0, failed = 0;

	(void)state;
	d.h.nlmsg_len = NLMSG_HDRLEN;
	assert_int_equal(nl_walk(&d, NLMSG_HDRLEN, 3, true, &failed, count_cb, &calls), 0);
	d.h.nlmsg_len = NLMSG_LENGTH(sizeof(int));
	assert_int_equal(nl_walk(&d, sizeof(d), 3, true, &failed, count_cb, &calls), 0);
	d.err = -EMSGSIZE;
	assert_int_equal(nl_walk(&d, sizeof(d), 3, true, &failed, count_cb, &calls), -EMSGSIZE);
	/* a callback's failure, kept across the dump's datagrams, comes first */
	failed = -ENOMEM;
	assert_int_equal(nl_walk(&d, sizeof(d), 3, true, &failed, count_cb, &calls), -ENOMEM);
	assert_int_equal(calls, 0);
}

/*
 * The kept socket: one that cannot be opened leaves *fd < 0 (opened again next call); a dump that
 * fails closes the caller's socket and sets it to -1, the count back to 0, its error returned.
 */
static void test_nl_dump_kept(void **state)
{
	struct nlmsghdr req = { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = RTM_GETSTATS,
				.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP };
	struct nlmsghdr *reqs[] = { &req, &req };
	struct nl_link_stat *ls = NULL;
	size_t n = 3, cap = 0;
	struct nl_acc a = { .type = RTM_NEWSTATS, .parse = parse_stats, .size = sizeof(*ls), .first = 2,
			    .out = &ls, .n = &n, .cap = &cap };
	int fd = -1, dev;

	(void)state;
	assert_true(nl_dump_kept(&fd, -1, reqs, 1, &a) < 0);
	assert_true(fd < 0);
	assert_int_equal(n, 0);
	/* not a socket: the send fails, the fd is closed */
	dev = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_true(dev >= 0);
	fd = dev;
	n = 3;
	assert_int_equal(nl_dump_kept(&fd, NETLINK_ROUTE, reqs, 2, &a), -ENOTSOCK);
	assert_int_equal(fd, -1);
	assert_int_equal(n, 0);
	assert_int_equal(fcntl(dev, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	free(ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nl_walk_bounds),
		cmocka_unit_test(test_nl_walk_done),
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_tcp_source),
		cmocka_unit_test(test_tcp6_source),
		cmocka_unit_test(test_xprt_ports),
		cmocka_unit_test(test_tcp_conns),
		cmocka_unit_test(test_parse_sockaddr),
		cmocka_unit_test(test_cm_ids),
		cmocka_unit_test(test_link_stats),
		cmocka_unit_test(test_tcp_diag),
		cmocka_unit_test(test_nl_acc),
		cmocka_unit_test(test_nl_dump_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
