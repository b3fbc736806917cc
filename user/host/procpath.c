// SPDX-License-Identifier: GPL-2.0
/*
 * A blocked thread's path, read where the kernel shows it: /proc/PID/task/TID/syscall gives the
 * call's number and registers (the task asleep, so they hold still), /proc/PID/mem the string a
 * register points at (ptrace's access check: root, or the process's own user). The memory read
 * takes the process's mmap lock killably (access_remote_vm): a process with a writer queued on
 * that lock can delay it, never hold it past a kill.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "host/procpath.h"
#include "lib/util.h"

/*
 * The calls that name a path, by this build's numbers (the kernel's for this architecture: a
 * 32-bit process on a 64-bit kernel numbers its calls otherwise, and is not read). @dirfd is the
 * register of the directory descriptor the path is relative to, -1 for the working directory.
 */
static const struct {
	long nr;
	signed char dirfd, path;
} path_calls[] = {
	{ SYS_openat, 0, 1 },
#ifdef SYS_openat2
	{ SYS_openat2, 0, 1 },
#endif
#ifdef SYS_open
	{ SYS_open, -1, 0 },
	{ SYS_creat, -1, 0 },
	{ SYS_stat, -1, 0 },
	{ SYS_lstat, -1, 0 },
	{ SYS_access, -1, 0 },
	{ SYS_mkdir, -1, 0 },
	{ SYS_rmdir, -1, 0 },
	{ SYS_unlink, -1, 0 },
	{ SYS_rename, -1, 0 },
	{ SYS_link, -1, 0 },
	{ SYS_chmod, -1, 0 },
	{ SYS_chown, -1, 0 },
	{ SYS_lchown, -1, 0 },
	{ SYS_readlink, -1, 0 },
	{ SYS_mknod, -1, 0 },
#endif
#ifdef SYS_newfstatat
	{ SYS_newfstatat, 0, 1 },
#endif
#ifdef SYS_statx
	{ SYS_statx, 0, 1 },
#endif
	{ SYS_faccessat, 0, 1 },
#ifdef SYS_faccessat2
	{ SYS_faccessat2, 0, 1 },
#endif
	{ SYS_mkdirat, 0, 1 },
	{ SYS_mknodat, 0, 1 },
	{ SYS_unlinkat, 0, 1 },
#ifdef SYS_renameat
	{ SYS_renameat, 0, 1 },
#endif
	{ SYS_renameat2, 0, 1 },
	{ SYS_linkat, 0, 1 },
	{ SYS_fchmodat, 0, 1 },
	{ SYS_fchownat, 0, 1 },
	{ SYS_readlinkat, 0, 1 },
	{ SYS_utimensat, 0, 1 },
	{ SYS_truncate, -1, 0 },
	{ SYS_chdir, -1, 0 },
	{ SYS_statfs, -1, 0 },
	{ SYS_getxattr, -1, 0 },
	{ SYS_lgetxattr, -1, 0 },
	{ SYS_setxattr, -1, 0 },
	{ SYS_lsetxattr, -1, 0 },
	{ SYS_listxattr, -1, 0 },
	{ SYS_llistxattr, -1, 0 },
	{ SYS_removexattr, -1, 0 },
	{ SYS_lremovexattr, -1, 0 },
	{ SYS_execve, -1, 0 },
};

void path_clean(char *path)
{
	char *w = path, *r = path;

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

/* the link /proc/@pid/@what (cwd, fd/N) into @out */
static int proc_link(const char *procfs_root, const char *pid, const char *what, char *out, size_t len)
{
	char p[512];
	ssize_t n;

	if (root_path(p, sizeof(p), procfs_root, "/proc/%s/%s", pid, what))
		return -ENAMETOOLONG;
	n = readlink(p, out, len - 1);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return out[0] == '/' ? 0 : -ENOENT;	/* "pipe:[N]", "anon_inode:...": no directory */
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

int proc_blocked_path(const char *procfs_root, const char *pid, const char *tid, char *out, size_t len)
{
	char p[512], buf[512], str[PATH_MAX], base[PATH_MAX], fdname[32];
	unsigned long a[6];
	long nr;
	int err, k;
	size_t i;

	if (root_path(p, sizeof(p), procfs_root, "/proc/%s/task/%s/syscall", pid, tid))
		return -ENAMETOOLONG;
	err = read_file_at(AT_FDCWD, p, buf, sizeof(buf));
	if (err < 0)
		return err;
	/* "NR ARG0 .. ARG5 SP PC"; "running", or "-1 SP PC" out of any call */
	if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 7)
		return -ENOENT;
	for (i = 0; i < sizeof(path_calls) / sizeof(path_calls[0]) && path_calls[i].nr != nr; i++)
		;
	if (i == sizeof(path_calls) / sizeof(path_calls[0]))
		return -ENOENT;
	err = proc_string(procfs_root, pid, a[path_calls[i].path], str, sizeof(str));
	/* utimensat's path may be NULL, statx's "" with AT_EMPTY_PATH: the descriptor is the file */
	if (err == -EFAULT && path_calls[i].dirfd >= 0)
		str[0] = 0, err = 0;
	if (err)
		return err;
	if (str[0] == '/') {
		snprintf(base, sizeof(base), "%s", str);
	} else {
		/* the descriptor is an int: the register's upper half is not the program's */
		k = path_calls[i].dirfd < 0 ? AT_FDCWD : (int)(unsigned int)a[path_calls[i].dirfd];
		if (k == AT_FDCWD)
			snprintf(fdname, sizeof(fdname), "cwd");
		else
			snprintf(fdname, sizeof(fdname), "fd/%d", k);
		err = proc_link(procfs_root, pid, fdname, base, sizeof(base));
		if (err)
			return err;
		if (str[0] && strlen(base) + 1 + strlen(str) < sizeof(base))
			strcat(strcat(base, "/"), str);
		else if (str[0])
			return -ENAMETOOLONG;
	}
	path_clean(base);
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(out, base, strlen(base) + 1);
	return 0;
}
