// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's answers (#59): per mount and server, its state as a state set (one series per
 * state, 1 for the one it is in: an alert matches state="not-answering"), the requests awaiting a
 * reply and the oldest's age, the silence against its threshold, the processes stuck behind it
 * and their jobs. Gauges from the last interval; the jobs' series exist only while they are
 * stuck (at most STUCK_MAX a mount), the rest in every file.
 */
#include <string.h>
#include "prom/out_prom_int.h"

/* a row the series cap kept: its mount is among the exposition's (or it has none) */
static bool row_shown(const struct prom_input *in, const struct answer_row *r)
{
	if (!in->mounts_capped || !r->mountpoint)
		return true;
	for (size_t i = 0; i < in->cum->nmounts; i++)
		if (in->cum->mounts[i].mountpoint && !strcmp(in->cum->mounts[i].mountpoint, r->mountpoint))
			return true;
	return false;
}

static void row_labels(FILE *f, const char *name, const struct answer_row *r)
{
	fprintf(f, "slotscope_%s{mountpoint=\"", name);
	prom_lv(f, r->mountpoint ? r->mountpoint : "");
	fputs("\",server=\"", f);
	prom_lv(f, r->server);
	putc('"', f);
}

static void gauge(FILE *f, const struct prom_input *in, const char *name, const char *help, int what)
{
	const struct view *iv = in->iv;

	prom_family(f, name, "gauge", help);
	for (size_t i = 0; iv && i < iv->nanswers; i++) {
		const struct answer_row *r = &iv->answers[i];
		double v = what == 0 ? r->a.unanswered : what == 1 ? r->a.oldest_s :
			   what == 2 ? r->a.silent_s : what == 3 ? r->a.threshold_s :
			   (double)(r->nstuck + r->stuck_more);

		if (!row_shown(in, r))
			continue;
		row_labels(f, name, r);
		/* counts as whole numbers, ages to the millisecond */
		fprintf(f, what == 0 || what == 4 ? "} %.0f\n" : "} %.3f\n", v);
	}
}

void prom_answers(FILE *f, const struct prom_input *in)
{
	const struct view *iv = in->iv;

	prom_family(f, "server_state", "gauge",
		    "1 for the state the mount's server is in (idle, answering, connecting, not-answering), 0 for the others.");
	for (size_t i = 0; iv && i < iv->nanswers; i++) {
		const struct answer_row *r = &iv->answers[i];

		if (!row_shown(in, r))
			continue;
		for (int s = 0; s < ANS_STATES; s++) {
			row_labels(f, "server_state", r);
			fprintf(f, ",state=\"%s\"} %d\n", answer_state_names[s], r->a.state == (enum answer_state)s);
		}
	}
	gauge(f, in, "server_unanswered_requests", "Requests sent to the mount's server and awaiting its reply.", 0);
	gauge(f, in, "server_oldest_unanswered_seconds",
	      "Age of the oldest request awaiting the server's reply, since its first transmission.", 1);
	gauge(f, in, "server_silent_seconds",
	      "Time since the server last answered a request (lease keepalives aside), or since first seen.", 2);
	gauge(f, in, "server_silent_threshold_seconds",
	      "Silence past which the server is not answering: --silent-after, or 4 of its mean round trips.", 3);
	gauge(f, in, "server_stuck_processes",
	      "Processes with NFS I/O on the mount in uninterruptible sleep while its server does not answer.", 4);
	prom_family(f, "server_stuck_job_info", "gauge", "1 per job with a process stuck behind a server that does not answer.");
	for (size_t i = 0; iv && i < iv->nanswers; i++) {
		const struct answer_row *r = &iv->answers[i];

		for (size_t k = 0; k < r->nstuck && row_shown(in, r); k++) {
			bool dup = !r->stuck[k].job[0];

			for (size_t j = 0; j < k && !dup; j++)
				dup = !strcmp(r->stuck[j].job, r->stuck[k].job);
			if (dup)
				continue;
			row_labels(f, "server_stuck_job_info", r);
			fputs(",job=\"", f);
			prom_lv(f, r->stuck[k].job);
			fputs("\"} 1\n", f);
		}
	}
}
