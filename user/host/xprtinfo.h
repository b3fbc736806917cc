/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel publishes of a transport in sysfs (net/sunrpc/sysfs.c, 5.14 on): its limits,
 * queues and addresses. The limits audit (audit.c) and the route to a transport's netdev
 * (route.c) read them; a leaf: it uses no other room.
 */
#ifndef SLOTSCOPE_XPRTINFO_H
#define SLOTSCOPE_XPRTINFO_H

#include <stdbool.h>
#include <stdio.h>

struct audit_xprt {
	unsigned int id, switch_id;
	char proto[8];			/* tcp, rdma, udp, local */
	char dstaddr[64];
	unsigned int dst_port, src_port;
	unsigned int max_slots, min_slots, num_reqs, backlog_q_len;
	unsigned int pending_q_len;	/* tasks awaiting a reply (or a connection) */
	unsigned long cur_cong, cong_win;
	bool main;
};

/* a transport's xprt_info ("key=value" lines) into @x; unknown keys are skipped */
void xprt_info_parse(FILE *f, struct audit_xprt *x);
/* xprt_info and dstaddr of the transport directory @dir into @x; a file that is missing is skipped */
void xprt_info_read(const char *dir, struct audit_xprt *x);

#endif
