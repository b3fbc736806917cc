// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: sysfs counter and rate strings, mount options */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "host/audit.h"
#include "links/rdma.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), val[64];
	uint64_t v;
	double g;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	parse_u64(s, &v);
	parse_rate(s, &g);
	mount_option(s, "vers", val, sizeof(val));
	mount_option(s, "addr", val, sizeof(val));
	mount_option(s, "hard", val, sizeof(val));
	free(s);
	return 0;
}
