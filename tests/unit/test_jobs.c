// SPDX-License-Identifier: GPL-2.0
/*
 * Whose window it was: cgroup paths as slurmstepd, Slurm's v1 plugin, kubelet and systemd lay
 * them out (and paths a user may make that must not pass for them), cgroup ids resolved from a
 * directory tree made here, and a window's jobs from the kernel's counts in two snapshots.
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
#include "prom/out_prom_int.h"
#include "model/window.h"

static void want(const char *path, const char *kind, const char *id, const char *step, uint32_t uid)
{
	struct job_id j;

	job_from_cgroup(path, &j);
	assert_string_equal(j.kind, kind);
	assert_string_equal(j.id, id);
	assert_string_equal(j.step, step);
	assert_int_equal(j.uid, uid);
}

static void test_paths(void **state)
{
	(void)state;
	/* Slurm, cgroup v2 (slurmstepd's scope, with or without a node prefix) and v1 */
	want("/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0", "slurm", "4242", "0", JOB_UNKNOWN_UID);
	want("/system.slice/node3_slurmstepd.scope/job_77/step_batch/user/task_special", "slurm", "77", "batch",
	     JOB_UNKNOWN_UID);
	want("/system.slice/slurmstepd.scope/job_9", "slurm", "9", "", JOB_UNKNOWN_UID);
	want("/slurm/uid_1000/job_123/step_extern/task_0", "slurm", "123", "extern", 1000);
	/* kubelet, systemd driver: the pod UID with '_' for '-', the container after its runtime */
	want("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f1c2a4e_5b6d_4e7f_8a9b_0c1d2e3f4a5b.slice/"
	     "cri-containerd-0123456789abcdef.scope",
	     "kubernetes", "3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "0123456789abcdef", JOB_UNKNOWN_UID);
	want("/kubepods.slice/kubepods-pod3f1c2a4e_5b6d.slice/crio-fedcba.scope", "kubernetes", "3f1c2a4e-5b6d",
	     "fedcba", JOB_UNKNOWN_UID);
	/* cgroupfs driver: a guaranteed pod (no QoS level), a besteffort one */
	want("/kubepods/pod3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b/fedcba9876543210", "kubernetes",
	     "3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "fedcba9876543210", JOB_UNKNOWN_UID);
	want("/kubepods/besteffort/podabc/0123", "kubernetes", "abc", "0123", JOB_UNKNOWN_UID);
	/* systemd: the outermost service or scope, the one the system's manager made */
	want("/system.slice/ckpt-writer.service", "systemd", "ckpt-writer.service", "", JOB_UNKNOWN_UID);
	want("/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope", "systemd",
	     "user@1000.service", "", JOB_UNKNOWN_UID);
	/* anything else is its path */
	want("/batch/train7", "cgroup", "/batch/train7", "", JOB_UNKNOWN_UID);
	want("/", "cgroup", "/", "", JOB_UNKNOWN_UID);
}

/* what a user may make in a delegated subtree, or anywhere else, is not a job or a pod */
static void test_not_forged(void **state)
{
	(void)state;
	want("/user.slice/user-1000.slice/user@1000.service/app.slice/job_4242", "systemd",
	     "user@1000.service", "", JOB_UNKNOWN_UID);
	want("/user.slice/user-1000.slice/user@1000.service/slurmstepd.scope/job_5/step_0", "systemd",
	     "user@1000.service", "", JOB_UNKNOWN_UID);
	want("/system.slice/job_runner.service", "systemd", "job_runner.service", "", JOB_UNKNOWN_UID);
	want("/system.slice/slurmstepd.scope/job_x1", "systemd", "slurmstepd.scope", "", JOB_UNKNOWN_UID);
	want("/mine/kubepods/podabc/1", "cgroup", "/mine/kubepods/podabc/1", "", JOB_UNKNOWN_UID);
	want("/mine/slurm/uid_0/job_1", "cgroup", "/mine/slurm/uid_0/job_1", "", JOB_UNKNOWN_UID);
	want("/kubepods.slice/kubepods-besteffort.slice/kubepods-burstable-podabc.slice", "cgroup",
	     "/kubepods.slice/kubepods-besteffort.slice/kubepods-burstable-podabc.slice", "", JOB_UNKNOWN_UID);
	want("/user.slice/user-1000.slice/user@1000.service/kubepods.slice/kubepods-podabc.slice",
	     "systemd", "user@1000.service", "", JOB_UNKNOWN_UID);
}


struct fx {
	struct snapshot a, b;
	struct jobio_snap ja[8], jb[8];
};

static void io(struct jobio_snap *e, __u64 cgid, __u32 dev, __u32 dir, __u64 bytes, __u32 uid)
{
	e->k = (struct job_key){ .cgid = cgid, .dev = dev, .dir = dir };
	/* written through: each call's bytes carried by its RPCs in the same window */
	e->v = (struct job_io){ .bytes = bytes, .calls = bytes / 65536, .uid = uid, .rpc_bytes = bytes };
}

static void test_window_jobs(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct cgroups cg;
	struct win_jobs w = { 0 };
	struct task_seen tasks[5];
	__u32 devs[] = { 33 };
	__u64 slurm, step1, pod, mine;
	struct jobs_in in;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkcg("/system.slice");
	mkcg("/system.slice/slurmstepd.scope");
	slurm = mkcg("/system.slice/slurmstepd.scope/job_4242");
	step1 = mkcg("/system.slice/slurmstepd.scope/job_4242/step_1");
	mkcg("/kubepods");
	pod = mkcg("/kubepods/podabc");
	mkcg("/user.slice");
	mine = mkcg("/user.slice/job_4242");
	cgroups_init_at(&cg, root);
	/* the kernel's counts: the job's two cgroups on the window's mount, the pod on another
	 * mount, reads, a user's look-alike cgroup */
	io(&f->ja[0], slurm, 33, JOB_WRITE, 1000, 1000);
	f->a.jobio = f->ja;
	f->a.njobio = 1;
	f->a.ts_ns = 5000;
	io(&f->jb[0], slurm, 33, JOB_WRITE, 1000 + 4000, 1000);
	io(&f->jb[1], step1, 33, JOB_WRITE, 6000, 1000);
	io(&f->jb[2], pod, 34, JOB_WRITE, 9000, 0);
	io(&f->jb[3], slurm, 33, JOB_READ, 7777, 1000);
	io(&f->jb[4], mine, 33, JOB_WRITE, 2000, 1000);
	f->b.jobio = f->jb;
	f->b.njobio = 5;
	assert_int_equal(cgroups_learn(&cg, &f->b, 10), 0);
	assert_string_equal(cgroups_path(&cg, step1), "/system.slice/slurmstepd.scope/job_4242/step_1");
	/* processes: two of the job's seen in the window, one before it; one of the user's */
	tasks[0] = (struct task_seen){ .k = { .cgid = slurm, .tgid = 10 }, .last_ns = 6000 };
	tasks[1] = (struct task_seen){ .k = { .cgid = step1, .tgid = 11 }, .last_ns = 7000 };
	tasks[2] = (struct task_seen){ .k = { .cgid = slurm, .tgid = 12 }, .last_ns = 4000 };
	tasks[3] = (struct task_seen){ .k = { .cgid = mine, .tgid = 13 }, .last_ns = 9000 };
	tasks[4] = (struct task_seen){ .k = { .cgid = pod, .tgid = 14 }, .last_ns = 9000 };
	in = (struct jobs_in){ .from = &f->a, .to = &f->b, .devs = devs, .ndevs = 1, .dir = JOB_WRITE,
			       .cg = &cg, .tasks = tasks, .ntasks = 5, .since_ns = 5000 };
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 2);
	assert_string_equal(w.j[0].id.kind, "slurm");
	assert_string_equal(w.j[0].id.id, "4242");
	/* its step: the cgroup that moved most of its bytes */
	assert_string_equal(w.j[0].id.step, "1");
	assert_int_equal(w.j[0].bytes, 4000 + 6000);
	assert_int_equal(w.j[0].nprocs, 2);
	assert_int_equal(w.j[0].uid, 1000);
	assert_string_equal(w.j[1].id.kind, "cgroup");
	assert_string_equal(w.j[1].id.id, "/user.slice/job_4242");
	assert_int_equal(w.j[1].bytes, 2000);
	assert_int_equal(w.total, 12000);
	assert_int_equal(w.rpc_total, 12000);
	assert_true(w.j[0].share > 0.83 && w.j[0].share < 0.84);
	/* every mount: the pod too */
	in.ndevs = 0;
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 3);
	assert_string_equal(w.j[1].id.kind, "kubernetes");
	assert_string_equal(w.j[1].id.id, "abc");
	assert_int_equal(w.j[1].nprocs, 1);
	/* reads for a restore */
	in.dir = JOB_READ;
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 1);
	assert_int_equal(w.j[0].bytes, 7777);
	/* a short job's cgroup removed after it was learned: still named, and known gone */
	rmcg("/system.slice/slurmstepd.scope/job_4242/step_1");
	io(&f->jb[5], 999999999, 33, JOB_WRITE, 1, 0);	/* a cgroup made since: a scan */
	f->b.njobio = 6;
	assert_int_equal(cgroups_learn(&cg, &f->b, 20), 0);
	assert_true(cgroups_gone(&cg, step1));
	assert_false(cgroups_gone(&cg, slurm));
	assert_string_equal(cgroups_path(&cg, step1), "/system.slice/slurmstepd.scope/job_4242/step_1");
	/* nothing to name them by: unknown */
	in.dir = JOB_WRITE;
	in.cg = NULL;
	assert_int_equal(jobs_of_window(&w, &in), 0);
	assert_int_equal(w.nj, 1);
	assert_string_equal(w.j[0].id.kind, "unknown");
	jobs_free(&w);
	cgroups_free(&cg);
	rmcg("/user.slice/job_4242");
	rmcg("/user.slice");
	rmcg("/kubepods/podabc");
	rmcg("/kubepods");
	rmcg("/system.slice/slurmstepd.scope/job_4242");
	rmcg("/system.slice/slurmstepd.scope");
	rmcg("/system.slice");
	rmdir(root);
	free(f);
}

/*
 * A window's jobs' time by cause (#46): each job's RPC time from the kernel's counts in its
 * direction on its mounts, the rest of it what no wait nor the round trip took, the window's
 * duration shared out the same way; totals over windows, the oldest job giving its place.
 */
static void nsx(struct jobio_snap *e, __u64 rpcs, __u64 slot, __u64 send, __u64 rtt, __u64 total)
{
	e->v.rpcs = rpcs;
	e->v.ns[WAIT_SLOT] = slot;
	e->v.ns[WAIT_SEND] = send;
	e->v.ns[JC_RTT] = rtt;
	e->v.ns[JC_TOTAL] = total;
}

static void test_jobs_time(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct win_jobs w = { 0 };
	struct job_totals t = { 0 };
	struct cgroups cg;
	__u32 devs[] = { 33 };
	struct jobs_in in;
	__u64 slurm, pod;
	double sum = 0;
	const struct win_job *j;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkcg("/kubepods");
	pod = mkcg("/kubepods/podabc");
	mkcg("/system.slice");
	mkcg("/system.slice/slurmstepd.scope");
	slurm = mkcg("/system.slice/slurmstepd.scope/job_4242");
	cgroups_init_at(&cg, root);
	io(&f->ja[0], slurm, 33, JOB_WRITE, 1000, 1000);
	nsx(&f->ja[0], 10, 1e9, 0, 1e9, 5e9);
	f->a.jobio = f->ja;
	f->a.njobio = 1;
	/* in the window: the job's 100 WRITEs, 60 s of them, 30 waiting for a slot, 6 for the send
	 * queue, 12 in round trips (the rest, 12 s, other); the pod's, whose parts pass its whole;
	 * the job's reads (not a checkpoint's); a job with time but no bytes (not among them) */
	io(&f->jb[0], slurm, 33, JOB_WRITE, 5000, 1000);
	nsx(&f->jb[0], 110, 31e9, 6e9, 13e9, 65e9);
	io(&f->jb[1], pod, 33, JOB_WRITE, 5000, 0);
	nsx(&f->jb[1], 4, 3e9, 0, 2e9, 4e9);
	io(&f->jb[2], slurm, 33, JOB_READ, 100, 1000);
	nsx(&f->jb[2], 5, 9e9, 0, 9e9, 99e9);
	f->b.jobio = f->jb;
	f->b.njobio = 3;
	assert_int_equal(cgroups_learn(&cg, &f->b, 10), 0);
	in = (struct jobs_in){ .from = &f->a, .to = &f->b, .devs = devs, .ndevs = 1, .dir = JOB_WRITE, .cg = &cg };
	assert_int_equal(jobs_of_window(&w, &in), 0);
	jobs_time_of_window(&w, &in, NULL, 20);
	assert_int_equal(w.nj, 2);
	j = win_job_find(&w, &(struct job_id){ .kind = "slurm", .id = "4242" });
	assert_non_null(j);
	assert_int_equal(j->rpcs, 100);
	assert_true(j->rpc_s == 60 && j->cause_rpc_s[JS_SLOT] == 30 && j->cause_rpc_s[JS_SEND] == 6);
	assert_true(j->cause_rpc_s[JS_RTT] == 12 && j->cause_rpc_s[JS_OTHER] == 12);
	for (int c = 0; c < JS_CAUSES; c++)
		sum += j->cause_s[c];
	assert_true(sum > 19.999 && sum < 20.001);
	assert_true(j->cause_s[JS_SLOT] == 10 && j->cause_s[JS_RTT] == 4);
	/* 3 s of slot waits and 2 of round trip in 4 s of RPCs: no rest, shares of the 5 */
	j = win_job_find(&w, &(struct job_id){ .kind = "kubernetes", .id = "abc" });
	assert_non_null(j);
	assert_true(j->cause_rpc_s[JS_OTHER] == 0);
	assert_true(j->cause_s[JS_SLOT] > 11.999 && j->cause_s[JS_SLOT] < 12.001);
	/* a job that wrote in 2 s of the window stood on its RPCs for 2 s, not 20: from the start of
	 * its first interval with RPC time to the end of its last (its read direction not counted) */
	{
		struct job_active_set act = { 0 };
		double ssum = 0;

		f->a.ts_ns = 1000000000;
		f->b.ts_ns = 3000000000;
		assert_int_equal(job_active_track(&act, JOB_WRITE, &f->a, &f->b), 0);
		assert_int_equal(act.n, 2);
		assert_true(act.a[0].first_ns == 1000000000 && act.a[0].last_ns == 3000000000);
		/* the next interval: nothing grew, the span stays */
		f->a.ts_ns = 5000000000;
		assert_int_equal(job_active_track(&act, JOB_WRITE, &f->b, &f->a), 0);
		assert_true(act.a[0].last_ns == 3000000000);
		jobs_time_of_window(&w, &in, &act, 20);
		j = win_job_find(&w, &(struct job_id){ .kind = "slurm", .id = "4242" });
		assert_true(j->active_s == 2 && j->cause_s[JS_SLOT] == 1 && j->rpc_s == 60);
		for (int c = 0; c < JS_CAUSES; c++)
			ssum += j->cause_s[c];
		assert_true(ssum > 1.999 && ssum < 2.001);
		job_active_free(&act);
		jobs_time_of_window(&w, &in, NULL, 20);
	}
	/* totals: the window's, then again; seven more jobs push one out */
	job_totals_add(&t, &w);
	job_totals_add(&t, &w);
	assert_int_equal(t.n, 2);
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.t[i].cause_s[JS_SLOT] == (strcmp(t.t[i].id.id, "4242") ? 24 : 20));
	for (int i = 0; i < JOB_TOTALS_MAX - 1; i++) {
		struct win_job one = { .id = { .kind = "cgroup" }, .cause_s = { [JS_RTT] = 1 } };
		struct win_jobs ws = { .j = &one, .nj = 1 };

		snprintf(one.id.id, sizeof(one.id.id), "/j%d", i);
		job_totals_add(&t, &ws);
	}
	/* the pod and the Slurm job were last in the same window: the first of them gave its place */
	assert_int_equal(t.n, JOB_TOTALS_MAX);
	for (size_t i = 0; i < t.n; i++)
		assert_true(strcmp(t.t[i].id.id, "abc") || strcmp(t.t[i].id.kind, "kubernetes"));
	/* a window with a new job ahead of one counted before, the oldest: the new one pushes the
	 * next oldest out, not the one in this window too */
	{
		struct job_totals u = { 0 };
		struct win_job two[2] = { { .id = { .kind = "cgroup", .id = "/new" }, .cause_s = { [JS_SLOT] = 1 } },
					  { .id = { .kind = "cgroup", .id = "/j0" }, .cause_s = { [JS_SLOT] = 1 } } };
		struct win_jobs ws2 = { .j = two, .nj = 2 };

		for (int i = 0; i < JOB_TOTALS_MAX; i++) {
			struct win_job one = { .id = { .kind = "cgroup" }, .cause_s = { [JS_SLOT] = 1 } };
			struct win_jobs ws = { .j = &one, .nj = 1 };

			snprintf(one.id.id, sizeof(one.id.id), "/j%d", i);
			job_totals_add(&u, &ws);
		}
		job_totals_add(&u, &ws2);
		for (size_t i = 0; i < u.n; i++) {
			assert_string_not_equal(u.t[i].id.id, "/j1");
			if (!strcmp(u.t[i].id.id, "/j0"))
				assert_true(u.t[i].cause_s[JS_SLOT] == 2);
		}
	}
	{
		struct window ck[WIN_KINDS];
		struct prom_input pi = { .windows = ck };
		char *buf = NULL;
		size_t len = 0;
		FILE *o = open_memstream(&buf, &len);

		memset(ck, 0, sizeof(ck));
		ck[WIN_CHECKPOINT].job_totals = t;
		prom_windows(o, &pi);
		fclose(o);
		assert_non_null(strstr(buf, "slotscope_job_window_seconds_total{kind=\"checkpoint\",job_kind=\"slurm\","
					    "job_id=\"4242\",cause=\"slot\"} 20.000000\n"));
		assert_non_null(strstr(buf, "job_id=\"/j6\",cause=\"rtt\"} 1.000000\n"));
		assert_null(strstr(buf, "job_id=\"abc\""));
		free(buf);
	}
	jobs_free(&w);
	cgroups_free(&cg);
	rmcg("/system.slice/slurmstepd.scope/job_4242");
	rmcg("/system.slice/slurmstepd.scope");
	rmcg("/system.slice");
	rmcg("/kubepods/podabc");
	rmcg("/kubepods");
	rmdir(root);
	free(f);
}

/* a fork loop's cgroups: the table stays bounded, the oldest forgotten */
static void test_bounded(void **state)
{
	struct cgroups cg;
	struct snapshot s = { 0 };
	struct jobio_snap e = { 0 };

	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	cgroups_init_at(&cg, root);
	s.jobio = &e;
	s.njobio = 1;
	for (int i = 0; i < CGROUPS_MAX + 100; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "/c%d", i);
		e.k.cgid = mkcg(rel);
		assert_int_equal(cgroups_learn(&cg, &s, 100 + 2 * i), 0);
		assert_true(cg.n <= CGROUPS_MAX);
		rmcg(rel);
	}
	assert_non_null(cgroups_path(&cg, e.k.cgid));
	cgroups_free(&cg);
	rmdir(root);
}

/* the kernel's names (engine_cgroup_path()), as a test gives them: id 4242 -> a step */
static int namer_calls;
static int fake_namer(void *ctx, __u64 id, char *path, size_t len)
{
	(void)ctx;
	namer_calls++;
	if (id >= 1000 && id < 2000) {
		snprintf(path, len, "/x/c%llu", (unsigned long long)id);
		return 0;
	}
	if (id != 4242)
		return -ENOENT;
	snprintf(path, len, "/system.slice/slurmstepd.scope/job_77/step_0");
	return 0;
}

static int any_namer(void *ctx, __u64 id, char *path, size_t len)
{
	(void)ctx;
	snprintf(path, len, "/y/c%llu", (unsigned long long)id);
	return 0;
}

/*
 * Names learned over ticks, new ids among known ones in any order: each id once, the table
 * sorted by id for entry() (a search of the half-sorted table made duplicates), and still so
 * once full, where one in and one out leaves its size as it was (it was left sorted by use).
 */
static void test_learn_sorted(void **state)
{
	struct cgroups cg;
	struct snapshot s = { 0 };
	struct jobio_snap e[64];
	size_t n = 0;

	(void)state;
	cgroups_init_at(&cg, "/nonexistent-cgroup-root");
	cgroups_set_namer(&cg, fake_namer, NULL);
	for (int i = 0; i < 11; i++)
		io(&e[n++], 1000 + (__u64)(i * 7 % 11), 33, JOB_WRITE, 1, 0);
	s.jobio = e;
	s.njobio = n;
	assert_int_equal(cgroups_learn(&cg, &s, 10), 0);
	n = 0;
	for (int i = 0; i < 21; i++)
		io(&e[n++], 1000 + (__u64)(i * 13 % 21), 33, JOB_WRITE, 1, 0);
	for (int i = 0; i < 5; i++)
		io(&e[n++], 1000 + (__u64)i, 34, JOB_WRITE, 1, 0);
	s.njobio = n;
	assert_int_equal(cgroups_learn(&cg, &s, 12), 0);
	assert_int_equal(cg.n, 21);
	for (size_t i = 1; i < cg.n; i++)
		assert_true(cg.e[i - 1].id < cg.e[i].id);
	for (int i = 0; i < 21; i++)
		assert_non_null(cgroups_path(&cg, 1000 + (__u64)i));
	cgroups_free(&cg);
	/* full: every tick one more, the oldest out; each new one found at once */
	cgroups_init_at(&cg, "/nonexistent-cgroup-root");
	cgroups_set_namer(&cg, any_namer, NULL);
	s.njobio = 1;
	for (int i = 0; i < CGROUPS_MAX + 50; i++) {
		io(&e[0], 100000000 + (__u64)i, 33, JOB_WRITE, 1, 0);
		assert_int_equal(cgroups_learn(&cg, &s, 20 + i), 0);
		assert_non_null(cgroups_path(&cg, 100000000 + (__u64)i));
	}
	assert_int_equal(cg.n, CGROUPS_MAX);
	for (size_t i = 1; i < cg.n; i++)
		assert_true(cg.e[i - 1].id < cg.e[i].id);
	cgroups_free(&cg);
}

/*
 * A login that lived less than a tick (#44): its directory is gone before the first tick, so no
 * walk can find it, and the kernel's name is the only one. Without a name it is looked for once,
 * then remembered as unnamed and gone (its counts forgotten), never walked for at every tick.
 */
static void test_named_by_kernel(void **state)
{
	struct cgroups cg;
	struct snapshot s = { 0 };
	struct jobio_snap e[2] = { 0 };

	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	cgroups_init_at(&cg, root);
	cgroups_set_namer(&cg, fake_namer, NULL);
	io(&e[0], 4242, 33, JOB_WRITE, 4096, 1000);
	io(&e[1], 5151, 33, JOB_WRITE, 4096, 1001);
	s.jobio = e;
	s.njobio = 2;
	assert_int_equal(cgroups_learn(&cg, &s, 10), 0);
	assert_string_equal(cgroups_path(&cg, 4242), "/system.slice/slurmstepd.scope/job_77/step_0");
	assert_true(cgroups_gone(&cg, 4242));
	/* 5151: no name, no directory: one walk, then unnamed */
	assert_null(cgroups_path(&cg, 5151));
	assert_true(cg.scanned == 10);
	assert_true(cgroups_gone(&cg, 5151));
	namer_calls = 0;
	for (int t = 12; t < 40; t += 2)
		assert_int_equal(cgroups_learn(&cg, &s, t), 0);
	assert_true(cg.scanned == 10);
	assert_int_equal(namer_calls, 0);
	cgroups_free(&cg);
	rmdir(root);
}

/* a user's delegated subtree of 20,000 cgroups under the fixture root, made or removed */
static void user_subtree(bool make)
{
	char rel[96];

	if (make) {
		mkcg("/user.slice");
		mkcg("/user.slice/u");
	}
	for (int i = 0; i < 20000; i++) {
		snprintf(rel, sizeof(rel), "/user.slice/u/c%d", i);
		if (make)
			mkcg(rel);
		else
			rmcg(rel);
	}
	if (!make) {
		rmcg("/user.slice/u");
		rmcg("/user.slice");
	}
}

/*
 * 20,000 cgroups in a user's delegated subtree (#44: one scan kept a path for each, 61.5 MB, and
 * a new Slurm step went unnamed for 10 ticks): a walk for the new step keeps the step alone and
 * names it at the first tick.
 */
static void test_user_subtree(void **state)
{
	struct cgroups cg;
	struct snapshot s = { 0 };
	struct jobio_snap e = { 0 };
	__u64 step;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-cg-XXXXXX");
	assert_non_null(mkdtemp(root));
	user_subtree(true);
	mkcg("/system.slice");
	mkcg("/system.slice/slurmstepd.scope");
	mkcg("/system.slice/slurmstepd.scope/job_9");
	step = mkcg("/system.slice/slurmstepd.scope/job_9/step_2");
	cgroups_init_at(&cg, root);
	io(&e, step, 33, JOB_WRITE, 4096, 1000);
	s.jobio = &e;
	s.njobio = 1;
	assert_int_equal(cgroups_learn(&cg, &s, 10), 0);
	assert_string_equal(cgroups_path(&cg, step), "/system.slice/slurmstepd.scope/job_9/step_2");
	/* what the walk kept: the one path looked for */
	assert_int_equal(cg.n, 1);
	assert_true(cg.walked <= CG_WALK_MAX);
	assert_false(cgroups_gone(&cg, step));
	cgroups_free(&cg);
	rmcg("/system.slice/slurmstepd.scope/job_9/step_2");
	rmcg("/system.slice/slurmstepd.scope/job_9");
	rmcg("/system.slice/slurmstepd.scope");
	rmcg("/system.slice");
	user_subtree(false);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_not_forged),
		cmocka_unit_test(test_window_jobs),
		cmocka_unit_test(test_jobs_time),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_named_by_kernel),
		cmocka_unit_test(test_learn_sorted),
		cmocka_unit_test(test_user_subtree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
