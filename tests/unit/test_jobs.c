// SPDX-License-Identifier: GPL-2.0
/* Whose window it was: cgroup paths as Slurm, kubelet and systemd lay them out, and the process
 * scan on a /proc tree built here (files, and symlinks for cwd and fds as the kernel shows them). */
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
#include "jobs.h"

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
	/* Slurm, cgroup v2 (slurmstepd's scope) and v1 (uid and job in the path) */
	want("/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0", "slurm", "4242", "0", JOB_UNKNOWN_UID);
	want("/system.slice/slurmstepd.scope/job_77/step_batch/user/task_special", "slurm", "77", "batch",
	     JOB_UNKNOWN_UID);
	want("/slurm/uid_1000/job_123/step_extern/task_0", "slurm", "123", "extern", 1000);
	/* not a job: "job_" must be followed by a number and end the component */
	want("/system.slice/job_runner.service", "systemd", "job_runner.service", "", JOB_UNKNOWN_UID);
	/* kubelet, systemd driver: the pod UID with '_' for '-', the container after its runtime */
	want("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f1c2a4e_5b6d_4e7f_8a9b_0c1d2e3f4a5b.slice/"
	     "cri-containerd-0123456789abcdef.scope",
	     "kubernetes", "3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "0123456789abcdef", JOB_UNKNOWN_UID);
	/* cgroupfs driver, a guaranteed pod (no QoS level) */
	want("/kubepods/pod3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b/fedcba9876543210", "kubernetes",
	     "3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "fedcba9876543210", JOB_UNKNOWN_UID);
	/* systemd: the innermost service or scope */
	want("/system.slice/ckpt-writer.service", "systemd", "ckpt-writer.service", "", JOB_UNKNOWN_UID);
	want("/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope", "systemd", "run-r1.scope", "",
	     JOB_UNKNOWN_UID);
	/* anything else is its path */
	want("/batch/train7", "cgroup", "/batch/train7", "", JOB_UNKNOWN_UID);
	want("/", "cgroup", "/", "", JOB_UNKNOWN_UID);
}

static void parse(const char *text, const char *expect)
{
	char path[256];
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!expect)
		assert_int_equal(cgroup_path_parse(f, path, sizeof(path)), -ENOENT);
	else {
		assert_int_equal(cgroup_path_parse(f, path, sizeof(path)), 0);
		assert_string_equal(path, expect);
	}
	fclose(f);
}

static void test_cgroup_file(void **state)
{
	(void)state;
	parse("0::/system.slice/slurmstepd.scope/job_9/step_0\n", "/system.slice/slurmstepd.scope/job_9/step_0");
	/* v1: the hierarchy that names the job, wherever it is listed */
	parse("12:memory:/user.slice\n11:freezer:/slurm/uid_0/job_5/step_0\n1:name=systemd:/user.slice/x.scope\n",
	      "/slurm/uid_0/job_5/step_0");
	/* v1 without a job: systemd's own hierarchy */
	parse("3:cpu,cpuacct:/\n1:name=systemd:/system.slice/nfs-ckpt.service\n", "/system.slice/nfs-ckpt.service");
	/* hybrid: the v2 line wins over systemd's, not over a v1 hierarchy that names the job */
	parse("1:name=systemd:/a.scope\n0::/b.scope\n", "/b.scope");
	parse("4:freezer:/slurm/uid_7/job_8/step_0\n1:name=systemd:/a.scope\n0::/user.slice\n",
	      "/slurm/uid_7/job_8/step_0");
	parse("", NULL);
	parse("garbage\n", NULL);
}

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void proc(int pid, int ppid, const char *cgroup, unsigned long long wchar, const char *cwd,
		 const char *fd3)
{
	char rel[128], text[512];

	snprintf(rel, sizeof(rel), "%s/proc/%d", root, pid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/proc/%d/fd", root, pid);
	mkdir(rel, 0755);
	/* a command name with ") " in it: stat is read from its last ')' */
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(text, sizeof(text), "%d (dd) x) S %d 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n",
		 pid, ppid, 1000 + pid);
	put(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	put(rel, cgroup);
	snprintf(rel, sizeof(rel), "proc/%d/io", pid);
	snprintf(text, sizeof(text), "rchar: 7\nwchar: %llu\nsyscr: 1\n", wchar);
	put(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	put(rel, "Name:\tdd\nUid:\t0\t0\t0\t0\n");
	snprintf(rel, sizeof(rel), "%s/proc/%d/cwd", root, pid);
	unlink(rel);
	assert_int_equal(symlink(cwd, rel), 0);
	if (fd3) {
		snprintf(rel, sizeof(rel), "%s/proc/%d/fd/3", root, pid);
		unlink(rel);
		assert_int_equal(symlink(fd3, rel), 0);
	}
}

static void test_scan(void **state)
{
	const char *mnts[] = { "/mnt/ckpt" };
	struct jobs_scan sc = { .mounts = mnts, .nmounts = 1, .writes = true };
	struct win_jobs w = { 0 };
	char path[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/slotscope-jobs-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	sc.procfs_root = root;
	/* job 7: a writer with a file open on the mount, one working in it */
	proc(100, 1, "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n", 1000, "/", "/mnt/ckpt/a (deleted)");
	proc(101, 1, "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_1\n", 5000, "/mnt/ckpt/run", NULL);
	/* a pod writing elsewhere (/mnt/ckptold is another mount), and the command's child */
	proc(200, 1, "0::/kubepods/besteffort/pod11111111-2222-3333-4444-555555555555/abc\n", 0, "/mnt/ckptold", NULL);
	proc(300, 1, "0::/user.slice/user-0.slice/session-1.scope\n", 0, "/", NULL);
	proc(301, 300, "0::/user.slice/user-0.slice/session-1.scope\n", 100, "/", NULL);
	assert_int_equal(jobs_sample(&w, &sc), 0);
	/* later: the job wrote more; the command's tree is asked for too */
	proc(100, 1, "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n", 3000, "/", "/mnt/ckpt/a (deleted)");
	proc(101, 1, "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_1\n", 6000, "/mnt/ckpt/run", NULL);
	proc(301, 300, "0::/user.slice/user-0.slice/session-1.scope\n", 1100, "/", NULL);
	sc.tree = 300;
	assert_int_equal(jobs_sample(&w, &sc), 0);
	jobs_finish(&w);
	assert_int_equal(w.samples, 2);
	assert_int_equal(w.nj, 2);
	assert_string_equal(w.j[0].id.kind, "slurm");
	assert_string_equal(w.j[0].id.id, "7");
	assert_int_equal(w.j[0].nprocs, 2);
	assert_int_equal(w.j[0].bytes, 3000);
	assert_int_equal(w.j[0].uid, 0);
	assert_true(w.j[0].share == 1.0);
	assert_true(w.j[1].share == 0.0);
	/* the command's tree: seen from the second sample, its bytes since */
	assert_string_equal(w.j[1].id.kind, "systemd");
	assert_string_equal(w.j[1].id.id, "session-1.scope");
	assert_int_equal(w.j[1].nprocs, 2);
	assert_int_equal(w.j[1].bytes, 0);
	jobs_free(&w);
	/* a window with nobody on its mounts */
	mnts[0] = "/mnt/none";
	sc.tree = 0;
	assert_int_equal(jobs_sample(&w, &sc), 0);
	jobs_finish(&w);
	assert_int_equal(w.nj, 0);
	jobs_free(&w);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_cgroup_file),
		cmocka_unit_test(test_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
