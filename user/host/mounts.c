// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "host/mounts.h"
#include "lib/util.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = 0;
}

static char *copy(const char *src)
{
	char *s = strdup(src);

	if (s)
		unescape(s);
	return s;
}

int mounts_parse(FILE *f, struct mount_table *t)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	int err = 0;

	t->n = 0;
	t->m = NULL;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok, *fields[10] = { 0 };
		unsigned int major, minor;
		int nf = 0, sep = -1;
		struct nfs_mount *m;

		/* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
		for (tok = strtok_r(line, " \n", &save); tok && nf < 64; tok = strtok_r(NULL, " \n", &save), nf++) {
			if (nf < 5)
				fields[nf] = tok;
			else if (sep < 0 && strcmp(tok, "-") == 0)
				sep = nf;
			else if (sep >= 0 && nf == sep + 1)
				fields[5] = tok;
			else if (sep >= 0 && nf == sep + 2)
				fields[6] = tok;
			else if (sep >= 0 && nf == sep + 3)
				fields[7] = tok;
		}
		if (nf == 0)
			continue;
		if (nf < 5 || sep < 0 || !fields[5] || !fields[6] ||
		    sscanf(fields[2], "%u:%u", &major, &minor) != 2) {
			err = -EINVAL;
			break;
		}
		if (strcmp(fields[5], "nfs") && strcmp(fields[5], "nfs4"))
			continue;
		err = GROW(t->m, alloc, t->n + 1, 8);
		if (err)
			break;
		m = &t->m[t->n++];
		m->major = major;
		m->minor = minor;
		m->mountpoint = copy(fields[4]);
		m->fstype = copy(fields[5]);
		m->source = copy(fields[6]);
		m->opts = copy(fields[7] ? fields[7] : "");
		if (!m->mountpoint || !m->fstype || !m->source || !m->opts) {
			err = -ENOMEM;
			break;
		}
	}
	free(line);
	if (err)
		mounts_free(t);
	return err;
}

static const char *pid_of(const struct mount_src *src)
{
	return src->pid ? src->pid : "self";
}

int mounts_netns_same(const struct mount_src *src, bool *same)
{
	char path[4096];
	struct stat a, b;
	int err;

	*same = true;
	if (!strcmp(pid_of(src), "self"))
		return 0;
	err = root_path(path, sizeof(path), src->procfs_root, "/proc/%s/net/dev", pid_of(src));
	if (err)
		return err;
	/*
	 * Not ns/net, whose link only ptrace access may follow: every namespace registers /proc/net
	 * entries of its own, so net/dev's inode tells the namespace apart, readable by anyone
	 */
	if (stat(path, &a) || stat("/proc/self/net/dev", &b))
		return -errno;
	*same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	return 0;
}

int mounts_parse_file(const struct mount_src *src, const char *file,
		      int (*parse)(FILE *f, void *arg), void *arg)
{
	return root_parse(parse, arg, src->procfs_root, "/proc/%s/%s", pid_of(src), file);
}

static int parse_table(FILE *f, void *t)
{
	return mounts_parse(f, t);
}

int mounts_keep_open(struct mount_src *src)
{
	char path[4096];
	int err = root_path(path, sizeof(path), src->procfs_root, "/proc/%s/mountinfo", pid_of(src));
	struct statfs sfs;

	if (err)
		return err;
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src->fd < 0)
		return -errno;
	src->kept = true;
	/* a fixture tree's plain file has no such poll(): read every time */
	src->polled = fstatfs(src->fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
	return 0;
}

/*
 * mountinfo's poll() reports POLLPRI | POLLERR once for each change of its namespace's mount
 * table since the previous poll() of that open file (proc(5); mounts_poll(), fs/proc_namespace.c,
 * since 2.6.15): a node with thousands of container mounts is not parsed again every tick.
 */
bool mounts_changed(const struct mount_src *src)
{
	struct pollfd p = { .fd = src->fd, .events = POLLPRI };

	if (!src->kept || !src->polled)
		return true;
	if (poll(&p, 1, 0) < 0)
		return true;
	return p.revents & (POLLPRI | POLLERR | POLLNVAL);
}

void mounts_close(struct mount_src *src)
{
	if (src->kept)
		close(src->fd);
	src->kept = false;
}

/* the kept file from its start: a seq_file makes the table afresh for a read at offset 0 */
static int load_kept(const struct mount_src *src, struct mount_table *t)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int err = 0;

	if (lseek(src->fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (GROW(buf, cap, len + 65536, 65536)) {
			err = -ENOMEM;
			break;
		}
		n = read(src->fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (!err) {
		f = fmemopen(buf, len ? len : 1, "r");
		if (!f)
			err = -errno;
		else {
			if (!len)
				fgetc(f);
			err = mounts_parse(f, t);
			fclose(f);
		}
	}
	free(buf);
	return err;
}

int mounts_load(const struct mount_src *src, struct mount_table *t)
{
	if (src->kept)
		return load_kept(src, t);
	return mounts_parse_file(src, "mountinfo", parse_table, t);
}

struct fstype_query {
	const char *path;
	char *fstype;
	size_t len;
};

static int parse_fstype(FILE *f, void *arg)
{
	const struct fstype_query *q = arg;
	char *line = NULL, mp[4096], type[32], *sep;
	size_t cap = 0;
	int err = -ENOENT;

	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		unescape(mp);
		sep = strstr(line, " - ");
		/* the last mount on a path is the one in effect */
		if (!strcmp(mp, q->path) && sep && sscanf(sep + 3, "%31s", type) == 1) {
			snprintf(q->fstype, q->len, "%s", type);
			err = 0;
		}
	}
	free(line);
	return err;
}

int mounts_fstype(const struct mount_src *src, const char *path, char *fstype, size_t len)
{
	struct fstype_query q = { path, fstype, len };

	return mounts_parse_file(src, "mountinfo", parse_fstype, &q);
}

void mounts_free(struct mount_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->m[i].mountpoint);
		free(t->m[i].fstype);
		free(t->m[i].source);
		free(t->m[i].opts);
	}
	free(t->m);
	t->m = NULL;
	t->n = 0;
}

const struct nfs_mount *mounts_by_kdev(const struct mount_table *t, unsigned int kdev)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->m[i].major == kdev >> 20 && t->m[i].minor == (kdev & 0xfffff))
			return &t->m[i];
	return NULL;
}

const struct nfs_mount *mounts_by_path(const struct mount_table *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->m[i].mountpoint, path) == 0)
			return &t->m[i];
	return NULL;
}

/*
 * snprintf(@val, @len, "%.*s", @n, @s) for @s with no NUL in its first @n bytes: the model looks up
 * each transport's mount every tick, and printf's parsing was most of that
 */
static void put_bounded(char *val, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n > len - 1)
		n = len - 1;
	memcpy(val, s, n);
	val[n] = 0;
}

bool mount_option(const char *opts, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, key, kl) || (p[kl] != '=' && p[kl] != ',' && p[kl]))
			continue;
		if (p[kl] == '=') {
			put_bounded(val, len, p + kl + 1, strcspn(p + kl + 1, ","));
		} else {
			put_bounded(val, len, "", 0);
		}
		return true;
	}
	return false;
}

void mount_server(const struct nfs_mount *m, char *buf, size_t len)
{
	const char *src = m->source ? m->source : "", *colon;

	if (m->opts && mount_option(m->opts, "addr", buf, len) && buf[0])
		return;
	/* server:/path, [v6]:/path */
	if (src[0] == '[' && (colon = strstr(src, "]:")))
		put_bounded(buf, len, src + 1, (size_t)(colon - src - 1));
	else if ((colon = strchr(src, ':')))
		put_bounded(buf, len, src, (size_t)(colon - src));
	else
		put_bounded(buf, len, "", 0);
}

int mount_xprt_of(const struct nfs_mount *m, struct mount_xprt *mx)
{
	size_t n;

	memset(mx, 0, sizeof(*mx));
	mount_server(m, mx->addr, sizeof(mx->addr));
	if (!mx->addr[0])
		return -ENOENT;
	/* "tcp6" and "rdma6" name the address family, not another transport */
	if (m->opts && mount_option(m->opts, "proto", mx->proto, sizeof(mx->proto))) {
		n = strlen(mx->proto);
		if (n && mx->proto[n - 1] == '6')
			mx->proto[n - 1] = 0;
	}
	return 0;
}

bool mount_xprt_match(const struct mount_xprt *mx, const char *addr, const char *proto)
{
	return !strcmp(mx->addr, addr) && (!mx->proto[0] || !strcmp(mx->proto, proto));
}
