// SPDX-License-Identifier: GPL-2.0
/*
 * A server that stopped answering, told from a slot table that is merely full (#59). A full
 * table at a 1 s round trip has every slot taken and RPCs waiting tens of seconds for one, yet
 * its oldest request awaiting a reply is about one round trip old and replies come every
 * moment; a silent server's oldest request ages with the clock and no reply comes. Both the
 * age and the silence must pass the threshold, so neither a full table nor one slow reply among
 * many is a silent server.
 */
#include "model/answer.h"

const char *const answer_state_names[ANS_STATES] = { "idle", "answering", "connecting", "not-answering" };

double answer_threshold(double silent_after_s, double mean_rtt_s)
{
	double rtts = SILENT_RTTS * mean_rtt_s;

	return rtts > silent_after_s ? rtts : silent_after_s;
}

void answer_judge(struct answer *a, __u64 ts_ns, __u32 unanswered, __u64 oldest_sent_ns,
		  __u64 last_answer_ns, __u64 first_seen_ns, __u32 in_use, double mean_rtt_s,
		  double silent_after_s, bool disconnected)
{
	__u64 since = last_answer_ns > first_seen_ns ? last_answer_ns : first_seen_ns;

	a->unanswered = unanswered;
	a->oldest_s = unanswered && oldest_sent_ns && ts_ns > oldest_sent_ns ?
		      (double)(ts_ns - oldest_sent_ns) / 1e9 : 0;
	a->silent_s = since && ts_ns > since ? (double)(ts_ns - since) / 1e9 : 0;
	a->threshold_s = answer_threshold(silent_after_s, mean_rtt_s);
	a->disconnected = disconnected;
	if (!unanswered && !in_use)
		a->state = ANS_IDLE;
	else if (disconnected)
		/* a reconnection that takes longer than the threshold: nothing takes the connection */
		a->state = a->silent_s >= a->threshold_s ? ANS_SILENT : ANS_CONNECTING;
	else if (unanswered && a->oldest_s >= a->threshold_s && a->silent_s >= a->threshold_s)
		a->state = ANS_SILENT;
	else
		a->state = ANS_ANSWERING;
}

void answer_fold(struct answer_row *r, const struct answer *x, __u32 in_use)
{
	struct answer *a = &r->a;

	if (!r->nxprts++) {
		*a = *x;
		r->in_use = in_use;
		return;
	}
	a->unanswered += x->unanswered;
	r->in_use += in_use;
	if (x->oldest_s > a->oldest_s)
		a->oldest_s = x->oldest_s;
	/* the mount's server is silent as long as its most silent transport */
	if (x->state > a->state || (x->state == a->state && x->silent_s > a->silent_s)) {
		a->state = x->state;
		a->silent_s = x->silent_s;
		a->threshold_s = x->threshold_s;
	}
	a->disconnected |= x->disconnected;
}
