// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "host/cpustat.h"
#include "lib/util.h"

/*
 * "cpu  user nice system idle iowait irq softirq steal guest guest_nice": guest time is already
 * in user (and guest_nice in nice), so it is not added again. steal is work the CPU was wanted
 * for and the hypervisor gave elsewhere: at work, as far as this node's pace goes. The first four
 * are in every kernel; iowait, irq and softirq since 2.6, steal since 2.6.11.
 */
static int parse_stat(FILE *f, void *arg)
{
	unsigned long long v[8] = { 0 };
	struct cpu_stat *c = arg;
	char line[512];
	int n;

	if (!fgets(line, sizeof(line), f))
		return -EPROTO;
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]);
	if (n < 4)
		return -EPROTO;
	c->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	c->total = c->busy + v[3] + v[4];
	c->known = true;
	return 0;
}

int cpustat_read(const char *procfs_root, struct cpu_stat *c)
{
	memset(c, 0, sizeof(*c));
	return root_parse(parse_stat, c, procfs_root, "/proc/stat");
}

double cpustat_busy_pct(const struct cpu_stat *a, const struct cpu_stat *b)
{
	if (!a->known || !b->known || b->total <= a->total || b->busy < a->busy)
		return -1;
	return 100.0 * (double)(b->busy - a->busy) / (double)(b->total - a->total);
}
