/* SPDX-License-Identifier: GPL-2.0 */
/* What limits a transport's throughput, with the numbers behind it and the knob that moves it. */
#ifndef SLOTSCOPE_VERDICT_H
#define SLOTSCOPE_VERDICT_H

#include "view.h"

enum verdict_class {
	V_IDLE, V_CLIENT, V_SLOT, V_CREDIT, V_SESSION, V_SEND, V_SERVER, V_LINK, VERDICTS
};

struct verdict {
	enum verdict_class cls;
	double secs;			/* time the view covers */
	double achieved_Bps;		/* READ + WRITE payload per second */
	double ceiling_Bps;		/* Little's law: limit x bytes per op / mean RTT; 0 unknown */
	double link_Bps;		/* link rate; 0 unknown */
	double full_pct;		/* share of busy time with every slot in use */
	double link_util_pct;
	double rtt_ms;			/* mean RTT of the transport's ops */
	double wait_share[WAIT_KINDS];	/* each wait's total over the ops' total execute time */
	bool v41;			/* NFSv4.1+ session on the transport */
	char why[240];			/* the numbers, one line */
	char knob[240];			/* what to change, one line */
	size_t nflags;
	char flags[4][200];		/* known pathologies seen */
};

extern const char *const verdict_names[VERDICTS];

/* the verdict on transport @x over view @v; knobs named from v->tun */
void verdict_for(const struct view *v, const struct xprt_view *x, struct verdict *out);

#endif
