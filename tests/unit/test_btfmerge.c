// SPDX-License-Identifier: GPL-2.0
/*
 * The BTF merge meets a type of a kind it does not know (a later kernel's): the merge goes on,
 * the type becomes an opaque stand-in of the same id, and every later type keeps its id and its
 * references, rebased as before. A module built apart from the kernel (an out-of-tree sunrpc)
 * that redefines a struct hides vmlinux's of that name, so CO-RE finds one candidate, its own.
 * And pahole, which makes a module's BTF from its DWARF, runs on a bounded number of threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>
#include "engine/btfmerge.h"
#include "engine/engine_int.h"

static void test_unknown_kind(void **state)
{
	struct btf *base = btf__new_empty(), *mod, *full;
	struct btf_type *t;
	const struct btf_type *s;
	int b_int, m_odd, m_int, m_struct;

	(void)state;
	assert_non_null(base);
	b_int = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	assert_true(b_int > 0);
	mod = btf__new_empty_split(base);
	assert_non_null(mod);
	m_odd = btf__add_int(mod, "future", 4, 0);
	m_int = btf__add_int(mod, "u32", 4, 0);
	m_struct = btf__add_struct(mod, "rpc_xprt", 8);
	assert_int_equal(btf__add_field(mod, "id", m_int, 0, 0), 0);
	assert_int_equal(btf__add_field(mod, "prot", b_int, 32, 0), 0);
	/* the kind libbpf parsed but the merge never saw: 31, beyond every kind it knows */
	t = (struct btf_type *)btf__type_by_id(mod, m_odd);
	t->info = (t->info & ~(0x1fu << 24)) | (31u << 24);
	btf_merge_unknown = 0;
	full = btf_merge_full(base, &mod, 1, NULL);
	assert_non_null(full);
	assert_int_equal(btf_merge_unknown, 1);
	assert_int_equal(btf__type_cnt(full), btf__type_cnt(mod));
	assert_int_equal(btf__find_by_name(full, "rpc_xprt"), m_struct);
	s = btf__type_by_id(full, m_struct);
	assert_int_equal(btf_members(s)[0].type, (__u32)m_int);
	assert_int_equal(btf_members(s)[1].type, (__u32)b_int);
	assert_string_equal(btf__name_by_offset(full, btf__type_by_id(full, m_odd)->name_off),
			    "slotscope_unknown_btf_kind");
	btf__free(full);
	btf__free(mod);
	btf__free(base);
}

/* base: struct rpc_xprt { int prot; }, struct rpc_task; the module: its own struct rpc_xprt */
static struct btf *shadow_pair(struct btf **mod, int *m_xprt)
{
	struct btf *base = btf__new_empty();
	int b_int, m_u64, b_xprt;

	b_int = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	b_xprt = btf__add_struct(base, "rpc_xprt", 4);
	assert_int_equal(btf__add_field(base, "prot", b_int, 0, 0), 0);
	assert_true(btf__add_struct(base, "rpc_task", 4) > b_xprt);
	assert_int_equal(btf__add_field(base, "tk_pid", b_int, 0, 0), 0);
	*mod = btf__new_empty_split(base);
	m_u64 = btf__add_int(*mod, "u64", 8, 0);
	*m_xprt = btf__add_struct(*mod, "rpc_xprt", 16);
	assert_int_equal(btf__add_field(*mod, "multipath", m_u64, 0, 0), 0);
	assert_int_equal(btf__add_field(*mod, "prot", b_int, 64, 0), 0);
	return base;
}

static void test_shadow(void **state)
{
	struct btf *mod, *base, *full;
	bool shadow = true;
	int m_xprt, id;

	(void)state;
	base = shadow_pair(&mod, &m_xprt);
	full = btf_merge_full(base, &mod, 1, &shadow);
	assert_non_null(full);
	/* the module's definition is the only struct rpc_xprt left */
	assert_int_equal(btf__find_by_name_kind(full, "rpc_xprt", BTF_KIND_STRUCT), m_xprt);
	id = btf__find_by_name_kind(full, "slotscope_base_rpc_xprt", BTF_KIND_STRUCT);
	assert_true(id > 0 && id < m_xprt);
	assert_int_equal(btf__type_by_id(full, (__u32)id)->size, 4);
	/* what the module does not redefine keeps its name */
	assert_true(btf__find_by_name_kind(full, "rpc_task", BTF_KIND_STRUCT) > 0);
	btf__free(full);
	/* the kernel's own module BTF: nothing renamed (vmlinux's is found first) */
	full = btf_merge_full(base, &mod, 1, NULL);
	assert_int_equal(btf__find_by_name_kind(full, "slotscope_base_rpc_xprt", BTF_KIND_STRUCT), -ENOENT);
	assert_true(btf__find_by_name_kind(full, "rpc_xprt", BTF_KIND_STRUCT) < m_xprt);
	btf__free(full);
	btf__free(mod);
	btf__free(base);
}

/* pahole's threads: one a CPU, at most PAHOLE_MAX_JOBS (a 224-CPU node's unit has 256 MB) */
static void test_pahole_jobs(void **state)
{
	(void)state;
	assert_int_equal(pahole_jobs(2), 2);
	assert_int_equal(pahole_jobs(PAHOLE_MAX_JOBS), PAHOLE_MAX_JOBS);
	assert_int_equal(pahole_jobs(224), PAHOLE_MAX_JOBS);
	/* sysconf's -1 */
	assert_int_equal(pahole_jobs(-1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_kind),
		cmocka_unit_test(test_shadow),
		cmocka_unit_test(test_pahole_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
