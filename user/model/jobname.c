// SPDX-License-Identifier: GPL-2.0
/* A cgroup path's job: Slurm, Kubernetes, systemd, or the path (jobs.h, job_from_cgroup()). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/jobs.h"

#define MAX_DEPTH 16
/* @path's components, at most MAX_DEPTH (a deeper path is none of the layouts below) */
static size_t split(const char *path, char comp[][128])
{
	size_t n = 0;

	for (const char *p = path; *p && n < MAX_DEPTH; ) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (!len)
			break;
		snprintf(comp[n++], 128, "%.*s", (int)(len < 127 ? len : 127), p);
		p += len;
	}
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* "PREFIX<digits>": the digits, else NULL */
static const char *number_after(const char *c, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(c, prefix, n) || !c[n] || strspn(c + n, "0123456789") != strlen(c + n))
		return NULL;
	return c + n;
}

static bool slurm(char comp[][128], size_t n, struct job_id *j)
{
	const char *job, *uid = NULL;
	size_t at;

	/* slurmstepd's own scope (cgroup/v2), one per slurmd: [NODE_]slurmstepd.scope */
	if (n >= 3 && !strcmp(comp[0], "system.slice") &&
	    (!strcmp(comp[1], "slurmstepd.scope") || ends_with(comp[1], "_slurmstepd.scope")))
		at = 2;
	/* cgroup/v1: /slurm[_NODE]/uid_U/job_N */
	else if (n >= 3 && (!strcmp(comp[0], "slurm") || !strncmp(comp[0], "slurm_", 6)) &&
		 (uid = number_after(comp[1], "uid_")))
		at = 2;
	else
		return false;
	job = number_after(comp[at], "job_");
	if (!job)
		return false;
	j->kind = "slurm";
	snprintf(j->id, sizeof(j->id), "%s", job);
	if (n > at + 1 && !strncmp(comp[at + 1], "step_", 5))
		snprintf(j->step, sizeof(j->step), "%s", comp[at + 1] + 5);
	if (uid && strlen(uid) < 10)
		j->uid = (uint32_t)strtoul(uid, NULL, 10);
	return true;
}

static bool is_qos(const char *q)
{
	return !strcmp(q, "besteffort") || !strcmp(q, "burstable");
}

static void pod_uid(struct job_id *j, const char *uid, size_t len)
{
	snprintf(j->id, sizeof(j->id), "%.*s", (int)len, uid);
	for (char *q = j->id; *q; q++)
		if (*q == '_')
			*q = '-';
}

static bool kubernetes(char comp[][128], size_t n, struct job_id *j)
{
	size_t at = 1;

	if (n >= 2 && !strcmp(comp[0], "kubepods")) {
		/* cgroupfs driver: /kubepods[/besteffort|/burstable]/pod<UID>[/<CID>] */
		if (n >= 3 && is_qos(comp[1]))
			at = 2;
		if (strncmp(comp[at], "pod", 3) || !comp[at][3])
			return false;
		pod_uid(j, comp[at] + 3, strlen(comp[at] + 3));
		if (n > at + 1)
			snprintf(j->step, sizeof(j->step), "%s", comp[at + 1]);
	} else if (n >= 2 && !strcmp(comp[0], "kubepods.slice")) {
		/* systemd driver: kubepods[-QOS].slice/kubepods[-QOS]-pod<UID_>.slice/<RT>-<CID>.scope */
		const char *p, *dash;
		char qos[32];

		if (n >= 3 && sscanf(comp[1], "kubepods-%31[a-z].slice", qos) == 1 && is_qos(qos) &&
		    ends_with(comp[1], ".slice") && strlen(comp[1]) == strlen("kubepods-.slice") + strlen(qos))
			at = 2;
		p = strstr(comp[at], "-pod");
		if (strncmp(comp[at], "kubepods-", 9) || !p || !ends_with(comp[at], ".slice") ||
		    p[4] == '.')
			return false;
		/* between "kubepods" and "-pod": nothing, or the QoS level of the slice above */
		if (p != comp[at] + 8 && (at != 2 || (size_t)(p - comp[at] - 9) != strlen(qos) ||
					  strncmp(comp[at] + 9, qos, strlen(qos))))
			return false;
		pod_uid(j, p + 4, strlen(p + 4) - strlen(".slice"));
		if (n > at + 1 && ends_with(comp[at + 1], ".scope") && (dash = strrchr(comp[at + 1], '-')))
			snprintf(j->step, sizeof(j->step), "%.*s",
				 (int)(strlen(dash + 1) - strlen(".scope")), dash + 1);
	} else {
		return false;
	}
	j->kind = "kubernetes";
	return j->id[0] != '\0';
}

static bool systemd_unit(char comp[][128], size_t n, struct job_id *j)
{
	for (size_t i = 0; i < n; i++)
		if (ends_with(comp[i], ".service") || ends_with(comp[i], ".scope")) {
			j->kind = "systemd";
			snprintf(j->id, sizeof(j->id), "%s", comp[i]);
			return true;
		}
	return false;
}

void job_from_cgroup(const char *path, struct job_id *j)
{
	char comp[MAX_DEPTH][128];
	size_t n = split(path, comp);

	memset(j, 0, sizeof(*j));
	j->uid = JOB_UNKNOWN_UID;
	if (slurm(comp, n, j) || kubernetes(comp, n, j))
		return;
	memset(j, 0, sizeof(*j));
	j->uid = JOB_UNKNOWN_UID;
	if (systemd_unit(comp, n, j))
		return;
	j->kind = "cgroup";
	snprintf(j->id, sizeof(j->id), "%s", path);
}
