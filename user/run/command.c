// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "run/command.h"
#include "lib/log.h"
#include "run/privs.h"
#include "run/signals.h"
#include "lib/util.h"

static int shell_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 0;
}

/*
 * The keeper, as the command's user: the command's parent, which passes on the signal number the
 * tracer writes to @ctl (the tracer, once it is nobody, may not signal the user's processes), and
 * exits with the command's status as a shell gives it. Stop signals from a terminal reach the
 * command themselves (one process group); the keeper ignores them and goes when the command
 * does. The tracer's end closed (it died) leaves the command running, as it would have been.
 */
static _Noreturn void keeper(int ctl, char **argv)
{
	int status = 0, pfd = -1;
	sigset_t all, none;
	pid_t pid;

	/*
	 * Signals blocked across the fork: the command starts with the tracer's handlers, and a
	 * SIGTERM passed on before it reset them (a start that fails at once passes it at once) was
	 * caught and lost, leaving it to run. Blocked, it waits for the defaults, then kills.
	 */
	sigfillset(&all);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "slotscope: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(126);
	}
	if (pid == 0) {
		close(ctl);
		sig_child_defaults();
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "slotscope: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &none, NULL);
#ifdef SYS_pidfd_open
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	for (;;) {
		struct pollfd p[2] = { { .fd = pfd, .events = POLLIN }, { .fd = ctl, .events = POLLIN } };
		unsigned char sig;
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		/* no pidfd (before 5.3): look again every 100 ms; poll failing: wait for it alone */
		if (poll(p, 2, pfd >= 0 ? -1 : 100) < 0 && errno != EINTR) {
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (ctl >= 0 && p[1].revents) {
			if (read(ctl, &sig, 1) == 1)
				kill(pid, sig);
			else {
				close(ctl);
				ctl = -1;
			}
		}
	}
	_exit(shell_status(status));
}

/*
 * The keeper never execs, so O_CLOEXEC closes nothing for it: the tracer's BPF program, link and
 * map fds, its outputs' directories and the mount table would stay open in a process of the
 * user's for as long as the command runs. Everything but stdio and @keep goes.
 */
static int keep_only(int keep)
{
	/* stdio closed at our start: the pipe may be fd 0-2, which the command's stdio keeps */
	if (keep < 3) {
		int k = fcntl(keep, F_DUPFD_CLOEXEC, 3);

		if (k < 0)
			return keep;
		close(keep);
		keep = k;
	}
#ifdef SYS_close_range
	if (!(keep > 3 && syscall(SYS_close_range, 3, keep - 1, 0)) &&
	    !syscall(SYS_close_range, keep + 1, ~0u, 0))
		return keep;
#endif
	for (int fd = 3; fd < 65536; fd++)
		if (fd != keep)
			close(fd);
	return keep;
}

pid_t command_start(char **argv, const char *user, int *ctl)
{
	char name[256] = "";
	uid_t uid = 0;
	gid_t gid = 0;
	int who = privs_identity(user, &uid, &gid, name, sizeof(name)), p[2];
	pid_t pid;

	*ctl = -1;
	if (who && who != -ENOENT) {
		pr_err("cannot run %s as %s: %s\n", argv[0], user ? user : "SUDO_UID/SUDO_GID",
		       who == -ESRCH ? "no such user" : strerror(-who));
		errno = -who;
		return -1;
	}
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		p[0] = keep_only(p[0]);
		if (!who && privs_become(uid, gid, name)) {
			fprintf(stderr, "slotscope: cannot run %s as uid %u: %s\n", argv[0], (unsigned)uid,
				strerror(errno));
			_exit(126);
		}
		/* a caller's ambient capabilities (CAP_BPF, CAP_PERFMON) are the tracer's, not the job's */
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		keeper(p[0], argv);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	*ctl = p[1];
	return pid;
}

bool command_exited(pid_t pid)
{
	siginfo_t si = { 0 };

	return !waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid;
}

void command_signal(int ctl, int sig)
{
	unsigned char s = (unsigned char)sig;

	if (ctl >= 0 && write(ctl, &s, 1) != 1)
		pr_debug("cannot pass signal %d to the command: %s\n", sig, strerror(errno));
}

int command_wait(pid_t pid, int ctl, bool stdout_gone)
{
	int status = 0;

	if (sig_stop() && !command_exited(pid))
		command_signal(ctl, sig_stop());
	else if (stdout_gone && !command_exited(pid))
		command_signal(ctl, SIGTERM);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ctl >= 0)
		close(ctl);
	return shell_status(status);
}

int command_run_untraced(char **argv, const char *user)
{
	int status = 0, ctl;
	pid_t pid;
	bool passed = false;

	pr_warn("sunrpc is not loaded (no NFS mount): running %s untraced\n", argv[0]);
	sig_watch_child();
	pid = command_start(argv, user, &ctl);
	if (pid < 0)
		return 1;
	/*
	 * A stop signal restarts waitpid() (SA_RESTART): the wait that a signal ends is ppoll's.
	 * Once it is passed on, waitpid() alone (ppoll would return at once from then on).
	 */
	while (!passed && !command_exited(pid)) {
		sig_wait_until(clock_s(CLOCK_MONOTONIC) + 3600);
		if (sig_stop()) {
			command_signal(ctl, sig_stop());
			passed = true;
		} else if (sig_child_exited() && !command_exited(pid)) {
			sig_child_clear();
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(ctl);
	return shell_status(status);
}
