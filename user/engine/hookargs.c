// SPDX-License-Identifier: GPL-2.0
/*
 * A raw_tp or kprobe program reads its arguments by position, and nothing checks their types:
 * on a stack built apart from the kernel (VAST NFS's tracepoints add fields and may add
 * arguments) the wrong argument would be read as a struct rpc_task without a word. Each hook's
 * arguments are proven against the prototype in the BTF that describes its module: the
 * tracepoint's btf_trace_NAME typedef (its first parameter the probe's data), the function's
 * FUNC. A prototype that differs takes the hook away, as if the kernel had none.
 */
#include <stdio.h>
#include <string.h>
#include "engine/engine_int.h"

/* what each hook's program reads, by position: a struct name for a pointer to it, "-" an integer */
static const struct {
	const char *hook, *args;
} expected[] = {
	{ "xprt_reserve", "rpc_rqst" },
	{ "rpc_stats_latency", "rpc_task,-,-,-" },
	{ "rpc_task_sleep", "rpc_task,rpc_wait_queue" },
	{ "rpc_task_wakeup", "rpc_task,rpc_wait_queue" },
	{ "xprt_create", "rpc_xprt" },
	{ "xprt_destroy", "rpc_xprt" },
	{ "nfs4_setup_sequence", "nfs4_session,nfs4_sequence_args" },
	{ "nfs4_free_slot", "nfs4_slot_table,nfs4_slot" },
	{ "rpc_clnt_free", "rpc_clnt" },
	{ "xprt_get_cong", "rpc_xprt,rpc_task" },
	{ "xprt_put_cong", "rpc_xprt,rpc_task" },
	{ "xprt_transmit", "rpc_rqst,-" },
	{ "rpc_sleep_on", "rpc_wait_queue,rpc_task" },
	{ "rpc_sleep_on_priority", "rpc_wait_queue,rpc_task" },
	{ "rpc_sleep_on_priority_timeout", "rpc_wait_queue,rpc_task" },
	{ "rpc_delay", "rpc_task" },
	{ "__rpc_atrun", "rpc_task" },
	{ "__xprt_set_rq", "rpc_task,rpc_rqst" },
	{ "nfs_file_write", "kiocb,iov_iter" },
	{ "nfs_file_read", "kiocb,iov_iter" },
	{ "alloc_nfs_open_context", "dentry,-,file" },
	{ "do_filp_open", "-,filename,open_flags" },	/* do_file_open() from 7.0: the same */
};

const char *hook_args_of(const char *hook)
{
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (!strcmp(expected[i].hook, hook))
			return expected[i].args;
	return NULL;
}

/* @id with typedefs and modifiers peeled */
static const struct btf_type *peel(const struct btf *btf, __u32 id, __u32 *out)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (out)
		*out = id;
	return t;
}

/*
 * @want: a struct name (a pointer to it, or a void pointer the program takes for one), "-" an
 * integer or enum of 8 bytes or fewer
 */
static bool param_is(const struct btf *btf, __u32 type, const char *want, size_t wl)
{
	const struct btf_type *t = peel(btf, type, NULL);
	const char *name;

	if (!t)
		return false;
	if (wl == 1 && want[0] == '-')
		return (btf_is_int(t) || btf_is_any_enum(t)) && t->size <= 8;
	if (!btf_is_ptr(t))
		return false;
	/* void *: a callback's data (__xprt_set_rq is rpc_wake_up_first()'s bool (*)(task, void *)) */
	if (!t->type)
		return true;
	if (!(t = peel(btf, t->type, NULL)) || !(btf_is_struct(t) || btf_is_fwd(t)))
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	return name && strlen(name) == wl && !strncmp(name, want, wl);
}

/* the FUNC_PROTO of hook @h in @btf, its parameters from @first on; NULL when @btf has none */
static const struct btf_type *hook_proto(const struct btf *btf, const struct hook *h, int *first)
{
	const struct btf_type *t;
	char name[128];
	int id;

	if (h->kind == TP) {
		snprintf(name, sizeof(name), "btf_trace_%s", h->name);
		id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
		*first = 1;
	} else {
		id = btf__find_by_name_kind(btf, h->name, BTF_KIND_FUNC);
		*first = 0;
	}
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, (__u32)id);
	if (h->kind == TP) {
		t = peel(btf, t->type, NULL);
		if (!t || !btf_is_ptr(t))
			return NULL;
	}
	t = t ? peel(btf, t->type, NULL) : NULL;
	return t && btf_is_func_proto(t) ? t : NULL;
}

/*
 * 1: @h's prototype in @btf has the arguments @h->args names, in order (a tracepoint exactly
 * those, a function at least those first); 0: it differs (@h->why says how); -1: @btf has none.
 */
int hook_args_check(const struct btf *btf, struct hook *h)
{
	const struct btf_type *p;
	const struct btf_param *prm;
	const char *w = h->args;
	int first, n = 0, i;

	if (!w || !(p = hook_proto(btf, h, &first)))
		return -1;
	prm = btf_params(p);
	for (i = first; *w; i++, n++) {
		size_t wl = strcspn(w, ",");

		if (i >= btf_vlen(p) || !param_is(btf, prm[i].type, w, wl)) {
			snprintf(h->why, sizeof(h->why), "argument %d of %s is not %s%.*s", n + 1, h->name,
				 wl == 1 && *w == '-' ? "an integer" : "struct ", wl == 1 && *w == '-' ? 0 : (int)wl, w);
			return 0;
		}
		w += wl + (w[wl] == ',');
	}
	/* fexit reads the return value after the arguments: a function's count must be exact too */
	if (h->kind == FUNC_RET && i != btf_vlen(p)) {
		snprintf(h->why, sizeof(h->why), "function %s has %d arguments, not %d", h->name,
			 btf_vlen(p), n);
		return 0;
	}
	if (h->kind == TP && i != btf_vlen(p)) {
		snprintf(h->why, sizeof(h->why), "tracepoint %s has %d arguments, not %d", h->name,
			 btf_vlen(p) - first, n);
		return 0;
	}
	return 1;
}
