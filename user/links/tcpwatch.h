/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TCP transport's connection, watched while its RPCs queue for it: sock_diag is asked at a tick
 * only for the connections of the transports whose send waits took a tenth of the tick or more
 * (the connection-bound verdict needs a tenth of the RPCs' time; asking for all 64 connections'
 * tcp_info at every tick was a tenth of a busy tick's own CPU under emulation), and a transport's
 * counters are summed only over ticks whose previous tick read them too. The sums are what the
 * connection-bound what-if reads: what held the connection back while it was the limit. A
 * transport whose slot waits took a tenth of the tick has its connection read too, once in ten
 * ticks, for what bounds its rate past the slots (window, send buffer, least round trip), not
 * for the sums.
 */
#ifndef SLOTSCOPE_TCPWATCH_H
#define SLOTSCOPE_TCPWATCH_H

#include "engine/engine.h"
#include "links/linkmap.h"
#include "links/rdma.h"

struct tcp_watch {
	int fd;				/* sock_diag socket + 1; 0: none */
	unsigned long tick;
	__u64 last_ts;			/* the last tick's snapshot time */
	struct tw_entry {
		__u64 key, first_seen;
		__u64 waited;		/* the transport's send-wait ns, at the last tick */
		__u64 slot_waited;	/* its slot-wait ns, at the last tick */
		unsigned long tick;	/* the last tick its connection was read and summed */
		unsigned long caps_tick;	/* the last tick its connection was read at all */
		bool seen, queued, slotted;
		struct tcp_conn_stat raw;	/* its connection as last read */
		struct tcp_conn_stat sum;	/* its counters summed over the watched ticks */
	} *e;
	size_t n, cap;
	struct tcp_conn_stat *dump;
	size_t ndump, dump_cap;
	/* the dump: tcp_conns_sample() when NULL (a test's own otherwise) */
	int (*sample)(int *fd, const unsigned int *sports, size_t nsports, unsigned int dport, bool v6,
		      struct tcp_conn_stat **out, size_t *n, size_t *cap);
};

/*
 * One tick: the transports of @snap, their paths (source ports) in @paths, into @l->tcp (one
 * entry per transport whose connection was ever read: its sums). Off the live machine (@live
 * false) it reads nothing. 0 or -ENOMEM; a failed dump leaves the sums as they were.
 */
int tcp_watch_tick(struct tcp_watch *w, const struct snapshot *snap, const struct linkmap *paths, bool live,
		   struct link_sample *l);
void tcp_watch_free(struct tcp_watch *w);

#endif
