/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --check: a node health check a scheduler calls (#59). One line, "slotscope OK|WARNING|CRITICAL|
 * UNKNOWN: ...", naming the mount, its server and how long it has not answered, and an exit
 * status: from the running service's textfile when it is fresh, else from the kernel's own
 * counters sampled over a few seconds (mountstats' replies, sunrpc's sysfs queues).
 */
#ifndef SLOTSCOPE_HEALTH_H
#define SLOTSCOPE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "model/answer.h"

/* Nagios plugins' statuses (NHC, Icinga); --check-exit npd maps them to node-problem-detector's */
enum health_status { HEALTH_OK = 0, HEALTH_WARNING = 1, HEALTH_CRITICAL = 2, HEALTH_UNKNOWN = 3 };
#define HEALTH_TEXTFILE "/var/lib/prometheus/node-exporter/slotscope.prom"
/* a textfile older than this is not the running service's state */
#define HEALTH_MAX_AGE_S 60.0
#define HEALTH_MAX_MOUNTS 64

struct health_opts {
	const char *textfile;		/* NULL: HEALTH_TEXTFILE */
	double max_age_s;		/* 0: HEALTH_MAX_AGE_S */
	double silent_after_s;		/* the standalone check's threshold; 0: SILENT_AFTER_S */
	bool npd;			/* node-problem-detector's codes: 0 OK, 1 problem, 2 unknown */
	const char *procfs_root, *sysfs_root;
	size_t nmounts;
	const char *const *mounts;	/* only these mount points; none: every one */
};

/* a mount's server as the check reads it */
struct health_row {
	char mountpoint[256], server[64];
	enum answer_state state;
	double unanswered, oldest_s, silent_s, threshold_s, stuck;
	char jobs[256];			/* "slurm:777 slurm:778" */
	bool at_least;			/* the standalone check: ages are lower bounds */
};

/*
 * The rows of a slotscope textfile @f (its server_* families), at most @max; how many, or -EINVAL
 * when it is not slotscope's, -ENODATA when it is not tracing. *@written: its own timestamp.
 */
int health_parse(FILE *f, struct health_row *rows, size_t max, double *written);
/* the status and its line (at most @len bytes) for @rows, filtered by @o's mounts */
enum health_status health_judge(const struct health_row *rows, size_t n, const struct health_opts *o,
				const char *source, char *line, size_t len);
/* the standalone check (health_probe.c): the kernel's counters sampled over the threshold; rows or -errno */
int health_probe(const struct health_opts *o, struct health_row *rows, size_t max);
/* the whole check: the line on stdout, the exit status */
int health_main(const struct health_opts *o);

#endif
