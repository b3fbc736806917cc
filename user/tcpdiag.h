/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What limited a TCP transport's connection, as the kernel publishes it for every socket (sock_diag,
 * `ss -ti`): tcp_info's time busy sending, and of it the time the peer's receive window and the
 * socket's own send buffer held the data back (tcpi_busy_time, tcpi_rwnd_limited,
 * tcpi_sndbuf_limited: "tcp: export sender limits chronographs to TCP_INFO", efbe5a6ae2c8, 4.10).
 */
#ifndef SLOTSCOPE_TCPDIAG_H
#define SLOTSCOPE_TCPDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tcp_conn_stat {
	int family;			/* AF_INET, AF_INET6 */
	unsigned char daddr[16];	/* the peer's address (4 bytes for AF_INET) */
	unsigned int dport, sport;
	uint64_t busy_us, rwnd_us, sndbuf_us;	/* cumulative since the connection was made */
	uint32_t retrans;			/* tcpi_total_retrans: segments sent again */
};

/*
 * One SOCK_DIAG_BY_FAMILY answer (the payload after its netlink header): 0, -ENOENT without a
 * tcp_info that has the three times (a kernel before 4.10), -EINVAL when malformed
 */
int tcpdiag_parse(const void *buf, size_t len, struct tcp_conn_stat *st);

/*
 * Every established TCP connection of this network namespace to port @dport (0: any), over IPv4
 * and, with @v6, IPv6 (*@out grown as needed, *@cap its room). *@fd: a sock_diag socket the caller
 * keeps, opened here when < 0. 0 or -errno.
 */
int tcp_conns_sample(int *fd, unsigned int dport, bool v6, struct tcp_conn_stat **out, size_t *n, size_t *cap);

/* the seconds of a connection between two samples */
struct tcp_limits {
	bool known;
	double busy_s, rwnd_s, sndbuf_s;
	unsigned long long retrans;
};

/*
 * Connection @family/@daddr:@dport from @sport (0: the one connection to @daddr:@dport, unknown
 * if several) between sample @a (@na) and @b (@nb): its times in @b less those in @a (all of @b's
 * when it is new in @b). -ENOENT (@l->known false) when @b has no such connection.
 */
int tcp_conn_delta(const struct tcp_conn_stat *a, size_t na, const struct tcp_conn_stat *b, size_t nb,
		   int family, const void *daddr, unsigned int dport, unsigned int sport, struct tcp_limits *l);

#endif
