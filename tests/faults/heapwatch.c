// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=heapwatch.so HEAPWATCH=FILE slotscope ...: what malloc has handed out and not taken
 * back, written to FILE every 100 ms, for the leak checks of the VM tests (test_churn). The RSS
 * cannot tell a leak from the heap's shape: when a block is freed and its neighbours are not, the
 * pages stay, and the moment that happens varies with the timing of ticks against mounts (CI saw
 * +428 and +264 KiB over two stretches of 25 mounts where a run here saw none). Bytes in use do
 * not move with the timing; a leak moves them.
 *
 * One line, replaced whole (written beside FILE, renamed over it):
 *   inuse ARENA_INUSE+MMAPPED heap ARENA_BYTES free ARENA_FREE mmapped MMAPPED
 * mallinfo2() sums every arena under its locks, which a thread may take and a signal handler may
 * not. The thread writes with write(2), so it never mallocs (a thread's first malloc would make
 * an arena of its own); it blocks every signal, so the process's own handling of SIGINT/SIGTERM is the main
 * thread's as without it. Test-only: never installed or packaged.
 */
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *watch(void *arg)
{
	const char *path = arg;
	char tmp[4096];
	struct timespec tick = { 0, 100 * 1000 * 1000 };

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return NULL;
	for (;;) {
		struct mallinfo2 m = mallinfo2();
		char line[256];
		int n = snprintf(line, sizeof(line), "inuse %zu heap %zu free %zu mmapped %zu\n",
				 m.uordblks + m.hblkhd, m.arena, m.fordblks, m.hblkhd);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd >= 0) {
			bool whole = write(fd, line, n) == n;

			if (close(fd) == 0 && whole)
				rename(tmp, path);
		}
		nanosleep(&tick, NULL);
	}
	return NULL;
}

__attribute__((constructor)) static void heapwatch_start(void)
{
	const char *path = getenv("HEAPWATCH");
	sigset_t all, old;
	pthread_t t;

	if (!path || !*path)
		return;
	/* blocked before the thread exists, so no signal can land in it in between */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&t, NULL, watch, (void *)path) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
