// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/util.h"

int root_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	const char *pre = root && strcmp(root, "/") ? root : "";
	size_t at = strlen(pre);
	va_list ap;
	int n;

	if (at >= len)
		return -ENAMETOOLONG;
	memcpy(buf, pre, at);
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len - at ? 0 : -ENAMETOOLONG;
}

int root_parse(int (*parse)(FILE *f, void *arg), void *arg, const char *root, const char *fmt, ...)
{
	char path[4096], rel[4096];
	va_list ap;
	FILE *f;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	err = root_path(path, sizeof(path), root, "%s", rel);
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = parse(f, arg);
	fclose(f);
	return err;
}

/*
 * open/read/close rather than stdio: a tick reads dozens of these sysfs files, and stdio adds a
 * buffer allocation and an fstat to each.
 */
int read_file_at(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if (n == 0)
		err = -ENODATA;
	else
		buf[n] = 0;
	close(fd);
	return err;
}

int read_line(const char *path, char *buf, size_t len)
{
	int err = read_file_at(AT_FDCWD, path, buf, len);

	if (!err)
		buf[strcspn(buf, "\n")] = 0;
	return err;
}

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	/* strtoull would take "-1" */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || (*end && *end != ' '))
		return -EINVAL;
	return 0;
}

int read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int err = read_line(path, buf, sizeof(buf));

	return err ? err : parse_u64(buf, v);
}

int read_long(const char *path, long *v)
{
	char buf[64], *end;
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != ' '))
		return -EINVAL;
	return 0;
}

int grow(void *pptr, size_t *cap, size_t need, size_t elsz, size_t first)
{
	void **p = pptr, *np;
	size_t n = *cap ? *cap : first;

	if (need <= *cap)
		return 0;
	/* past SIZE_MAX / 2 doubling would wrap: take @need itself, checked below */
	while (n < need)
		n = n && n <= SIZE_MAX / 2 ? 2 * n : need;
	if (n > SIZE_MAX / elsz)
		return -ENOMEM;
	np = realloc(*p, n * elsz);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = n;
	return 0;
}

double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool path_under(const char *path, const char *mnt)
{
	size_t n;

	if (!path || !mnt || !mnt[0] || path[0] != '/')
		return false;
	if (!strcmp(mnt, "/"))
		return true;
	n = strlen(mnt);
	return !strncmp(path, mnt, n) && (path[n] == '/' || path[n] == '\0');
}

void print_wrapped(FILE *f, const char *prefix, const char *text)
{
	size_t indent = strlen(prefix), col = indent;

	fputs(prefix, f);
	while (*text) {
		size_t w = strcspn(text, " ");

		if (col > indent && col + 1 + w > TEXT_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, text);
		col += w;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}
