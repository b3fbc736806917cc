// SPDX-License-Identifier: GPL-2.0
/*
 * --listen over a real socket: the server loop of signals.c in a thread, clients in the test.
 * Answers per path and method, malformed heads, the connection cap, a stalled client timed out
 * while others are served, a slow reader given the whole exposition it asked for after a newer
 * one is published, /healthz going stale. And the request parser alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "run/http.h"
#include "run/httpreq.h"

static struct http_server *srv;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop;
static pthread_t th;

/* what sig_wait_until() does, without the signals */
static void *serve(void *arg)
{
	struct pollfd fds[HTTP_CONNS + 1];

	(void)arg;
	while (!stop) {
		double wake = 1e18;
		size_t n;
		int ms;

		pthread_mutex_lock(&lock);
		n = http_pollfds(srv, fds, HTTP_CONNS + 1, &wake);
		pthread_mutex_unlock(&lock);
		ms = wake < 1e17 ? 20 : 50;
		if (poll(fds, n, ms) >= 0) {
			pthread_mutex_lock(&lock);
			http_serve(srv, fds, n);
			pthread_mutex_unlock(&lock);
		}
	}
	return NULL;
}

/* a counter, read under the server's lock */
static unsigned long long stat_of(size_t off)
{
	unsigned long long v;

	pthread_mutex_lock(&lock);
	v = *(const unsigned long long *)((const char *)http_stats(srv) + off);
	pthread_mutex_unlock(&lock);
	return v;
}
#define STAT(f) stat_of(offsetof(struct http_stats, f))

static void publish(const char *body, size_t len, bool tracing)
{
	pthread_mutex_lock(&lock);
	assert_int_equal(http_publish(srv, body, len, tracing), 0);
	pthread_mutex_unlock(&lock);
}

static int setup(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(http_open(&srv, "127.0.0.1:0", 3, why, sizeof(why)), 0);
	http_set_timeout(srv, 4.0);
	stop = false;
	return pthread_create(&th, NULL, serve, NULL);
}

static int teardown(void **state)
{
	(void)state;
	stop = true;
	pthread_join(th, NULL);
	http_close(srv);
	srv = NULL;
	return 0;
}

/*
 * a client from @src (NULL: 127.0.0.1; another loopback address is another peer to the server);
 * @rcvbuf > 0: its receive buffer, set before the connection (the window follows it)
 */
static int dial_from(const char *src, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)http_port(srv)) };
	struct sockaddr_in b = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 8 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	if (src) {
		inet_pton(AF_INET, src, &b.sin_addr);
		assert_int_equal(bind(fd, (struct sockaddr *)&b, sizeof(b)), 0);
	}
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static int dial_with(int rcvbuf)
{
	return dial_from(NULL, rcvbuf);
}

static int dial(void)
{
	return dial_with(0);
}

/* everything until the server closes; NUL-terminated, *len without it */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t r;

	while (buf && (r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

static char *ask(const char *req, size_t *len)
{
	int fd = dial();
	char *a;

	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	a = read_all(fd, len);
	close(fd);
	return a;
}

static void expect(const char *req, const char *status, const char *text)
{
	size_t len;
	char *a = ask(req, &len);

	assert_memory_equal(a, status, strlen(status));
	if (text)
		assert_non_null(strstr(a, text));
	free(a);
}

static void test_answers(void **state)
{
	const char *body = "# HELP slotscope_tracing x\n# TYPE slotscope_tracing gauge\nslotscope_tracing 1\n";
	char want[256];
	size_t len;
	char *a;

	(void)state;
	expect("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 503 ", "nothing measured yet");
	expect("GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 503 ", "starting");
	publish(body, strlen(body), true);
	/* what Prometheus sends */
	a = ask("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Prometheus/2.42.0\r\n"
		"Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
		"Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n", &len);
	snprintf(want, sizeof(want), "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; "
		 "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s", strlen(body), body);
	assert_string_equal(a, want);
	free(a);
	/* a query string (a scrape config's params:) and a bare-LF head */
	expect("GET /metrics?x=1 HTTP/1.0\n\n", "HTTP/1.1 200 ", "slotscope_tracing 1\n");
	a = ask("HEAD /metrics HTTP/1.1\r\n\r\n", &len);
	snprintf(want, sizeof(want), "Content-Length: %zu\r\n", strlen(body));
	assert_non_null(strstr(a, want));
	assert_string_equal(strstr(a, "\r\n\r\n"), "\r\n\r\n");
	free(a);
	expect("GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ", "ok: tracing");
	publish(body, strlen(body), false);
	expect("GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ", "ok: waiting for NFS");
	expect("GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 404 ", "/metrics and /healthz");
	expect("GET /metricsx HTTP/1.1\r\n\r\n", "HTTP/1.1 404 ", NULL);
	expect("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 ", "Allow: GET, HEAD\r\n");
	/* a body after the head: drained, the answer whole (no reset) */
	expect("POST /metrics HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello there", "HTTP/1.1 405 ", "GET or HEAD only\n");
	/* to HEAD, no text after the head, whatever the status */
	a = ask("HEAD /nope HTTP/1.1\r\n\r\n", &len);
	assert_memory_equal(a, "HTTP/1.1 404 ", 13);
	assert_string_equal(strstr(a, "\r\n\r\n"), "\r\n\r\n");
	free(a);
	expect("GET /metrics HTTP/2.0\r\n\r\n", "HTTP/1.1 505 ", NULL);
	expect("GET /metrics\r\n\r\n", "HTTP/1.1 400 ", NULL);
	expect("GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n", "HTTP/1.1 400 ", NULL);
	expect("GET /metrics HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", "HTTP/1.1 400 ", NULL);
	/* stale: nothing published for longer than stale_s (3 s here) */
	usleep(3300 * 1000);
	expect("GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 503 ", "stale");
	assert_true(STAT(bad) >= 4);
}

static void test_head_too_large(void **state)
{
	char big[HTTP_HEAD_MAX + 64];
	size_t len;
	char *a;
	int fd = dial();

	(void)state;
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX-Big: ", 30);
	/* the server answers once it has HTTP_HEAD_MAX bytes: the rest may meet a closed socket */
	(void)!write(fd, big, sizeof(big));
	a = read_all(fd, &len);
	assert_memory_equal(a, "HTTP/1.1 431 ", 13);
	free(a);
	close(fd);
}

/* the loopback address of peer @i (127.0.1.I+1): each a host of its own to the server */
static const char *peer_addr(int i, char *buf, size_t len)
{
	snprintf(buf, len, "127.0.1.%d", i + 1);
	return buf;
}

/*
 * HTTP_CONNS idle clients, each from a peer of its own, hold every slot: one more takes the slot
 * of the one longest waiting for its head (closed unanswered) and is answered; the others time
 * out at the head deadline
 */
static void test_cap_and_timeout(void **state)
{
	int idle[HTTP_CONNS], fd;
	char src[32];
	size_t len;
	char *a;

	(void)state;
	publish("x 1\n", 4, true);
	for (int i = 0; i < HTTP_CONNS; i++) {
		idle[i] = dial_from(peer_addr(i, src, sizeof(src)), 0);
		/* a stalled head: one byte */
		assert_int_equal(write(idle[i], "G", 1), 1);
		/* accepted in this order: the first is the oldest */
		usleep(20 * 1000);
	}
	usleep(200 * 1000);
	fd = dial();
	assert_int_equal(write(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25);
	a = read_all(fd, &len);
	assert_non_null(strstr(a, "\r\n\r\nx 1\n"));
	free(a);
	close(fd);
	assert_int_equal(STAT(evicted), 1);
	assert_int_equal(STAT(peer_capped), 0);
	/* the evicted one, then the rest once their head deadline (3 s) passes */
	for (int i = 0; i < HTTP_CONNS; i++) {
		a = read_all(idle[i], &len);
		assert_int_equal(len, 0);
		free(a);
		close(idle[i]);
	}
	assert_int_equal(STAT(timeouts), HTTP_CONNS - 1);
	assert_int_equal(STAT(refused), 0);
}

/*
 * One peer holds HTTP_PEER_CONNS at most: its next connections close its own oldest, and another
 * peer's scrape is answered at once, the table never full
 */
static void test_peer_cap(void **state)
{
	int fl[2 * HTTP_PEER_CONNS];
	size_t len;
	char *a;

	(void)state;
	publish("p 1\n", 4, true);
	for (int i = 0; i < 2 * HTTP_PEER_CONNS; i++) {
		fl[i] = dial_from("127.0.0.9", 0);
		usleep(20 * 1000);
	}
	usleep(100 * 1000);
	assert_int_equal(STAT(peer_capped), HTTP_PEER_CONNS);
	/* the first ones were closed: end of file at once, not at the head deadline */
	for (int i = 0; i < HTTP_PEER_CONNS; i++) {
		a = read_all(fl[i], &len);
		assert_int_equal(len, 0);
		free(a);
	}
	expect("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ", "p 1\n");
	assert_int_equal(STAT(evicted), 0);
	for (int i = 0; i < 2 * HTTP_PEER_CONNS; i++)
		close(fl[i]);
}

/*
 * Clients from every place in the table ask and then stay silent (their answers sent, the
 * connections draining until they close): a new scrape takes the place of one and is answered,
 * and every silent client got its whole answer
 */
static void test_answered_never_block(void **state)
{
	int q[HTTP_CONNS];
	char src[32];
	size_t len;
	char *a;

	(void)state;
	publish("q 1\n", 4, true);
	for (int i = 0; i < HTTP_CONNS; i++) {
		q[i] = dial_from(peer_addr(i, src, sizeof(src)), 0);
		assert_int_equal(write(q[i], "GET /healthz HTTP/1.1\r\n\r\n", 25), 25);
	}
	usleep(200 * 1000);
	expect("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ", "q 1\n");
	assert_true(STAT(evicted) >= 1);
	for (int i = 0; i < HTTP_CONNS; i++) {
		a = read_all(q[i], &len);
		assert_non_null(strstr(a, "\r\n\r\nok: tracing\n"));
		free(a);
		close(q[i]);
	}
}

/* a stalled client does not hold up another's scrape */
static void test_stalled_beside(void **state)
{
	int slow = dial();

	(void)state;
	publish("y 2\n", 4, true);
	assert_int_equal(write(slow, "GET /met", 8), 8);
	expect("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ", "y 2\n");
	close(slow);
}

/* a reader slower than the publishes gets the exposition it asked for, whole */
static void test_slow_reader(void **state)
{
	size_t big = 16 << 20, len;
	char *body = malloc(big), *a, *nl;
	int fd;

	(void)state;
	/* before the connection is made: its deadline is set as it is accepted */
	pthread_mutex_lock(&lock);
	http_set_timeout(srv, 60);
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < big; i++)
		body[i] = (char)('a' + i % 26);
	body[big - 1] = '\n';
	publish(body, big, true);
	/* a small window: the 16 MiB cannot all be queued before the next publish; the head at once
	 * (its deadline runs from the accept) */
	fd = dial_with(4096);
	assert_int_equal(write(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25);
	usleep(100 * 1000);
	publish("z 3\n", 4, true);
	a = read_all(fd, &len);
	close(fd);
	nl = strstr(a, "\r\n\r\n");
	assert_non_null(nl);
	assert_int_equal(len - (size_t)(nl + 4 - a), big);
	assert_memory_equal(nl + 4, body, big);
	free(a);
	free(body);
	expect("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ", "z 3\n");
}

static void test_specs(void **state)
{
	struct http_server *h, *h2;
	const char *bad[] = { "9868", "", ":", ":x", ":-1", ":+80", ": 80", ":65536", "::1:9868", "[::1]", "[]:9868",
			      "host:" };
	char why[256], spec[32];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_int_equal(http_open(&h, bad[i], 1, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "--listen"));
	}
	assert_int_equal(http_open(&h, ":0", 1, why, sizeof(why)), 0);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", http_port(h));
	assert_int_equal(http_open(&h2, spec, 1, why, sizeof(why)), -EADDRINUSE);
	assert_non_null(strstr(why, "pick another port"));
	http_close(h);
	if (http_open(&h, "[::1]:0", 1, why, sizeof(why)) == 0)
		http_close(h);
}

static void test_parser(void **state)
{
	struct http_req r;

	(void)state;
	assert_int_equal(http_parse("GET /metrics HTTP/1.1\r\n", 23, &r), 0);
	assert_int_equal(http_parse("GET /metrics HTTP/1.1\r\n\r\n", 25, &r), 25);
	assert_int_equal(r.method, HTTP_GET);
	assert_int_equal(r.path, HTTP_METRICS);
	assert_int_equal(http_parse("\r\nHEAD /healthz?a HTTP/1.0\r\n\r\n", 30, &r), 30);
	assert_int_equal(r.method, HTTP_HEAD);
	assert_int_equal(r.path, HTTP_HEALTHZ);
	assert_int_equal(http_parse("DELETE /x HTTP/1.1\r\n\r\n", 22, &r), 22);
	assert_int_equal(r.method, HTTP_OTHER_METHOD);
	assert_int_equal(r.path, HTTP_OTHER_PATH);
	assert_int_equal(http_parse("GET  /metrics HTTP/1.1\r\n\r\n", 26, &r), -EBADMSG);
	assert_int_equal(http_parse("GET metrics HTTP/1.1\r\n\r\n", 24, &r), -EBADMSG);
	assert_int_equal(http_parse("GET /a\x01 HTTP/1.1\r\n\r\n", 21, &r), -EBADMSG);
	assert_int_equal(http_parse("GET /a HTTP/1.2\r\n\r\n", 19, &r), -EPROTONOSUPPORT);
	assert_int_equal(http_parse("GET /a HTTP/1.1\r\n: v\r\n\r\n", 24, &r), -EBADMSG);
	assert_int_equal(http_parse("GET /a HTTP/1.1\r\nA : v\r\n\r\n", 26, &r), -EBADMSG);
	assert_int_equal(http_parse("GET /a HTTP/1.1\r\nA: v\x7f\r\n\r\n", 26, &r), -EBADMSG);
	/* basic auth's credentials: the value, blanks trimmed, the name in any case; none; two */
	{
		const char *h = "GET /metrics HTTP/1.1\r\nHost: x\r\nauthorization:  Basic cDpx \t\r\n\r\n";

		assert_int_equal(http_parse(h, strlen(h), &r), (int)strlen(h));
		assert_int_equal(r.auth_len, 10);
		assert_memory_equal(r.auth, "Basic cDpx", 10);
		assert_int_equal(http_parse("GET /a HTTP/1.1\r\n\r\n", 19, &r), 19);
		assert_null(r.auth);
		h = "GET /a HTTP/1.1\r\nAuthorization: Basic a\r\nAUTHORIZATION: Basic b\r\n\r\n";
		assert_int_equal(http_parse(h, strlen(h), &r), -EBADMSG);
		/* a name that only starts like it is another header */
		h = "GET /a HTTP/1.1\r\nAuthorization-X: y\r\n\r\n";
		assert_int_equal(http_parse(h, strlen(h), &r), (int)strlen(h));
		assert_null(r.auth);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parser),
		cmocka_unit_test(test_specs),
		cmocka_unit_test_setup_teardown(test_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_head_too_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap_and_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answered_never_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stalled_beside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_reader, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
