// SPDX-License-Identifier: GPL-2.0
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include "run/signals.h"
#include "lib/util.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static bool inherited_ignored[sizeof(stop_signals) / sizeof(stop_signals[0])];

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

void sig_install(void)
{
	/* the verifier returns -EAGAIN on a pending signal and libbpf retries: catching costs nothing */
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction old;

		/*
		 * We keep an ignored SIGHUP (nohup: a logout must not end the trace); SIGINT and
		 * SIGTERM always end it, with a summary, even when a shell started us in the
		 * background with SIGINT ignored.
		 */
		inherited_ignored[i] = !sigaction(stop_signals[i], NULL, &old) &&
				       old.sa_handler == SIG_IGN;
		if (!(inherited_ignored[i] && stop_signals[i] == SIGHUP))
			signal(stop_signals[i], on_signal);
	}
	signal(SIGPIPE, SIG_IGN);
}

int sig_stop(void)
{
	return stop_signal;
}

void sig_watch_child(void)
{
	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

bool sig_child_exited(void)
{
	return child_exited;
}

void sig_child_clear(void)
{
	child_exited = 0;
}

void sig_child_defaults(void)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		signal(stop_signals[i], inherited_ignored[i] ? SIG_IGN : SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

/*
 * Sleep until @deadline or a stop signal or the child's exit, whichever is first, with one
 * wake-up: the signals are blocked while the flags are looked at and let in only inside ppoll(),
 * atomically, so one landing between the look and the sleep ends the sleep at once. Sleeping in
 * 0.1 s slices instead (the race's bound) woke an idle node's exporter ten times a second.
 */
void sig_wait_until(double deadline)
{
	sigset_t block, old;

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&block, stop_signals[i]);
	sigaddset(&block, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &block, &old))
		return;
	while (!stop_signal && !child_exited) {
		double left = deadline - clock_s(CLOCK_MONOTONIC);
		struct timespec ts;

		if (left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_nsec = 999999999L;
		ppoll(NULL, 0, &ts, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}
