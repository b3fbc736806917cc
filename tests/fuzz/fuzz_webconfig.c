// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: --web-config's reader (libyaml's document, then exporter-toolkit's schema) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "run/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config wc;
	char why[320];

	if (web_config_parse((const char *)data, size, "fuzz.yml", "/etc/slotscope", &wc, why, sizeof(why)))
		return 0;
	/* what was read is whole: users counted are there, paths absolute */
	for (size_t i = 0; i < wc.nusers; i++)
		if (strlen(wc.users[i].hash) != 60)
			abort();
	if (wc.tls && (wc.cert_file[0] != '/' || wc.key_file[0] != '/'))
		abort();
	web_config_free(&wc);
	return 0;
}
