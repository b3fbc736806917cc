/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output file written whole or not at all: its directory opened once (never through a
 * symlink, at any level), each version written to a fresh unpredictable temporary name in it,
 * fsync'd, renamed over the file, and the directory fsync'd. A textfile also takes a lock, so a
 * second writer is refused instead of overwriting the first.
 */
#ifndef SLOTSCOPE_OUTFILE_H
#define SLOTSCOPE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	const char *path;	/* as given */
	char name[256];		/* its last component */
	int dirfd, lockfd;
	int lock_pid;		/* on -EBUSY: the pid holding the lock, if known */
	bool lock;		/* a textfile: locked in whichever directory it is written */
	bool lock_failed;	/* the last error came from the lock file, not the directory */
};

/*
 * Open @path's directory (no symlink anywhere in it: each component opened with O_NOFOLLOW) and,
 * with @lock, lock the file against a second writer and remove temporary files a killed writer
 * left. 0, -EBUSY (locked: o->lock_pid), or -errno (o->lock_failed when the lock file, not the
 * directory, was refused: one left by another user).
 */
int outfile_open(struct outfile *o, const char *path, bool lock);
/* whether the directory is writable by who we are now (after a privilege drop); 0 or -errno */
int outfile_check(const struct outfile *o);
/*
 * Write a new version: @fn fills the stream, returns 0 or -errno; 0 or -errno. The directory is
 * looked up by its path again first: removed and made anew, or moved aside and replaced, the
 * writes follow the path (the lock is taken there), never the directory held before; gone, the
 * write fails (-ENOENT) and the next one looks again.
 */
int outfile_write(struct outfile *o, int (*fn)(FILE *f, const void *arg), const void *arg);
/* remove the file (a stopped exporter's); 0 or -errno (-ENOENT when there is none) */
int outfile_remove(struct outfile *o);
void outfile_close(struct outfile *o);

#endif
