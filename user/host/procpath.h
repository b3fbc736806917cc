/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path a blocked thread's system call names (procfs: the task's syscall and the process's
 * memory). A writer stuck in open(), stat() or rename() on a silent NFS mount holds no descriptor
 * there yet: its path is the one trace of the mount it waits on. A leaf: it uses no other room.
 */
#ifndef SLOTSCOPE_PROCPATH_H
#define SLOTSCOPE_PROCPATH_H

#include <stddef.h>

/*
 * The path that thread @tid of process @pid is blocked on in a system call that takes one (open,
 * stat, mkdir, unlink, rename, ...), made absolute against its directory descriptor or working
 * directory and cleared of "." and "..", into @out. 0; -ENOENT when it is in no such call (or
 * running); -errno of procfs otherwise (-EACCES without ptrace's right to the process).
 */
int proc_blocked_path(const char *procfs_root, const char *pid, const char *tid, char *out, size_t len);

/* "." and ".." of absolute @path taken out in place ("/a/./b/../c" is "/a/c"); symlinks are not read */
void path_clean(char *path);

#endif
