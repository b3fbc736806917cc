/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every reader shares: paths under a procfs or sysfs root (tests point the root at fixture
 * trees), one-value files, and arrays that grow as entries are appended. 0 or -errno throughout;
 * the caller reports.
 */
#ifndef SLOTSCOPE_UTIL_H
#define SLOTSCOPE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/*
 * ROOT followed by the formatted absolute path; ROOT NULL or "/" is the real root. A path that
 * does not fit is -ENAMETOOLONG: a cut one would name some other file.
 */
int root_path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * ROOT/path opened for reading and handed to @parse, then closed: the result of @parse, or -errno
 * (-ENAMETOOLONG, the open's) when there is nothing to parse.
 */
int root_parse(int (*parse)(FILE *f, void *arg), void *arg, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * @name under directory @dirfd (AT_FDCWD: a path), up to @len - 1 bytes in one read, NUL ended;
 * -ENODATA when empty
 */
int read_file_at(int dirfd, const char *name, char *buf, size_t len);
/* the first line of a file (at most @len - 1 bytes), newline stripped; -ENODATA when empty */
int read_line(const char *path, char *buf, size_t len);
/* a file's first field as a number; -EINVAL when it is not one ("N/A (no PMA)") */
int read_u64(const char *path, uint64_t *v);
int read_long(const char *path, long *v);
/* decimal or 0x hex, followed by nothing or a space; -EINVAL otherwise (a sign, say) */
int parse_u64(const char *s, uint64_t *v);

/*
 * Make room for @need elements of @elsz bytes in *@pptr, doubling *@cap from @first (> 0).
 * -ENOMEM, with *@pptr and *@cap untouched, when that fails or would overflow.
 */
int grow(void *pptr, size_t *cap, size_t need, size_t elsz, size_t first);

/* clock @id in seconds (CLOCK_MONOTONIC for durations, CLOCK_REALTIME for display) */
double clock_s(clockid_t id);
#define GROW(arr, cap, need, first) grow(&(arr), &(cap), (need), sizeof(*(arr)), (first))

/*
 * @path is @mnt or below it: @mnt followed by '/' or the end; "/" (an NFS root) holds every
 * absolute path; "" or NULL (no mount) holds none.
 */
bool path_under(const char *path, const char *mnt);

/* the terminal's text, at most this many columns */
#define TEXT_WIDTH 100
/* @text after @prefix, wrapped at TEXT_WIDTH columns under the prefix */
void print_wrapped(FILE *f, const char *prefix, const char *text);

#endif
