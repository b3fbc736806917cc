// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's text primitives, which every part of it writes with (out_prom.c and the parts
 * in files of their own): below them all, so no part calls back up into out_prom.c.
 */
#include <stdio.h>
#include "prom/out_prom_int.h"
#include "lib/utf8.h"

/* a label value: the name by name_next() (utf8.h), then the text format's \\ and \" */
void prom_lv(FILE *f, const char *s)
{
	put_name_quoted(f, s);
}

void prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP slotscope_%s %s\n# TYPE slotscope_%s %s\n", name, help, name, type);
}
