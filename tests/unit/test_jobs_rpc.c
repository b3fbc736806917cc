// SPDX-License-Identifier: GPL-2.0
/*
 * A window's jobs ranked by what their READs and WRITEs carried (#63), not by what their file
 * calls moved: a user rewriting one cached MiB (gigabytes through the page cache, one flush's RPC
 * bytes) stays below the Slurm step whose 96 MiB went to the server; a cgroup whose bytes were all
 * written back in the window (its calls before it) is among the window's jobs; shares are of the
 * RPC bytes, their sum one; ties fall to the file bytes; no RPC bytes at all: no share. And a
 * node's thousands of short cgroups: the snapshots, the window's jobs and their active cgroups
 * found by bisection or hash, each once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "cgfix.h"
#include "model/jobs.h"
#include "model/jobtime.h"

#define MiB (1024ULL * 1024)


static void io(struct jobio_snap *e, __u64 cgid, __u32 dir, __u64 bytes, __u64 rpc_bytes)
{
	e->k = (struct job_key){ .cgid = cgid, .dev = 33, .dir = dir };
	e->v = (struct job_io){ .bytes = bytes, .calls = bytes / MiB, .uid = 1001, .rpc_bytes = rpc_bytes };
}

static const char *const dirs[] = {
	"/system.slice", "/system.slice/slurmstepd.scope", "/system.slice/slurmstepd.scope/job_777",
	"/system.slice/slurmstepd.scope/job_777/step_0", "/system.slice/slurmstepd.scope/job_777/step_1",
	"/user.slice", "/user.slice/session-4.scope", "/system.slice/flusher.service",
};
enum { STEP0 = 3, STEP1, SESSION = 6, WRITEBACK };

/* the tree of dirs[] under a new root, their ids into @id, and @cg over it */
static void tree_make(__u64 *id, struct cgroups *cg)
{
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		id[i] = mkcg(dirs[i]);
	cgroups_init_at(cg, root);
}

static void tree_remove(struct cgroups *cg)
{
	cgroups_free(cg);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;)
		rmcg(dirs[i]);
	rmdir(root);
}

static void test_ranked_by_rpc_bytes(void **state)
{
	struct jobio_snap a[4], b[8];
	struct snapshot from = { .ts_ns = 1, .jobio = a, .njobio = 0 }, to = { .ts_ns = 2, .jobio = b };
	__u64 id[sizeof(dirs) / sizeof(dirs[0])];
	struct win_jobs w = { 0 };
	struct cgroups cg;
	struct jobs_in in;

	(void)state;
	tree_make(id, &cg);
	/* before the window: the session had rewritten its MiB already, flushed once */
	io(&a[0], id[SESSION], JOB_WRITE, 512 * MiB, 1 * MiB);
	from.njobio = 1;
	/* in it: 8 GiB more through the cache, one more flush; the job's two steps write through */
	io(&b[0], id[SESSION], JOB_WRITE, 512 * MiB + 8192 * MiB, 2 * MiB);
	io(&b[1], id[STEP0], JOB_WRITE, 64 * MiB, 64 * MiB + 4096);
	io(&b[2], id[STEP1], JOB_WRITE, 32 * MiB, 32 * MiB + 2048);
	/* a cgroup whose calls all came before the window: its bytes written back in it */
	io(&b[3], id[WRITEBACK], JOB_WRITE, 0, 3 * MiB);
	/* the session's re-reads: another direction */
	io(&b[4], id[SESSION], JOB_READ, 4096 * MiB, 0);
	to.njobio = 5;
	assert_int_equal(cgroups_learn(&cg, &to, 10), 0);
	in = (struct jobs_in){ .from = &from, .to = &to, .dir = JOB_WRITE, .cg = &cg };
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 3);
	/* the job whose RPCs carried 96 MiB, its step the one whose RPCs carried most */
	assert_string_equal(w.j[0].id.kind, "slurm");
	assert_string_equal(w.j[0].id.id, "777");
	assert_string_equal(w.j[0].id.step, "0");
	assert_int_equal(w.j[0].rpc_bytes, 96 * MiB + 6144);
	assert_int_equal(w.j[0].bytes, 96 * MiB);
	/* written back in the window, no call in it: among the jobs, by its RPC bytes */
	assert_string_equal(w.j[1].id.id, "flusher.service");
	assert_int_equal(w.j[1].rpc_bytes, 3 * MiB);
	assert_int_equal(w.j[1].bytes, 0);
	/* the cached rewriter: most of the file bytes, last by what reached the server */
	assert_string_equal(w.j[2].id.kind, "systemd");
	assert_string_equal(w.j[2].id.id, "session-4.scope");
	assert_int_equal(w.j[2].bytes, 8192 * MiB);
	assert_int_equal(w.j[2].rpc_bytes, 1 * MiB);
	assert_true(w.j[2].bytes > 80 * w.j[0].bytes);
	/* shares of the RPC bytes, summing to one */
	assert_int_equal(w.rpc_total, 100 * MiB + 6144);
	assert_int_equal(w.total, 8192 * MiB + 96 * MiB);
	assert_true(w.j[0].share > 0.95 && w.j[2].share < 0.011);
	assert_true(w.j[0].share + w.j[1].share + w.j[2].share > 1 - 1e-12 &&
		    w.j[0].share + w.j[1].share + w.j[2].share < 1 + 1e-12);

	/* a restore window: the re-reads went nowhere near the server, yet they are its only I/O */
	in.dir = JOB_READ;
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 1);
	assert_int_equal(w.rpc_total, 0);
	assert_true(w.j[0].share < 0);

	/* equal RPC bytes: the file bytes decide */
	io(&b[1], id[STEP0], JOB_WRITE, 10 * MiB, 5 * MiB);
	io(&b[2], id[SESSION], JOB_WRITE, 512 * MiB + 20 * MiB, 1 * MiB + 5 * MiB);
	to.njobio = 3;
	in.dir = JOB_WRITE;
	b[0] = b[2];
	b[2] = b[3];
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 3);
	assert_string_equal(w.j[0].id.id, "session-4.scope");
	assert_string_equal(w.j[1].id.id, "777");
	assert_true(w.j[0].rpc_bytes == w.j[1].rpc_bytes);

	jobs_free(&w);
	tree_remove(&cg);
}

/* a snapshot in the engine's order is searched by bisection: every entry found, none made up */
static void test_sorted_lookup(void **state)
{
	enum { N = 5000 };
	struct jobio_snap *e = calloc(N, sizeof(*e));
	struct snapshot s = { .jobio = e, .njobio = N };

	(void)state;
	assert_non_null(e);
	for (size_t i = 0; i < N; i++)
		e[i] = (struct jobio_snap){ .k = { .cgid = (i * 7919) % 10007 + 1, .dev = 33 + (__u32)(i % 3),
						   .dir = (__u32)(i % 2) },
					    .v = { .bytes = i } };
	qsort(e, N, sizeof(*e), jobio_key_cmp);
	s.jobio_sorted = true;
	for (size_t i = 0; i < N; i++) {
		const struct job_io *v = jobio_before(&s, &e[i].k);

		assert_non_null(v);
		assert_ptr_equal(v, &e[i].v);
	}
	for (__u64 c = 10008; c < 10100; c++) {
		struct job_key k = { .cgid = c, .dev = 33, .dir = 0 };

		assert_null(jobio_before(&s, &k));
	}
	/* an empty one, sorted or not */
	s.njobio = 0;
	assert_null(jobio_before(&s, &e[0].k));
	free(e);
}

/* cgroup 100000 + i is Slurm job 9000000 + i's step 0 (as the kernel named it: the namer) */
static int slurm_namer(void *ctx, __u64 id, char *path, size_t len)
{
	(void)ctx;
	if (id < 100000)
		return -ENOENT;
	snprintf(path, len, "/system.slice/slurmstepd.scope/job_%llu/step_0", 9000000ULL + (id - 100000));
	return 0;
}

/*
 * A window with thousands of jobs, each one short cgroup (#63: a linear search per cgroup made
 * the window's end quadratic): each job once with its own bytes, ranked, every one found again
 * after the ranking moved them; then a second window over the same jobs, the index reused.
 */
static void test_many_jobs(void **state)
{
	enum { N = 6000 };
	struct jobio_snap *b = calloc(N, sizeof(*b));
	struct snapshot from = { .ts_ns = 1 }, to = { .ts_ns = 2, .jobio = b, .njobio = N };
	struct win_jobs w = { 0 };
	struct cgroups cg;
	struct jobs_in in = { .from = &from, .to = &to, .dir = JOB_WRITE };
	char want[32];

	(void)state;
	assert_non_null(b);
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	cgroups_init_at(&cg, root);
	cgroups_set_namer(&cg, slurm_namer, NULL);
	for (size_t i = 0; i < N; i++)
		io(&b[i], 100000 + (i * 4001) % N, JOB_WRITE, (i + 1) * 4096, (i + 1) * 4096 + 100);
	assert_int_equal(cgroups_learn(&cg, &to, 10), 0);
	in.cg = &cg;
	for (int round = 0; round < 2; round++) {
		unsigned __int128 rpc = 0;

		assert_int_equal(jobs_of_window(&w, &in), 0);
		assert_int_equal(w.nj, N);
		for (size_t i = 0; i < N; i++) {
			struct job_id id = { .kind = "slurm" };
			const struct win_job *j;

			/* ranked: the most RPC bytes first, one job per cgroup */
			if (i)
				assert_true(w.j[i - 1].rpc_bytes > w.j[i].rpc_bytes);
			rpc += w.j[i].rpc_bytes;
			snprintf(want, sizeof(want), "%llu", 9000000ULL + (b[i].k.cgid - 100000));
			snprintf(id.id, sizeof(id.id), "%s", want);
			j = win_job_find(&w, &id);
			assert_non_null(j);
			assert_string_equal(j->id.id, want);
			assert_true(j->rpc_bytes == b[i].v.rpc_bytes && j->bytes == b[i].v.bytes);
		}
		assert_true(rpc == w.rpc_total);
		/* none made up */
		snprintf(want, sizeof(want), "%llu", 9000000ULL + N);
		{
			struct job_id id = { .kind = "slurm" };

			snprintf(id.id, sizeof(id.id), "%s", want);
			assert_null(win_job_find(&w, &id));
		}
	}
	jobs_free(&w);
	cgroups_free(&cg);
	rmdir(root);
	free(b);
}

/*
 * The cgroups active in a window's intervals, thousands of them (#63: a linear search per entry):
 * those whose RPC time grew, each once, from the interval it first grew in to the last; a third
 * interval in which half of them grew again moves only their ends.
 */
static void test_many_active(void **state)
{
	enum { N = 6000 };
	struct jobio_snap *a = calloc(N, sizeof(*a)), *b = calloc(N, sizeof(*b)), *c = calloc(N, sizeof(*c));
	struct snapshot s0 = { .ts_ns = 1000, .jobio = a, .njobio = N }, s1 = { .ts_ns = 2000, .jobio = b, .njobio = N },
			s2 = { .ts_ns = 3000, .jobio = c, .njobio = N };
	struct job_active_set act = { 0 };
	unsigned char *seen = calloc(N, 1);

	(void)state;
	assert_true(a && b && c && seen);
	for (size_t i = 0; i < N; i++) {
		__u64 cg = 100000 + (i * 4001) % N;

		io(&a[i], cg, JOB_WRITE, 0, 0);
		b[i] = c[i] = a[i];
		/* every even cgroup's RPCs took time in the first interval, every fourth's in the second */
		b[i].v.ns[JC_TOTAL] = cg % 2 ? 0 : 5;
		c[i].v.ns[JC_TOTAL] = b[i].v.ns[JC_TOTAL] + (cg % 4 ? 0 : 5);
	}
	assert_int_equal(job_active_track(&act, JOB_WRITE, &s0, &s1), 0);
	assert_int_equal(job_active_track(&act, JOB_WRITE, &s1, &s2), 0);
	assert_int_equal(act.n, N / 2);
	for (size_t k = 0; k < act.n; k++) {
		__u64 cg = act.a[k].cgid;

		assert_true(cg >= 100000 && cg < 100000 + N && cg % 2 == 0);
		assert_int_equal(seen[cg - 100000]++, 0);
		assert_true(act.a[k].first_ns == 1000);
		assert_true(act.a[k].last_ns == (cg % 4 ? 2000 : 3000));
	}
	job_active_reset(&act);
	assert_int_equal(job_active_track(&act, JOB_WRITE, &s1, &s2), 0);
	assert_int_equal(act.n, N / 4);
	job_active_free(&act);
	free(seen);
	free(a);
	free(b);
	free(c);
}

/* entries with bytes 1 are counts kept in user space alone (the map's are the others) */
static bool kept_one(const void *ctx, const struct jobio_snap *e)
{
	(void)ctx;
	return e->v.bytes == 1;
}

/*
 * A kept entry (#63: a node's 20,000 idle cgroups, deleted from the map) is named from the cache
 * alone: no walk is made for it, and a live job's path, asked for by the map, outlives it
 */
static void test_kept_not_walked(void **state)
{
	struct jobio_snap b[2];
	struct snapshot to = { .ts_ns = 2, .jobio = b };
	__u64 id[sizeof(dirs) / sizeof(dirs[0])];
	struct cgroups cg;

	(void)state;
	tree_make(id, &cg);
	cgroups_set_kept(&cg, kept_one, NULL);
	io(&b[0], id[SESSION], JOB_WRITE, 1, 0);
	io(&b[1], id[STEP0], JOB_WRITE, 4 * MiB, 4 * MiB);
	to.njobio = 2;
	assert_int_equal(cgroups_learn(&cg, &to, 10), 0);
	/* the live one walked for and named; the kept one not looked for */
	assert_string_equal(cgroups_path(&cg, id[STEP0]), "/system.slice/slurmstepd.scope/job_777/step_0");
	assert_null(cgroups_path(&cg, id[SESSION]));
	/* once live again (its cgroup moved), it is walked for */
	b[0].v.bytes = 2;
	assert_int_equal(cgroups_learn(&cg, &to, 12), 0);
	assert_string_equal(cgroups_path(&cg, id[SESSION]), "/user.slice/session-4.scope");
	tree_remove(&cg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranked_by_rpc_bytes),
		cmocka_unit_test(test_sorted_lookup),
		cmocka_unit_test(test_many_jobs),
		cmocka_unit_test(test_many_active),
		cmocka_unit_test(test_kept_not_walked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
