// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <bpf/libbpf.h>
#include "lib/log.h"

enum log_level log_level = LOG_WARN;

void pr_log(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > log_level)
		return;
	va_start(ap, fmt);
	fputs("slotscope: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int log_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/*
	 * Only with -v: a refused program is expected (its hook falls back, see engine_load.c), and
	 * every failure that matters is said once, in one line, by the caller that decides.
	 */
	(void)level;
	if (log_level < LOG_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}
