// SPDX-License-Identifier: GPL-2.0
/*
 * The textfile's mount filters: --prom-mount-include/-exclude's patterns, the owner each transport
 * is counted under as mounts are shown or left out, the file they leave, and the errors of the
 * mount options (--prom-rollup's among them) as slotscope's command line says them.
 */
#include <errno.h>
#include "rollfix.h"
#include "runbin.h"

static void test_globs(void **state)
{
	static const char *const bad[] = { "", "home/*", "/home/[ab", "/home/x\\", "/a/[[:alpha:]" };
	static const char *const good[] = { "/home/*", "*", "/mnt/[abc]", "/mnt/[]x]", "/x/[[:digit:]]*",
					    "/lit\\[", "?*" };
	struct prom_mounts pm = { .nexclude = 1, .exclude = { "/home/*" } };
	char why[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = 0;
		assert_int_equal(prom_mount_glob_check(bad[i], why, sizeof(why)), -EINVAL);
		assert_true(why[0]);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(prom_mount_glob_check(good[i], why, sizeof(why)), 0);
	/* exclude alone: the rest stays, ops of no mount too; a star crosses '/' */
	assert_false(prom_mount_shown(&pm, "/home/alice"));
	assert_false(prom_mount_shown(&pm, "/home/alice/scratch"));
	assert_true(prom_mount_shown(&pm, "/home"));
	assert_true(prom_mount_shown(&pm, "/mnt/ckpt"));
	assert_true(prom_mount_shown(&pm, NULL));
	/* an include keeps only what it names ("" is no mount's name), and exclude wins */
	pm.ninclude = 2;
	pm.include[0] = "/mnt/*";
	pm.include[1] = "/home/*";
	assert_true(prom_mount_shown(&pm, "/mnt/ckpt"));
	assert_false(prom_mount_shown(&pm, "/home/alice"));
	assert_false(prom_mount_shown(&pm, "/scratch"));
	assert_false(prom_mount_shown(&pm, NULL));
	assert_true(prom_mount_shown(NULL, "/home/alice"));
}

static const struct xprt_view *xprt_of(const struct view *v, __u64 key)
{
	const struct xprt_view *x = view_xprt(v, key);

	assert_non_null(x);
	return x;
}

static void test_owners(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	struct prom_mounts pm = { .nexclude = 1, .exclude = { "/mnt/a" } };
	struct ledger sums = { 0 };
	struct tf_view m;
	const struct xprt_view *x;

	(void)state;
	mount_table(&mt, mounts_text);
	two_intervals(&m, &sums, f, &mt, NULL);
	/* shared: the first mount in path order, whichever carried its ops */
	x = xprt_of(&m.m.view, K_A1);
	assert_string_equal(x->row_mount, "/mnt/a");
	assert_string_equal(x->row_server, "10.0.0.1");
	/* only /mnt/b's ops, but mounted from the same server as /mnt/a: /mnt/a's too */
	assert_string_equal(xprt_of(&m.m.view, K_A2)->row_mount, "/mnt/a");
	assert_string_equal(xprt_of(&m.m.view, K_H)->row_mount, "/home/u1");
	/* no op since attach: the mount table's addr= and proto= */
	assert_string_equal(xprt_of(&m.m.view, K_C)->row_mount, "/mnt/c");
	x = xprt_of(&m.m.view, K_LOST);
	assert_null(x->row_mount);
	assert_string_equal(x->row_server, "10.0.0.9");
	for (size_t i = 0; i < m.m.view.nxprts; i++)
		assert_false(m.m.view.xprts[i].row_hidden);
	tf_free(&m);
	ledger_free(&sums);
	/* /mnt/a filtered out: its transports count under /mnt/b, the next that they serve */
	two_intervals(&m, &sums, f, &mt, &pm);
	assert_string_equal(xprt_of(&m.m.view, K_A1)->row_mount, "/mnt/b");
	assert_string_equal(xprt_of(&m.m.view, K_A2)->row_mount, "/mnt/b");
	tf_free(&m);
	ledger_free(&sums);
	/* both out: the transports leave the file; "" is out only under an include */
	pm.exclude[pm.nexclude++] = "/mnt/b";
	two_intervals(&m, &sums, f, &mt, &pm);
	assert_true(xprt_of(&m.m.view, K_A1)->row_hidden);
	assert_true(xprt_of(&m.m.view, K_A2)->row_hidden);
	assert_false(xprt_of(&m.m.view, K_LOST)->row_hidden);
	tf_free(&m);
	ledger_free(&sums);
	pm = (struct prom_mounts){ .ninclude = 1, .include = { "/mnt/*" } };
	two_intervals(&m, &sums, f, &mt, &pm);
	assert_true(xprt_of(&m.m.view, K_LOST)->row_hidden);
	assert_true(xprt_of(&m.m.view, K_H)->row_hidden);
	assert_false(xprt_of(&m.m.view, K_C)->row_hidden);
	tf_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

/* autofs homes left out: no series names them, their transport leaves, the rest stays whole */
static void test_filtered_file(void **state)
{
	static struct snapfix f[3];
	struct mount_table mt;
	struct prom_mounts pm = { .nexclude = 1, .exclude = { "/home/*" } };
	struct ledger sums = { 0 };
	struct tf_view m;
	char *all, *s;

	(void)state;
	mount_table(&mt, mounts_text);
	two_intervals(&m, &sums, f, &mt, NULL);
	all = render(&m, false);
	tf_free(&m);
	ledger_free(&sums);
	two_intervals(&m, &sums, f, &mt, &pm);
	s = render(&m, false);
	assert_null(strstr(s, "/home/"));
	assert_null(strstr(s, "server=\"10.0.0.2\""));
	assert_non_null(strstr(all, "/home/u1"));
	assert_non_null(strstr(all, "server=\"10.0.0.2\""));
	/* what stays is what the unfiltered file says */
	assert_true(value(s, "slotscope_slot_acquires_total{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\"}") ==
		    value(all, "slotscope_slot_acquires_total{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\"}"));
	assert_true(value(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}") ==
		    value(all, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}"));
	assert_true(value(s, "slotscope_written_bytes_total{mountpoint=\"/mnt/b\"}") > 0);
	assert_int_equal(count_lines(s, "slotscope_mount_info{"), count_lines(all, "slotscope_mount_info{") - 1);
	free(s);
	tf_free(&m);
	ledger_free(&sums);
	/* a shared transport's info names only the mounts shown */
	pm.exclude[0] = "/mnt/a";
	two_intervals(&m, &sums, f, &mt, &pm);
	s = render(&m, false);
	assert_non_null(strstr(s, "slotscope_transport_info{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\",netdev=\"\","
			       "rdma_device=\"\",port=\"\",mountpoint=\"/mnt/b\","));
	assert_non_null(strstr(all, "slotscope_transport_info{server=\"10.0.0.1\",proto=\"tcp\",xprt=\"1\",netdev=\"\","
			       "rdma_device=\"\",port=\"\",mountpoint=\"/mnt/a,/mnt/b\","));
	free(s);
	free(all);
	tf_free(&m);
	ledger_free(&sums);
	mounts_free(&mt);
}

static void test_options(void **state)
{
	static const struct {
		const char *argv[8];
		const char *says;
	} bad[] = {
		{ { "slotscope", "--prom-rollup", NULL },
		  "--prom-rollup shapes the Prometheus metrics only: give --prom-file PATH or --listen ADDR:PORT too" },
		{ { "slotscope", "--prom-per-transport", NULL }, "--prom-per-transport undoes --listen's per-mount default" },
		{ { "slotscope", "--listen", ":9", "--prom-per-transport", "--prom-rollup", NULL },
		  "--prom-per-transport and --prom-rollup ask for opposite rows" },
		{ { "slotscope", "--prom-mount-exclude", "/home/*", NULL }, "--prom-mount-exclude shapes" },
		{ { "slotscope", "--prom-file", "/tmp/x.prom", "--prom-mount-include", "home/*", NULL },
		  "invalid --prom-mount-include 'home/*': mount points are absolute paths" },
		{ { "slotscope", "--prom-file", "/tmp/x.prom", "--prom-mount-exclude", "/home/[ab", NULL },
		  "does not close" },
		{ { "slotscope", "--prom-file", "/tmp/x.prom", "--prom-mount-include", "/x", "--prom-mount-exclude",
		    "/x", NULL }, "is also excluded, and exclude wins" },
	};
	char err[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run_slotscope(-1, err, sizeof(err), bad[i].argv), 64);
		assert_non_null(strstr(err, bad[i].says));
		/* one line */
		assert_non_null(strchr(err, '\n'));
		assert_string_equal(strchr(err, '\n'), "\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_filtered_file),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
