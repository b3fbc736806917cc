// SPDX-License-Identifier: GPL-2.0
/*
 * An interval view's answers (#59): each transport's, judged at the view's end, and one row per
 * mount and server, the transports folded by the mount each counts under (owners.c), so a mount
 * that another transport of the same server still serves is judged by the worst of them.
 */
#include <errno.h>
#include <string.h>
#include "model/model.h"

static bool listed(const __u64 *keys, size_t n, __u64 key)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] == key)
			return true;
	return false;
}

static double mean_rtt_s(const struct curve_view *c)
{
	__u64 rpcs = 0, ns = 0;

	for (unsigned int b = 0; b < LEVEL_BUCKETS; b++) {
		rpcs += c->rpcs[b];
		ns += c->rtt_ns[b];
	}
	return rpcs ? (double)ns / (double)rpcs / 1e9 : 0;
}

static struct answer_row *row_of(struct view *v, const struct xprt_view *x)
{
	const char *mp = x->row_mount;
	const char *srv = x->row_server[0] ? x->row_server : x->addr;

	for (size_t i = 0; i < v->nanswers; i++) {
		struct answer_row *r = &v->answers[i];

		if ((r->mountpoint == mp || (r->mountpoint && mp && !strcmp(r->mountpoint, mp))) &&
		    !strcmp(r->server, srv))
			return r;
	}
	v->answers[v->nanswers].mountpoint = mp;
	snprintf(v->answers[v->nanswers].server, ADDR_LEN, "%s", srv);
	return &v->answers[v->nanswers++];
}

int answer_view(struct view *v, const struct model_in *in)
{
	double after = in->silent_after_s > 0 ? in->silent_after_s : SILENT_AFTER_S;
	__u64 ts = in->to->ts_ns;

	v->answers = view_alloc(in->arena, v->nxprts + 1, sizeof(*v->answers), true);
	if (!v->answers)
		return -ENOMEM;
	for (size_t i = 0; i < v->nxprts; i++) {
		struct xprt_view *x = &v->xprts[i];

		answer_judge(&x->answer, ts, x->unanswered, x->oldest_sent_ns, x->last_answer_ns,
			     x->first_seen_ns, x->in_use_shown, mean_rtt_s(&x->curve_all), after,
			     listed(in->disconnected, in->ndisconnected, x->key));
		if (x->destroyed || x->shadowed || x->row_hidden)
			continue;
		answer_fold(row_of(v, x), &x->answer, x->in_use_shown);
	}
	return 0;
}
