// SPDX-License-Identifier: GPL-2.0
/* Checkpoint windows (ckpt.c) as a table of interval sequences: when a burst starts and ends,
 * which snapshots bound it, and what it says about saturation and the link. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "model/window.h"
#include "out/output.h"

#define MB 1000000.0

/* one interval of 1 s on one transport: MB/s written, seconds at the limit, peak, link Gb/s */
struct step {
	double mbps, at_limit_s;
	__u32 peak;
	double tx_gbps;
	enum window_event want;
	bool slot_bound;		/* the interval's verdict */
};

struct feed {
	size_t wall_step_at;		/* from this step on, the wall clock is 500 s behind */
	struct window c;
	struct snapshot snaps[16];
	struct xprt_snap xs[16];
};

/* @n snapshots a second apart, each of one transport (0xabc): what the intervals run between */
static void one_xprt_snaps(struct snapshot *snaps, struct xprt_snap *xs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		xs[i].key = 0xabc;
		snaps[i].ts_ns = (__u64)(i + 1) * 1000000000ull;
		snaps[i].nxprts = 1;
		snaps[i].xprts = &xs[i];
	}
}

/* feed @n steps to a fresh window (threshold 100 MB/s, 2 quiet intervals end a burst) */
static void run(struct feed *f, const struct step *s, size_t n)
{
	struct window_opts o = { .threshold_Bps = 100 * MB, .restore_threshold_Bps = 100 * MB,
			       .quiet_intervals = 2, .no_jobs = true };

	window_init(&f->c, &o, WIN_CHECKPOINT);
	memset(f->snaps, 0, sizeof(f->snaps));
	one_xprt_snaps(f->snaps, f->xs, n + 1);
	for (size_t i = 0; i < n; i++) {
		struct xprt_view x = { .key = 0xabc, .interval_peak = s[i].peak };
		struct view v = { .interval_s = 1, .ts_s = (double)i + 2, .nxprts = 1, .xprts = &x };

		x.bytes_written = v.bytes_written = (__u64)(s[i].mbps * MB);
		x.at_limit_ns = s[i].at_limit_s * 1e9;
		/* the model's rule (xprt_figures()): half of the 1 s interval at the limit */
		x.saturated = s[i].at_limit_s >= 0.5;
		x.link.tx_gbps = x.link.gbps = s[i].tx_gbps;
		x.verdict.cls = s[i].slot_bound ? V_SLOT : V_CLIENT;
		x.link.rate_gbps = 10;
		assert_int_equal(window_step(&f->c, &v, &f->snaps[i], &f->snaps[i + 1], NULL, NULL,
					   f->wall_step_at && i >= f->wall_step_at ? 500.0 + (double)i :
					   1000.0 + (double)i + 1), s[i].want);
	}
}

/*
 * --window-max: a burst longer than it is windows of it, each ended busy (cut) and the next
 * begun at the interval after, so that nothing is dropped between them; a quiet end is no cut.
 */
static void test_window_max(void **state)
{
	struct window_opts o = { .threshold_Bps = 100 * MB, .restore_threshold_Bps = 100 * MB,
			       .quiet_intervals = 2, .max_s = 5, .no_jobs = true };
	static const enum window_event want[] = {
		WIN_STARTED, WIN_NONE, WIN_NONE, WIN_NONE, WIN_ENDED,
		WIN_STARTED, WIN_NONE, WIN_NONE, WIN_NONE, WIN_ENDED,
		WIN_STARTED, WIN_NONE, WIN_NONE, WIN_ENDED, WIN_NONE,
	};
	struct snapshot snaps[16] = { 0 };
	struct xprt_snap xs[16] = { 0 };
	struct window c;
	double bytes = 0, secs = 0;

	(void)state;
	window_init(&c, &o, WIN_CHECKPOINT);
	one_xprt_snaps(snaps, xs, 16);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		/* twelve busy intervals, then quiet ones */
		__u64 b = i < 12 ? 300 * MB : 0;
		struct xprt_view x = { .key = 0xabc, .bytes_written = b };
		struct view v = { .interval_s = 1, .ts_s = (double)i + 2, .nxprts = 1, .xprts = &x,
				  .bytes_written = b };
		enum window_event ev = window_step(&c, &v, &snaps[i], &snaps[i + 1], NULL, NULL, 1000.0 + (double)i + 1);

		assert_int_equal(ev, want[i]);
		if (ev != WIN_ENDED)
			continue;
		assert_true(c.cut == (i != 13));
		bytes += c.ended.bytes;
		secs += c.ended.secs;
	}
	/* the windows hold every busy interval, once: 5 + 5 + 2 s */
	assert_true(secs == 12 && bytes == 12 * 300.0 * MB);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.started, 3);
	window_free(&c);
}

/*
 * Restores: read bursts, with their own threshold, beside the checkpoint detector fed the same
 * intervals. Reads never start a checkpoint; writes crossing theirs during a restore make it mixed.
 */
static void test_restore_windows(void **state)
{
	/* MB/s read, MB/s written */
	static const double rw[][2] = { { 0, 0 }, { 300, 0 }, { 300, 60 }, { 0, 0 }, { 0, 0 }, { 0, 0 } };
	static const enum window_event want_r[] = { WIN_NONE, WIN_STARTED, WIN_NONE, WIN_NONE, WIN_ENDED, WIN_NONE };
	struct window_opts o = { .threshold_Bps = 50 * MB, .restore_threshold_Bps = 200 * MB,
			       .quiet_intervals = 2, .no_jobs = true };
	struct snapshot snaps[7] = { 0 };
	struct xprt_snap xs[7] = { 0 };
	struct window r, w;
	struct window_view cv;

	(void)state;
	window_init(&r, &o, WIN_RESTORE);
	window_init(&w, &o, WIN_CHECKPOINT);
	one_xprt_snaps(snaps, xs, 7);
	for (size_t i = 0; i < 6; i++) {
		struct xprt_view x = { .key = 0xabc, .bytes_read = (__u64)(rw[i][0] * MB),
				       .bytes_written = (__u64)(rw[i][1] * MB) };
		struct view v = { .interval_s = 1, .ts_s = (double)i + 2, .nxprts = 1, .xprts = &x,
				  .bytes_read = x.bytes_read, .bytes_written = x.bytes_written };

		assert_int_equal(window_step(&r, &v, &snaps[i], &snaps[i + 1], NULL, NULL, 1000.0 + (double)i + 1),
				 want_r[i]);
		/* 60 MB/s of writes cross the checkpoint threshold for one interval */
		assert_int_equal(window_step(&w, &v, &snaps[i], &snaps[i + 1], NULL, NULL, 1000.0 + (double)i + 1),
				 i == 2 ? WIN_STARTED : i == 4 ? WIN_ENDED : WIN_NONE);
	}
	assert_int_equal(r.n, 1);
	assert_true(r.ended.secs == 2 && r.ended.bytes == 600 * MB);
	assert_true(r.mixed);
	assert_true(w.ended.bytes == 60 * MB);
	/* the checkpoint saw reads over the restore threshold in its interval: mixed too */
	assert_true(w.mixed);
	{
		struct xprt_view x = { .key = 0xabc, .bytes_read = 600 * MB, .bytes_written = 60 * MB };
		struct view v = { .nxprts = 1, .xprts = &x, .bytes_read = 600 * MB, .bytes_written = 60 * MB };

		window_view(&r, &v, &cv);
		assert_int_equal(cv.kind, WIN_RESTORE);
		assert_true(cv.bytes_read == 600 * MB && cv.bytes_written == 60 * MB);
		assert_true(cv.secs == 2 && cv.GBps == 0.3);
		assert_null(cv.jobs);
	}
	assert_string_equal(win_kind_names[r.kind], "restore");
	window_free(&r);
	window_free(&w);
}

/* A window's text and JSON name its kind, its direction's bytes, whether it was mixed, its jobs */
static void test_window_render(void **state)
{
	struct win_job j[2] = {
		{ .id = { .kind = "slurm", .id = "4242", .step = "0", .uid = JOB_UNKNOWN_UID }, .uid = 1000,
		  .user = "alice", .nprocs = 3, .bytes = 300, .rpc_bytes = 330, .share = 0.75, .rpcs = 12, .rpc_s = 8,
		  .cause_rpc_s = { [JS_SLOT] = 6, [JS_RTT] = 2 }, .active_s = 4, .cause_s = { [JS_SLOT] = 3, [JS_RTT] = 1 } },
		{ .id = { .kind = "kubernetes", .id = "3f1c", .uid = JOB_UNKNOWN_UID }, .uid = JOB_UNKNOWN_UID,
		  .nprocs = 1, .bytes = 100, .rpc_bytes = 110, .share = 0.25 },
	};
	struct win_jobs js = { .j = j, .nj = 2 }, none = { 0 };
	struct window_view cv = { .kind = WIN_RESTORE, .n = 2, .mixed = true, .secs = 4,
				.bytes_read = 8 * 1048576, .GBps = 0.002, .jobs = &js };
	struct view v = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	out_window_text(f, &v, &cv);
	cv.jobs = &none;
	cv.kind = WIN_CHECKPOINT;
	cv.mixed = false;
	out_window_text(f, &v, &cv);
	cv.jobs = &js;
	out_window_json(f, &v, &cv);
	fclose(f);
	assert_non_null(strstr(buf, "Restore 2: "));
	assert_non_null(strstr(buf, "8.0 MiB read, 0.002 GB/s (mixed: writes too)"));
	assert_non_null(strstr(buf, "  job: slurm 4242 step 0, user alice, 3 processes, 75% of their RPC bytes\n"));
	assert_non_null(strstr(buf, "    its 12 RPCs, its 4.0 s of the window by cause: slot 3.0 rtt 1.0\n"));
	assert_non_null(strstr(buf, "  job: kubernetes 3f1c, 1 process, 25% of their RPC bytes\n"));
	assert_null(strstr(buf, "its 0 RPCs"));
	assert_non_null(strstr(buf, "Checkpoint 2: "));
	assert_non_null(strstr(buf, "  job: unknown (no process seen using its mounts)\n"));
	assert_non_null(strstr(buf, "\"type\":\"checkpoint\",\"schema\":2,\"kind\":\"checkpoint\",\"n\":2"));
	assert_non_null(strstr(buf, "\"job\":{\"kind\":\"slurm\",\"id\":\"4242\"}"));
	assert_non_null(strstr(buf, "{\"kind\":\"kubernetes\",\"id\":\"3f1c\",\"step\":null,\"uid\":null,\"user\":null,"
				    "\"processes\":1,\"io_bytes\":100,\"rpc_bytes\":110,\"share\":0.25,\"rpcs\":0,"));
	assert_non_null(strstr(buf, "\"rpcs\":12,\"rpc_seconds\":{\"total\":8,\"slot\":6,\"send\":0,\"session\":0,"
				    "\"delay\":0,\"rtt\":2,\"other\":0},\"active_s\":4,\"seconds\":{\"slot\":3,\"send\":0,"));
	free(buf);
}

static void test_quiet_never_starts(void **state)
{
	static const struct step s[] = {
		{ 10, 0, 2, 0, WIN_NONE, false }, { 99.9, 0, 2, 0, WIN_NONE, false }, { 0, 0, 0, 0, WIN_NONE, false },
	};
	struct feed *f = calloc(1, sizeof(*f));

	(void)state;
	run(f, s, 3);
	assert_false(window_finish(&f->c, 2000, 100));
	assert_int_equal(f->c.n, 0);
	assert_int_equal(f->c.started, 0);
	assert_true(f->c.total.secs == 0 && f->c.total.bytes == 0 && f->c.ended_wall == 0);
	window_free(&f->c);
	free(f);
}

static void test_burst_bounds(void **state)
{
	static const struct step s[] = {
		{ 0, 0, 0, 0, WIN_NONE, false },
		{ 500, 0.9, 16, 1, WIN_STARTED, true },	/* snapshots 1 .. 2 */
		{ 500, 0.2, 12, 1, WIN_NONE, false },		/* below half the interval: not saturated */
		{ 10, 0, 3, 0, WIN_NONE, false },		/* quiet 1 */
		{ 10, 0, 0, 0, WIN_ENDED, false },		/* quiet 2: the burst is 1 .. 3 */
	};
	struct feed *f = calloc(1, sizeof(*f));
	double secs;

	(void)state;
	run(f, s, 5);
	assert_int_equal(f->c.n, 1);
	assert_false(f->c.active);
	assert_int_equal(f->c.start.ts_ns, 2000000000ull);
	assert_int_equal(f->c.last.ts_ns, 4000000000ull);
	assert_true(f->c.start_wall == 1001.0 && f->c.end_wall == 1003.0);
	/* saturated 1 s of it, moving 1 Gb/s over a 10 Gb/s link */
	assert_true(window_sat_util(&f->c, 0xabc, &secs) == 10.0);
	assert_true(secs == 1.0);
	assert_true(window_sat_util(&f->c, 0xdef, &secs) == -1 && secs == 0);
	/* the sums: the two busy seconds, not the quiet tail; one of them slot-bound */
	assert_int_equal(f->c.started, 1);
	assert_true(f->c.total.secs == 2 && f->c.total.bytes == 1000 * MB);
	assert_true(f->c.total.slot_bound_secs == 1);
	assert_true(f->c.ended.secs == 2 && f->c.ended.bytes == 1000 * MB && f->c.ended.slot_bound_secs == 1);
	assert_true(f->c.ended_wall == 1003.0);
	assert_false(window_finish(&f->c, 2000, 100));
	window_free(&f->c);
	free(f);
}

/*
 * Where a window's jobs count from and to. Each interval: MB/s the RPCs wrote (the window's
 * rule) and the write calls' bytes (jobio) it moved. From where the calls last stood still for an
 * interval, if within WINDOW_LEAD_MAX intervals of the start, else the snapshot one interval
 * before it; to the quiet tail's last interval with calls, else the last busy one.
 */
struct lead_case {
	const char *name;
	size_t n;
	double mbps[16];
	__u64 calls_mb[16];		/* the write calls' MB in the interval */
	int from, to;			/* snapshot indexes (interval i runs from i to i + 1); -1: none */
	enum window_event last;		/* the last interval's event */
};

static void test_jobs_lead_tail(void **state)
{
	static const struct lead_case cases[] = {
		{ "slow start, calls in quiet intervals", 6, { 0, 1, 1, 500, 1, 0 }, { 0, 1, 1, 500, 1, 0 },
		  1, 5, WIN_ENDED },
		{ "busy at once after a still interval", 4, { 0, 500, 0, 0 }, { 0, 500, 0, 0 }, 1, -1, WIN_ENDED },
		{ "calls in the interval before the RPCs", 4, { 0, 0, 500, 0 }, { 0, 3, 497, 0 }, 1, -1, WIN_NONE },
		{ "never still: one interval before", 4, { 1, 1, 500, 0 }, { 1, 1, 500, 0 }, 1, -1, WIN_NONE },
		{ "a lead-in over WINDOW_LEAD_MAX intervals: one before", 12,
		  { 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 500, 0 }, { 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 500, 0 },
		  9, -1, WIN_NONE },
		{ "a still tail: the last busy interval", 3, { 500, 0, 0 }, { 500, 0, 0 }, -1, -1, WIN_ENDED },
		/* the first window counts to 3 (its tail's calls): the next one from there, not from 2 */
		{ "back to back: from where the last one's count ended", 4, { 500, 0, 5, 500 },
		  { 500, 0, 5, 500 }, 3, -1, WIN_STARTED },
		{ "open at the end with a tail's calls (then finished: to the end)", 3, { 0, 500, 5 },
		  { 0, 500, 5 }, 1, 3, WIN_NONE },
	};
	struct window_opts o = { .threshold_Bps = 100 * MB, .restore_threshold_Bps = 100 * MB,
			       .quiet_intervals = 2, .no_jobs = true };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct lead_case *lc = &cases[c];
		struct snapshot snaps[17] = { 0 };
		struct jobio_snap j[17];
		struct snapshot none = { 0 };
		struct window w;
		enum window_event ev = WIN_NONE;
		__u64 sum = 0;

		window_init(&w, &o, WIN_CHECKPOINT);
		for (size_t i = 0; i <= lc->n; i++) {
			j[i] = (struct jobio_snap){ .k = { .cgid = 7, .dir = JOB_WRITE },
						    .v = { .bytes = sum, .calls = sum / 65536 } };
			snaps[i] = (struct snapshot){ .ts_ns = (__u64)(i + 1) * 1000000000ull,
						      .jobio = &j[i], .njobio = 1 };
			if (i < lc->n)
				sum += lc->calls_mb[i] * (__u64)MB;
		}
		for (size_t i = 0; i < lc->n; i++) {
			struct view v = { .interval_s = 1, .ts_s = (double)i + 2 };

			v.bytes_written = (__u64)(lc->mbps[i] * MB);
			ev = window_step(&w, &v, &snaps[i], &snaps[i + 1], NULL, NULL, 1000.0 + (double)i);
			assert_int_equal(window_jobs_track(&w, ev, i ? &snaps[i - 1] : &none, &snaps[i],
							   &snaps[i + 1]), 0);
		}
		print_message("%s\n", lc->name);
		assert_int_equal(ev, lc->last);
		assert_int_equal(w.jobs_from.ts_ns, lc->from < 0 ? 0 : snaps[lc->from].ts_ns);
		assert_int_equal(w.jobs_to.ts_ns, lc->to < 0 ? 0 : snaps[lc->to].ts_ns);
		if (lc->from >= 0) {
			assert_int_equal(w.jobs_from.njobio, 1);
			assert_ptr_not_equal(w.jobs_from.jobio, &j[lc->from]);
			assert_int_equal(w.jobs_from.jobio[0].v.bytes, j[lc->from].v.bytes);
		}
		/* the trace's end is an open window's: its jobs count to the caller's last snapshot */
		if (w.active) {
			assert_true(window_finish(&w, 2000, 100));
			assert_int_equal(w.jobs_to.ts_ns, 0);
		}
		window_free(&w);
		assert_null(w.jobs_from.jobio);
		assert_null(w.jobs_to.jobio);
		assert_null(w.lead.jobio);
	}
}

static void test_hysteresis_one_burst(void **state)
{
	static const struct step s[] = {
		{ 200, 0, 4, 0, WIN_STARTED, false },
		{ 0, 0, 0, 0, WIN_NONE, false },		/* one quiet interval does not end it */
		{ 300, 0, 9, 0, WIN_NONE, false },
		{ 0, 0, 0, 0, WIN_NONE, false },
		{ 0, 0, 0, 0, WIN_ENDED, false },
		{ 0, 0, 0, 0, WIN_NONE, false },
	};
	struct feed *f = calloc(1, sizeof(*f));
	struct window_peak pk[WINDOW_SAT_MAX];
	double secs;

	(void)state;
	run(f, s, 6);
	assert_int_equal(f->c.n, 1);
	assert_int_equal(f->c.last.ts_ns, 4000000000ull);
	/* a quiet interval inside the window counts once it turns busy again; the tail never */
	assert_true(f->c.total.secs == 3 && f->c.total.bytes == 500 * MB);
	assert_true(f->c.ended.secs == 3 && f->c.total.slot_bound_secs == 0);
	/* never saturated: no link figure, and the window's peak is the burst's */
	assert_true(window_sat_util(&f->c, 0xabc, &secs) == -1 && secs == 0);
	assert_int_equal(window_peaks(&f->c, pk), 1);
	assert_true(pk[0].key == 0xabc);
	assert_int_equal(pk[0].peak, 9);
	window_free(&f->c);
	free(f);
}

static void test_open_burst_ends_with_trace(void **state)
{
	static const struct step s[] = {
		{ 1000, 1, 128, 0, WIN_STARTED, false }, { 1000, 1, 128, 0, WIN_NONE, false },
	};
	struct feed *f = calloc(1, sizeof(*f));
	double secs;

	(void)state;
	run(f, s, 2);
	/* the open window counts while open */
	assert_int_equal(f->c.started, 1);
	assert_true(f->c.total.secs == 2 && f->c.n == 0);
	assert_true(window_finish(&f->c, 1005.5, 3.5));
	assert_int_equal(f->c.n, 1);
	assert_true(f->c.end_wall == 1005.5 && f->c.ended_wall == 1005.5 && f->c.ended.secs == 2);
	assert_false(window_finish(&f->c, 1006, 4));
	/* saturated both seconds; no link bytes: 0 % of a known rate */
	assert_true(window_sat_util(&f->c, 0xabc, &secs) == 0.0 && secs == 2.0);
	window_free(&f->c);
	free(f);
}

/* the wall clock stepped back 500 s in the middle of a burst: its duration is the monotonic one */
static void test_wall_clock_step(void **state)
{
	static const struct step s[] = {
		{ 500, 0, 4, 0, WIN_STARTED, false }, { 500, 0, 4, 0, WIN_NONE, false },
		{ 500, 0, 4, 0, WIN_NONE, false }, { 0, 0, 0, 0, WIN_NONE, false },
		{ 0, 0, 0, 0, WIN_ENDED, false },
	};
	struct feed *f = calloc(1, sizeof(*f));
	struct xprt_view x = { .key = 0xabc };
	struct view v = { .nxprts = 1, .xprts = &x };
	struct window_view cv;

	(void)state;
	f->wall_step_at = 2;
	run(f, s, 5);
	assert_int_equal(f->c.n, 1);
	window_view(&f->c, &v, &cv);
	assert_true(cv.secs == 3.0);
	assert_true(cv.start_wall == 1000.0 && cv.end_wall == 502.0);
	window_free(&f->c);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_never_starts),
		cmocka_unit_test(test_restore_windows),
		cmocka_unit_test(test_window_max),
		cmocka_unit_test(test_window_render),
		cmocka_unit_test(test_burst_bounds),
		cmocka_unit_test(test_hysteresis_one_burst),
		cmocka_unit_test(test_jobs_lead_tail),
		cmocka_unit_test(test_open_burst_ends_with_trace),
		cmocka_unit_test(test_wall_clock_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
