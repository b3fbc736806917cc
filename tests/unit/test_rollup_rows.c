// SPDX-License-Identifier: GPL-2.0
/*
 * --prom-rollup's rows: a mount's transports summed into one row, checked against the per-transport
 * file of the same history and a golden file, and a row that goes on from its own sum when one of
 * its transports is reaped.
 */
#include "rollfix.h"

#define GOLDEN FIXTURES "/../golden"

static void golden(const char *name, const char *got)
{
	char path[512], *want = malloc(1 << 17);
	size_t wlen;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN, name);
	if (getenv("UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	f = fopen(path, "r");
	assert_non_null(f);
	wlen = fread(want, 1, (1 << 17) - 1, f);
	fclose(f);
	want[wlen] = 0;
	assert_string_equal(got, want);
	free(want);
}

/* the families --prom-rollup sums, with a sample line's labels after the transport's */
static const char *const summed[] = {
	"slotscope_slots_in_use", "slotscope_slot_limit", "slotscope_backlog_tasks",
	"slotscope_credits_granted", "slotscope_credits_in_use", "slotscope_slot_limit_seconds_total",
	"slotscope_slot_busy_seconds_total", "slotscope_slot_acquires_total", "slotscope_slot_handoffs_total",
	"slotscope_slot_idle_held_total", "slotscope_slot_idle_held_seconds_total",
	"slotscope_sends_total", "slotscope_connects_total", "slotscope_retransmissions_total",
	"slotscope_link_busy_bytes_total",
};

/*
 * Rolled up, a mount's row is its transports' series added up (the highest for the peak and the
 * link rate), checked against the per-transport file of the same history; the file is golden.
 */
static void test_rollup_sums(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	const struct prom_mounts rollup = { .rollup = true };
	struct ledger sums = { 0 };
	struct tf_view m;
	char *per, *roll, row[128];

	(void)state;
	mount_table(&mt, mounts_text);
	two_intervals(&m, &sums, f, &mt, NULL);
	per = render(&m, false);
	tf_free(&m);
	ledger_free(&sums);
	two_intervals(&m, &sums, f, &mt, &rollup);
	roll = render(&m, true);
	golden("metrics-rollup.prom", roll);
	/* no transport series and no transport_info; one row per mount with transports, and "" */
	assert_null(strstr(roll, "xprt=\""));
	assert_null(strstr(roll, "slotscope_transport_info"));
	assert_int_equal(count_lines(roll, "slotscope_slot_limit{"), 4);
	assert_int_equal(count_lines(roll, "slotscope_slot_limit{mountpoint=\"/mnt/b\""), 0);
	snprintf(row, sizeof(row), "mountpoint=\"/mnt/a\",server=\"10.0.0.1\"");
	for (size_t i = 0; i < sizeof(summed) / sizeof(summed[0]); i++) {
		char series[256];

		snprintf(series, sizeof(series), "%s{%s}", summed[i], row);
		assert_true(value(roll, series) >= 0);
		assert_true(value(roll, series) == sum_of(per, summed[i], "server=\"10.0.0.1\""));
	}
	/* 16 + 16 slots, 16 + 7 in use; the peak is the busier transport's */
	assert_true(value(roll, "slotscope_slot_limit{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 32);
	assert_true(value(roll, "slotscope_slots_in_use_max{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 16);
	assert_true(value(roll, "slotscope_slot_acquires_total{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 300);
	/* waits, the in-flight curve and the verdict time add up by label too */
	assert_true(sum_of(roll, "slotscope_waits_total", "mountpoint=\"/mnt/a\"") ==
		    sum_of(per, "slotscope_waits_total", "server=\"10.0.0.1\""));
	assert_true(value(roll, "slotscope_inflight_rpcs_total{mountpoint=\"/mnt/a\",server=\"10.0.0.1\",in_flight=\"limit\"}") ==
		    sum_of(per, "slotscope_inflight_rpcs_total", "in_flight=\"limit\""));
	assert_true(sum_of(roll, "slotscope_inflight_rpcs_total", "mountpoint=\"/mnt/a\"") == 2 * (60 + 40 + 50));
	assert_true(sum_of(roll, "slotscope_inflight_rtt_seconds_total", "mountpoint=\"/mnt/a\"") ==
		    sum_of(per, "slotscope_inflight_rtt_seconds_total", "server=\"10.0.0.1\""));
	assert_true(sum_of(roll, "slotscope_verdict_seconds_total", "mountpoint=\"/mnt/a\"") == 2 * 2);
	assert_true(value(roll, "slotscope_wait_duration_seconds_count{mountpoint=\"/mnt/a\",server=\"10.0.0.1\",kind=\"slot\"}") == 60);
	/* the RDMA mount's row exists before its first op; the lost transport under "" */
	assert_true(value(roll, "slotscope_credits_granted{mountpoint=\"/mnt/c\",server=\"10.0.0.3\"}") == 64);
	assert_true(value(roll, "slotscope_slot_acquires_total{mountpoint=\"\",server=\"10.0.0.9\"}") == 4);
	/* the per-mount families and mount_info are the same either way */
	assert_true(value(roll, "slotscope_mount_info{mountpoint=\"/mnt/b\",server=\"10.0.0.1\"}") == 1);
	assert_true(value(roll, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}") ==
		    value(per, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}"));
	free(per);
	free(roll);
	tf_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

/*
 * A mount's two transports, one reaped with its ops: the row goes on from its own sum, where
 * adding up the live transports' sums would drop by the reaped one's.
 */
static void test_transport_leaves(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	struct ledger sums = { 0 };
	struct tf_view m;
	const struct prom_mounts rollup = { .rollup = true };
	struct model_in in = { .span = SPAN_INTERVAL, .mounts = &mt, .prom = &rollup };
	const char *row = "slotscope_slot_acquires_total{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}";
	double before, after;
	char *text;

	(void)state;
	mount_table(&mt, mounts_text);
	scene(&f[0], 10, 0);
	scene(&f[1], 11, 1);
	in.from = &f[0].s;
	in.to = &f[1].s;
	tf_build(&in, &sums, &m);
	text = render(&m, true);
	before = value(text, row);
	free(text);
	assert_int_equal(ledger_add(&sums, &m.m.view, &mt), 0);
	tf_free(&m);
	/* the second transport reaped, its ops with it; the first goes on */
	scene(&f[2], 12, 2);
	f[2].x[1] = f[2].x[--f[2].s.nxprts];
	for (size_t i = 0; i < f[2].s.nops; i++)
		if (f[2].o[i].k.xprt == K_A2)
			f[2].o[i--] = f[2].o[--f[2].s.nops];
	in.from = &f[1].s;
	in.to = &f[2].s;
	tf_build(&in, &sums, &m);
	text = render(&m, true);
	after = value(text, row);
	/* 150 before, then the first transport's 100 more: not 200, the one left's own sum */
	assert_true(before == 150);
	assert_true(after == 250);
	assert_true(value(text, "slotscope_slot_limit{mountpoint=\"/mnt/a\",server=\"10.0.0.1\"}") == 16);
	free(text);
	tf_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rollup_sums),
		cmocka_unit_test(test_transport_leaves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
