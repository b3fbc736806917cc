// SPDX-License-Identifier: GPL-2.0
/*
 * An engine's allocation, which opening it (engine_load.c) and --make-btf (modbtf.c) both start
 * from: a room of its own below both, so that neither calls up into the other.
 */
#include <stdio.h>
#include <stdlib.h>
#include "engine/engine_int.h"

struct engine *engine_alloc(const struct engine_opts *o, char *why, size_t len)
{
	struct engine *e = calloc(1, sizeof(*e));

	snprintf(why, len, "out of memory");
	if (!e)
		return NULL;
	e->why = why;
	e->whylen = len;
	e->btf_fd = -1;
	e->o = *o;
	return e;
}
