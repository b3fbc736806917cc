// SPDX-License-Identifier: GPL-2.0
/* model_build on recorded snapshots: intervals, sessions, levels, marks, the view cache. */
#include "viewfix.h"

static void test_interval(void **state)
{
	struct snapshot prev, cur;
	struct op_snap ops[2];
	struct mount_table mt;
	struct view v;
	const struct xprt_view *x;

	(void)state;
	make_snaps(&prev, &cur);
	ops[0] = os_cur;
	ops[1] = os_other;
	cur.ops = ops;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &mt), 0);
	assert_int_equal(build(&v, &prev, &cur, &mt), 0);
	assert_int_equal(v.nxprts, 1);
	x = &v.xprts[0];
	assert_true(v.interval_s > 0.999 && v.interval_s < 1.001);
	assert_int_equal(x->interval_peak, 16);	/* the slot of epoch 7, not 6 */
	assert_int_equal(x->n.acquires, 140);
	assert_int_equal(x->n.handoffs, 100);
	assert_int_equal(x->n.sends, 140);
	assert_int_equal(x->n.connects, 2);
	assert_true(x->span_ns == 1e9);
	assert_true(x->at_limit_ns == 6e8);
	/* 0.1 s at 2, 0.3 s at 8, 0.6 s at 16 */
	assert_true(x->mean_in_use > 12.19 && x->mean_in_use < 12.21);
	assert_false(x->warming_up);
	assert_int_equal(x->waits[WAIT_SLOT].count, 100);
	assert_true(x->waits[WAIT_SLOT].p50_ns > 2097152 && x->waits[WAIT_SLOT].p50_ns < 4194304);
	/* ops split per mount: /mnt/a by its superblock, the lease client with none */
	assert_int_equal(x->ops, 129);
	assert_int_equal(x->bytes_written, 128 * 1048700ull);
	assert_int_equal(x->nmounts, 2);
	assert_string_equal(x->mounts[0].mountpoint, "/mnt/a");
	assert_null(x->mounts[1].mountpoint);
	view_free(&v);
	mounts_free(&mt);
}

/* no change in an interval: its peak is the level it stayed at */
static void test_quiet_interval_peak(void **state)
{
	struct snapshot prev, cur;
	struct view v;

	(void)state;
	make_snaps(&prev, &cur);
	cur.nops = 0;
	cur.epoch = 9;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.xprts[0].interval_peak, 16);
	view_free(&v);
}

/*
 * A count one past a proven limit (a race between CPUs the next event mends) is shown at the
 * limit; an assumed pool's is not bounded, a higher level being what raises it.
 */
static void test_level_bounded_by_proven_limit(void **state)
{
	struct snapshot prev, cur;
	struct view v;

	(void)state;
	make_snaps(&prev, &cur);
	cur.nops = 0;
	xs_cur.s.peak = 17;
	xs_cur.s.epoch_peak[1] = 17;
	xs_cur.s.in_use = 17;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.xprts[0].peak, 16);
	assert_int_equal(v.xprts[0].interval_peak, 16);
	assert_int_equal(v.xprts[0].in_use_shown, 16);
	view_free(&v);

	make_snaps(&prev, &cur);
	cur.nops = 0;
	xs_cur.s.ident = xs_prev.s.ident = IDENT_RDMA;
	xs_cur.s.flags = xs_prev.s.flags = XF_LIMIT_ASSUMED;
	xs_cur.s.peak = 17;
	xs_cur.s.epoch_peak[1] = 17;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.xprts[0].peak, 17);
	assert_int_equal(v.xprts[0].interval_peak, 17);
	view_free(&v);
}

static void test_warming_up(void **state)
{
	struct snapshot prev, cur;
	struct view v;

	(void)state;
	make_snaps(&prev, &cur);
	cur.nops = 0;
	xs_cur.s.n.preattach_releases = 3;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_true(v.xprts[0].warming_up);
	view_free(&v);
}
/* two clients of one mount (its own and, say, its ACL client): one mount, one series per op */
static void test_one_series_per_mount(void **state)
{
	/* the ACL client has no superblock of its own: it names the client it was made from */
	struct client_snap cls[2] = { cs, { .clid = 4, .ci = { .parent = 3 } } };
	struct snapshot prev, cur;
	struct op_snap ops[2];
	struct mount_table mt;
	const struct xprt_view *x;
	struct view v;
	size_t len, n = 0;
	char *s, *p;

	(void)state;
	make_snaps(&prev, &cur);
	ops[0] = os_cur;
	ops[1] = os_cur;
	ops[1].k.clid = 4;
	ops[1].s.c.count = 10;
	cur.ops = ops;
	cur.nclients = 2;
	cur.clients = cls;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &mt), 0);
	assert_int_equal(build(&v, &prev, &cur, &mt), 0);
	x = &v.xprts[0];
	assert_int_equal(x->nmounts, 1);
	assert_string_equal(x->mounts[0].mountpoint, "/mnt/a");
	assert_int_equal(x->mounts[0].clid, 3);
	assert_int_equal(x->mounts[0].ops, 128 + 10);
	s = render(prom_render, &v, &len);
	for (p = s; (p = strstr(p, "\nslotscope_op_seconds_count{")); p++) {
		n++;
		{
			const char *want = "\nslotscope_op_seconds_count{mountpoint=\"/mnt/a\",op=\"WRITE\","
					   "stage=\"execute\"} ";

			assert_memory_equal(p, want, strlen(want));
		}
	}
	assert_int_equal(n, 1);
	check_cumulative(s);
	free(s);
	view_free(&v);
	mounts_free(&mt);
}

/* a second transport to the same server (nconnect=2): the knob says a higher nconnect, not N */
static void test_nconnect_knob(void **state)
{
	struct xprt_snap xs[2];
	struct snapshot prev, cur;
	struct op_snap ops[1];
	struct verdict d;
	struct view v;

	(void)state;
	make_snaps(&prev, &cur);
	xs[0] = xs_cur;
	xs[1] = xs_cur;
	xs[1].key += 0x1000;
	xs[1].s.id = 5;
	cur.nxprts = 2;
	cur.xprts = xs;
	ops[0] = os_cur;
	cur.ops = ops;
	cur.nops = 1;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.nxprts, 2);
	assert_int_equal(v.xprts[0].id, 4);	/* id order */
	d = v.xprts[0].verdict;
	assert_int_equal(d.cls, V_SLOT);
	assert_non_null(strstr(d.knob, "or a higher nconnect (2 transports to 127.0.0.11 now"));
	view_free(&v);
}

/* "% full" is one number: at the limit over busy time, wherever it is shown (span != busy here) */
static void test_one_full_pct(void **state)
{
	struct snapshot prev, cur;
	struct op_snap ops[2];
	struct mount_table mt;
	struct view v;
	size_t len;
	char *s;

	(void)state;
	make_snaps(&prev, &cur);
	ops[0] = os_cur;
	ops[1] = os_other;
	cur.ops = ops;
	/* one more second with no slot in use: span 2 s, busy 1 s, 0.6 s at the limit */
	xs_cur.s.level_ns[0] += 1000000000ull;
	cur.ts_ns += 1000000000ull;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &mt), 0);
	assert_int_equal(build(&v, &prev, &cur, &mt), 0);
	assert_true(v.xprts[0].span_ns == 2e9 && v.xprts[0].busy_ns == 1e9);
	assert_true(v.xprts[0].full_pct == 60.0);
	assert_true(v.xprts[0].verdict.full_pct == 60.0);
	s = render(out_json, &v, &len);
	assert_non_null(strstr(s, "\"at_limit_pct\":60,"));
	assert_non_null(strstr(s, "\"full_pct\":60,"));
	free(s);
	s = render(out_text, &v, &len);
	assert_non_null(strstr(s, " 60.0% "));
	free(s);
	view_free(&v);
	mounts_free(&mt);
}

/* one RPC's stages add up to its execute time: slot-wait is carved out of the queue time */
static void test_folded_stages_add_up(void **state)
{
	struct snapshot prev, cur;
	struct op_snap ops[1];
	struct view v;
	size_t len;
	double total = 0, slot = 0, queue = 0, us;
	char *s, *line, frame[256];

	(void)state;
	make_snaps(&prev, &cur);
	ops[0] = os_cur;
	ops[0].s.c.sum_ns[STAGE_QUEUE] = 128 * 3000000ull;	/* 384 ms, of which 300 ms slot waits */
	ops[0].s.c.hist[STAGE_QUEUE][21] = 128;
	cur.ops = ops;
	cur.nops = 1;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	s = render(out_folded, &v, &len);
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		assert_int_equal(sscanf(line, "%255s %lf", frame, &us), 2);
		total += us;
		if (strstr(frame, ";slot-wait;"))
			slot += us;
		if (strstr(frame, ";queue;"))
			queue += us;
	}
	/* execute 640 ms = slot-wait 300 + queue 84 + rtt 256 + other 0, to a microsecond a line */
	assert_true(fabs(total - 640000) <= 4);
	assert_true(fabs(slot - 300000) <= 2 && fabs(queue - 84000) <= 2);
	free(s);
	view_free(&v);
}

/* a session made anew at the address of one reaped counts its own slots, not a wrap of the old */
static void test_session_made_anew(void **state)
{
	struct session_snap sp = { .key = 0x5000, .s = { .sequences = 1000, .first_ns = 1 } };
	struct session_snap sc = { .key = 0x5000, .s = { .sequences = 5, .first_ns = 2 } };
	struct snapshot prev = { .ts_ns = 1, .nsessions = 1, .sessions = &sp };
	struct snapshot cur = { .ts_ns = 2, .nsessions = 1, .sessions = &sc };
	struct view v;

	(void)state;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.sessions[0].sequences, 5);
	view_free(&v);
	sc.s.first_ns = 1;
	sc.s.sequences = 1500;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.sessions[0].sequences, 500);
	view_free(&v);
}

/*
 * A session's time against the limit in force (#46): this view's share of its level times, the
 * top bucket at the limit; none where the levels are not known at either end
 */
static void test_session_levels(void **state)
{
	struct session_snap sp = { .key = 0x5000, .s = { .first_ns = 1, .bucket = LEVEL_BUCKETS - 1,
							.limit_changes = 2 } };
	struct session_snap sc = { .key = 0x5000, .s = { .first_ns = 1, .bucket = 3, .limit = 12,
							.limit_min = 4, .limit_max = 30, .limit_changes = 7 } };
	struct snapshot prev = { .ts_ns = 1, .nsessions = 1, .sessions = &sp };
	struct snapshot cur = { .ts_ns = 2, .nsessions = 1, .sessions = &sc };
	struct view v;

	(void)state;
	sp.s.level_ns[0] = 100, sp.s.level_ns[5] = 200, sp.s.level_ns[LEVEL_BUCKETS - 1] = 300;
	sc.s.level_ns[0] = 150, sc.s.level_ns[5] = 250, sc.s.level_ns[LEVEL_BUCKETS - 1] = 1300;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_true(v.sessions[0].levels_known);
	assert_int_equal(v.sessions[0].busy_ns, 1050);
	assert_int_equal(v.sessions[0].at_limit_ns, 1000);
	assert_true(fabs(v.sessions[0].at_limit_pct - 100.0 * 1000 / 1050) < 1e-9);
	assert_int_equal(v.sessions[0].limit_changes, 5);
	view_free(&v);
	/* a read torn at either end (or no free hooked): no level time, not a made-up one */
	sp.s.bucket = LEVEL_BUCKETS;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_false(v.sessions[0].levels_known);
	assert_int_equal(v.sessions[0].busy_ns, 0);
	view_free(&v);
}

/* a transport reaped and a new one at its address: its ops count from zero, not from the old's */
static void test_op_under_reused_address(void **state)
{
	struct xprt_snap xp = { .key = 0x7000, .s = { .id = 1, .first_seen_ns = 10, .limit = 16 } };
	struct xprt_snap xc = { .key = 0x7000, .s = { .id = 1, .first_seen_ns = 20, .limit = 16 } };
	struct op_snap op = { .k = { .xprt = 0x7000, .clid = 3, .prog = 100003, .vers = 3, .proc = 7 },
			      .s = { .name = "WRITE", .c = { .count = 100, .bytes_sent = 100 << 20 } } };
	struct op_snap oc = op;
	struct snapshot prev = { .ts_ns = 1, .nxprts = 1, .xprts = &xp, .nops = 1, .ops = &op };
	struct snapshot cur = { .ts_ns = 2, .nxprts = 1, .xprts = &xc, .nops = 1, .ops = &oc };
	struct view v;

	(void)state;
	oc.s.c.count = 30;
	oc.s.c.bytes_sent = 30 << 20;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.ops[0].count, 30);
	assert_int_equal(v.ops[0].bytes_sent, 30 << 20);
	view_free(&v);
	/* the same transport: the difference */
	xc.s.first_seen_ns = 10;
	oc.s.c.count = 130;
	assert_int_equal(build(&v, &prev, &cur, NULL), 0);
	assert_int_equal(v.ops[0].count, 30);
	view_free(&v);
}

/* a copy torn by a concurrent event reads one stretch high, then low: never below the last read */
static void test_level_marks(void **state)
{
	struct xprt_snap a = { .key = 0x7000, .s = { .first_seen_ns = 10 } }, b = a, c = a;
	struct snapshot s1 = { .nxprts = 1, .xprts = &a }, s2 = { .nxprts = 1, .xprts = &b };
	struct snapshot s3 = { .nxprts = 1, .xprts = &c };
	struct level_marks m = { 0 };

	(void)state;
	a.s.level_ns[LEVEL_BUCKETS - 1] = 900;		/* 300 of it counted twice */
	b.s.level_ns[LEVEL_BUCKETS - 1] = 700;		/* the truth */
	b.s.level_ns[0] = 50;
	assert_int_equal(level_marks_apply(&m, &s1), 0);
	assert_int_equal(level_marks_apply(&m, &s2), 0);
	assert_int_equal(b.s.level_ns[LEVEL_BUCKETS - 1], 900);
	assert_int_equal(b.s.level_ns[0], 50);
	/* a new transport at the address starts from its own */
	c.s.first_seen_ns = 20;
	c.s.level_ns[LEVEL_BUCKETS - 1] = 5;
	assert_int_equal(level_marks_apply(&m, &s3), 0);
	assert_int_equal(c.s.level_ns[LEVEL_BUCKETS - 1], 5);
	level_marks_free(&m);
}

/*
 * Ops of no known mount are one mount whose mountpoint is NULL, never "": a window's job scan
 * takes the view's mountpoints as path prefixes, and "" would take in every process.
 */
static void test_no_mount_is_null(void **state)
{
	struct xprt_snap x = { .key = 1, .s = { .id = 1, .limit = 16, .first_seen_ns = 1 } };
	struct op_snap ops[3] = {
		{ .k = { .xprt = 1, .clid = 3, .proc = 7 }, .s = { .name = "WRITE", .c.count = 1 } },
		{ .k = { .xprt = 1, .clid = 9, .proc = 1 }, .s = { .name = "RENEW", .c.count = 1 } },
		{ .k = { .xprt = 1, .clid = 10, .proc = 1 }, .s = { .name = "RENEW", .c.count = 1 } },
	};
	struct snapshot prev = { .ts_ns = 1 };
	struct snapshot cur = { .ts_ns = 1000000001ull, .nxprts = 1, .xprts = &x, .nops = 3, .ops = ops,
				.nclients = 1, .clients = &cs };
	struct mount_table mt;
	struct view v;

	(void)state;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &mt), 0);
	assert_int_equal(build(&v, &prev, &cur, &mt), 0);
	assert_int_equal(v.nmounts, 2);
	assert_string_equal(v.mounts[0].mountpoint, "/mnt/a");
	assert_null(v.mounts[1].mountpoint);
	assert_int_equal(v.mounts[1].other_ops, 2);
	assert_int_equal(v.nmops, 2);
	assert_null(v.mops[1].mountpoint);
	assert_int_equal(v.mops[1].count, 2);
	/* the transport's split by the same rule: two clients of no mount are one row */
	assert_int_equal(v.xprts[0].nmounts, 2);
	assert_null(v.xprts[0].mounts[1].mountpoint);
	assert_int_equal(v.xprts[0].mounts[1].ops, 2);
	view_free(&v);
	mounts_free(&mt);
}

/* the kept arrays follow the load: an oversized one is not handed out, an unused one ages out */
static void test_view_cache_follows_load(void **state)
{
	struct view_arena arena = { 0 }, *a = &arena;
	void *big, *small, *p;
	size_t kept;

	(void)state;
	assert_int_equal(view_arena_bytes(a), 0);
	big = view_alloc(a, 1 << 20, 1, false);
	small = view_alloc(a, 1000, 1, true);
	assert_non_null(big);
	assert_non_null(small);
	view_release(a, big);
	view_release(a, small);
	kept = view_arena_bytes(a);
	assert_true(kept >= (1 << 20) + 1000);
	/* the best fit: the small one, the big one stays */
	p = view_alloc(a, 900, 1, false);
	assert_ptr_equal(p, small);
	assert_int_equal(view_arena_bytes(a), kept - malloc_usable_size(small));
	view_release(a, p);
	/* 100 KiB from a 1 MiB array: more than twice over, so the request is its own, the big one kept */
	p = view_alloc(a, 100 << 10, 1, false);
	assert_non_null(p);
	assert_ptr_not_equal(p, big);
	assert_int_equal(view_arena_bytes(a), kept);
	view_release(a, p);
	kept = view_arena_bytes(a);
	assert_true(kept >= (1 << 20) + (100 << 10) + 1000);
	/* 600 KiB: the big one, within twice */
	p = view_alloc(a, 600 << 10, 1, false);
	assert_ptr_equal(p, big);
	view_release(a, p);
	/* taken again within the ticks, an array is kept; not taken, it goes */
	for (int t = 0; t < 6; t++)
		view_arena_tick(a);
	p = view_alloc(a, 1000, 1, false);
	assert_ptr_equal(p, small);
	view_release(a, p);
	for (int t = 0; t < 3; t++)
		view_arena_tick(a);
	/* the 1 MiB and 100 KiB arrays, untaken for 9 ticks, went; the small one, taken 3 ticks ago, stays */
	assert_int_equal(view_arena_bytes(a), malloc_usable_size(small));
	for (int t = 0; t < 6; t++)
		view_arena_tick(a);
	assert_int_equal(view_arena_bytes(a), 0);
	/* no arena: plain malloc and free, nothing kept */
	p = view_alloc(NULL, 1000, 1, true);
	assert_non_null(p);
	view_release(NULL, p);
	view_arena_free(a);
}

/*
 * Link answers of gone transports are bounded by count, not only by time: 200 transports come and
 * go one a tick (per-job mounts), the live one is always answered, 64 gone ones are kept.
 */
static void test_linkmap_forgets_gone(void **state)
{
	struct xprt_snap x = { 0 };
	struct snapshot s = { .nxprts = 1, .xprts = &x };
	struct linkmap lm;
	struct link_path p;

	(void)state;
	linkmap_init(&lm, FIXTURES, FIXTURES);
	strcpy(x.s.addr, "192.168.7.2");
	strcpy(x.s.port, "2049");
	x.s.ident = IDENT_TCP;
	for (unsigned int i = 0; i < 200; i++) {
		x.key = 1000 + i;
		x.s.first_seen_ns = 5000 + i;
		assert_int_equal(linkmap_update(&lm, &s), 0);
		assert_true(lm.n <= 64 + 1);
	}
	assert_int_equal(lm.n, 64 + 1);
	/* the live one, and the last gone ones, are still answered; the first is forgotten */
	assert_int_equal(linkmap_get(&lm, 1199, 5199, &p), 0);
	assert_int_equal(linkmap_get(&lm, 1199 - 64, 5199 - 64, &p), 0);
	assert_int_equal(linkmap_get(&lm, 1199 - 65, 5199 - 65, &p), -ENOENT);
	linkmap_free(&lm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_quiet_interval_peak),
		cmocka_unit_test(test_level_bounded_by_proven_limit),
		cmocka_unit_test(test_warming_up),
		cmocka_unit_test(test_folded_stages_add_up),
		cmocka_unit_test(test_one_full_pct),
		cmocka_unit_test(test_one_series_per_mount),
		cmocka_unit_test(test_nconnect_knob),
		cmocka_unit_test(test_session_made_anew),
		cmocka_unit_test(test_session_levels),
		cmocka_unit_test(test_op_under_reused_address),
		cmocka_unit_test(test_level_marks),
		cmocka_unit_test(test_no_mount_is_null),
		cmocka_unit_test(test_view_cache_follows_load),
		cmocka_unit_test(test_linkmap_forgets_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
