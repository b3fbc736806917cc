/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The link side: RDMA ports (sysfs counters, libibverbs rate), the netdevs under them, and which
 * port a netdev belongs to (route.h finds a transport's netdev). Every reader takes a root
 * directory so tests run on fixture trees.
 */
#ifndef SLOTSCOPE_RDMA_H
#define SLOTSCOPE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "host/cpustat.h"
#include "links/tcpdiag.h"

#define MAX_HW_COUNTERS 96

/* counters/ of a port: the PMA counters, raw (data counters are in 4-byte words) */
enum port_counter { PC_XMIT_WORDS, PC_RCV_WORDS, PC_XMIT_PKTS, PC_RCV_PKTS, PORT_COUNTERS };

struct hw_counter {
	char name[48];
	uint64_t v;
};

struct netdev_stat {
	char name[32];
	bool valid;
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets;
	double speed_gbps;		/* /sys/class/net/X/speed; 0 when unknown (virtual devices) */
};

struct rdma_port {
	char dev[64];
	unsigned int port;
	char state[32];			/* "ACTIVE" ... */
	char link_layer[16];		/* "InfiniBand" or "Ethernet" (RoCE) */
	char rate_str[64];		/* sysfs rate, e.g. "200 Gb/sec (4X HDR)" */
	double rate_gbps;		/* from libibverbs when it answered, else the sysfs string */
	bool rate_from_verbs;
	unsigned int pc_valid;		/* bit i: counters[i] was readable (not "N/A (no PMA)") */
	uint64_t pc[PORT_COUNTERS];
	size_t nhw;
	struct hw_counter hw[MAX_HW_COUNTERS];	/* hw_counters/, sorted by name */
	struct netdev_stat nd;		/* the netdev bound to a RoCE port, if any */
};

struct link_sample {
	uint64_t ts_ns;			/* CLOCK_MONOTONIC, like the BPF clock */
	size_t n;
	struct rdma_port *ports;
	size_t nnd;
	struct netdev_stat *nds;	/* every netdev under /sys/class/net */
	size_t ntcp;
	struct tcp_conn_stat *tcp;	/* each watched TCP transport's sums (tcpwatch.h; live root only) */
	struct cpu_stat cpu;		/* the node's CPUs at the same moment (--no-rdma too) */
	char why_empty[160];		/* set when n == 0 */
};

struct verbs_rate {
	char dev[64];
	unsigned int port;
	double gbps;
};

/*
 * A port's state and rate, kept between samples. Reading either sysfs file makes the driver query
 * the port (soft-RoCE logs "speed is unknown" for each read): they are read when a port is first
 * seen and then every PORT_ATTR_REFRESH_NS, not at every tick. Counters are read every time.
 */
#define PORT_ATTR_REFRESH_NS (30ull * 1000000000ull)

struct nl_link_stat;

struct link_sampler {
	size_t n, cap;
	struct port_attr {
		char dev[64];
		unsigned int port;
		uint64_t read_ns;		/* CLOCK_MONOTONIC of the last read */
		char state[32], rate_str[64];
		double rate_gbps;
		/* also attributes, kept with them: "Ethernet"/"InfiniBand", a RoCE port's netdev */
		char link_layer[16], ndev[32];
	} *a;
	/*
	 * Rates from libibverbs (XDR, which sysfs cannot name), asked again with the attributes: a
	 * link that renegotiates (200 to 100 Gb/s) must not keep its first rate. NULL: sysfs only.
	 */
	int (*read_rates)(struct verbs_rate **out, size_t *n, const char **why);
	struct verbs_rate *rates;
	size_t nrates;
	uint64_t rates_ns;			/* CLOCK_MONOTONIC of the last ask; 0: never */
	/*
	 * Counter files (netdev statistics, RDMA port counters and hw_counters) kept open between
	 * samples and read again with pread() at offset 0, where sysfs shows the value afresh: one
	 * system call a counter a tick, not an open, a path walk, a read and a close. A file not read
	 * in a sample is closed at its end (a device gone); at most KEPT_FILES_MAX are kept.
	 */
	struct kept_file {
		char *path;
		int fd;
		bool used;
	} *kept;
	size_t nkept, kept_cap, kept_next;
	/*
	 * Netdev counters on the live root: one rtnetlink dump a sample (nl_link_stats()), not four
	 * files a netdev. Its socket (+ 1: 0 is none); nl_off: the dump could not be had, files
	 * from then on. Each netdev's ifindex (sysfs's, by name) and speed are kept, by name: the
	 * speed read when the netdev is first seen and then every PORT_ATTR_REFRESH_NS.
	 */
	int nl_sock;
	bool nl_off, nl_said;
	struct nl_link_stat *ls;
	size_t nls, ls_cap;
	struct nd_cache {
		char name[32];
		uint64_t ino;		/* its sysfs directory's: another device under the name, another */
		int ifindex;		/* -1: not read; 0: not this process's (another netns): files */
		double speed_gbps;
		uint64_t speed_ns;	/* CLOCK_MONOTONIC of the last read of speed */
	} *ndc;
	size_t nndc;
};

#define KEPT_FILES_MAX 256

/*
 * Sample every port under ROOT/sys/class/infiniband. @rates (may be NULL) overrides sysfs rates,
 * else @attrs's own; @attrs (may be NULL: read them every time) keeps state and rate between
 * samples.
 */
int link_sample(const char *sysfs_root, const struct verbs_rate *rates, size_t nrates,
		struct link_sampler *attrs, struct link_sample *s);
void link_sampler_free(struct link_sampler *attrs);
void link_sample_free(struct link_sample *s);
int link_sample_dup(struct link_sample *dst, const struct link_sample *src);
int netdev_read(const char *sysfs_root, const char *name, struct netdev_stat *st);

/* "200 Gb/sec (4X HDR)" -> 200; -EINVAL when the string is not a rate */
int parse_rate(const char *s, double *gbps);
/* ibv_port_attr active_speed (or active_speed_ex) and active_width -> Gb/s; 0 if unknown */
double verbs_rate_gbps(unsigned int speed, unsigned int width);
/* new - old for a counter that may have wrapped at 32 or 64 bits */
uint64_t counter_delta(uint64_t old, uint64_t now);

struct port_delta {
	const struct rdma_port *port;	/* in the newer sample; NULL when removed */
	char dev[64];
	unsigned int port_num;
	bool removed, added;
	double secs;
	bool have_bytes;		/* bytes from PMA counters or the netdev */
	const char *bytes_from;		/* "counters" or "netdev" */
	uint64_t tx_bytes, rx_bytes, tx_pkts, rx_pkts;
	double tx_gbps, rx_gbps, tx_util_pct, rx_util_pct;
	size_t nhw;
	struct hw_counter hw[MAX_HW_COUNTERS];	/* deltas */
};

/* deltas between two samples of the same ports (matched by device and port) */
int link_delta(const struct link_sample *a, const struct link_sample *b, struct port_delta **out,
	       size_t *n);

struct netdev_delta {
	char name[32];
	double speed_gbps;
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets;
	double tx_gbps, rx_gbps, tx_util_pct, rx_util_pct;
	bool used;			/* under an RDMA port or on a transport's route (the model's) */
};

int netdev_delta(const struct link_sample *a, const struct link_sample *b, struct netdev_delta **out,
		 size_t *n);

/* the RDMA port whose GID table is bound to netdev @ifname, or -1 */
int port_of_netdev(const struct link_sample *s, const char *ifname);
/* device @dev port @port in @s, or -1 */
int port_index(const struct link_sample *s, const char *dev, unsigned int port);

#endif
