// SPDX-License-Identifier: GPL-2.0
/*
 * A blocked thread's path, read where the kernel shows it: /proc/PID/task/TID/syscall gives the
 * call's number and registers (the task asleep, so they hold still), /proc/PID/mem the string a
 * register points at (ptrace's access check: root, or the process's own user; none at Yama's
 * ptrace_scope 3). Both wait on the process's locks: the memory read on its mmap lock, which a
 * thread stuck on the silent server may hold or queue for (an mmap() of an NFS file, a fault in
 * one), the syscall file before 5.7 on exec's. A check must end: the reads are made in a child
 * given a deadline, killed past it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "host/procpath.h"
#include "lib/util.h"

/*
 * The calls that name a path, by this build's numbers, the kernel's for this architecture. A
 * 32-bit process on a 64-bit kernel numbers its calls otherwise and is read against this table
 * all the same: its registers rarely point at a path, and a path counts only under a silent NFS
 * mount. @d is the register of the directory descriptor a path is relative to (-1: the working
 * directory), @p the path's; rename's and link's second path (@d2, @p2; @p2 -1: none) is where
 * they block when it lies on the silent mount.
 */
static const struct {
	long nr;
	signed char d, p, d2, p2;
} path_calls[] = {
	{ SYS_openat, 0, 1, 0, -1 },
#ifdef SYS_openat2
	{ SYS_openat2, 0, 1, 0, -1 },
#endif
#ifdef SYS_open
	{ SYS_open, -1, 0, 0, -1 },
	{ SYS_creat, -1, 0, 0, -1 },
	{ SYS_stat, -1, 0, 0, -1 },
	{ SYS_lstat, -1, 0, 0, -1 },
	{ SYS_access, -1, 0, 0, -1 },
	{ SYS_mkdir, -1, 0, 0, -1 },
	{ SYS_rmdir, -1, 0, 0, -1 },
	{ SYS_unlink, -1, 0, 0, -1 },
	{ SYS_rename, -1, 0, -1, 1 },
	{ SYS_link, -1, 0, -1, 1 },
	{ SYS_symlink, -1, 1, 0, -1 },
	{ SYS_chmod, -1, 0, 0, -1 },
	{ SYS_chown, -1, 0, 0, -1 },
	{ SYS_lchown, -1, 0, 0, -1 },
	{ SYS_readlink, -1, 0, 0, -1 },
	{ SYS_mknod, -1, 0, 0, -1 },
	{ SYS_utime, -1, 0, 0, -1 },
	{ SYS_utimes, -1, 0, 0, -1 },
	{ SYS_futimesat, 0, 1, 0, -1 },
	{ SYS_inotify_add_watch, -1, 1, 0, -1 },
#endif
#ifdef SYS_newfstatat
	{ SYS_newfstatat, 0, 1, 0, -1 },
#endif
#ifdef SYS_statx
	{ SYS_statx, 0, 1, 0, -1 },
#endif
	{ SYS_faccessat, 0, 1, 0, -1 },
#ifdef SYS_faccessat2
	{ SYS_faccessat2, 0, 1, 0, -1 },
#endif
	{ SYS_mkdirat, 0, 1, 0, -1 },
	{ SYS_mknodat, 0, 1, 0, -1 },
	{ SYS_unlinkat, 0, 1, 0, -1 },
#ifdef SYS_renameat
	{ SYS_renameat, 0, 1, 2, 3 },
#endif
	{ SYS_renameat2, 0, 1, 2, 3 },
	{ SYS_linkat, 0, 1, 2, 3 },
	{ SYS_symlinkat, 1, 2, 0, -1 },
	{ SYS_fchmodat, 0, 1, 0, -1 },
#ifdef SYS_fchmodat2
	{ SYS_fchmodat2, 0, 1, 0, -1 },
#endif
	{ SYS_fchownat, 0, 1, 0, -1 },
	{ SYS_readlinkat, 0, 1, 0, -1 },
	{ SYS_utimensat, 0, 1, 0, -1 },
	{ SYS_name_to_handle_at, 0, 1, 0, -1 },
	{ SYS_truncate, -1, 0, 0, -1 },
	{ SYS_chdir, -1, 0, 0, -1 },
	{ SYS_chroot, -1, 0, 0, -1 },
	{ SYS_statfs, -1, 0, 0, -1 },
	{ SYS_getxattr, -1, 0, 0, -1 },
	{ SYS_lgetxattr, -1, 0, 0, -1 },
	{ SYS_setxattr, -1, 0, 0, -1 },
	{ SYS_lsetxattr, -1, 0, 0, -1 },
	{ SYS_listxattr, -1, 0, 0, -1 },
	{ SYS_llistxattr, -1, 0, 0, -1 },
	{ SYS_removexattr, -1, 0, 0, -1 },
	{ SYS_lremovexattr, -1, 0, 0, -1 },
#ifdef SYS_getxattrat
	{ SYS_getxattrat, 0, 1, 0, -1 },
	{ SYS_setxattrat, 0, 1, 0, -1 },
	{ SYS_listxattrat, 0, 1, 0, -1 },
	{ SYS_removexattrat, 0, 1, 0, -1 },
#endif
	{ SYS_umount2, -1, 0, 0, -1 },
	{ SYS_execve, -1, 0, 0, -1 },
};

void path_clean(char *path)
{
	char *w = path, *r = path;

	if (path[0] != '/')
		return;
	/* @w ends every component written so far; a component is copied, skipped, or pops one */
	while (*r) {
		size_t n;

		while (*r == '/')
			r++;
		n = strcspn(r, "/");
		if (!n)
			break;
		if (n == 1 && r[0] == '.') {
			r += n;
			continue;
		}
		if (n == 2 && r[0] == '.' && r[1] == '.') {
			while (w > path && *--w != '/')
				;
			r += n;
			continue;
		}
		*w++ = '/';
		memmove(w, r, n);
		w += n;
		r += n;
	}
	if (w == path)
		*w++ = '/';
	*w = 0;
}

bool proc_thread_in_d(const char *stat_path, char *comm, size_t len)
{
	char buf[512], *l, *r;

	if (read_file_at(AT_FDCWD, stat_path, buf, sizeof(buf)) < 0)
		return false;
	/* "pid (comm) S ...": the command may hold spaces and parentheses */
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r[1] != ' ' || r[2] != 'D')
		return false;
	if (comm)
		snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
	return true;
}

int proc_link(const char *procfs_root, const char *pid, const char *what, char *out, size_t len)
{
	char p[512];
	ssize_t n;

	if (root_path(p, sizeof(p), procfs_root, "/proc/%s/%s", pid, what))
		return -ENAMETOOLONG;
	n = readlink(p, out, len - 1);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return 0;
}

/* the NUL-ended string at address @addr of process @pid, into @out */
static int proc_string(const char *procfs_root, const char *pid, unsigned long addr, char *out, size_t len)
{
	char p[512];
	ssize_t n;
	int fd, err = 0;

	if (!addr || addr > (unsigned long)LLONG_MAX)
		return -EFAULT;
	if (root_path(p, sizeof(p), procfs_root, "/proc/%s/mem", pid))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a short read: the string ends before an unmapped page, or is not ended at all */
	n = pread(fd, out, len - 1, (off_t)addr);
	if (n < 0)
		err = -errno;
	else if (!memchr(out, 0, (size_t)n))
		err = -ENAMETOOLONG;
	close(fd);
	return err;
}

/*
 * The path in register @p of @a, relative to the descriptor in register @d (-1: the working
 * directory), as this process sees it, into @out (PATH_MAX). @root: the process's root as seen
 * from here ("" for ours): a chroot's absolute paths lie under it.
 */
static int call_path(const char *procfs_root, const char *pid, const unsigned long *a, int d, int p,
		     const char *root, char *out)
{
	char str[PATH_MAX], fdname[32];
	int err, k;

	err = proc_string(procfs_root, pid, a[p], str, sizeof(str));
	/* utimensat's path may be NULL, statx's "" with AT_EMPTY_PATH: the descriptor is the file */
	if (err == -EFAULT && d >= 0)
		str[0] = 0, err = 0;
	if (err)
		return err;
	if (str[0] == '/') {
		if ((size_t)snprintf(out, PATH_MAX, "%s%s", root, str) >= PATH_MAX)
			return -ENAMETOOLONG;
	} else {
		/* the descriptor is an int: the register's upper half is not the program's */
		k = d < 0 ? AT_FDCWD : (int)(unsigned int)a[d];
		if (k == AT_FDCWD)
			snprintf(fdname, sizeof(fdname), "cwd");
		else
			snprintf(fdname, sizeof(fdname), "fd/%d", k);
		err = proc_link(procfs_root, pid, fdname, out, PATH_MAX);
		if (err)
			return err;
		/* "pipe:[N]", "anon_inode:...": no directory a path is relative to */
		if (out[0] != '/')
			return -ENOENT;
		if (str[0] && strlen(out) + 1 + strlen(str) >= PATH_MAX)
			return -ENAMETOOLONG;
		if (str[0])
			strcat(strcat(out, "/"), str);
	}
	path_clean(out);
	return 0;
}

int proc_blocked_paths(const char *procfs_root, const char *pid, const char *tid, char out[2][PATH_MAX])
{
	char p[512], buf[512], root[PATH_MAX] = "";
	unsigned long a[6];
	size_t i, n = sizeof(path_calls) / sizeof(path_calls[0]);
	long nr;
	int err, got = 0;

	if (root_path(p, sizeof(p), procfs_root, "/proc/%s/task/%s/syscall", pid, tid))
		return -ENAMETOOLONG;
	err = read_file_at(AT_FDCWD, p, buf, sizeof(buf));
	if (err < 0)
		return err;
	/* "NR ARG0 .. ARG5 SP PC"; "running", or "-1 SP PC" out of any call */
	if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 7)
		return -ENOENT;
	for (i = 0; i < n && path_calls[i].nr != nr; i++)
		;
	if (i == n)
		return -ENOENT;
	if (proc_link(procfs_root, pid, "root", root, sizeof(root)) || !strcmp(root, "/"))
		root[0] = 0;
	err = call_path(procfs_root, pid, a, path_calls[i].d, path_calls[i].p, root, out[got]);
	got += !err;
	if (path_calls[i].p2 >= 0 &&
	    !call_path(procfs_root, pid, a, path_calls[i].d2, path_calls[i].p2, root, out[got]))
		got++;
	return got ? got : err;
}

/* a mount namespace of process @pid other than ours: its paths do not name our mounts */
static bool other_mnt_ns(const char *procfs_root, const char *pid)
{
	char ours[64], theirs[64];

	return !proc_link(procfs_root, "self", "ns/mnt", ours, sizeof(ours)) &&
	       !proc_link(procfs_root, pid, "ns/mnt", theirs, sizeof(theirs)) && strcmp(ours, theirs);
}

/* each thread of @pid asleep in D: the paths it is blocked on, as "PID\tPATH\0" records to @fd */
static void scan_pid(const char *procfs_root, int pid, FILE *out)
{
	char dir[512], stat[600], id[16], paths[2][PATH_MAX];
	struct dirent *d;
	DIR *tasks;

	snprintf(id, sizeof(id), "%d", pid);
	if (other_mnt_ns(procfs_root, id) || root_path(dir, sizeof(dir), procfs_root, "/proc/%s/task", id) ||
	    !(tasks = opendir(dir)))
		return;
	while ((d = readdir(tasks))) {
		int n;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(stat, sizeof(stat), "%s/%s/stat", dir, d->d_name);
		if (!proc_thread_in_d(stat, NULL, 0))
			continue;
		n = proc_blocked_paths(procfs_root, id, d->d_name, paths);
		for (int k = 0; k < n; k++)
			fprintf(out, "%d\t%s%c", pid, paths[k], 0);
	}
	closedir(tasks);
}

/* the records in @buf[0..*@len) handed to @fn, a partial one moved to the front */
static void scan_records(char *buf, size_t *len, blocked_fn fn, void *arg)
{
	char *r = buf, *end;

	while ((end = memchr(r, 0, *len - (size_t)(r - buf)))) {
		char *tab = strchr(r, '\t');

		if (tab)
			fn(atoi(r), tab + 1, arg);
		r = end + 1;
	}
	*len -= (size_t)(r - buf);
	memmove(buf, r, *len);
}

static long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int proc_blocked_scan(const char *procfs_root, const int *pids, size_t n, int timeout_ms, blocked_fn fn, void *arg)
{
	static char buf[2 * PATH_MAX + 64];
	size_t len = 0;
	long deadline = ms_now() + timeout_ms;
	int fds[2], err = 0, st;
	pid_t child;

	if (!n)
		return 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (!child) {
		FILE *out = fdopen(fds[1], "w");

		close(fds[0]);
		/* each process's paths said before the next, whose reads may never return */
		for (size_t i = 0; out && i < n; i++) {
			scan_pid(procfs_root, pids[i], out);
			fflush(out);
		}
		_exit(out && fclose(out) == 0 ? 0 : 1);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long left = deadline - ms_now();
		ssize_t got;

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
			err = -ETIMEDOUT;
			break;
		}
		got = read(fds[0], buf + len, sizeof(buf) - len);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
		scan_records(buf, &len, fn, arg);
		/* a record longer than the buffer cannot be: paths are under PATH_MAX */
		if (len == sizeof(buf))
			len = 0;
	}
	close(fds[0]);
	if (err) {
		/* its reads may wait on a stuck process's locks: killed, and not waited for past that */
		kill(child, SIGKILL);
		waitpid(child, &st, WNOHANG);
	} else {
		waitpid(child, &st, 0);
	}
	return err;
}
