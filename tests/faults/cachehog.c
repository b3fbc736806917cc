// SPDX-License-Identifier: GPL-2.0
/*
 * cachehog rewrite|reread FILE SECONDS [PAUSE_US]: one process, one open file, for SECONDS (or
 * until SIGTERM or SIGINT):
 * rewrite pwrite()s the same MiB at offset 0 again and again (no close, no fsync: the pages stay
 * in the page cache, dirty, and reach the server only when writeback or the final close sends
 * them); reread pread()s the file's first MiB again and again (read once, then cached). Between
 * calls it sleeps PAUSE_US (default 0). A user who wants a window's job without sending it
 * anything (test_job_rpcbytes, #63). Prints the bytes its calls moved; exits 0 when every call
 * moved the whole MiB.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char buf[MIB];
	unsigned long long moved = 0;
	double until;
	long pause_us;
	int fd, rewrite, short_calls = 0;

	if (argc < 4 || argc > 5 || (strcmp(argv[1], "rewrite") && strcmp(argv[1], "reread"))) {
		fprintf(stderr, "usage: cachehog rewrite|reread FILE SECONDS [PAUSE_US]\n");
		return 2;
	}
	rewrite = !strcmp(argv[1], "rewrite");
	until = now() + atof(argv[3]);
	pause_us = argc == 5 ? atol(argv[4]) : 0;
	memset(buf, 'h', sizeof(buf));
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	fd = open(argv[2], rewrite ? O_RDWR | O_CREAT : O_RDONLY, 0644);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	while (!stop && now() < until) {
		ssize_t n = rewrite ? pwrite(fd, buf, sizeof(buf), 0) : pread(fd, buf, sizeof(buf), 0);

		if (n != (ssize_t)sizeof(buf))
			short_calls++;
		if (n > 0)
			moved += (unsigned long long)n;
		if (pause_us)
			usleep((useconds_t)pause_us);
	}
	printf("%llu\n", moved);
	close(fd);
	return short_calls ? 1 : 0;
}
