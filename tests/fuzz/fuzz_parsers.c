// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the /proc/net/route, ipv6_route and tcp/tcp6 parsers, sunrpc's xprt_info, and the
 * netlink replies: a route's and the rdma_cm table's; /proc/PID/cgroup and the cgroup path
 * parsers that name a window's jobs
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "host/audit.h"
#include "model/jobs.h"
#include "links/nl.h"
#include "links/tcpdiag.h"
#include "links/route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_xprt x;
	struct in6_addr a6;
	struct in_addr a;
	char ifname[64];
	unsigned char local[16];
	struct rdma_conn *conns = NULL;
	size_t nconns = 0, cap = 0;
	struct nl_link_stat ls;
	struct tcp_conn_stat tcs;
	void *copy;
	int oif;
	FILE *f;

	if (!size)
		return 0;
	inet_pton(AF_INET, "10.1.2.3", &a);
	inet_pton(AF_INET6, "fd00::1", &a6);
	f = fmemopen((void *)data, size, "r");
	if (f) {
		route_best(f, AF_INET, &a, ifname, sizeof(ifname));
		fclose(f);
	}
	f = fmemopen((void *)data, size, "r");
	if (f) {
		route_best(f, AF_INET6, &a6, ifname, sizeof(ifname));
		fclose(f);
	}
	f = fmemopen((void *)data, size, "r");
	if (f) {
		tcp_local_addr(f, AF_INET, &a, 2049, 0, &local);
		fclose(f);
	}
	f = fmemopen((void *)data, size, "r");
	if (f) {
		tcp_local_addr(f, AF_INET6, &a6, 20049, 700, &local);
		fclose(f);
	}
	/* netlink attributes are 4-byte aligned in the kernel's buffer */
	copy = malloc(size);
	if (copy) {
		memcpy(copy, data, size);
		nl_parse_route_reply(copy, size, &oif);
		nl_parse_cm_ids(copy, size, &conns, &nconns, &cap);
		nl_parse_link_stats(copy, size, &ls);
		tcpdiag_parse(copy, size, &tcs);
		free(conns);
		free(copy);
	}
	copy = malloc(size + 1);
	if (copy) {
		struct job_id j;

		memcpy(copy, data, size);
		((char *)copy)[size] = '\0';
		job_from_cgroup(copy, &j);
		free(copy);
	}
	f = fmemopen((void *)data, size, "r");
	if (f) {
		memset(&x, 0, sizeof(x));
		xprt_info_parse(f, &x);
		fclose(f);
	}
	return 0;
}
