/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The limits audit: what every RPC transport was created with, read from sysfs
 * (/sys/kernel/sunrpc, ~5.14+), the slot sysctls as they are now, and each NFS mount's options;
 * with warnings where a setting cannot be in effect.
 */
#ifndef SLOTSCOPE_AUDIT_H
#define SLOTSCOPE_AUDIT_H

#include <stdbool.h>
#include <stdio.h>
#include "mounts.h"

struct audit_xprt {
	unsigned int id, switch_id;
	char proto[8];			/* tcp, rdma, udp, local */
	char dstaddr[64];
	unsigned int dst_port, src_port;
	unsigned int max_slots, min_slots, num_reqs, backlog_q_len;
	unsigned long cur_cong, cong_win;
	bool main;
};

struct audit_mount {
	const struct nfs_mount *m;
	char vers[8], proto[8], addr[64];
	unsigned long rsize, wsize;
	unsigned int nconnect;		/* 1 when not given */
	unsigned int xprts;		/* transports to that server and protocol */
	unsigned int max_slots;		/* of its main transport; 0 when not found */
};

#define AUDIT_MAX_WARN 32

struct audit {
	bool have_sysfs;		/* /sys/kernel/sunrpc exists */
	size_t nx, nm;
	struct audit_xprt *x;
	struct audit_mount *m;
	long tcp_max_slots;		/* -1: unknown */
	long rdma_slots;
	long max_session_slots;
	size_t nwarn;
	char warn[AUDIT_MAX_WARN][200];
};

/* 0 or -errno; missing files are not errors, they leave fields unknown */
int audit_load(struct audit *a, const char *sysfs_root, const struct mount_src *src,
	       const struct mount_table *mt);
void audit_free(struct audit *a);
/* text for the terminal, at most 100 columns */
void audit_print(FILE *f, const struct audit *a);
/* source ports of the "xprt: tcp" lines of mount @mnt in a mountstats stream; count or -errno */
int mountstats_ports_parse(FILE *f, const char *mnt, unsigned int *ports, int max);
/* a transport's /sys/kernel/sunrpc/.../xprt_info ("key=value" lines) into @x */
void xprt_info_parse(FILE *f, struct audit_xprt *x);
/* value of option @key in a comma-separated mount option string; false when absent */
bool mount_option(const char *opts, const char *key, char *val, size_t len);

#endif
