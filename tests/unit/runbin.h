/* The unit tests' way to run the built slotscope and read what it says (cmocka included first). */
#ifndef SLOTSCOPE_TEST_RUNBIN_H
#define SLOTSCOPE_TEST_RUNBIN_H

#include <unistd.h>
#include <sys/wait.h>

#ifndef SLOTSCOPE_BIN
#define SLOTSCOPE_BIN "build/slotscope"
#endif

/* run SLOTSCOPE_BIN with @argv (NULL-terminated) as @uid (-1: as we are); its exit status, stderr in @err */
static inline int run_slotscope(int uid, char *err, size_t len, const char *const *argv)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		if (uid >= 0 && (setgid((gid_t)uid) || setuid((uid_t)uid)))
			_exit(125);
		execv(SLOTSCOPE_BIN, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	/* stderr is unbuffered: the line may come in several writes */
	while (got < len - 1 && (n = read(pipefd[0], err + got, len - 1 - got)) > 0)
		got += (size_t)n;
	err[got] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
