// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "command.h"
#include "log.h"
#include "privs.h"
#include "signals.h"

pid_t command_start(char **argv, const char *user)
{
	char name[256] = "";
	uid_t uid = 0;
	gid_t gid = 0;
	int who = privs_identity(user, &uid, &gid, name, sizeof(name));
	pid_t pid;

	if (who && who != -ENOENT) {
		pr_err("cannot run %s as %s: %s\n", argv[0], user ? user : "SUDO_UID/SUDO_GID",
		       who == -ESRCH ? "no such user" : strerror(-who));
		errno = -who;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		sig_child_defaults();
		if (!who && privs_become(uid, gid, name)) {
			fprintf(stderr, "slotscope: cannot run %s as uid %u: %s\n", argv[0], (unsigned)uid,
				strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "slotscope: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int shell_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 0;
}

int command_wait(pid_t pid, bool stdout_gone)
{
	int status = 0;

	if (sig_stop() && !sig_child_exited())
		kill(pid, sig_stop());
	else if (stdout_gone && !sig_child_exited())
		kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return shell_status(status);
}

int command_run_untraced(char **argv, const char *user)
{
	int status = 0;
	pid_t pid;

	pr_warn("sunrpc is not loaded (no NFS mount): running %s untraced\n", argv[0]);
	pid = command_start(argv, user);
	if (pid < 0)
		return 1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		if (sig_stop())
			kill(pid, sig_stop());
	return shell_status(status);
}
