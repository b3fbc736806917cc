/* SPDX-License-Identifier: GPL-2.0 */
/* The traced command (after --): started as its user, waited for, passed our stop signal. */
#ifndef SLOTSCOPE_COMMAND_H
#define SLOTSCOPE_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Run @argv as @user (privs_identity: else SUDO_UID, else as we are), with no ambient
 * capability, under a keeper of the same user that passes it the signals written to *@ctl: the
 * tracer, once it is nobody, may not signal the user's processes itself. The keeper's pid, or -1
 * with errno when it cannot be started (said here when the user is wrong).
 */
pid_t command_start(char **argv, const char *user, int *ctl);
/*
 * the keeper @pid has exited (and is not reaped yet): a SIGCHLD may be another child's, such as
 * privs_drop()'s writability probes
 */
bool command_exited(pid_t pid);
/* signal @sig to the command through its keeper's @ctl */
void command_signal(int ctl, int sig);
/*
 * Wait for the keeper @pid, first passing on our stop signal (or SIGTERM when @stdout_gone: its
 * output went the same way); the command's status as a shell gives it (128 + signal). Closes @ctl.
 */
int command_wait(pid_t pid, int ctl, bool stdout_gone);
/* -- COMMAND --run-untraced on a node with no NFS client: the job runs anyway, as the user's */
int command_run_untraced(char **argv, const char *user);

#endif
