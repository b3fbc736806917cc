// SPDX-License-Identifier: GPL-2.0
/* The kernel's job map kept with room for the next job, whatever runs and however long. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "run/jobreap.h"
#include "lib/log.h"
#include "lib/util.h"

/* the entries of @s the map holds (the rest are counts user space kept, merged in) */
static size_t in_map(const struct engine *e, const struct snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->njobio; i++)
		n += !engine_jobio_forgotten(e, &s->jobio[i]);
	return n;
}

void jobs_reap(struct run *r, const struct snapshot *prev, const struct snapshot *cur, __u64 held_ns)
{
	/* counted before the trim: what it lets go would then read as the map's */
	size_t held = in_map(r->e, cur), kept = engine_jobio_trim(r->e, held_ns), n = 0, cap;
	double now = clock_s(CLOCK_MONOTONIC);
	struct jobio_snap *idle;
	bool crowded;

	if (kept != r->jobio_kept)
		pr_debug("jobio: %zu idle entries' counts kept for the windows (from %.1f s)\n", kept,
			 held_ns / 1e9);
	r->jobio_kept = kept;
	if (!r->cg.root[0])
		return;
	/*
	 * Past half the map, a live cgroup's entry that stood still goes too: left to wait for its
	 * cgroup's end, a user's delegated subtree (16,384 mkdirs, a byte read in each) filled it
	 * for good, and no job after was counted. One that moves again gets a new entry, its old
	 * counts added to it in every snapshot while kept.
	 */
	cap = engine_jobio_capacity(r->e);
	crowded = held > cap / 2;
	if (!crowded && now - r->jobio_reaped < 30)
		return;
	r->jobio_reaped = now;
	idle = malloc(JOBIO_REAP_MAX * sizeof(*idle));
	if (!idle)
		return;
	for (size_t i = 0; i < cur->njobio && n < JOBIO_REAP_MAX; i++) {
		const struct jobio_snap *e = &cur->jobio[i];
		const struct job_io *b = jobio_before(prev, &e->k);

		if (!b || memcmp(b, &e->v, sizeof(*b)) || engine_jobio_forgotten(r->e, e))
			continue;
		if (crowded || cgroups_gone(&r->cg, e->k.cgid))
			idle[n++] = *e;
	}
	n = engine_forget_jobio(r->e, idle, n, prev->ts_ns);
	if (n)
		pr_debug("jobio: %zu entries that stood still deleted from the map (%zu of %zu held%s)\n",
			 n, held, cap, crowded ? ", crowded: live cgroups' too" : "");
	r->jobio_forgotten += n;
	free(idle);
}
