/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The textfile's mounts: which it shows (--prom-mount-include, --prom-mount-exclude: fnmatch
 * patterns on the mount point, exclude winning) and whether its per-transport families are
 * rolled up per mount (--prom-rollup). The model applies them; the trace and its text do not.
 */
#ifndef SLOTSCOPE_PROM_MOUNTS_H
#define SLOTSCOPE_PROM_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#define MAX_MOUNT_GLOBS 16

struct prom_mounts {
	bool rollup;
	size_t ninclude, nexclude;
	const char *include[MAX_MOUNT_GLOBS], *exclude[MAX_MOUNT_GLOBS];
};

/* @pattern as a mount point pattern: 0, or -EINVAL with what is wrong and its fix in @why */
int prom_mount_glob_check(const char *pattern, char *why, size_t len);
/*
 * The textfile shows mount @mp: no include pattern or one matching, and no exclude pattern
 * matching. NULL (ops and transports of no known mount) is matched as "", its label value.
 * @pm NULL shows every mount.
 */
bool prom_mount_shown(const struct prom_mounts *pm, const char *mp);

#endif
