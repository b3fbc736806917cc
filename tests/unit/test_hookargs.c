// SPDX-License-Identifier: GPL-2.0
/*
 * A hook's arguments against its prototype in BTF: a tracepoint's btf_trace_ typedef (after the
 * probe's data pointer) must have exactly the arguments its program reads, a function at least
 * those first. A vendor's tracepoint with an argument added, or another struct where the
 * program reads a struct rpc_task, takes the hook away; no prototype at all is "unknown".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "engine/engine_int.h"

struct ids {
	int vp, rqst_p, task_p, q_p, s64;
};

static struct btf *base_types(struct ids *i)
{
	struct btf *b = btf__new_empty();
	int rqst, task, q;

	i->vp = btf__add_ptr(b, 0);
	rqst = btf__add_struct(b, "rpc_rqst", 0);
	task = btf__add_struct(b, "rpc_task", 0);
	q = btf__add_struct(b, "rpc_wait_queue", 0);
	i->rqst_p = btf__add_ptr(b, btf__add_const(b, rqst));
	i->task_p = btf__add_ptr(b, task);
	i->q_p = btf__add_ptr(b, q);
	i->s64 = btf__add_typedef(b, "ktime_t", btf__add_int(b, "long long", 8, BTF_INT_SIGNED));
	return b;
}

/* typedef void (*btf_trace_NAME)(void *__data, @args...) */
static void add_tp(struct btf *b, const char *name, const int *args, int n, const struct ids *i)
{
	char tn[128];
	int fp = btf__add_func_proto(b, 0);

	btf__add_func_param(b, "__data", i->vp);
	for (int k = 0; k < n; k++)
		btf__add_func_param(b, "a", args[k]);
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	btf__add_typedef(b, tn, btf__add_ptr(b, fp));
}

static int check(struct btf *b, const char *name, enum hook_kind kind)
{
	struct hook h = { .name = name, .kind = kind, .args = hook_args_of(name) };

	return hook_args_check(b, &h);
}

static void test_tracepoints(void **state)
{
	struct ids i;
	struct btf *b = base_types(&i);
	int ok_rsv[] = { i.rqst_p }, bad_rsv[] = { i.task_p }, lat[] = { i.task_p, i.s64, i.s64, i.s64 },
	    sleep_extra[] = { i.task_p, i.q_p, i.s64 };

	(void)state;
	add_tp(b, "xprt_reserve", ok_rsv, 1, &i);
	add_tp(b, "xprt_create", bad_rsv, 1, &i);
	add_tp(b, "rpc_stats_latency", lat, 4, &i);
	add_tp(b, "rpc_task_sleep", sleep_extra, 3, &i);
	assert_int_equal(check(b, "xprt_reserve", TP), 1);
	assert_int_equal(check(b, "rpc_stats_latency", TP), 1);
	/* a struct rpc_task where a struct rpc_xprt is read */
	assert_int_equal(check(b, "xprt_create", TP), 0);
	/* a vendor's extra argument */
	assert_int_equal(check(b, "rpc_task_sleep", TP), 0);
	/* not described at all */
	assert_int_equal(check(b, "xprt_destroy", TP), -1);
	btf__free(b);
}

static void test_functions(void **state)
{
	struct ids i;
	struct btf *b = base_types(&i);
	int fp;

	(void)state;
	/* rpc_sleep_on(q, task, action): the first two are what is read */
	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "q", i.q_p);
	btf__add_func_param(b, "task", i.task_p);
	btf__add_func_param(b, "action", i.vp);
	btf__add_func(b, "rpc_sleep_on", BTF_FUNC_GLOBAL, fp);
	/* rpc_delay(q) of another layout */
	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "q", i.q_p);
	btf__add_func(b, "rpc_delay", BTF_FUNC_GLOBAL, fp);
	/* __xprt_set_rq(task, void *data): a callback's void pointer is the struct read */
	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "task", i.task_p);
	btf__add_func_param(b, "data", i.vp);
	btf__add_func(b, "__xprt_set_rq", BTF_FUNC_STATIC, fp);
	assert_int_equal(check(b, "__xprt_set_rq", FUNC), 1);
	assert_int_equal(check(b, "rpc_sleep_on", FUNC), 1);
	assert_int_equal(check(b, "rpc_delay", FUNC), 0);
	/* a hook with nothing to check (vmlinux's VFS) */
	assert_null(hook_args_of("vfs_write"));
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_functions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
