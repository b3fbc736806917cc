// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's series cap (prom_cap.c): past --prom-max-series the mounts seen last are left
 * out whole, the rest shown as they were; the same mounts tick after tick, whatever the view's
 * order; one unmounted makes room. Counted in what the renderer writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "prom/prom_cap.h"
#include "promfix.h"

#define XPRT 66
#define MOUNT 41
#define NODE 31

/* mount @mnt with @nx transports (ids from @id) and READ, WRITE, COMMIT */
static void add_mount(struct fixture *f, const char *mnt, __u32 id, __u32 nx)
{
	static const char *const ops[] = { "READ", "WRITE", "COMMIT" };

	for (__u32 i = 0; i < nx; i++) {
		add_xprt(f, id + i, "10.0.0.1", mnt);
		f->x[f->v.nxprts - 1].row_mount = mnt;
	}
	for (size_t i = 0; i < 3; i++)
		add_op(f, mnt, ops[i], 10);
}

/* the capped exposition of @f, in *@text: its series as counted and as written agree */
static void exposed(struct prom_cap *c, struct fixture *f, char **text)
{
	static const struct window ck[WIN_KINDS] = { { .kind = WIN_CHECKPOINT, .n = 1 },
						     { .kind = WIN_RESTORE, .n = 1 } };
	struct prom_input in = { .cum = &f->v, .iv = &f->v, .now_wall = 1, .version = "t", .kernel = "k",
				 .windows = ck };
	size_t len;

	assert_int_equal(prom_cap_render(c, &in, text, &len), 0);
	assert_ptr_equal(in.cum, &f->v);
	assert_int_equal(prom_series_in(*text, len), count_series(*text, "", NULL));
}

static int left_out_gauge(const char *text)
{
	const char *p = strstr(text, "\nslotscope_exposition_mounts_left_out ");

	assert_non_null(p);
	return atoi(p + strlen("\nslotscope_exposition_mounts_left_out "));
}

static void test_cap(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f)), *g = calloc(1, sizeof(*g)), *h = calloc(1, sizeof(*h));
	/* a and b fit, c (one transport) does not */
	struct prom_cap c = { .max = NODE + 2 * MOUNT + 6 * XPRT };
	struct prom_cap none = { 0 };
	char *s;

	(void)state;
	add_mount(f, "/mnt/a", 0, 4);
	add_mount(f, "/mnt/b", 10, 2);
	add_mount(f, "/mnt/c", 20, 1);
	/* no cap: every series */
	exposed(&none, f, &s);
	assert_int_equal(count_series(s, "", NULL), NODE + 3 * MOUNT + 7 * XPRT);
	assert_int_equal(left_out_gauge(s), 0);
	free(s);

	exposed(&c, f, &s);
	print_message("capped at %zu: %d series\n", c.max, count_series(s, "", NULL));
	assert_int_equal(count_series(s, "", NULL), c.max);
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/c\"", NULL), 0);
	assert_int_equal(count_series(s, "xprt=\"20\"", NULL), 0);
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/b\"", "xprt="), MOUNT);
	assert_int_equal(count_series(s, "xprt=\"11\"", NULL), XPRT);
	assert_int_equal(left_out_gauge(s), 1);
	assert_int_equal(c.left_out, 1);
	free(s);

	/* a new mount first in the view's order: the same two are shown, the new one waits */
	add_mount(g, "/mnt/0", 30, 1);
	add_mount(g, "/mnt/a", 0, 4);
	add_mount(g, "/mnt/c", 20, 1);
	add_mount(g, "/mnt/b", 10, 2);
	/* b's transports shared with the new mount, which the model now puts them under: still b's */
	for (size_t i = 0; i < g->v.nxprts; i++)
		if (g->x[i].id == 10 || g->x[i].id == 11) {
			g->x[i].row_mount = "/mnt/0";
			g->x[i].nmounts = 2;
			g->x[i].mounts[0].mountpoint = "/mnt/0";
			g->x[i].mounts[1].mountpoint = "/mnt/b";
		}
	exposed(&c, g, &s);
	assert_int_equal(count_series(s, "", NULL), c.max);
	assert_int_equal(count_series(s, "xprt=\"10\"", NULL), XPRT);
	assert_int_equal(count_series(s, "xprt=\"30\"", NULL), 0);
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/a\"", "xprt="), MOUNT);
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/b\"", "xprt="), MOUNT);
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/0\"", NULL), 0);
	assert_int_equal(count_series(s, "mountpoint=\"/mnt/c\"", NULL), 0);
	assert_int_equal(left_out_gauge(s), 2);
	free(s);

	/* a unmounted: b, c and 0 fit (c before 0: seen first) */
	add_mount(h, "/mnt/0", 30, 1);
	add_mount(h, "/mnt/c", 20, 1);
	add_mount(h, "/mnt/b", 10, 2);
	exposed(&c, h, &s);
	assert_int_equal(count_series(s, "", NULL), NODE + 3 * MOUNT + 4 * XPRT);
	assert_int_equal(left_out_gauge(s), 0);
	assert_int_equal(c.left_out, 0);
	free(s);

	/* a cap under the node's own: every mount out, the node's series kept */
	c.max = 5;
	exposed(&c, h, &s);
	assert_int_equal(count_series(s, "", NULL), NODE);
	assert_int_equal(left_out_gauge(s), 3);
	free(s);
	prom_cap_free(&c);
	prom_cap_free(&none);
	free(f);
	free(g);
	free(h);
}

/* not tracing yet: the exposition as it is, no cap to apply */
static void test_cap_waiting(void **state)
{
	struct prom_cap c = { .max = 1 };
	struct prom_input in = { .now_wall = 1, .version = "t", .kernel = "k" };
	char *s;
	size_t len;

	(void)state;
	assert_int_equal(prom_cap_render(&c, &in, &s, &len), 0);
	assert_int_equal(prom_series_in(s, len), 3);
	assert_null(strstr(s, "mounts_left_out"));
	free(s);
	prom_cap_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_cap_waiting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
