// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: /proc/self/mountinfo parsing and lookups */
#include <stdint.h>
#include <stdio.h>
#include "host/mounts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mount_table t;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (mounts_parse(f, &t) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			mounts_by_path(&t, t.m[i].mountpoint);
			mounts_by_kdev(&t, t.m[i].major << 20 | t.m[i].minor);
		}
		mounts_free(&t);
	}
	fclose(f);
	return 0;
}
