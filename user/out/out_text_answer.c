// SPDX-License-Identifier: GPL-2.0
/* A mount whose server does not answer, in the tables (#59): one line each, who is stuck under it. */
#include <stdio.h>
#include "out/output.h"
#include "lib/utf8.h"
#include "lib/util.h"

void out_answers_text(FILE *f, const struct view *v)
{
	for (size_t i = 0; i < v->nanswers; i++) {
		const struct answer_row *r = &v->answers[i];
		char line[1024], mp[256], srv[128];
		int o;

		if (r->a.state < ANS_CONNECTING)
			continue;
		name_str(mp, sizeof(mp), r->mountpoint ? r->mountpoint : "?");
		name_str(srv, sizeof(srv), r->server);
		o = snprintf(line, sizeof(line), "%s: server %s %s for %.1f s (threshold %.1f s): %u "
			     "requests await a reply, the oldest %.1f s", mp, srv,
			     r->a.state == ANS_SILENT ? "not answering" : "reconnecting", r->a.silent_s,
			     r->a.threshold_s, r->a.unanswered, r->a.oldest_s);
		for (size_t k = 0; k < r->nstuck && o > 0 && (size_t)o < sizeof(line); k++) {
			char comm[64], job[128];

			name_str(comm, sizeof(comm), r->stuck[k].comm);
			name_str(job, sizeof(job), r->stuck[k].job[0] ? r->stuck[k].job : "job unknown");
			o += snprintf(line + o, sizeof(line) - (size_t)o, "%s pid %d %s (%s)",
				      k ? "," : "; stuck:", r->stuck[k].pid, comm, job);
		}
		if (r->stuck_more && o > 0 && (size_t)o < sizeof(line))
			snprintf(line + o, sizeof(line) - (size_t)o, " and %zu more", r->stuck_more);
		print_wrapped(f, "  !! ", line);
	}
}
