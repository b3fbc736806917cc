/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen: /metrics (the textfile's exposition, the last one published) and /healthz, served by
 * a process of its own that holds nothing (serve.h): all I/O is non-blocking and bounded, so no
 * client holds up another, and a flood or a silent client starves only its own address.
 */
#ifndef SLOTSCOPE_HTTP_H
#define SLOTSCOPE_HTTP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/* connections served at once */
#define HTTP_CONNS 32
/*
 * connections one peer (address, whatever its port) may hold: its next closes its own oldest, so a
 * client that floods or holds connections starves itself, not a scraper or a health probe
 */
#define HTTP_PEER_CONNS 4
/* connections taken from the listen queue per poll: a flood's are taken (and sorted) a burst at a
 * time, the connections' own work between bursts */
#define HTTP_ACCEPT_BURST 256
/* seconds a connection may take, from accept to the last byte of the answer (a scrape's default) */
#define HTTP_TIMEOUT_S 10.0
/*
 * seconds it may take to send its head. When every connection is taken, a new one takes the
 * place of one whose answer went already (draining), else of one still reading its head, else of
 * one still being answered (a client that does not read): the busiest peer's oldest first
 */
#define HTTP_HEAD_TIMEOUT_S 3.0

struct http_server;

struct http_stats {
	unsigned long long requests, refused, evicted, peer_capped, timeouts, bad, unauthorized;
};

/*
 * Listen on @spec, "HOST:PORT", "[V6]:PORT" or ":PORT" (every address): 0 and *@out, or -errno
 * with a one-line reason in @why (EADDRINUSE, EACCES for a port below 1024 without
 * CAP_NET_BIND_SERVICE, EINVAL for a malformed spec). @stale_s: /healthz answers 503 once the
 * last publish is older than that.
 */
int http_open(struct http_server **out, const char *spec, double stale_s, char *why, size_t len);
/* @spec's socket bound and listening (httplisten.c): its fd and *@bound_port, or -errno and @why */
int http_listen_socket(const char *spec, int *bound_port, char *why, size_t len);
/*
 * --web-config's TLS and basic auth for every connection from now on, the files read now (before
 * the serving process drops its privileges): 0, or -errno with one line in @why
 */
struct web_config;
int http_secure(struct http_server *h, const struct web_config *wc, char *why, size_t len);
/* the exposition to serve from now on (copied); @tracing: /healthz says which */
int http_publish(struct http_server *h, const char *body, size_t len, bool tracing);
/* the sockets to poll, at most @max, and the earliest CLOCK_MONOTONIC deadline among them */
size_t http_pollfds(struct http_server *h, struct pollfd *fds, size_t max, double *deadline);
/* @fds as filled by http_pollfds() and returned by poll: accept, read, answer, time out */
void http_serve(struct http_server *h, const struct pollfd *fds, size_t n);
const struct http_stats *http_stats(const struct http_server *h);
/* a connection's time from accept to its last byte (HTTP_TIMEOUT_S unless set: tests) */
void http_set_timeout(struct http_server *h, double seconds);
/* the bound port (":0" picks one: tests) */
int http_port(const struct http_server *h);
/* the listening socket (serve.c keeps it, and nothing else, in the server's process) */
int http_listen_fd(const struct http_server *h);
void http_close(struct http_server *h);

#endif
