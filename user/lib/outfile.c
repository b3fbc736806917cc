// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "lib/outfile.h"

/*
 * The directory of @path, component by component with O_NOFOLLOW: a symlink anywhere in it is
 * refused (-ELOOP or -ENOTDIR), so a directory we may write as root cannot be redirected.
 */
static int open_dir(const char *path, char *name, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir, *save = NULL, *comp;
	int fd, err = 0;

	if (!slash) {
		if (strlen(path) >= len)
			return -ENAMETOOLONG;
		strcpy(name, path);
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (strlen(slash + 1) >= len || !slash[1])
		return slash[1] ? -ENAMETOOLONG : -EISDIR;
	strcpy(name, slash + 1);
	dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	for (comp = strtok_r(dir, "/", &save); !err && comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (next < 0)
			err = -errno;
		close(fd);
		fd = next;
	}
	free(dir);
	return err ? err : fd;
}

/* temporary files of @name left by a writer killed between create and rename */
static void remove_stale(struct outfile *o)
{
	size_t n = strlen(o->name);
	int fd = dup(o->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' && l > n + 6 && !strncmp(de->d_name + 1, o->name, n) &&
		    de->d_name[n + 1] == '.' && !strcmp(de->d_name + l - 4, ".tmp"))
			unlinkat(o->dirfd, de->d_name, 0);
	}
	closedir(d);
}

static int take_lock(struct outfile *o)
{
	char lock[300], pid[32];
	ssize_t n;

	snprintf(lock, sizeof(lock), ".%s.lock", o->name);
	o->lockfd = openat(o->dirfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (o->lockfd < 0) {
		o->lock_failed = true;
		return -errno;
	}
	if (flock(o->lockfd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		n = pread(o->lockfd, pid, sizeof(pid) - 1, 0);
		if (n > 0) {
			pid[n] = 0;
			o->lock_pid = atoi(pid);
		}
		close(o->lockfd);
		o->lockfd = -1;
		return err;
	}
	/* who holds it, for the second writer's message */
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (ftruncate(o->lockfd, 0) || pwrite(o->lockfd, pid, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

int outfile_open(struct outfile *o, const char *path, bool lock)
{
	int err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->lockfd = -1;
	o->lock = lock;
	o->dirfd = open_dir(path, o->name, sizeof(o->name));
	if (o->dirfd < 0) {
		err = o->dirfd;
		o->dirfd = -1;
		return err;
	}
	if (lock) {
		err = take_lock(o);
		if (err) {
			outfile_close(o);
			return err;
		}
		remove_stale(o);
	}
	return 0;
}

int outfile_check(const struct outfile *o)
{
	return faccessat(o->dirfd, ".", W_OK, AT_EACCESS) ? -errno : 0;
}

/*
 * The directory at the path now, if it is not the one held: taken over, with its lock. Cheap: a
 * few openat() and two fstat() per write, next to the fsyncs a write does anyway.
 */
static int follow_path(struct outfile *o)
{
	struct outfile n = { .path = o->path, .lockfd = -1, .lock = o->lock };
	struct stat a, b;
	int err;

	n.dirfd = open_dir(o->path, n.name, sizeof(n.name));
	if (n.dirfd < 0)
		return n.dirfd;
	if (o->dirfd >= 0 && !fstat(o->dirfd, &a) && !fstat(n.dirfd, &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && (!o->lock || o->lockfd >= 0)) {
		close(n.dirfd);
		return 0;
	}
	if (o->lock) {
		err = take_lock(&n);
		if (err) {
			o->lock_pid = n.lock_pid;
			o->lock_failed = n.lock_failed;
			outfile_close(&n);
			return err;
		}
		remove_stale(&n);
	}
	outfile_close(o);
	o->dirfd = n.dirfd;
	o->lockfd = n.lockfd;
	o->lock_failed = false;
	return 0;
}

int outfile_write(struct outfile *o, int (*fn)(FILE *f, const void *arg), const void *arg)
{
	unsigned char rnd[8];
	char tmp[300];
	int fd, err;
	FILE *f;

	err = follow_path(o);
	if (err)
		return err;

	/* unpredictable, so nobody can plant a link under the name we are about to create */
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	snprintf(tmp, sizeof(tmp), ".%s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", o->name, rnd[0], rnd[1],
		 rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644);	/* whatever the umask */
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlinkat(o->dirfd, tmp, 0);
		return err;
	}
	err = fn(f, arg);
	if (!err && (fflush(f) || ferror(f)))
		err = -(errno ? errno : EIO);
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && renameat(o->dirfd, tmp, o->dirfd, o->name))
		err = -errno;
	if (err) {
		unlinkat(o->dirfd, tmp, 0);
		return err;
	}
	/* the rename itself survives a crash only once the directory is on disk */
	return fsync(o->dirfd) && errno != EINVAL ? -errno : 0;
}

int outfile_remove(struct outfile *o)
{
	/* only where the path leads now: a directory moved aside keeps its file */
	int err = follow_path(o);

	if (err)
		return err;
	if (unlinkat(o->dirfd, o->name, 0))
		return -errno;
	return 0;
}

/* the lock file stays: unlinking it would let a later writer lock a different inode */
void outfile_close(struct outfile *o)
{
	if (o->lockfd >= 0)
		close(o->lockfd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->lockfd = o->dirfd = -1;
}
