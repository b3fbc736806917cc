/* SPDX-License-Identifier: GPL-2.0 */
/* The slot accounting tests' transports and their level times, as a snapshot reads them. */
#ifndef SLOTSCOPE_ACCFIX_H
#define SLOTSCOPE_ACCFIX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>
#include "account.h"
#include "opcount.h"

static inline struct xprt_stats *new_xprt(__u32 ident, __u32 max_reqs, __u32 flags, __u64 now)
{
	struct xprt_stats *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->ident = ident;
	x->max_reqs = x->limit = max_reqs;
	x->flags = flags;
	x->first_seen_ns = now;
	levels_open(x, now);
	return x;
}

/* the time at level bucket @b as a snapshot taken at @end reads it (levels_close()) */
static inline __u64 lvl(const struct xprt_stats *x, int b, __u64 end)
{
	__u64 l[LEVEL_BUCKETS];

	memcpy(l, x->level_ns, sizeof(l));
	levels_close(l, end);
	return l[b];
}

static inline __u64 level_sum(const struct xprt_stats *x, __u64 end)
{
	__u64 t = 0;

	for (int b = 0; b < LEVEL_BUCKETS; b++)
		t += lvl(x, b, end);
	return t;
}

/*
 * The levels' sum before levels_close() clamps a bucket left negative by late clocks: exact
 * whatever the order the changes' clocks were read in, which is what the telescoping keeps.
 */
static inline __s64 level_sum_raw(const struct xprt_stats *x, __u64 end)
{
	__s64 t = 0;

	for (int b = 0; b < LEVEL_BUCKETS; b++)
		t += (__s64)x->level_ns[b] + (level_is_open(x->level_ns[b]) ? (__s64)(end + LEVEL_T_BIAS) : 0);
	return t;
}

#endif
