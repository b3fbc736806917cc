// SPDX-License-Identifier: GPL-2.0
/* --listen's socket: the address parsed, bound and listening (http.c serves it) */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "run/http.h"

static int split_spec(const char *spec, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(spec, ':');
	size_t n;
	char *end;
	unsigned long p;

	if (!colon || !colon[1] || strlen(colon + 1) >= plen)
		return -EINVAL;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || p > 65535 || colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	snprintf(port, plen, "%lu", p);
	n = (size_t)(colon - spec);
	if (n >= 3 && spec[0] == '[' && spec[n - 1] == ']') {
		spec++;
		n -= 2;
	} else if (memchr(spec, ':', n)) {
		return -EINVAL;	/* an IPv6 address goes in brackets */
	}
	if (n >= hlen)
		return -EINVAL;
	memcpy(host, spec, n);
	host[n] = 0;
	return 0;
}

static int bind_one(const struct addrinfo *ai)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	int one = 1, zero = 0;

	if (fd < 0)
		return -errno;
	/* a restarted exporter binds at once, whatever its last connections left in TIME_WAIT */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* "[::]:PORT" and ":PORT" take IPv4 too, whatever net.ipv6.bindv6only says */
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/*
	 * the longest queue the kernel allows (net.core.somaxconn caps it): under a flood of
	 * connections a full queue drops a scraper's SYN, whose retry comes a second later
	 */
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, SOMAXCONN)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int http_listen_socket(const char *spec, int *bound_port, char *why, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char host[256], port[8];
	int fd = -EADDRNOTAVAIL, gai;

	if (split_spec(spec, host, sizeof(host), port, sizeof(port))) {
		snprintf(why, len, "--listen %s: say HOST:PORT, [IPV6]:PORT or :PORT (every address)", spec);
		return -EINVAL;
	}
	/* every address: IPv6's, which takes IPv4 too, or IPv4's where there is no IPv6 */
	if (!host[0]) {
		hints.ai_family = AF_INET6;
		gai = getaddrinfo(NULL, port, &hints, &res);
		fd = gai ? -EAFNOSUPPORT : bind_one(res);
		if (!gai)
			freeaddrinfo(res);
		res = NULL;
		if (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL) {
			hints.ai_family = AF_INET;
			gai = getaddrinfo(NULL, port, &hints, &res);
			fd = gai ? -EADDRNOTAVAIL : bind_one(res);
		}
	} else {
		gai = getaddrinfo(host, port, &hints, &res);
		if (gai) {
			snprintf(why, len, "--listen %s: %s: give an address of this host", spec, gai_strerror(gai));
			return -EINVAL;
		}
		for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
			if ((fd = bind_one(ai)) >= 0)
				break;
	}
	if (res)
		freeaddrinfo(res);
	if (fd < 0) {
		snprintf(why, len, "--listen %s: %s%s", spec, strerror(-fd),
			 fd == -EADDRINUSE ? ": another process (another slotscope?) has it; pick another port" :
			 fd == -EACCES ? ": a port below 1024 needs CAP_NET_BIND_SERVICE; pick one above" :
			 fd == -EAFNOSUPPORT || fd == -EPERM ?
			 ": IP sockets are refused here (a sandbox: the packaged unit's RestrictAddressFamilies); "
			 "install /usr/share/slotscope/systemd/listen.conf as a drop-in (it says how)" :
			 ": give an address of this host");
		return fd;
	}
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		*bound_port = 0;
		if (!getsockname(fd, (struct sockaddr *)&ss, &sl))
			*bound_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
					    ((struct sockaddr_in *)&ss)->sin_port);
	}
	return fd;
}
