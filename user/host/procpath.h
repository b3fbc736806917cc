/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path a blocked thread's system call names (procfs: the task's syscall and the process's
 * memory). A writer stuck in open(), stat() or rename() on a silent NFS mount holds no descriptor
 * there yet: its path is the one trace of the mount it waits on. A leaf: it uses no other room.
 */
#ifndef SLOTSCOPE_PROCPATH_H
#define SLOTSCOPE_PROCPATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The paths thread @tid of process @pid is blocked on in a system call that takes them (open,
 * stat, mkdir, unlink, rename's two, ...), made absolute against its directory descriptor,
 * working directory or root (a chroot) and cleared of "." and "..", into @out: how many (1 or 2);
 * -ENOENT when it is in no such call (or running); -errno of procfs otherwise (-EACCES without
 * ptrace's right to the process). Its reads may wait on the process's locks: see below.
 */
int proc_blocked_paths(const char *procfs_root, const char *pid, const char *tid, char out[2][PATH_MAX]);

/* the thread whose stat file (/proc/PID/task/TID/stat) is @stat_path asleep in D; its command into @comm */
bool proc_thread_in_d(const char *stat_path, char *comm, size_t len);
/* the link /proc/@pid/@what (cwd, root, fd/N, ns/mnt) into @out; 0 or -errno */
int proc_link(const char *procfs_root, const char *pid, const char *what, char *out, size_t len);

typedef void (*blocked_fn)(int pid, const char *path, void *arg);
/*
 * For each of @pids in our mount namespace, every path a thread of it asleep in D is blocked on,
 * handed to @fn. Read in a child process given @timeout_ms and killed past it (what it had not
 * said by then is not said): procfs's reads of another process's memory and call wait on that
 * process's locks, which a process stuck on a silent server may hold. 0; -ETIMEDOUT; -errno of
 * pipe or fork.
 */
int proc_blocked_scan(const char *procfs_root, const int *pids, size_t n, int timeout_ms, blocked_fn fn, void *arg);

/*
 * "." and ".." of absolute @path taken out in place ("/a/./b/../c" is "/a/c"; a relative path is
 * left as it is); symlinks are not read: one may lie on the silent mount
 */
void path_clean(char *path);

#endif
