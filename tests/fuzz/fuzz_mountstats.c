// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: /proc/self/mountstats transport lines */
#include <stdint.h>
#include <stdio.h>
#include "host/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int ports[64];
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	mountstats_ports_parse(f, "/mnt/a", ports, 64);
	fclose(f);
	return 0;
}
