/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_BTFMERGE_H
#define SLOTSCOPE_BTFMERGE_H

#include <stddef.h>
#include <bpf/btf.h>

/*
 * Module BTF is split BTF on top of vmlinux, each module with its own copy of the types it uses
 * from others. Append @mod's own types to @dst (split on, or a copy of, @base), type ids
 * rebased. 0 or -errno.
 */
int btf_append_split(struct btf *dst, const struct btf *base, const struct btf *mod);
/* One standalone BTF: @base's types then each module's (NULL entries skipped); NULL, errno set. */
struct btf *btf_merge_full(const struct btf *base, struct btf *const *mods, size_t n);

#endif
