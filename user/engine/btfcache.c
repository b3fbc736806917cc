// SPDX-License-Identifier: GPL-2.0
/* The cache of BTF made from modules' DWARF (see btfcache.h). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "engine/btfcache.h"

/* owned by root, writable by nobody else: a file, or each directory from BTF_CACHE down */
static bool trusted(const char *path, bool dir)
{
	struct stat st;

	return !lstat(path, &st) && st.st_uid == 0 && !(st.st_mode & 022) &&
	       (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

static bool trusted_dirs(const char *release)
{
	static const char *const up[] = { "/var/cache/slotscope", BTF_CACHE };
	char d[512];

	for (size_t i = 0; i < 2; i++)
		if (!trusted(up[i], true))
			return false;
	snprintf(d, sizeof(d), "%s/%s", BTF_CACHE, release);
	return trusted(d, true);
}

static int name(char *path, size_t len, const char *release, const char *mod, const char *id_hex)
{
	int n = snprintf(path, len, "%s/%s/%s%s%s.btf", BTF_CACHE, release, mod, id_hex ? "-" : "",
			 id_hex ? id_hex : "");

	return n < 0 || (size_t)n >= len || strchr(release, '/') ? -ENAMETOOLONG : 0;
}

int btf_cache_find(const char *release, const char *mod, const char *id_hex, char *path, size_t len)
{
	int err = name(path, len, release, mod, id_hex);

	if (err)
		return err;
	return trusted_dirs(release) && trusted(path, false) ? 0 : -ENOENT;
}

static int copy_to(int from, const char *path)
{
	char tmp[600], buf[65536];
	off_t off = 0;
	ssize_t n;
	int to, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, getpid());
	to = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (to < 0)
		return -errno;
	/* the umask narrows what open() made: the service's user must read it */
	if (fchmod(to, 0644))
		err = -errno;
	while (!err && (n = pread(from, buf, sizeof(buf), off)) > 0) {
		off += n;
		for (ssize_t done = 0; !err && done < n;) {
			ssize_t w = write(to, buf + done, (size_t)(n - done));

			if (w < 0 && errno != EINTR)
				err = -errno;
			else if (w > 0)
				done += w;
		}
	}
	if (!err && n < 0)
		err = -errno;
	if (close(to) && !err)
		err = -errno;
	/* whole or not at all: a reader finds the old file or the new one */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int btf_cache_store(const char *release, const char *mod, const char *id_hex, int fd)
{
	char d[512], path[600];
	int err;

	/* root's alone: nobody else may write where the service reads its layouts from */
	if (geteuid())
		return -EPERM;
	snprintf(d, sizeof(d), "%s/%s", BTF_CACHE, release);
	{
		/* /var/cache itself: a minimal root file system may lack it */
		const char *const dirs[] = { "/var/cache", "/var/cache/slotscope", BTF_CACHE, d };

		for (size_t i = 0; i < 4; i++) {
			struct stat st;
			bool made = !mkdir(dirs[i], 0755);

			if (!made && errno != EEXIST)
				return -errno;
			/*
			 * A root umask of 077 (a hardened host's) made them 0700: the service's user
			 * could not reach the BTF, and a node of a stack without BTF would be refused
			 * for good. Ours are opened to read, never to write; /var/cache only when it
			 * was made here (a minimal root's), else it is the system's to set.
			 */
			if ((i || made) && !lstat(dirs[i], &st) && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
			    (st.st_mode & 0755) != 0755 && chmod(dirs[i], (st.st_mode & 07777 & ~022) | 0755))
				return -errno;
		}
	}
	if (!trusted_dirs(release))
		return -EPERM;
	err = name(path, sizeof(path), release, mod, id_hex);
	if (!err)
		err = copy_to(fd, path);
	if (!err && !name(path, sizeof(path), release, mod, NULL))
		err = copy_to(fd, path);
	return err;
}
