// SPDX-License-Identifier: GPL-2.0
/*
 * Gone cgroups' counts deleted from the kernel's map while a window is open (#63): merged into
 * every later snapshot (appended, or added to the map's entry of the same key again), so a
 * window that counts from before the deletion counts its jobs exactly; matched against the map
 * for the next deletion; let go once no window's snapshot is older than their last change, and
 * not while the map holds their key again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "engine/jobretire.h"
#include "model/jobs.h"

static struct jobio_snap ent(__u64 cgid, __u64 bytes, __u64 rpc_bytes)
{
	return (struct jobio_snap){ .k = { .cgid = cgid, .dev = 33, .dir = JOB_WRITE },
				    .v = { .bytes = bytes, .calls = bytes / 4096, .uid = 1000,
					   .rpcs = rpc_bytes / 4096, .rpc_bytes = rpc_bytes,
					   .ns = { [JC_TOTAL] = rpc_bytes * 10 } } };
}

/* a snapshot of @n entries, copied (the merge reallocates them) */
static struct snapshot snap(__u64 ts, const struct jobio_snap *e, size_t n)
{
	struct snapshot s = { .ts_ns = ts, .njobio = n, .jobio = malloc((n ? n : 1) * sizeof(*e)) };

	assert_non_null(s.jobio);
	memcpy(s.jobio, e, n * sizeof(*e));
	qsort(s.jobio, n, sizeof(*e), jobio_key_cmp);
	s.jobio_sorted = true;
	return s;
}

static bool back_in_map;
static bool in_map(void *ctx, const struct job_key *k)
{
	(void)ctx;
	return back_in_map && k->cgid == 7;
}

static void test_merge_match_trim(void **state)
{
	struct jobio_retired t = { 0 };
	struct jobio_snap a = ent(5, 4096, 4096), b = ent(7, 8192, 8192), again = ent(7, 4096, 4096);
	struct snapshot s;
	const struct job_io *v;

	(void)state;
	/* 7 retired: a later snapshot without it has it appended, in key order */
	assert_int_equal(jobret_add(&t, &b.k, &b.v, 100), 0);
	s = snap(200, &a, 1);
	assert_int_equal(jobret_merge(&t, &s), 0);
	assert_int_equal(s.njobio, 2);
	assert_true(s.jobio[0].k.cgid == 5 && s.jobio[1].k.cgid == 7 && s.jobio_sorted);
	assert_true(s.jobio[1].v.bytes == 8192 && s.jobio[1].v.rpc_bytes == 8192);
	assert_true(jobret_only(&t, &s.jobio[1]));
	assert_false(jobret_only(&t, &s.jobio[0]));
	free(s.jobio);
	/* its pages written back after the deletion: the map has 7 again, and the snapshot their sum */
	{
		struct jobio_snap both[2] = { a, again };

		s = snap(300, both, 2);
	}
	assert_int_equal(jobret_merge(&t, &s), 0);
	assert_int_equal(s.njobio, 2);
	assert_true(s.jobio[1].v.bytes == 8192 + 4096 && s.jobio[1].v.rpcs == 3);
	assert_false(jobret_only(&t, &s.jobio[1]));
	/* the next deletion finds the map's entry is what the snapshot saw less what is kept */
	assert_true(jobret_matches(&t, &s.jobio[1], &again.v));
	assert_false(jobret_matches(&t, &s.jobio[1], &b.v));
	assert_int_equal(jobret_add(&t, &again.k, &again.v, 250), 0);
	v = jobret_find(&t, &b.k);
	assert_non_null(v);
	assert_true(v->bytes == 8192 + 4096 && v->uid == 1000);
	free(s.jobio);
	/* not let go while a window holds a snapshot from before it stood still, nor while the map
	 * has its key again */
	assert_int_equal(jobret_trim(&t, 249, in_map, NULL), 0);
	back_in_map = true;
	assert_int_equal(jobret_trim(&t, 250, in_map, NULL), 0);
	back_in_map = false;
	assert_int_equal(jobret_trim(&t, 250, in_map, NULL), 1);
	assert_int_equal(t.n, 0);
	assert_null(jobret_find(&t, &b.k));
	jobret_free(&t);
}

/*
 * A window open across the deletion: from S0 (the job had 10 pages), to S3 after the deletion
 * (its cgroup gone at S2, its counts unchanged since S1): the window's job has every page it
 * wrote in the window, exactly as without the deletion.
 */
static void test_window_across(void **state)
{
	struct jobio_retired t = { 0 };
	struct jobio_snap e0[2] = { ent(5, 40960, 40960), ent(9, 4096, 4096) },
			  e1[2] = { ent(5, 409600, 409600), ent(9, 8192, 8192) };
	struct snapshot s0 = snap(1000, e0, 2), s1 = snap(2000, e1, 2), s3 = snap(4000, &e1[1], 1);
	struct jobs_in in = { .from = &s0, .to = &s3, .dir = JOB_WRITE };
	struct win_jobs w = { 0 };

	(void)state;
	/* cgroup 5 gone at S2, unchanged since S1: deleted, kept */
	assert_int_equal(jobret_add(&t, &e1[0].k, &e1[0].v, s1.ts_ns), 0);
	assert_int_equal(jobret_merge(&t, &s3), 0);
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 1);	/* no cgroup tree: one job, "unknown" */
	assert_true(w.rpc_total == (409600 - 40960) + (8192 - 4096));
	assert_true(w.total == (409600 - 40960) + (8192 - 4096));
	jobs_free(&w);
	free(s0.jobio);
	free(s1.jobio);
	free(s3.jobio);
	jobret_free(&t);
}

/* bounded: past JOBIO_RETIRED_MAX keys none more is taken (the map keeps them) */
static void test_bounded(void **state)
{
	struct jobio_retired t = { 0 };

	(void)state;
	for (__u64 i = 0; i < JOBIO_RETIRED_MAX; i++) {
		struct jobio_snap e = ent(JOBIO_RETIRED_MAX - i, 4096, 4096);

		assert_int_equal(jobret_add(&t, &e.k, &e.v, 1), 0);
		/* a reap's worth at a time */
		if (i % 4096 == 4095)
			jobret_commit(&t);
	}
	jobret_commit(&t);
	for (size_t i = 1; i < t.n; i++)
		assert_true(jobio_key_cmp(&t.r[i - 1].e.k, &t.r[i].e.k) < 0);
	{
		struct jobio_snap e = ent(JOBIO_RETIRED_MAX + 1, 4096, 4096);

		assert_int_equal(jobret_reserve(&t, 1), -ENOSPC);
		assert_int_equal(jobret_add(&t, &e.k, &e.v, 1), -ENOSPC);
	}
	assert_int_equal(jobret_trim(&t, 1, NULL, NULL), JOBIO_RETIRED_MAX);
	jobret_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_match_trim),
		cmocka_unit_test(test_window_across),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
