/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen's server in a process of its own, never privileged: forked once the port is bound,
 * it keeps the listening socket and a socketpair to the run and nothing else of ours (no map,
 * no file), becomes the package's user (or nobody) with no capability and no_new_privs, and
 * answers from the expositions the run sends it. So what answers the network never holds what
 * loading needs, while the run waits for NFS, loads, or traces; and a slow load or a stuck tick
 * never keeps /healthz from answering (it says stale instead).
 */
#ifndef SLOTSCOPE_SERVE_H
#define SLOTSCOPE_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct http_server;

struct served {
	struct http_server *h;	/* its listening socket, kept by the run to start another server */
	pid_t pid;		/* the server; 0: none */
	int fd;			/* the run's end of the socketpair; -1: none */
	double started;		/* CLOCK_MONOTONIC of the last start */
	unsigned int restarts;
};

/* fork the server on @h (bound): 0, or -errno said here */
int serve_start(struct served *s, struct http_server *h);
/*
 * the exposition the server answers with from now on: 0, or -errno when it could not take it
 * (it died or hung: it is then ended and started again, at most once a second)
 */
int serve_publish(struct served *s, const char *body, size_t len, bool tracing);
/* end the server (its socketpair closed: it exits) and wait for it */
void serve_stop(struct served *s);

#endif
