/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the BTF slotscope makes from a module's DWARF is kept (BTF_CACHE/RELEASE/): by the
 * module's GNU build id (MOD-ID.btf), which any run reads back (the kernel publishes build ids to
 * all), and as the latest made for the module (MOD.btf), for a run that cannot read the build id.
 * Made by root alone (pahole; the unit's user may neither write here nor read /lib/modules under
 * ProtectKernelModules). Only files root owns and nobody else may write,
 * in directories alike, are used.
 */
#ifndef SLOTSCOPE_BTFCACHE_H
#define SLOTSCOPE_BTFCACHE_H

#include <stddef.h>

#define BTF_CACHE "/var/cache/slotscope/btf"

/* 0 and @path when the cached BTF of @mod (@id_hex, or NULL: the latest) is there and trusted */
int btf_cache_find(const char *release, const char *mod, const char *id_hex, char *path, size_t len);
/* the BTF in @fd (read from offset 0) kept as @mod's of build id @id_hex, and as its latest */
int btf_cache_store(const char *release, const char *mod, const char *id_hex, int fd);

#endif
