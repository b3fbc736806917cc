/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_MOUNTS_H
#define SLOTSCOPE_MOUNTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/* strings as long as the kernel made them (unescaped): a fixed buffer could cut addr= off */
struct nfs_mount {
	unsigned int major, minor;
	char *mountpoint;
	char *fstype;		/* nfs or nfs4 */
	char *source;		/* server:/path */
	char *opts;		/* super options: vers=3,rsize=...,proto=tcp,addr=... */
};

struct mount_table {
	size_t n;
	struct nfs_mount *m;
};

/* NFS mounts of a /proc/PID/mountinfo stream; 0 or -errno (-EINVAL: malformed line) */
int mounts_parse(FILE *f, struct mount_table *t);
/*
 * Whose mounts are read: ROOT/proc/PID/{mountinfo,mountstats}, PID "self" or a pid such as "1" to
 * read the host's from a container that sees the host's /proc (--mounts-of).
 */
struct mount_src {
	const char *procfs_root;	/* "/" or a fixture tree */
	const char *pid;		/* "self" or a pid */
	/*
	 * mountinfo kept open (mounts_keep_open): read again from its start each time, it is the
	 * table as it is then, and no access check is made after the open (a dropped uid or
	 * capability reads on)
	 */
	bool kept;
	int fd;
	/* the kept file is procfs's, whose poll() says when the table changed (see mounts_changed) */
	bool polled;
};

/* open @src's mountinfo for every later mounts_load(); 0 or -errno */
int mounts_keep_open(struct mount_src *src);
void mounts_close(struct mount_src *src);
/*
 * Whether the table may differ from the one last read from the kept file: false only when
 * procfs's poll() says no mount or unmount happened in its namespace since the last call (then
 * the table read before still stands); true when it cannot tell.
 */
bool mounts_changed(const struct mount_src *src);

/* @src's ROOT/proc/PID/@file opened and handed to @parse, as root_parse() */
int mounts_parse_file(const struct mount_src *src, const char *file,
		      int (*parse)(FILE *f, void *arg), void *arg);
/*
 * Whether this process shares the network namespace of the one whose mounts it reads (always,
 * for "self"): routes and netdevs are asked of our own. 0, or -errno when either is unreadable.
 */
int mounts_netns_same(const struct mount_src *src, bool *same);
/* the same, from ROOT/proc/PID/mountinfo */
int mounts_load(const struct mount_src *src, struct mount_table *t);
void mounts_free(struct mount_table *t);
/* file system type of whatever is mounted at @path (any type); 0, -ENOENT or -errno */
int mounts_fstype(const struct mount_src *src, const char *path, char *fstype, size_t len);
/* the mount of a kernel dev_t as kept in struct super_block (MAJOR << 20 | MINOR) */
const struct nfs_mount *mounts_by_kdev(const struct mount_table *t, unsigned int kdev);
const struct nfs_mount *mounts_by_path(const struct mount_table *t, const char *path);
/*
 * The server @m was mounted from as its transports' addresses are spelled: its addr= option (the
 * kernel writes both with rpc_peeraddr2str()), else the host of its source; "" when neither.
 */
void mount_server(const struct nfs_mount *m, char *buf, size_t len);
/* value of option @key in a comma-separated mount option string; false when absent */
bool mount_option(const char *opts, const char *key, char *val, size_t len);

/*
 * Which transports serve a mount: its server (mount_server()) and protocol, "tcp6" and "rdma6"
 * spelled "tcp" and "rdma" as a transport's proto_name() is ("": the options name none, any).
 * One rule for --mount's filter and the textfile's mount labels.
 */
struct mount_xprt {
	char addr[64], proto[8];
};
/* 0, or -ENOENT when the mount names no server */
int mount_xprt_of(const struct nfs_mount *m, struct mount_xprt *mx);
/* a transport to @addr over @proto (proto_name()) serves @mx's mount */
bool mount_xprt_match(const struct mount_xprt *mx, const char *addr, const char *proto);

#endif
