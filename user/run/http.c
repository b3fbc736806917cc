// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "run/basicauth.h"
#include "run/http.h"
#include "run/httpreq.h"
#include "run/tls.h"
#include "lib/util.h"

/* an exposition, shared by the connections still sending it when a newer one is published */
struct body {
	unsigned int refs;
	size_t len;
	char data[];
};

/* a connection reads its head, then sends its answer, then drains what the client still sends */
enum conn_state { READING, ANSWERING, DRAINING };

struct conn {
	int fd;				/* -1: free */
	struct ssl_st *ssl;		/* its TLS (--web-config); NULL: plain HTTP */
	short want;			/* what its TLS waits for (POLLIN, POLLOUT); 0: by its state */
	unsigned char peer[16];		/* the client's address (IPv4 as mapped IPv6), not its port */
	double accepted, deadline;
	enum conn_state state;
	size_t inlen;
	char in[HTTP_HEAD_MAX];
	char head[320];			/* status line, headers, and a short answer's text */
	size_t headlen, off;		/* off: bytes sent of head, then of body */
	struct body *body;		/* NULL, or /metrics's */
	size_t bodylen;			/* 0 for HEAD */
};

struct http_server {
	int lfd, port;
	double stale_s, published, timeout_s;
	double paused_until;		/* accept failed for want of fds or memory: not polled until then */
	bool tracing;
	struct tls_server *tls;		/* --web-config's TLS; NULL: plain HTTP */
	struct basic_auth auth;		/* its users: none, no auth */
	struct body *cur;
	struct http_stats st;
	struct conn c[HTTP_CONNS];
};

static void body_put(struct body *b)
{
	if (b && !--b->refs)
		free(b);
}

int http_open(struct http_server **out, const char *spec, double stale_s, char *why, size_t len)
{
	struct http_server *h;
	int port, fd = http_listen_socket(spec, &port, why, len);

	if (fd < 0)
		return fd;
	h = calloc(1, sizeof(*h));
	if (!h) {
		close(fd);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	h->lfd = fd;
	h->stale_s = stale_s;
	h->timeout_s = HTTP_TIMEOUT_S;
	for (size_t i = 0; i < HTTP_CONNS; i++)
		h->c[i].fd = -1;
	h->port = port;
	*out = h;
	return 0;
}

int http_secure(struct http_server *h, const struct web_config *wc, char *why, size_t len)
{
	int err = wc->tls ? tls_server_new(&h->tls, wc, why, len) : 0;

	if (!err && (err = basic_auth_init(&h->auth, wc)))
		snprintf(why, len, "out of memory");
	return err;
}

int http_publish(struct http_server *h, const char *body, size_t len, bool tracing)
{
	struct body *b = malloc(sizeof(*b) + len);

	if (!b)
		return -ENOMEM;
	b->refs = 1;
	b->len = len;
	memcpy(b->data, body, len);
	body_put(h->cur);
	h->cur = b;
	h->tracing = tracing;
	h->published = clock_s(CLOCK_MONOTONIC);
	return 0;
}

/*
 * The head must come within HTTP_HEAD_TIMEOUT_S of the accept (a scrape sends it at once): a
 * client that holds a connection without asking cannot keep one for the whole HTTP_TIMEOUT_S.
 */
static double head_deadline(const struct http_server *h, double now)
{
	return now + (h->timeout_s < HTTP_HEAD_TIMEOUT_S ? h->timeout_s : HTTP_HEAD_TIMEOUT_S);
}

static void conn_close(struct conn *c)
{
	tls_conn_free(c->ssl);
	close(c->fd);
	body_put(c->body);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* a short answer: its text goes in the head */
static void answer_text(struct conn *c, int code, const char *reason, const char *extra, const char *text)
{
	c->headlen = (size_t)snprintf(c->head, sizeof(c->head),
				      "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
				      "Content-Length: %zu\r\n%sConnection: close\r\n\r\n%s",
				      code, reason, strlen(text), extra, text);
	if (c->headlen >= sizeof(c->head))
		c->headlen = sizeof(c->head) - 1;
	c->state = ANSWERING;
}

static void answer_for(struct http_server *h, struct conn *c, int parsed, const struct http_req *r)
{
	char text[96];
	double age;

	if (parsed < 0) {
		h->st.bad++;
		if (parsed == -E2BIG)
			answer_text(c, 431, "Request Header Fields Too Large", "", "request head too large\n");
		else if (parsed == -EPROTONOSUPPORT)
			answer_text(c, 505, "HTTP Version Not Supported", "", "HTTP/1.0 or 1.1 only\n");
		else
			answer_text(c, 400, "Bad Request", "", "malformed request\n");
		return;
	}
	h->st.requests++;
	if (r->path == HTTP_OTHER_PATH) {
		answer_text(c, 404, "Not Found", "", "slotscope serves /metrics and /healthz\n");
		return;
	}
	if (r->method == HTTP_OTHER_METHOD) {
		answer_text(c, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n", "GET or HEAD only\n");
		return;
	}
	age = h->cur ? clock_s(CLOCK_MONOTONIC) - h->published : 0;
	if (r->path == HTTP_HEALTHZ) {
		if (!h->cur)
			answer_text(c, 503, "Service Unavailable", "", "starting: nothing measured yet\n");
		else if (age > h->stale_s) {
			snprintf(text, sizeof(text), "stale: the last exposition is %.0f s old\n", age);
			answer_text(c, 503, "Service Unavailable", "", text);
		} else {
			answer_text(c, 200, "OK", "", h->tracing ? "ok: tracing\n" : "ok: waiting for NFS\n");
		}
		return;
	}
	/* /healthz tells nothing but "ok": a kubelet's probe needs no password */
	switch (basic_auth_check(&h->auth, r->auth, r->auth_len, clock_s(CLOCK_MONOTONIC))) {
	case AUTH_OK:
		break;
	case AUTH_BUSY:
		h->st.unauthorized++;
		answer_text(c, 429, "Too Many Requests", "Retry-After: 1\r\n", "too many new credentials a second\n");
		return;
	default:
		h->st.unauthorized++;
		answer_text(c, 401, "Unauthorized", "WWW-Authenticate: Basic realm=\"slotscope\", charset=\"UTF-8\"\r\n",
			    "user and password required\n");
		return;
	}
	if (!h->cur) {
		answer_text(c, 503, "Service Unavailable", "", "starting: nothing measured yet\n");
		return;
	}
	c->body = h->cur;
	h->cur->refs++;
	c->bodylen = r->method == HTTP_HEAD ? 0 : h->cur->len;
	/* the version Prometheus's text parser takes, whatever Accept asked (no OpenMetrics) */
	c->headlen = (size_t)snprintf(c->head, sizeof(c->head),
				      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
				      "Content-Length: %zu\r\nConnection: close\r\n\r\n", h->cur->len);
	c->state = ANSWERING;
}

/* the answer to a head (@parsed, http_parse()'s); to HEAD, the same without its text (RFC 9110 9.3.2) */
static void answer(struct http_server *h, struct conn *c, int parsed, const struct http_req *r)
{
	char *end;

	answer_for(h, c, parsed, r);
	if (parsed > 0 && r->method == HTTP_HEAD && (end = strstr(c->head, "\r\n\r\n")))
		c->headlen = (size_t)(end + 4 - c->head);
	c->deadline = c->accepted + h->timeout_s;
}

/* what is left to send of the answer: the head's rest and the body, or the body's rest; 0: all sent */
static size_t unsent(const struct conn *c, struct iovec iov[2])
{
	size_t n = 0;

	if (c->off < c->headlen) {
		iov[n++] = (struct iovec){ (char *)c->head + c->off, c->headlen - c->off };
		if (c->bodylen)
			iov[n++] = (struct iovec){ c->body->data, c->bodylen };
	} else if (c->off < c->headlen + c->bodylen) {
		size_t at = c->off - c->headlen;

		iov[n++] = (struct iovec){ c->body->data + at, c->bodylen - at };
	}
	return n;
}

/*
 * As much of the answer as the socket takes, both pieces in one sendmsg; through TLS, one piece a
 * write (TLS takes no iovec). True when the connection is done with.
 */
static bool send_some(struct conn *c)
{
	for (;;) {
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = unsent(c, iov) };
		ssize_t n;

		if (!mh.msg_iovlen)
			return true;
		if (c->ssl) {
			n = tls_send(c->ssl, iov[0].iov_base, iov[0].iov_len, &c->want);
			if (n == -EAGAIN)
				return false;
			if (n <= 0)
				return true;
			c->want = 0;
		} else {
			n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
		}
		c->off += (size_t)n;
	}
}

/*
 * The answer is queued: our side is shut, and what the client still sends (a body, a pipelined
 * request, the rest of a head too large) is read and dropped until it closes, briefly: closing
 * with unread data would reset the connection and lose the answer's unsent end.
 */
static void drain(struct conn *c)
{
	double until = clock_s(CLOCK_MONOTONIC) + 1;

	/* TLS's close_notify, then what follows is read as bytes and dropped */
	tls_conn_free(c->ssl);
	c->ssl = NULL;
	c->want = 0;
	if (shutdown(c->fd, SHUT_WR)) {
		conn_close(c);
		return;
	}
	c->state = DRAINING;
	if (until < c->deadline)
		c->deadline = until;
}

static void drain_some(struct conn *c)
{
	char sink[1024];
	ssize_t n;

	/* bounded: the next poll comes back for more */
	for (int i = 0; i < 16; i++) {
		n = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			conn_close(c);
			return;
		}
		if (n < 0)
			return;
	}
}

static void read_some(struct http_server *h, struct conn *c)
{
	struct http_req r = { 0 };
	ssize_t n;
	int parsed;

	do {
		if (c->ssl) {
			/* TLS may hold a whole head decrypted that no poll will announce: read on */
			n = tls_recv(c->ssl, c->in + c->inlen, sizeof(c->in) - c->inlen, &c->want);
			if (n == -EAGAIN)
				return;
			c->want = 0;
		} else {
			n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
				return;
		}
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->inlen += (size_t)n;
		parsed = http_parse(c->in, c->inlen, &r);
	} while (parsed == 0 && c->ssl && c->inlen < sizeof(c->in));
	if (parsed == 0)
		return;
	answer(h, c, parsed, &r);
	if (send_some(c))
		drain(c);
}

/* @ss's address as 16 bytes: IPv4 as its mapped IPv6 form, so one host is one peer either way */
static void peer_of(const struct sockaddr_storage *ss, unsigned char out[16])
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

static size_t peer_conns(const struct http_server *h, const unsigned char peer[16])
{
	size_t n = 0;

	for (size_t i = 0; i < HTTP_CONNS; i++)
		n += h->c[i].fd >= 0 && !memcmp(h->c[i].peer, peer, 16);
	return n;
}

/* which goes first when a place is needed: an answer that went, a head not sent, an answer not read */
static int evict_rank(enum conn_state s)
{
	return s == DRAINING ? 0 : s == READING ? 1 : 2;
}

/*
 * The place of a new connection from @peer: its own oldest when the peer holds HTTP_PEER_CONNS
 * already; else a free one; else, by evict_rank(), the busiest peer's oldest (a draining
 * connection's answer is in the kernel's queue already: closing it loses nothing the client
 * waits for). NULL: none (the table is empty: never).
 */
static struct conn *slot_for_new(struct http_server *h, const unsigned char peer[16])
{
	struct conn *v = NULL, *own = NULL;
	size_t vn = 0;

	if (peer_conns(h, peer) >= HTTP_PEER_CONNS) {
		for (size_t i = 0; i < HTTP_CONNS; i++) {
			struct conn *c = &h->c[i];

			if (c->fd >= 0 && !memcmp(c->peer, peer, 16) && (!own || c->accepted < own->accepted))
				own = c;
		}
		h->st.peer_capped++;
		conn_close(own);
		return own;
	}
	for (size_t i = 0; i < HTTP_CONNS; i++)
		if (h->c[i].fd < 0)
			return &h->c[i];
	for (size_t i = 0; i < HTTP_CONNS; i++) {
		struct conn *c = &h->c[i];
		size_t n = peer_conns(h, c->peer);
		int r = evict_rank(c->state), vr = v ? evict_rank(v->state) : 3;

		if (!v || r < vr || (r == vr && (n > vn || (n == vn && c->accepted < v->accepted)))) {
			v = c;
			vn = n;
		}
	}
	if (v) {
		h->st.evicted++;
		conn_close(v);
	}
	return v;
}

static void accept_all(struct http_server *h)
{
	/* the whole queue, up to its length: a flood is sorted at once, not left to fill it */
	for (size_t tries = 0; tries < HTTP_ACCEPT_BURST; tries++) {
		struct sockaddr_storage ss = { 0 };
		socklen_t sl = sizeof(ss);
		int fd = accept4(h->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		double now = clock_s(CLOCK_MONOTONIC);
		unsigned char peer[16];
		struct conn *c;

		if (fd < 0) {
			/*
			 * out of fds or memory: the connection stays queued and the socket readable,
			 * which would wake every poll at once: the socket rests a second
			 */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				h->paused_until = now + 1;
			return;
		}
		peer_of(&ss, peer);
		c = slot_for_new(h, peer);
		if (!c) {
			h->st.refused++;
			close(fd);
			continue;
		}
		c->fd = fd;
		if (h->tls && !(c->ssl = tls_conn_new(h->tls, fd))) {
			conn_close(c);
			h->st.refused++;
			continue;
		}
		memcpy(c->peer, peer, 16);
		c->state = READING;
		c->accepted = now;
		c->deadline = head_deadline(h, now);
	}
}

size_t http_pollfds(struct http_server *h, struct pollfd *fds, size_t max, double *deadline)
{
	size_t n = 0;

	if (!h || !max)
		return 0;
	/* the listening socket is always first (http_serve() accepts after it reads) */
	fds[n++] = (struct pollfd){ .fd = h->lfd, .events = POLLIN };
	if (h->paused_until > clock_s(CLOCK_MONOTONIC)) {
		fds[0].fd = -1;
		if (h->paused_until < *deadline)
			*deadline = h->paused_until;
	}
	for (size_t i = 0; i < HTTP_CONNS && n < max; i++) {
		const struct conn *c = &h->c[i];

		if (c->fd < 0)
			continue;
		fds[n++] = (struct pollfd){ .fd = c->fd,
					    .events = c->want ? c->want : c->state == ANSWERING ? POLLOUT : POLLIN };
		if (c->deadline < *deadline)
			*deadline = c->deadline;
	}
	return n;
}

static struct conn *conn_of(struct http_server *h, int fd)
{
	for (size_t i = 0; i < HTTP_CONNS; i++)
		if (h->c[i].fd == fd)
			return &h->c[i];
	return NULL;
}

void http_serve(struct http_server *h, const struct pollfd *fds, size_t n)
{
	double now;

	if (!h)
		return;
	/*
	 * the connections first, then the new ones: a head that came is answered before a flood's
	 * connections can take its place
	 */
	for (size_t i = 0; i < n; i++) {
		struct conn *c;

		if (!fds[i].revents || fds[i].fd == h->lfd)
			continue;
		c = conn_of(h, fds[i].fd);
		if (!c)
			continue;
		if (c->state == ANSWERING) {
			if (send_some(c))
				drain(c);
		} else if (c->state == DRAINING) {
			drain_some(c);
		} else {
			read_some(h, c);
		}
	}
	if (n && fds[0].fd == h->lfd && fds[0].revents)
		accept_all(h);
	now = clock_s(CLOCK_MONOTONIC);
	for (size_t i = 0; i < HTTP_CONNS; i++)
		if (h->c[i].fd >= 0 && now >= h->c[i].deadline) {
			/* a drained connection's end is not a timeout: its answer went */
			if (h->c[i].state != DRAINING)
				h->st.timeouts++;
			conn_close(&h->c[i]);
		}
}

const struct http_stats *http_stats(const struct http_server *h)
{
	return &h->st;
}

void http_set_timeout(struct http_server *h, double seconds)
{
	h->timeout_s = seconds;
}

int http_port(const struct http_server *h)
{
	return h->port;
}

int http_listen_fd(const struct http_server *h)
{
	return h->lfd;
}

void http_close(struct http_server *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < HTTP_CONNS; i++)
		if (h->c[i].fd >= 0)
			conn_close(&h->c[i]);
	body_put(h->cur);
	close(h->lfd);
	tls_server_free(h->tls);
	basic_auth_free(&h->auth);
	free(h);
}
