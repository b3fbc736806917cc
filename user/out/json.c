// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include "lib/fmt.h"
#include "out/json.h"
#include "lib/utf8.h"

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->n = 0;
	w->depth = 0;
	w->need_comma[0] = false;
}

/*
 * The line is built in the writer's own buffer and handed to stdio in blocks: a --json tick at
 * 64 transports is ~20,000 tokens, and a stdio call per token (its locking skipped, its checks
 * and copy not) cost more than the bytes.
 */
static void flush(struct jw *w)
{
	if (w->n)
		fwrite_unlocked(w->buf, 1, w->n, w->f);
	w->n = 0;
}

static inline void put(struct jw *w, const void *s, size_t n)
{
	if (n > sizeof(w->buf) - w->n) {
		flush(w);
		if (n > sizeof(w->buf)) {
			fwrite_unlocked(s, 1, n, w->f);
			return;
		}
	}
	memcpy(w->buf + w->n, s, n);
	w->n += n;
}

static inline void put_c(struct jw *w, char c)
{
	if (w->n == sizeof(w->buf))
		flush(w);
	w->buf[w->n++] = c;
}

/*
 * The digits written in place, backwards from their count: through a scratch copy, the copy's
 * variable length was a memcpy() call per number (a 64-transport tick writes ~10,000)
 */
static void put_unsigned(struct jw *w, uint64_t v)
{
	char *d;
	int len = 1;

	/* a histogram's buckets are mostly 0: one digit, no division */
	if (v < 10) {
		put_c(w, (char)('0' + v));
		return;
	}
	for (uint64_t t = v; t >= 10; t /= 10)
		len++;
	if ((size_t)len > sizeof(w->buf) - w->n)
		flush(w);
	d = w->buf + w->n;
	w->n += (size_t)len;
	while (len--) {
		d[len] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* printable ASCII but " (0x22) and \\ (0x5c) */
static const unsigned char plain[256] = { [0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7e] = 1 };

/* a string copied as it is scanned, when it is plain and short (every key, nearly every name) */
#define STR_FAST 62

/*
 * A JSON string is UTF-8: a name is written by name_next() (utf8.h) as in the textfile, so no
 * parser rejects the line and no two names read alike; then JSON's own \\ and \". Printable ASCII
 * that needs no escape, nearly every name, is copied as it is.
 */
static void put_str(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t run = 0;

	if (sizeof(w->buf) - w->n >= STR_FAST + 2) {
		char *d = w->buf + w->n;

		d[0] = '"';
		while (run < STR_FAST && plain[p[run]]) {
			d[run + 1] = (char)p[run];
			run++;
		}
		if (!p[run]) {
			d[run + 1] = '"';
			w->n += run + 2;
			return;
		}
	}
	while (plain[p[run]])
		run++;
	put_c(w, '"');
	if (p[run]) {
		flush(w);
		put_name_quoted(w->f, s);
	} else {
		put(w, s, run);
	}
	put_c(w, '"');
}

static void prefix(struct jw *w, const char *key)
{
	if (w->need_comma[w->depth])
		put_c(w, ',');
	w->need_comma[w->depth] = true;
	if (key) {
		put_str(w, key);
		put_c(w, ':');
	}
}

static void open(struct jw *w, const char *key, char c)
{
	prefix(w, key);
	put_c(w, c);
	/* a nesting the renderers never make: their bug, not the input's (bpftool asserts too) */
	assert((size_t)w->depth + 1 < sizeof(w->need_comma) / sizeof(w->need_comma[0]));
	w->need_comma[++w->depth] = false;
}

void jw_obj(struct jw *w, const char *key) { open(w, key, '{'); }
void jw_arr(struct jw *w, const char *key) { open(w, key, '['); }

void jw_end_obj(struct jw *w)
{
	put_c(w, '}');
	assert(w->depth > 0);
	/* the document is whole: stdio has it */
	if (--w->depth == 0)
		flush(w);
}

void jw_end_arr(struct jw *w)
{
	put_c(w, ']');
	assert(w->depth > 0);
	/* the document is whole: stdio has it */
	if (--w->depth == 0)
		flush(w);
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	prefix(w, key);
	put_unsigned(w, v);
}

static void put_signed(struct jw *w, int64_t v)
{
	if (v < 0) {
		put_c(w, '-');
		put_unsigned(w, (uint64_t)0 - (uint64_t)v);
	} else {
		put_unsigned(w, (uint64_t)v);
	}
}

void jw_i64(struct jw *w, const char *key, int64_t v)
{
	prefix(w, key);
	put_signed(w, v);
}

/* @key's prefix, and null for a NaN or an infinity (not JSON): false when that is the value */
static bool number(struct jw *w, const char *key, double v)
{
	prefix(w, key);
	if (isfinite(v))
		return true;
	put(w, "null", 4);
	return false;
}

void jw_dbl(struct jw *w, const char *key, double v)
{
	char b[32];
	int n;

	if (!number(w, key, v))
		return;
	/*
	 * a whole number below 1e9 in magnitude is its digits in %.9g (no exponent, no point): written
	 * as an integer; -0 is "-0" there, which fmt_g9 leaves to printf
	 */
	if (v > -1e9 && v < 1e9 && v == (double)(int64_t)v && (v != 0 || !signbit(v))) {
		put_signed(w, (int64_t)v);
		return;
	}
	n = fmt_g9(b, v);
	put(w, b, n > 0 ? (size_t)n : 0);
}

void jw_time(struct jw *w, const char *key, double secs)
{
	char b[64];
	int n;

	if (!number(w, key, secs))
		return;
	n = snprintf(b, sizeof(b), "%.6f", secs);
	if (n > 0 && (size_t)n < sizeof(b)) {
		put(w, b, (size_t)n);
	} else {
		/* a magnitude no clock has: printed whole, as before */
		flush(w);
		fprintf(w->f, "%.6f", secs);
	}
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	prefix(w, key);
	if (s)
		put_str(w, s);
	else
		put(w, "null", 4);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	prefix(w, key);
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void jw_null(struct jw *w, const char *key)
{
	prefix(w, key);
	put(w, "null", 4);
}

void jw_done(struct jw *w)
{
	put_c(w, '\n');
	flush(w);
	fflush(w->f);
	w->depth = 0;
	w->need_comma[0] = false;
}
