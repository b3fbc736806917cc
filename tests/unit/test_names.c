// SPDX-License-Identifier: GPL-2.0
/*
 * Names any user chooses (mount points, cgroup and user names) through every writer: JSON tells a
 * byte that is not UTF-8 from the characters that spell it and stays UTF-8; the terminal gets no
 * control character (ESC, OSC, CR); the folded stacks keep one frame per name and the SVG is XML
 * that xmllint accepts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "out/json.h"
#include "modelfix.h"
#include "out/output.h"
#include "lib/utf8.h"

static char *json_of(const char *name)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;

	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_str(&w, "mountpoint", name);
	jw_end_obj(&w);
	fclose(f);
	return buf;
}

/* well-formed UTF-8 with no control character but @allowed */
static void clean_text(const char *s, const char *allowed)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p += utf8_seq_len(p)) {
		assert_true(utf8_seq_len(p) > 0);
		if (*p < 0x20 || *p == 0x7f)
			assert_non_null(strchr(allowed, *p));
		/* C1 as UTF-8: U+0080..U+009F (0x9b is CSI on a UTF-8 terminal) */
		assert_false(p[0] == 0xc2 && p[1] < 0xa0);
	}
}

static void test_json(void **state)
{
	char *a = json_of("/mnt/caf\xe9"), *b = json_of("/mnt/caf\\xE9"), *c = json_of("/m\x1b]0;x\x07\r\xc2\x9b");

	(void)state;
	assert_string_not_equal(a, b);
	assert_string_equal(a, "{\"mountpoint\":\"/mnt/caf\\\\xE9\"}");
	assert_string_equal(b, "{\"mountpoint\":\"/mnt/caf\\\\\\\\xE9\"}");
	assert_string_equal(c, "{\"mountpoint\":\"/m\\\\x1B]0;x\\\\x07\\\\x0D\\\\xC2\\\\x9B\"}");
	clean_text(a, "");
	clean_text(c, "");
	free(a);
	free(b);
	free(c);
}

/* a job whose cgroup name carries an OSC title sequence and a carriage return */
static void test_terminal(void **state)
{
	struct win_job j = { .id = { .kind = "cgroup", .step = "" }, .uid = 1000, .nprocs = 1, .share = -1 };
	struct win_jobs js = { .j = &j, .nj = 1 };
	struct window_view cv = { .kind = WIN_CHECKPOINT, .n = 1, .jobs = &js };
	struct view v = { 0 };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	snprintf(j.id.id, sizeof(j.id.id), "/user.slice/\x1b]0;owned\x07\rjob");
	snprintf(j.user, sizeof(j.user), "ev\x1b[2Jil");
	out_window_text(f, &v, &cv);
	fclose(f);
	clean_text(buf, "\n");
	assert_non_null(strstr(buf, "job: cgroup /user.slice/\\x1B]0;owned\\x07\\x0Djob"));
	assert_non_null(strstr(buf, "user ev\\x1B[2Jil"));
	free(buf);
}

static void test_folded_and_svg(void **state)
{
	const char *mnt = "/mnt/a;b c\x01\xff";
	struct nfs_mount nm = { .minor = 77, .mountpoint = (char *)mnt };
	struct mount_table mt = { .n = 1, .m = &nm };
	struct snapfix *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char path[] = "/tmp/slotscope-names-XXXXXX.svg", cmd[128], *buf = NULL;
	struct model_out m;
	struct view v;
	size_t len;
	FILE *f;
	int fd;

	(void)state;
	fx_init(a, 1000000000ull);
	fx_init(b, 2000000000ull);
	fx_xprt(a, 1, 1, IDENT_TCP, "10.0.0.1", 16);
	fx_xprt(b, 1, 1, IDENT_TCP, "10.0.0.1", 16);
	fx_op(b, 1, 5, 7, "WRITE", 10, 1000000, 500000);
	fx_client(b, 5, 77, 0);
	assert_int_equal(fx_model(&m, SPAN_SUMMARY, a, b, &mt), 0);
	v = m.view;
	f = open_memstream(&buf, &len);
	out_folded(f, &v);
	fclose(f);
	clean_text(buf, "\n");
	/* one frame per name: server;mountpoint;op;stage;bucket weight, on every line */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		int semis = 0;

		for (char *c = line; *c; c++)
			semis += *c == ';';
		assert_int_equal(semis, 4);
		assert_non_null(strstr(line, ";/mnt/a\\x3Bb\\x20c\\x01\\xFF;"));
	}
	free(buf);
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	out_svg(f, &v, NULL);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	if (system("command -v xmllint >/dev/null") == 0)
		assert_int_equal(system(cmd), 0);
	unlink(path);
	model_out_free(&m);
	free(a);
	free(b);
}

/*
 * A document past the writer's buffer, many times over: tokens across its edge, a name longer
 * than it, an escaped name between, ended by jw_done: the bytes as an independent build of them.
 */
static void test_json_long(void **state)
{
	size_t len, wlen = 0, cap = 1 << 21;
	char *buf = NULL, *want = malloc(cap), *big = malloc(40001);
	FILE *f = open_memstream(&buf, &len);
	struct jw w;

	(void)state;
	assert_non_null(want);
	assert_non_null(big);
	memset(big, 'n', 40000);
	big[40000] = 0;
	jw_init(&w, f);
	jw_obj(&w, NULL);
	wlen += (size_t)snprintf(want + wlen, cap - wlen, "{");
	jw_arr(&w, "v");
	wlen += (size_t)snprintf(want + wlen, cap - wlen, "\"v\":[");
	for (int i = 0; i < 20000; i++) {
		jw_u64(&w, NULL, (uint64_t)i * 7919u);
		jw_dbl(&w, NULL, i / 7.0);
		wlen += (size_t)snprintf(want + wlen, cap - wlen, "%s%llu,%.9g", i ? "," : "",
					 (unsigned long long)i * 7919u, i / 7.0);
		if (i == 9000) {
			jw_str(&w, NULL, big);
			jw_str(&w, NULL, "caf\xe9\"");
			wlen += (size_t)snprintf(want + wlen, cap - wlen, ",\"%s\",\"caf\\\\xE9\\\"\"", big);
		}
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_done(&w);
	wlen += (size_t)snprintf(want + wlen, cap - wlen, "]}\n");
	assert_true(wlen < cap);
	fclose(f);
	assert_int_equal(len, wlen);
	assert_memory_equal(buf, want, wlen);
	free(buf);
	free(want);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_long),
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_folded_and_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
