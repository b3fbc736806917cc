/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal streaming JSON writer: one compact line per document, keys in the order written. */
#ifndef SLOTSCOPE_JSON_H
#define SLOTSCOPE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct jw {
	FILE *f;
	size_t n;			/* bytes in buf, not yet handed to f */
	int depth;
	bool need_comma[32];
	char buf[16384];
};

void jw_init(struct jw *w, FILE *f);
/* @key is NULL inside arrays and for the top-level value */
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end_obj(struct jw *w);
void jw_end_arr(struct jw *w);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
/* finite doubles with 9 significant digits; NaN and infinities become null */
void jw_dbl(struct jw *w, const char *key, double v);
/* seconds since the epoch to the microsecond (%.9g would round a 2026 date to 10 s) */
void jw_time(struct jw *w, const char *key, double secs);
void jw_str(struct jw *w, const char *key, const char *s);	/* NULL prints null */
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
/* ends the document with a newline and flushes: until then the line may be in the writer */
void jw_done(struct jw *w);

#endif
