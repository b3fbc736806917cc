/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether each transport's server answers (#59): requests sent and awaiting their reply, the
 * oldest's age, the time since the server last answered, and a state, per transport and per
 * mount. Pure: the model's last step gives it the snapshot and the clock it was read at.
 */
#ifndef SLOTSCOPE_ANSWER_H
#define SLOTSCOPE_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "slotscope.h"

/* in order of concern: a mount's state is its worst transport's */
enum answer_state { ANS_IDLE, ANS_ANSWERING, ANS_CONNECTING, ANS_SILENT, ANS_STATES };
extern const char *const answer_state_names[ANS_STATES];

/*
 * --silent-after's default: a server that answered nothing for this long while requests await
 * a reply is not answering, unless its own round trips make that normal (answer_threshold()).
 */
#define SILENT_AFTER_S 5.0
/* how many of its own mean round trips (since attach) a server may take before it is silent */
#define SILENT_RTTS 4.0

struct answer {
	enum answer_state state;
	__u32 unanswered;		/* requests sent and awaiting a reply, at the view's end */
	double oldest_s;		/* the oldest of them: since its first transmission */
	double silent_s;		/* since the server last answered (keepalives aside), or first seen */
	double threshold_s;		/* not answering past this (answer_threshold()) */
	bool disconnected;		/* sysfs says the transport is not connected */
};

/* a process with NFS I/O outstanding on a mount that does not answer (stuck.c) */
#define STUCK_MAX 8
struct stuck_task {
	int pid;
	char comm[16];
	char job[64];			/* the window's job name of its cgroup ("" unknown) */
};

/* per mount (the textfile's owner of each transport, owners.c) and server */
struct answer_row {
	const char *mountpoint;		/* NULL: transports of no known mount */
	char server[ADDR_LEN];
	struct answer a;		/* worst state, the oldest age, requests summed */
	__u32 in_use;
	size_t nxprts;
	size_t nstuck, stuck_more;	/* processes named, and how many more there were */
	struct stuck_task stuck[STUCK_MAX];
};

/* the time past which silence is "not answering": --silent-after, or SILENT_RTTS mean RTTs */
double answer_threshold(double silent_after_s, double mean_rtt_s);
/*
 * A transport's answer at @ts_ns (CLOCK_MONOTONIC): @unanswered requests awaiting a reply since
 * @oldest_sent_ns at the earliest, its last answer @last_answer_ns (0: none since @first_seen_ns),
 * @in_use slots held, @mean_rtt_s its mean round trip since attach.
 */
void answer_judge(struct answer *a, __u64 ts_ns, __u32 unanswered, __u64 oldest_sent_ns,
		  __u64 last_answer_ns, __u64 first_seen_ns, __u32 in_use, double mean_rtt_s,
		  double silent_after_s, bool disconnected);
/* fold transport @x's answer into its mount's row @r */
void answer_fold(struct answer_row *r, const struct answer *x, __u32 in_use);

#endif
