// SPDX-License-Identifier: GPL-2.0
/* The renderers of a model-built view against golden files: JSON, text, textfile, folded, SVG. */
#include "prom/totals.h"
#include "viewfix.h"

static void golden(const char *name, const char *got, size_t len)
{
	char path[512], *want;
	size_t wlen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN, name);
	if (getenv("UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fwrite(got, 1, len, f);
		fclose(f);
	}
	f = fopen(path, "r");
	assert_non_null(f);
	want = malloc(1 << 16);
	wlen = fread(want, 1, 1 << 16, f);
	fclose(f);
	want[wlen] = 0;
	assert_string_equal(got, want);
	free(want);
}

static void svg_render(FILE *f, const struct view *v)
{
	struct heat_column cols[3] = { { .wall = 10 }, { .wall = 11 }, { .wall = 12 } };

	cols[0].buckets[20] = 5;
	cols[1].buckets[21] = 50;
	cols[2].buckets[25] = 1;
	out_svg(f, v, &(struct heat_map){ .cols = cols, .n = 3, .cap = 3, .span = 1, .fill = 1 });
}


/* the exposition of @v with @totals as the sums, with or without --prom-detail and --prom-user */
static char *render_sums(const struct view *v, const struct view *totals, bool detail, bool user,
			 size_t *len)
{
	char *s;

	prom_totals = totals;
	prom_detail = detail;
	prom_user = user;
	s = render(prom_render, v, len);
	prom_totals = NULL;
	prom_detail = false;
	prom_user = true;
	return s;
}

static void test_golden_outputs(void **state)
{
	struct snapshot prev, cur;
	struct op_snap ops[2];
	struct mount_table mt;
	struct link_sample la, lb;
	struct model_in in, earlier;
	struct model_out m;
	struct textfile_in tin;
	struct view totals;
	struct ledger sums = { 0 };
	struct linkmap lm;
	struct view v;
	size_t len;
	char *s;

	(void)state;
	make_snaps(&prev, &cur);
	xs_cur.s.n.preattach_releases = 0;
	ops[0] = os_cur;
	ops[1] = os_other;
	cur.ops = ops;
	assert_int_equal(mounts_load(&(struct mount_src){ .procfs_root = FIXTURES, .pid = "self" }, &mt), 0);
	/* links from the fixture trees, two seconds apart: every RDMA metric family appears */
	assert_int_equal(link_sample(FIXTURES "/links/t0", NULL, 0, NULL, &la), 0);
	assert_int_equal(link_sample(FIXTURES "/links/t1", NULL, 0, NULL, &lb), 0);
	lb.ts_ns = la.ts_ns + 2000000000ull;
	/* the TCP transport's connection while it queued (tcpwatch.h): its sums, new in this interval */
	lb.tcp = calloc(1, sizeof(*lb.tcp));
	assert_non_null(lb.tcp);
	lb.ntcp = 1;
	lb.tcp[0] = (struct tcp_conn_stat){ .key = cur.xprts[0].key, .first_seen = cur.xprts[0].s.first_seen_ns,
		.family = AF_INET, .dport = 2049, .sport = 709, .busy_us = 1500000, .rwnd_us = 250000,
		.sndbuf_us = 100000, .retrans = 2, .segs_out = 1200, .read_us = 2000000 };
	linkmap_init(&lm, FIXTURES, FIXTURES);
	assert_int_equal(linkmap_update(&lm, &cur), 0);
	in = (struct model_in){ .span = SPAN_INTERVAL, .from = &prev, .to = &cur, .lfrom = &la, .lto = &lb,
				.tfrom = &la, .tto = &lb, .mounts = &mt, .paths = &lm,
				.tun = { .tcp_max_slots = 16, .rdma_slots = 128, .max_session_slots = 64 },
				 };
	earlier = in;
	assert_int_equal(model_build(&earlier, &m), 0);
	assert_int_equal(ledger_add(&sums, &m.view, &mt), 0);
	model_out_free(&m);
	assert_int_equal(model_build(&in, &m), 0);
	/* the textfile's sums before this interval (an earlier one, replayed), this one added */
	tin = (struct textfile_in){ .sums = &sums, .iv = &m.view, .mounts = &mt, .lstart = &la, .lto = &lb };
	assert_int_equal(textfile_totals(&tin, &totals), 0);
	v = m.view;
	s = render(out_json, &v, &len);
	golden("interval.json", s, len);
	free(s);
	s = render(out_text, &v, &len);
	golden("interval.txt", s, len);
	/* the table fits 100 columns */
	for (char *line = s, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		assert_true(nl - line <= 100);
	}
	free(s);
	s = render_sums(&v, &totals, false, true, &len);
	golden("metrics.prom", s, len);
	check_cumulative(s);
	assert_non_null(strstr(s, "le=\"+Inf\""));
	/* two intervals summed: a second in each verdict, twice the interval's acquires */
	assert_non_null(strstr(s, "slotscope_verdict_seconds_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",class=\"slot-bound\"} 2.000000\n"));
	assert_non_null(strstr(s, "slotscope_slot_acquires_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\"} 280\n"));
	/* the in-flight curve's RPCs and RTT by default (a fleet's per-transport mean RTT), not its execute */
	assert_non_null(strstr(s, "slotscope_inflight_rpcs_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"limit\"} 200\n"));
	assert_non_null(strstr(s, "slotscope_inflight_rtt_seconds_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"limit\"} 0.420000000\n"));
	assert_null(strstr(s, "slotscope_inflight_execute_seconds_total"));
	/* the mount joined to its server, as the transports spell it */
	assert_non_null(strstr(s, "slotscope_mount_info{mountpoint=\"/mnt/a\",server=\"127.0.0.11\"} 1\n"));
	assert_null(strstr(s, "slotscope_mount_info{mountpoint=\"\""));
	assert_non_null(strstr(s, "uid=\"1000\",user=\"alice\"} 1\n"));
	free(s);
	/* without --prom-user: the job, not who ran it (whoever scrapes the port reads the labels) */
	s = render_sums(&v, &totals, false, false, &len);
	assert_non_null(strstr(s, "slotscope_last_window_job_info{kind=\"checkpoint\",job_kind=\"slurm\",job_id=\"4242\",job_step=\"step_0\",uid=\"\",user=\"\"} 1\n"));
	assert_null(strstr(s, "alice"));
	assert_null(strstr(s, "uid=\"1000\""));
	free(s);
	/* --prom-detail: the in-flight curve by quarters of the limit, both intervals summed */
	s = render_sums(&v, &totals, true, true, &len);
	check_cumulative(s);
	assert_non_null(strstr(s, "slotscope_inflight_rpcs_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"q1\"} 12\n"));
	assert_non_null(strstr(s, "slotscope_inflight_rpcs_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"q2\"} 40\n"));
	assert_non_null(strstr(s, "slotscope_inflight_rpcs_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"q4\"} 0\n"));
	assert_non_null(strstr(s, "slotscope_inflight_rpcs_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"limit\"} 200\n"));
	assert_non_null(strstr(s, "slotscope_inflight_rtt_seconds_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"limit\"} 0.420000000\n"));
	assert_non_null(strstr(s, "slotscope_inflight_execute_seconds_total{server=\"127.0.0.11\",proto=\"tcp\",xprt=\"4\",in_flight=\"limit\"} "));
	free(s);
	s = render(out_folded, &v, &len);
	golden("stacks.folded", s, len);
	free(s);
	s = render(svg_render, &v, &len);
	golden("flame.svg", s, len);
	free(s);
	textfile_totals_free(&totals);
	model_out_free(&m);
	ledger_free(&sums);
	linkmap_free(&lm);
	link_sample_free(&la);
	link_sample_free(&lb);
	mounts_free(&mt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_outputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
