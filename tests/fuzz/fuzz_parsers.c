// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the /proc/net/route and ipv6_route parsers, and sunrpc's xprt_info */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "audit.h"
#include "route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_xprt x;
	struct in6_addr a6;
	struct in_addr a;
	char ifname[64];
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
		memset(&x, 0, sizeof(x));
		xprt_info_parse(f, &x);
		fclose(f);
	}
	return 0;
}
