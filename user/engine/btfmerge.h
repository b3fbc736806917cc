/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_BTFMERGE_H
#define SLOTSCOPE_BTFMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>

/*
 * Module BTF is split BTF on top of vmlinux, each module with its own copy of the types it uses
 * from others. Append @mod's own types to @dst (split on, or a copy of, @base), type ids
 * rebased. 0 or -errno.
 */
int btf_append_split(struct btf *dst, const struct btf *base, const struct btf *mod);
/*
 * Types of a kind these functions do not know (a later kernel's) are not a failure: each becomes
 * an opaque stand-in of the same id, counted here for the caller to say.
 */
extern unsigned int btf_merge_unknown;
/*
 * One standalone BTF: @base's types then each module's (NULL entries skipped); NULL, errno set.
 * Where @shadow[i] (may be NULL), a struct, union or enum module i defines hides @base's of the
 * same name (renamed "slotscope_base_NAME"): a module built apart from the kernel (an
 * out-of-tree sunrpc) defines its own struct rpc_xprt, and CO-RE would find both.
 */
struct btf *btf_merge_full(const struct btf *base, struct btf *const *mods, size_t n,
			   const bool *shadow);

#endif
