/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals: the only state outside a run, and what a handler may touch. SIGINT, SIGTERM and SIGHUP
 * end a trace with its summary; the traced command gets the dispositions we were started with.
 */
#ifndef SLOTSCOPE_SIGNALS_H
#define SLOTSCOPE_SIGNALS_H

#include <stdbool.h>

/*
 * Before the load: under emulation it takes seconds, and a signal then must still end in a
 * summary and exit 0. A closed stdout (| head) becomes an EPIPE where we print, not a death.
 */
void sig_install(void);
/* the signal that asked us to stop, or 0 */
int sig_stop(void);
/* notice the command's exit (not its stops: a job suspended and continued goes on) */
void sig_watch_child(void);
bool sig_child_exited(void);
/* a SIGCHLD that was not the command's (a helper child of ours): forget it */
void sig_child_clear(void);
/* in a forked child, before exec: the dispositions we inherited (nohup's SIGHUP stays ignored) */
void sig_child_defaults(void);
/* sleep until CLOCK_MONOTONIC @deadline, waking early for a stop signal or the command's exit */
void sig_wait_until(double deadline);

#endif
