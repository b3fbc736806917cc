// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's windows: per kind, counters that grow while one is open, the last one's
 * figures and the job behind it, and the time its jobs' RPCs went to, by cause.
 */
#include "prom/out_prom_int.h"
#include "model/window.h"

/*
 * Windows, per kind (checkpoint: write bursts; restore: read bursts): counters that grow while
 * one is open, the last one's figures, and the job behind it in an info gauge (a job label on the
 * counters would make a series per job).
 */
void prom_windows(FILE *f, const struct prom_input *in)
{
	static const struct {
		const char *name, *type, *help;
	} w[] = {
		{ "windows_total", "counter", "Windows begun (checkpoints: write bursts; restores: read bursts)." },
		{ "window_seconds_total", "counter", "Time inside windows." },
		{ "window_bytes_total", "counter", "Bytes inside windows: written (checkpoint) or read (restore)." },
		{ "window_slot_bound_seconds_total", "counter",
		  "Time inside windows in which some transport was slot-bound." },
		{ "last_window_seconds", "gauge", "Duration of the last completed window." },
		{ "last_window_bytes", "gauge", "Bytes written (checkpoint) or read (restore) in the last completed window." },
		{ "last_window_slot_bound_seconds", "gauge",
		  "Time of the last completed window in which some transport was slot-bound." },
		{ "last_window_end_timestamp_seconds", "gauge",
		  "When the last completed window ended (0: none yet)." },
	};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		prom_family(f, w[i].name, w[i].type, w[i].help);
		for (int k = 0; k < WIN_KINDS; k++) {
			const struct window *c = in->windows ? &in->windows[k] : NULL;
			/* in the order of w[] */
			const double v[] = { c ? (double)c->started : 0, c ? c->total.secs : 0,
					     c ? c->total.bytes : 0, c ? c->total.slot_bound_secs : 0,
					     c ? c->ended.secs : 0, c ? c->ended.bytes : 0,
					     c ? c->ended.slot_bound_secs : 0, c ? c->ended_wall : 0 };

			_Static_assert(sizeof(v) / sizeof(v[0]) == sizeof(w) / sizeof(w[0]),
				       "a value per window family");
			fprintf(f, "slotscope_%s{kind=\"%s\"} %.6f\n", w[i].name, win_kind_names[k], v[i]);
		}
	}
	prom_family(f, "last_window_job_info", "gauge",
	       "1, labelled with the job whose READs or WRITEs carried most of the last completed window's bytes "
	       "(job_kind slurm, kubernetes, systemd, cgroup or unknown); none before the first window ends.");
	for (int k = 0; k < WIN_KINDS; k++) {
		const struct window *c = in->windows ? &in->windows[k] : NULL;
		const struct win_job *j = c && c->n && c->ended_jobs.nj ? &c->ended_jobs.j[0] : NULL;
		char uid[16] = "";

		/* an info series exists once there is something to say */
		if (!c || !c->n)
			continue;
		/* who ran it, only when asked (--prom-user): the port answers whoever reaches it */
		if (in->user && j && j->uid != JOB_UNKNOWN_UID)
			snprintf(uid, sizeof(uid), "%u", j->uid);
		/* not "job": Prometheus's own label for the scrape job (it would become exported_job) */
		fprintf(f, "slotscope_last_window_job_info{kind=\"%s\",job_kind=\"%s\",job_id=\"",
			win_kind_names[k], j ? j->id.kind : "unknown");
		prom_lv(f, j ? j->id.id : "");
		fputs("\",job_step=\"", f);
		prom_lv(f, j ? j->id.step : "");
		fprintf(f, "\",uid=\"%s\",user=\"", uid);
		prom_lv(f, in->user && j ? j->user : "");
		fputs("\"} 1\n", f);
	}
	/*
	 * A job label on a counter is a series per job: kept to the JOB_TOTALS_MAX jobs in a window
	 * last (6 causes each, per kind); a job left out for newer ones ends its series there.
	 */
	prom_family(f, "job_window_seconds_total", "counter",
		    "Seconds of windows, per job and cause: the job's time in each completed window (its "
		    "intervals with READs or WRITEs ending) shared out as their time went to waits for a "
		    "slot, the send queue or credits (send), a session slot, an rpc_delay, the round trip, "
		    "and the rest (other).");
	for (int k = 0; k < WIN_KINDS; k++) {
		const struct job_totals *t = in->windows ? &in->windows[k].job_totals : NULL;

		for (size_t i = 0; t && i < t->n; i++)
			for (int c = 0; c < JS_CAUSES; c++) {
				fprintf(f, "slotscope_job_window_seconds_total{kind=\"%s\",job_kind=\"%s\",job_id=\"",
					win_kind_names[k], t->t[i].id.kind);
				prom_lv(f, t->t[i].id.id);
				fprintf(f, "\",cause=\"%s\"} %.6f\n", job_cause_names[c], t->t[i].cause_s[c]);
			}
	}
}
