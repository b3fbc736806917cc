// SPDX-License-Identifier: GPL-2.0
/*
 * btfmerge VMLINUX MODULE.ko...: print one C header with the types of vmlinux and of every module.
 *
 * Module BTF is split BTF on top of vmlinux, and each module carries its own copy of the types it
 * uses from other modules. bpftool dumps one split at a time, so no single dump has rpcrdma_xprt
 * (rpcrdma.ko) next to sock_xprt (sunrpc.ko) and nfs4_slot_table (nfsv4.ko). Here every module's
 * types are appended to one split BTF, their type ids rebased, and btf__dedup() folds the copies.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static void print_fn(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
}

/* Rebase a type id of module @src (whose own ids start at @base_cnt) into the merged BTF. */
static __u32 rebase(__u32 id, __u32 base_cnt, __u32 delta)
{
	return id < base_cnt ? id : id + delta;
}

static int rebase_type(struct btf_type *t, __u32 base_cnt, __u32 delta)
{
	__u16 vlen = btf_vlen(t);
	int i;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return 0;
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		t->type = rebase(t->type, base_cnt, delta);
		return 0;
	case BTF_KIND_ARRAY: {
		struct btf_array *a = btf_array(t);

		a->type = rebase(a->type, base_cnt, delta);
		a->index_type = rebase(a->index_type, base_cnt, delta);
		return 0;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		struct btf_member *m = btf_members(t);

		for (i = 0; i < vlen; i++)
			m[i].type = rebase(m[i].type, base_cnt, delta);
		return 0;
	}
	case BTF_KIND_FUNC_PROTO: {
		struct btf_param *p = btf_params(t);

		t->type = rebase(t->type, base_cnt, delta);
		for (i = 0; i < vlen; i++)
			p[i].type = rebase(p[i].type, base_cnt, delta);
		return 0;
	}
	case BTF_KIND_DATASEC: {
		struct btf_var_secinfo *v = btf_var_secinfos(t);

		for (i = 0; i < vlen; i++)
			v[i].type = rebase(v[i].type, base_cnt, delta);
		return 0;
	}
	default:
		return -EINVAL;
	}
}

static int append_module(struct btf *dst, struct btf *base, const char *path)
{
	__u32 base_cnt = btf__type_cnt(base), id, cnt, delta;
	struct btf *mod;
	int err = 0;

	mod = btf__parse_split(path, base);
	if (!mod)
		return -errno;
	cnt = btf__type_cnt(mod);
	delta = btf__type_cnt(dst) - base_cnt;
	for (id = base_cnt; id < cnt; id++) {
		int nid = btf__add_type(dst, mod, btf__type_by_id(mod, id));

		if (nid < 0) {
			err = nid;
			break;
		}
		/* btf__add_type() copies strings but keeps type ids as they were in @mod */
		err = rebase_type((struct btf_type *)btf__type_by_id(dst, nid), base_cnt, delta);
		if (err)
			break;
	}
	btf__free(mod);
	return err;
}

int main(int argc, char **argv)
{
	struct btf *base, *merged;
	struct btf_dump *d;
	__u32 id, cnt;
	int i, err;

	if (argc < 2) {
		fprintf(stderr, "usage: btfmerge VMLINUX [MODULE.ko...]\n");
		return 64;
	}
	base = btf__parse(argv[1], NULL);
	if (!base) {
		fprintf(stderr, "btfmerge: %s: no BTF: %s\n", argv[1], strerror(errno));
		return 1;
	}
	merged = btf__new_empty_split(base);
	if (!merged) {
		fprintf(stderr, "btfmerge: %s\n", strerror(errno));
		return 1;
	}
	for (i = 2; i < argc; i++) {
		err = append_module(merged, base, argv[i]);
		if (err) {
			fprintf(stderr, "btfmerge: %s: %s\n", argv[i], strerror(-err));
			return 1;
		}
	}
	err = btf__dedup(merged, NULL);
	if (err) {
		fprintf(stderr, "btfmerge: dedup: %s\n", strerror(-err));
		return 1;
	}
	d = btf_dump__new(merged, print_fn, stdout, NULL);
	if (!d) {
		fprintf(stderr, "btfmerge: %s\n", strerror(errno));
		return 1;
	}
	printf("#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n");
	printf("#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
	       "#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n"
	       "#endif\n\n");
	cnt = btf__type_cnt(merged);
	for (id = 1; id < cnt; id++) {
		err = btf_dump__dump_type(d, id);
		if (err) {
			fprintf(stderr, "btfmerge: dump type %u: %s\n", id, strerror(-err));
			return 1;
		}
	}
	printf("\n#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n"
	       "#endif /* __VMLINUX_H__ */\n");
	btf_dump__free(d);
	btf__free(merged);
	btf__free(base);
	return 0;
}
