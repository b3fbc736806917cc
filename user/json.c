// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include "fmt.h"
#include "json.h"
#include "utf8.h"

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->need_comma[0] = false;
}

/*
 * A JSON string is UTF-8: a name is written by name_next() (utf8.h) as in the textfile, so no
 * parser rejects the line and no two names read alike; then JSON's own \\ and \".
 */
static void put_str(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	put_name_quoted(f, s);
	putc_unlocked('"', f);
}

static void prefix(struct jw *w, const char *key)
{
	char b[64];
	size_t n = 0;

	if (w->need_comma[w->depth])
		b[n++] = ',';
	w->need_comma[w->depth] = true;
	if (key) {
		/* a key of printable ASCII that needs no escape (every key the renderers use): one write */
		const unsigned char *k = (const unsigned char *)key;
		size_t run = 0;

		while (k[run] >= 0x20 && k[run] < 0x7f && k[run] != '\\' && k[run] != '"' &&
		       run < sizeof(b) - 4)
			run++;
		if (k[run]) {
			fwrite_unlocked(b, 1, n, w->f);
			put_str(w->f, key);
			putc_unlocked(':', w->f);
			return;
		}
		b[n++] = '"';
		memcpy(b + n, key, run);
		n += run;
		b[n++] = '"';
		b[n++] = ':';
	}
	fwrite_unlocked(b, 1, n, w->f);
}

static void open(struct jw *w, const char *key, char c)
{
	prefix(w, key);
	putc_unlocked(c, w->f);
	/* a nesting the renderers never make: their bug, not the input's (bpftool asserts too) */
	assert((size_t)w->depth + 1 < sizeof(w->need_comma) / sizeof(w->need_comma[0]));
	w->need_comma[++w->depth] = false;
}

void jw_obj(struct jw *w, const char *key) { open(w, key, '{'); }
void jw_arr(struct jw *w, const char *key) { open(w, key, '['); }

void jw_end_obj(struct jw *w)
{
	putc_unlocked('}', w->f);
	assert(w->depth > 0);
	w->depth--;
}

void jw_end_arr(struct jw *w)
{
	putc_unlocked(']', w->f);
	assert(w->depth > 0);
	w->depth--;
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	prefix(w, key);
	put_u64(w->f, v);
}

void jw_i64(struct jw *w, const char *key, int64_t v)
{
	prefix(w, key);
	put_i64(w->f, v);
}

/* a finite number in @fmt; NaN and infinities are not JSON: null */
static void put_num(struct jw *w, const char *key, const char *fmt, double v)
{
	prefix(w, key);
	if (isfinite(v))
		fprintf(w->f, fmt, v);
	else
		put_s(w->f, "null");
}

void jw_dbl(struct jw *w, const char *key, double v)
{
	/*
	 * a whole number below 1e9 in magnitude is its digits in %.9g (no exponent, no point): written
	 * as an integer, without printf's float formatting; -0 is "-0" there, so it is left to printf
	 */
	if (v > -1e9 && v < 1e9 && v == (double)(int64_t)v && (v != 0 || !signbit(v))) {
		prefix(w, key);
		put_i64(w->f, (int64_t)v);
		return;
	}
	prefix(w, key);
	if (isfinite(v))
		put_g9(w->f, v);
	else
		put_s(w->f, "null");
}

void jw_time(struct jw *w, const char *key, double secs)
{
	put_num(w, key, "%.6f", secs);
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	prefix(w, key);
	if (s)
		put_str(w->f, s);
	else
		put_s(w->f, "null");
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	prefix(w, key);
	put_s(w->f, v ? "true" : "false");
}

void jw_null(struct jw *w, const char *key)
{
	prefix(w, key);
	put_s(w->f, "null");
}

void jw_done(struct jw *w)
{
	putc_unlocked('\n', w->f);
	fflush(w->f);
	w->depth = 0;
	w->need_comma[0] = false;
}
