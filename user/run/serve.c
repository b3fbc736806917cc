// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "lib/log.h"
#include "lib/util.h"
#include "run/http.h"
#include "run/privs.h"
#include "run/serve.h"

#define FRAME_MAGIC 0x736c6f74u		/* "slot" */
/* an exposition larger than this is not one of ours: the server ends */
#define FRAME_MAX (256u << 20)
/* a send to a server that reads nothing for this long ends it: a tick must not wait on it */
#define SEND_TIMEOUT_S 2
/* a new server's word that it holds nothing: a fork and a passwd lookup, slow under emulation */
#define READY_TIMEOUT_S 10

struct frame {
	uint32_t magic, tracing;
	uint64_t len;
};

/* what the server has read of the frame in progress */
struct inbox {
	struct frame f;
	size_t got;		/* of the header, then of the body */
	char *body;
	size_t cap;
};

/* every fd of ours but the listening socket, the socketpair and stderr closed; stdin, stdout /dev/null */
static void keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 2 && null != lo && null != hi)
			close(null);
	}
	if (lo > 3)
		close_range(3, (unsigned int)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned int)lo + 1, (unsigned int)hi - 1, 0);
	close_range((unsigned int)hi + 1, ~0u, 0);
}

/* 1: a frame is whole in @in; 0: more to come; -1: the run closed its end, or sent nonsense */
static int inbox_read(int fd, struct inbox *in)
{
	for (;;) {
		bool head = in->got < sizeof(in->f);
		size_t want = head ? sizeof(in->f) - in->got : in->f.len - (in->got - sizeof(in->f));
		char *to = head ? (char *)&in->f + in->got : in->body + (in->got - sizeof(in->f));
		ssize_t n;

		if (!head && !want)
			return 1;
		n = recv(fd, to, want, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return -1;
		if (n < 0)
			return 0;
		in->got += (size_t)n;
		if (head && in->got == sizeof(in->f)) {
			if (in->f.magic != FRAME_MAGIC || in->f.len > FRAME_MAX)
				return -1;
			if (in->f.len > in->cap) {
				char *b = realloc(in->body, in->f.len);

				if (!b)
					return -1;
				in->body = b;
				in->cap = in->f.len;
			}
		}
	}
}

/* the server: never returns */
static void server(struct http_server *h, int fd, pid_t run)
{
	struct inbox in = { 0 };
	char ok = 1;
	int err;

	/* the run's end is ours: no signal of the terminal's, its death ours too */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != run)
		_exit(0);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	keep_only(http_listen_fd(h), fd);
	err = privs_server();
	if (err) {
		pr_err("the --listen server cannot drop its privileges: %s: as root it needs CAP_SETUID "
		       "and CAP_SETGID to become slotscope or nobody; or run slotscope as a user\n",
		       strerror(-err));
		_exit(77);
	}
	if (send(fd, &ok, 1, MSG_NOSIGNAL) != 1)
		_exit(0);
	for (;;) {
		struct pollfd fds[HTTP_CONNS + 2] = { { .fd = fd, .events = POLLIN } };
		double now = clock_s(CLOCK_MONOTONIC), wake = now + 3600;
		size_t n = 1 + http_pollfds(h, fds + 1, HTTP_CONNS + 1, &wake);
		int r;

		poll(fds, n, wake > now ? (int)((wake - now) * 1000) + 1 : 0);
		if (fds[0].revents) {
			r = inbox_read(fd, &in);
			if (r < 0)
				_exit(0);
			if (r > 0) {
				/* out of memory: the last exposition stays, /healthz goes stale */
				http_publish(h, in.body, in.f.len, in.f.tracing);
				in.got = 0;
			}
		}
		http_serve(h, fds + 1, n - 1);
	}
}

int serve_start(struct served *s, struct http_server *h)
{
	struct timeval tv = { .tv_sec = SEND_TIMEOUT_S }, ready = { .tv_sec = READY_TIMEOUT_S };
	pid_t run = getpid();
	ssize_t got;
	int sv[2], status;
	char ok = 0;

	s->h = h;
	s->pid = 0;
	s->fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	s->pid = fork();
	if (s->pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		s->pid = 0;
		return err;
	}
	if (s->pid == 0) {
		close(sv[0]);
		server(h, sv[1], run);
	}
	close(sv[1]);
	s->fd = sv[0];
	s->started = clock_s(CLOCK_MONOTONIC);
	setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &ready, sizeof(ready));
	/* its one byte once it holds nothing: else it said why and is gone (EOF), or it hangs */
	do
		got = recv(s->fd, &ok, 1, 0);
	while (got < 0 && errno == EINTR);
	if (got != 1 || ok != 1) {
		int err = got < 0 ? -ETIMEDOUT : -EPERM;

		close(s->fd);
		s->fd = -1;
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
		s->pid = 0;
		return err;
	}
	pr_debug("--listen's server: pid %d, unprivileged\n", (int)s->pid);
	return 0;
}

/* the whole of @len at @p, or -errno (a server that reads nothing for SEND_TIMEOUT_S: -EAGAIN) */
static int send_all(int fd, const void *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p = (const char *)p + n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_frame(struct served *s, const char *body, size_t len, bool tracing)
{
	struct frame f = { .magic = FRAME_MAGIC, .tracing = tracing, .len = len };
	int err = send_all(s->fd, &f, sizeof(f));

	return err ? err : send_all(s->fd, body, len);
}

int serve_publish(struct served *s, const char *body, size_t len, bool tracing)
{
	int err;

	if (s->fd >= 0) {
		err = send_frame(s, body, len, tracing);
		if (!err)
			return 0;
		pr_warn("--listen's server (pid %d) took no exposition (%s): started again\n", (int)s->pid,
			strerror(-err));
		serve_stop(s);
	}
	/* a server that dies at once is not started a thousand times a second */
	if (clock_s(CLOCK_MONOTONIC) - s->started < 1)
		return -EAGAIN;
	s->restarts++;
	err = serve_start(s, s->h);
	return err ? err : send_frame(s, body, len, tracing);
}

void serve_stop(struct served *s)
{
	int status;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	s->pid = 0;
}
