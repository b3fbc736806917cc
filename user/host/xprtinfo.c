// SPDX-License-Identifier: GPL-2.0
/* A transport's own files under /sys/kernel/sunrpc/xprt-switches/switch-N/xprt-ID-PROTO/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host/xprtinfo.h"

/* xprt_info: "key=value" lines (net/sunrpc/sysfs.c) */
void xprt_info_parse(FILE *f, struct audit_xprt *x)
{
	char line[128];

	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		unsigned long v;

		if (!eq)
			continue;
		*eq = 0;
		v = strtoul(eq + 1, NULL, 10);
		if (!strcmp(line, "max_num_slots"))
			x->max_slots = (unsigned int)v;
		else if (!strcmp(line, "min_num_slots"))
			x->min_slots = (unsigned int)v;
		else if (!strcmp(line, "num_reqs"))
			x->num_reqs = (unsigned int)v;
		else if (!strcmp(line, "backlog_q_len"))
			x->backlog_q_len = (unsigned int)v;
		else if (!strcmp(line, "pending_q_len"))
			x->pending_q_len = (unsigned int)v;
		else if (!strcmp(line, "cur_cong"))
			x->cur_cong = v;
		else if (!strcmp(line, "cong_win"))
			x->cong_win = v;
		else if (!strcmp(line, "main_xprt"))
			x->main = v != 0;
		else if (!strcmp(line, "dst_port"))
			x->dst_port = (unsigned int)v;
		else if (!strcmp(line, "src_port"))
			x->src_port = (unsigned int)v;
	}
}

void xprt_info_read(const char *dir, struct audit_xprt *x)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/xprt_info", dir);
	f = fopen(path, "r");
	if (f) {
		xprt_info_parse(f, x);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/dstaddr", dir);
	f = fopen(path, "r");
	if (f && fgets(x->dstaddr, sizeof(x->dstaddr), f))
		x->dstaddr[strcspn(x->dstaddr, "\n")] = 0;
	if (f)
		fclose(f);
}
