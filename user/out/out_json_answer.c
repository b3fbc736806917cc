// SPDX-License-Identifier: GPL-2.0
/* Whether each server answers, in the JSON lines (#59; docs/json.md, "answers"). */
#include "out/out_json_int.h"

/* what a transport's answer and a mount's row both say, after their state */
static void answer_fields(struct jw *w, const struct answer *a)
{
	jw_u64(w, "unanswered", a->unanswered);
	jw_dbl(w, "oldest_unanswered_s", a->oldest_s);
	jw_dbl(w, "silent_s", a->silent_s);
	jw_dbl(w, "threshold_s", a->threshold_s);
	jw_bool(w, "disconnected", a->disconnected);
}

void answer_json(struct jw *w, const struct answer *a)
{
	jw_obj(w, "answer");
	jw_str(w, "state", answer_state_names[a->state]);
	answer_fields(w, a);
	jw_end_obj(w);
}

void answers_json(struct jw *w, const struct view *v)
{
	jw_arr(w, "answers");
	for (size_t i = 0; i < v->nanswers; i++) {
		const struct answer_row *r = &v->answers[i];

		jw_obj(w, NULL);
		jw_str(w, "mountpoint", r->mountpoint);
		jw_str(w, "server", r->server);
		jw_str(w, "state", answer_state_names[r->a.state]);
		jw_u64(w, "transports", r->nxprts);
		jw_u64(w, "in_use", r->in_use);
		answer_fields(w, &r->a);
		jw_arr(w, "stuck");
		for (size_t k = 0; k < r->nstuck; k++) {
			jw_obj(w, NULL);
			jw_i64(w, "pid", r->stuck[k].pid);
			jw_str(w, "comm", r->stuck[k].comm);
			jw_str(w, "job", r->stuck[k].job[0] ? r->stuck[k].job : NULL);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_u64(w, "stuck_more", r->stuck_more);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}
