// SPDX-License-Identifier: GPL-2.0
/*
 * --check from the running service's textfile (#59): its server_* families read back, the worst
 * mount said in one line. The textfile is the service's state whatever it was started with
 * (per transport or per mount): its answers are per mount in both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "run/health.h"

/* label @key's value in the label set at @p ("{a=\"x\",b=\"y\"}"), unescaped into @out */
static bool label(const char *p, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	while (p && *p && *p != '}') {
		const char *v;
		size_t o = 0;
		bool hit;

		p++;	/* '{' or ',' */
		hit = !strncmp(p, key, kl) && p[kl] == '=' && p[kl + 1] == '"';
		v = strchr(p, '"');
		if (!v)
			return false;
		for (v++; *v && *v != '"'; v++) {
			char c = *v;

			if (c == '\\' && v[1]) {
				c = *++v;
				if (c == 'n')
					c = '\n';
			}
			if (hit && o + 1 < len)
				out[o++] = c;
		}
		if (hit) {
			out[o] = 0;
			return true;
		}
		p = *v ? v + 1 : v;
	}
	return false;
}

static struct health_row *row_of(struct health_row *rows, size_t *n, size_t max, const char *lbl)
{
	char mp[256] = "", srv[64] = "";

	label(lbl, "mountpoint", mp, sizeof(mp));
	label(lbl, "server", srv, sizeof(srv));
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(rows[i].mountpoint, mp) && !strcmp(rows[i].server, srv))
			return &rows[i];
	if (*n == max)
		return NULL;
	memset(&rows[*n], 0, sizeof(rows[*n]));
	snprintf(rows[*n].mountpoint, sizeof(rows[*n].mountpoint), "%s", mp);
	snprintf(rows[*n].server, sizeof(rows[*n].server), "%s", srv);
	return &rows[(*n)++];
}

int health_parse(FILE *f, struct health_row *rows, size_t max, double *written)
{
	static const char *const gauges[] = { "server_unanswered_requests", "server_oldest_unanswered_seconds",
					      "server_silent_seconds", "server_silent_threshold_seconds",
					      "server_stuck_processes" };
	char *line = NULL;
	size_t cap = 0, n = 0;
	int tracing = -1;

	*written = 0;
	while (getline(&line, &cap, f) > 0) {
		char *name = line, *lbl, *val;
		struct health_row *r;

		if (strncmp(line, "slotscope_", 10))
			continue;
		name += 10;
		val = strrchr(line, ' ');
		if (!val)
			continue;
		if (!strncmp(name, "tracing ", 8)) {
			tracing = atoi(val + 1);
			continue;
		}
		if (!strncmp(name, "last_update_timestamp_seconds ", 30)) {
			*written = strtod(val + 1, NULL);
			continue;
		}
		lbl = strchr(name, '{');
		if (!lbl || strncmp(name, "server_", 7))
			continue;
		r = row_of(rows, &n, max, lbl);
		if (!r)
			continue;
		if (!strncmp(name, "server_state{", 13)) {
			char st[32];

			for (int s = 0; label(lbl, "state", st, sizeof(st)) && s < ANS_STATES; s++)
				if (!strcmp(st, answer_state_names[s]) && atof(val + 1) == 1)
					r->state = (enum answer_state)s;
		} else if (!strncmp(name, "server_stuck_job_info{", 22)) {
			char job[96];
			size_t o = strlen(r->jobs);

			if (label(lbl, "job", job, sizeof(job)) && o + strlen(job) + 2 < sizeof(r->jobs))
				snprintf(r->jobs + o, sizeof(r->jobs) - o, "%s%s", o ? " " : "", job);
		} else {
			double *dst[] = { &r->unanswered, &r->oldest_s, &r->silent_s, &r->threshold_s, &r->stuck };

			for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++)
				if (!strncmp(name, gauges[g], strlen(gauges[g])) && name[strlen(gauges[g])] == '{')
					*dst[g] = strtod(val + 1, NULL);
		}
	}
	free(line);
	if (tracing < 0)
		return -EINVAL;
	return tracing ? (int)n : -ENODATA;
}

static bool wanted(const struct health_opts *o, const char *mp)
{
	if (!o->nmounts)
		return true;
	for (size_t i = 0; i < o->nmounts; i++)
		if (!strcmp(o->mounts[i], mp))
			return true;
	return false;
}

enum health_status health_judge(const struct health_row *rows, size_t n, const struct health_opts *o,
				const char *source, char *line, size_t len)
{
	const struct health_row *worst = NULL;
	size_t seen = 0;
	char what[96];

	for (size_t i = 0; i < n; i++) {
		const struct health_row *r = &rows[i];

		if (!wanted(o, r->mountpoint))
			continue;
		seen++;
		if (!worst || r->state > worst->state ||
		    (r->state == worst->state && r->silent_s > worst->silent_s))
			worst = r;
	}
	if (!worst || worst->state < ANS_CONNECTING) {
		snprintf(line, len, "slotscope OK: %zu NFS mount%s, every server answering (%s)", seen,
			 seen == 1 ? "" : "s", source);
		return HEALTH_OK;
	}
	/*
	 * Not answering with nothing awaiting a reply is a connection the server closed and no longer
	 * takes: the requests wait to be sent (answer_judge()'s disconnected path), so no age is said.
	 */
	if (worst->unanswered >= 1)
		snprintf(what, sizeof(what), "%.0f requests awaiting a reply, the oldest %s%.1f s",
			 worst->unanswered, worst->at_least ? "at least " : "", worst->oldest_s);
	else
		snprintf(what, sizeof(what), "not connected: no request sent awaits a reply");
	snprintf(line, len, "slotscope %s: %s: server %s %s for %s%.1f s (threshold %.1f s), %s; "
		 "stuck: %.0f processes%s%s (%s)",
		 worst->state == ANS_SILENT ? "CRITICAL" : "WARNING",
		 worst->mountpoint[0] ? worst->mountpoint : "?", worst->server,
		 worst->state == ANS_SILENT ? "not answering" : "reconnecting",
		 worst->at_least ? "at least " : "", worst->silent_s, worst->threshold_s, what, worst->stuck,
		 worst->jobs[0] ? ", jobs " : "", worst->jobs, source);
	return worst->state == ANS_SILENT ? HEALTH_CRITICAL : HEALTH_WARNING;
}

static int finish(const struct health_opts *o, enum health_status st, const char *line)
{
	printf("%s\n", line);
	fflush(stdout);
	if (!o->npd)
		return st;
	/* node-problem-detector's custom plugins: 0 OK, 1 a problem, 2 unknown */
	return st == HEALTH_CRITICAL ? 1 : st == HEALTH_UNKNOWN ? 2 : 0;
}

int health_main(const struct health_opts *o)
{
	const char *path = o->textfile ? o->textfile : HEALTH_TEXTFILE;
	double max_age = o->max_age_s > 0 ? o->max_age_s : HEALTH_MAX_AGE_S, written = 0;
	struct health_row rows[HEALTH_MAX_MOUNTS];
	char line[1024], src[320];
	int n = -ENOENT;
	FILE *f = fopen(path, "r");

	if (f) {
		n = health_parse(f, rows, HEALTH_MAX_MOUNTS, &written);
		fclose(f);
		if (n >= 0 && (double)time(NULL) - written > max_age)
			n = -ESTALE;
	}
	if (n >= 0) {
		snprintf(src, sizeof(src), "the service's %s, %.0f s old", path,
			 (double)time(NULL) - written < 0 ? 0 : (double)time(NULL) - written);
		return finish(o, health_judge(rows, (size_t)n, o, src, line, sizeof(line)), line);
	}
	/* no service, or not tracing: the kernel's own counters, over the threshold */
	n = health_probe(o, rows, HEALTH_MAX_MOUNTS);
	if (n < 0) {
		snprintf(line, sizeof(line), "slotscope UNKNOWN: cannot read the NFS mounts' counters: %s "
			 "(run as root, or start the slotscope service)", strerror(-n));
		return finish(o, HEALTH_UNKNOWN, line);
	}
	snprintf(src, sizeof(src), "measured now: no fresh %s", path);
	return finish(o, health_judge(rows, (size_t)n, o, src, line, sizeof(line)), line);
}
