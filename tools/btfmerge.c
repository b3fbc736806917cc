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
#include "engine/btfmerge.h"

static void print_fn(void *ctx, const char *fmt, va_list args)
{
	vfprintf(ctx, fmt, args);
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
		struct btf *mod = btf__parse_split(argv[i], base);

		err = mod ? btf_append_split(merged, base, mod) : -errno;
		btf__free(mod);
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
