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
#include <linux/types.h>

struct tcp_conn_stat {
	__u64 key, first_seen;		/* the transport whose sums these are (tcpwatch.h); 0 in a dump */
	int family;			/* AF_INET, AF_INET6 */
	unsigned char daddr[16];	/* the peer's address (4 bytes for AF_INET) */
	unsigned int dport, sport;
	/*
	 * In a dump: since the connection was made (the last two 32-bit in tcp_info, and wrapping);
	 * in a transport's sums (tcpwatch.h): over the ticks it was watched
	 */
	uint64_t busy_us, rwnd_us, sndbuf_us;
	uint64_t retrans;			/* tcpi_total_retrans: segments sent again */
	uint64_t segs_out;			/* tcpi_segs_out: segments sent (4.2) */
	/*
	 * In a transport's sums: the time the sums cover (the watched ticks' lengths), which bounds
	 * what they missed of the connection's own; 0 in a dump
	 */
	uint64_t read_us;
	/*
	 * What bounds what the connection can have in flight, for the what-if's far steps: the most
	 * window the server can advertise (65535 << its window scale), the send buffer (bytes; 0
	 * unread) and the least round trip (tcpi_min_rtt, us; 0 unread). In a transport's sums: the
	 * most window and send buffer and the least round trip seen, over every tick it was read.
	 */
	uint64_t wnd_max, sndbuf;
	uint32_t min_rtt_us;
	bool watched;			/* in a transport's sums: its RPCs queued for it (the sums run) */
};

/*
 * One SOCK_DIAG_BY_FAMILY answer (the payload after its netlink header): 0, -ENOENT without a
 * tcp_info that has the three times (a kernel before 4.10), -EINVAL when malformed
 */
int tcpdiag_parse(const void *buf, size_t len, struct tcp_conn_stat *st);

/*
 * Every established TCP connection of this network namespace from one of the @nsports source
 * ports @sports (up to 16; none or more: to port @dport; that 0 too: any), over IPv4 and, with
 * @v6, IPv6 (*@out grown as needed, *@cap its room). *@fd: a sock_diag socket the caller keeps,
 * opened here when < 0. 0 or -errno.
 */
int tcp_conns_sample(int *fd, const unsigned int *sports, size_t nsports, unsigned int dport, bool v6,
		     struct tcp_conn_stat **out, size_t *n, size_t *cap);

/* the seconds of a connection between two samples */
struct tcp_limits {
	bool known;
	double read_s, busy_s, rwnd_s, sndbuf_s;
	unsigned long long retrans, segs_out;
	/* what bounds its rate, as last seen (read for a slot-bound transport too): 0 unread */
	double wnd_max, sndbuf_bytes, min_rtt_s;
	double most_Bps;		/* what they allow (the model's whatif_conn_cap); 0 unknown */
};

/*
 * Transport @key (made at @first_seen)'s sums between sample @a (@na) and @b (@nb): those in @b
 * less those in @a (all of @b's when it is new in @b). -ENOENT (@l->known false) when @b has none.
 */
int tcp_sum_delta(const struct tcp_conn_stat *a, size_t na, const struct tcp_conn_stat *b, size_t nb,
		  __u64 key, __u64 first_seen, struct tcp_limits *l);

#endif
