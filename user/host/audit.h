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
#include "host/mounts.h"
#include "host/xprtinfo.h"

struct audit_mount {
	const struct nfs_mount *m;
	char vers[8], proto[8], addr[64];
	unsigned long rsize, wsize;
	unsigned int nconnect;		/* 1 when not given */
	unsigned int xprts;		/* transports to that server and protocol */
	unsigned int naddrs;		/* the server addresses they reach (VAST's remoteports=: more) */
	/* VAST NFS's multipath options as mounted ("" when not given): the addresses nconnect's
	 * transports are spread over, and the client's own */
	char remoteports[512], localports[128];
	unsigned int max_slots;		/* of its main transport; 0 when not found */
};

#define AUDIT_MAX_WARN 32

struct audit {
	bool have_sysfs;		/* /sys/kernel/sunrpc exists */
	/*
	 * the NFS stack sunrpc comes from: "kernel" (the kernel's own), "vastnfs" (VAST Data's
	 * bundle: sunrpc's nfs_bundle_version parameter exists only there), or "out-of-tree"
	 * (another module built apart: taint O); its version when it says one
	 */
	char stack[16], stack_version[48];
	unsigned int nconnect_max;	/* the stack's NFS_MAX_CONNECTIONS: 16, VAST NFS's 64 */
	size_t nx, nm;
	struct audit_xprt *x;
	struct audit_mount *m;
	long tcp_max_slots;		/* -1: unknown */
	long rdma_slots;
	long max_session_slots;
	/*
	 * net.ipv4.tcp_wmem's largest: what a TCP socket's send buffer autotunes up to (sunrpc
	 * sets none of its own), so what one connection can have in flight; -1 unknown
	 */
	long tcp_wmem_max;
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

#endif
