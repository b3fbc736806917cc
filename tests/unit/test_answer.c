// SPDX-License-Identifier: GPL-2.0
/*
 * A server that stops answering (#59), on the host: the state of a transport from its requests'
 * ages and its last answer (answer.c), a mount's row folded from its transports, the marks'
 * requests tallied per transport (unanswered.c), the health check's reading of a textfile and its
 * line (health.c), sysfs's connection state and the check measured on its own over fixture trees
 * (silence.c, health_probe.c). The VM test test_silent checks the same against the kernel.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "model/answer.h"
#include "engine/engine.h"
#include "run/health.h"
#include "opcount.h"
#include "run/silence.h"
#include "host/procpath.h"

#define S 1000000000ull

static void judge(struct answer *a, double unanswered, double oldest_s, double silent_s, __u32 in_use,
		  double rtt_s, bool down)
{
	__u64 ts = 1000 * S;

	answer_judge(a, ts, (__u32)unanswered, unanswered ? ts - (__u64)(oldest_s * S) : 0,
		     ts - (__u64)(silent_s * S), 1, in_use, rtt_s, SILENT_AFTER_S, down);
}

static void test_states(void **state)
{
	struct answer a;

	(void)state;
	judge(&a, 0, 0, 100, 0, 0.001, false);
	assert_int_equal(a.state, ANS_IDLE);
	/* the demo's checkpoint: 128 slots full at a 1.1 s round trip, replies every moment */
	judge(&a, 128, 1.2, 0.05, 128, 1.1, false);
	assert_int_equal(a.state, ANS_ANSWERING);
	assert_true(a.threshold_s == SILENT_AFTER_S);
	/* silence past the threshold, the oldest request as old */
	judge(&a, 20, 5.5, 5.5, 20, 0.001, false);
	assert_int_equal(a.state, ANS_SILENT);
	assert_true(a.oldest_s > 5.49 && a.oldest_s < 5.51);
	/* just short of it */
	judge(&a, 20, 4.9, 4.9, 20, 0.001, false);
	assert_int_equal(a.state, ANS_ANSWERING);
	/* a server whose round trip is 2 s: 8 s is its normal, not 5 */
	judge(&a, 20, 6, 6, 20, 2, false);
	assert_int_equal(a.state, ANS_ANSWERING);
	assert_true(a.threshold_s == 4 * 2.0);
	judge(&a, 20, 8.5, 8.5, 20, 2, false);
	assert_int_equal(a.state, ANS_SILENT);
	/* one request stuck while the server answers others: answering */
	judge(&a, 3, 30, 0.2, 3, 0.001, false);
	assert_int_equal(a.state, ANS_ANSWERING);
	/* a reconnection: connecting, then not answering when nothing took it for the threshold */
	judge(&a, 0, 0, 1, 5, 0.001, true);
	assert_int_equal(a.state, ANS_CONNECTING);
	judge(&a, 0, 0, 7, 5, 0.001, true);
	assert_int_equal(a.state, ANS_SILENT);
	/* slots held, nothing sent (queued for the connection) and no sysfs word: not proven silent */
	judge(&a, 0, 0, 60, 16, 0.001, false);
	assert_int_equal(a.state, ANS_ANSWERING);
	assert_string_equal(answer_state_names[ANS_SILENT], "not-answering");
}

/* the ops a lease renews with are no answer: a server may renew leases while every WRITE hangs */
static void test_keepalive(void **state)
{
	(void)state;
	assert_true(op_is_keepalive("SEQUENCE"));
	assert_true(op_is_keepalive("RENEW"));
	assert_true(op_is_keepalive("NULL"));
	assert_false(op_is_keepalive("WRITE"));
	assert_false(op_is_keepalive("SEQUENCEX"));
	assert_false(op_is_keepalive("READ"));
	assert_false(op_is_keepalive("RENEWAL"));
	assert_false(op_is_keepalive("GETATTR"));
	assert_false(op_is_keepalive(""));
}

static void test_fold(void **state)
{
	struct answer_row r = { 0 };
	struct answer a, b;

	(void)state;
	judge(&a, 10, 1, 0.1, 16, 0.001, false);
	judge(&b, 7, 9, 9, 16, 0.001, false);
	answer_fold(&r, &a, 16);
	answer_fold(&r, &b, 16);
	assert_int_equal(r.nxprts, 2);
	assert_int_equal(r.a.state, ANS_SILENT);
	assert_int_equal(r.a.unanswered, 17);
	assert_int_equal(r.in_use, 32);
	assert_true(r.a.oldest_s > 8.99 && r.a.oldest_s < 9.01);
	assert_true(r.a.silent_s > 8.99);
}

static void test_tally(void **state)
{
	struct xprt_snap x[3] = { 0 };
	struct snapshot snap = { .nxprts = 3, .xprts = x };
	/* requests 0x100.. on transports 0xa (live), 0xb, and one of no transport seen */
	__u64 marks[8] = { 0x100, 0x200, 0x300, 0, 0x500, 0x600, 0x700, 0x800 };
	__u64 sent[8] = { 50, 40, 0, 10, 70, 60, 30, 20 };
	__u64 xp[8] = { 0xa, 0xa, 0xa, 0xa, 0xb, 0xb, 0xc, 0 };

	(void)state;
	x[0].key = 0xa;
	x[0].s.flags = XF_DESTROYED;	/* a destroyed one at the same address: the live one counts */
	x[1].key = 0xa;
	x[2].key = 0xb;
	unanswered_tally(&snap, marks, sent, xp, 8);
	assert_int_equal(x[0].unanswered, 0);
	/* 0x300 not sent, the 4th entry's request gone, the last's transport unknown */
	assert_int_equal(x[1].unanswered, 2);
	assert_int_equal(x[1].oldest_sent_ns, 40);
	assert_int_equal(x[2].unanswered, 2);
	assert_int_equal(x[2].oldest_sent_ns, 60);
}

static const char textfile[] =
	"# HELP slotscope_tracing 1 while attached\n"
	"slotscope_tracing 1\n"
	"slotscope_server_state{mountpoint=\"/ckpt\",server=\"10.0.0.5\",state=\"idle\"} 0\n"
	"slotscope_server_state{mountpoint=\"/ckpt\",server=\"10.0.0.5\",state=\"not-answering\"} 1\n"
	"slotscope_server_state{mountpoint=\"/home \\\"x\\\"\",server=\"10.0.0.6\",state=\"answering\"} 1\n"
	"slotscope_server_state{mountpoint=\"/home \\\"x\\\"\",server=\"10.0.0.6\",state=\"not-answering\"} 0\n"
	"slotscope_server_unanswered_requests{mountpoint=\"/ckpt\",server=\"10.0.0.5\"} 191\n"
	"slotscope_server_oldest_unanswered_seconds{mountpoint=\"/ckpt\",server=\"10.0.0.5\"} 14.312\n"
	"slotscope_server_silent_seconds{mountpoint=\"/ckpt\",server=\"10.0.0.5\"} 14.2\n"
	"slotscope_server_silent_threshold_seconds{mountpoint=\"/ckpt\",server=\"10.0.0.5\"} 5\n"
	"slotscope_server_stuck_processes{mountpoint=\"/ckpt\",server=\"10.0.0.5\"} 16\n"
	"slotscope_server_stuck_job_info{mountpoint=\"/ckpt\",server=\"10.0.0.5\",job=\"slurm:777\"} 1\n"
	"slotscope_last_update_timestamp_seconds 1764600000.250\n";

static int parse(const char *text, struct health_row *rows, double *written)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int n;

	assert_non_null(f);
	n = health_parse(f, rows, HEALTH_MAX_MOUNTS, written);
	fclose(f);
	return n;
}

static void test_health_textfile(void **state)
{
	struct health_row rows[HEALTH_MAX_MOUNTS];
	struct health_opts o = { 0 };
	const char *home = "/home \"x\"";
	char line[1024];
	double written;

	(void)state;
	assert_int_equal(parse(textfile, rows, &written), 2);
	assert_true(written == 1764600000.25);
	assert_string_equal(rows[0].mountpoint, "/ckpt");
	assert_int_equal(rows[0].state, ANS_SILENT);
	assert_string_equal(rows[1].mountpoint, home);
	assert_int_equal(rows[1].state, ANS_ANSWERING);
	assert_int_equal(health_judge(rows, 2, &o, "t", line, sizeof(line)), HEALTH_CRITICAL);
	assert_string_equal(line, "slotscope CRITICAL: /ckpt: server 10.0.0.5 not answering for 14.2 s "
			    "(threshold 5.0 s), 191 requests awaiting a reply, the oldest 14.3 s; stuck: 16 "
			    "processes, jobs slurm:777 (t)");
	/* a server that closed its connection and takes no new one: nothing sent awaits a reply */
	rows[0].unanswered = 0;
	rows[0].oldest_s = 0;
	assert_int_equal(health_judge(rows, 2, &o, "t", line, sizeof(line)), HEALTH_CRITICAL);
	assert_string_equal(line, "slotscope CRITICAL: /ckpt: server 10.0.0.5 not answering for 14.2 s "
			    "(threshold 5.0 s), not connected: no request sent awaits a reply; stuck: 16 "
			    "processes, jobs slurm:777 (t)");
	/* the other mount alone: OK */
	o.nmounts = 1;
	o.mounts = &home;
	assert_int_equal(health_judge(rows, 2, &o, "t", line, sizeof(line)), HEALTH_OK);
	assert_string_equal(line, "slotscope OK: 1 NFS mount, every server answering (t)");
	/* a waiting exporter, another program's file */
	assert_int_equal(parse("slotscope_tracing 0\n", rows, &written), -ENODATA);
	assert_int_equal(parse("node_load1 0.5\n", rows, &written), -EINVAL);
}

/* a file at @root/@rel with @text, its directories made */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_sysfs_state(void **state)
{
	char root[] = "/tmp/slotscope-answer-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(root));
	/* as 6.1 prints it: a word per bit set, padded */
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-1/xprt-4-tcp/xprt_state",
	    "state= CONNECTED   BOUND     WRITE_SPACE   \n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-2/xprt-5-tcp/xprt_state", "state=CLOSED\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-3/xprt-6-rdma/xprt_state",
	    "state= CONNECTING BOUND\n");
	assert_int_equal(xprt_state_connected(root, 4, "tcp"), 1);
	assert_int_equal(xprt_state_connected(root, 5, "tcp"), 0);
	assert_int_equal(xprt_state_connected(root, 6, "rdma"), 0);
	assert_int_equal(xprt_state_connected(root, 7, "tcp"), -ENOENT);
	rm_tree(root);
}

/*
 * process @pid, its one thread in state @st, blocked in openat(AT_FDCWD, @path) or, with @path2,
 * renameat2(AT_FDCWD, @path, AT_FDCWD, @path2) (the strings at 0x100 and 0x200 of its memory), in
 * Slurm job @job
 */
static void blocked(const char *root, int pid, char st, const char *path, const char *path2, int job)
{
	char rel[128], text[256];
	FILE *f;

	snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, pid);
	snprintf(text, sizeof(text), "%d (dd) %c 1 %d\n", pid, st, pid);
	put(root, rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/syscall", pid, pid);
	/* the descriptor as 6.1 shows it from a 32-bit int's register: the upper half not the program's */
	if (path2)
		snprintf(text, sizeof(text), "%d 0xffffff9c 0x100 0xffffff9c 0x200 0x0 0x0 0x7ffd00000000 0x7f00\n",
			 (int)SYS_renameat2);
	else
		snprintf(text, sizeof(text), "%d 0xffffffffffffff9c 0x100 0x241 0x1b6 0x0 0x0 0x7ffd00000000 0x7f00\n",
			 (int)SYS_openat);
	put(root, rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	snprintf(text, sizeof(text), "0::/system.slice/slurmstepd.scope/job_%d/step_0\n", job);
	put(root, rel, text);
	snprintf(text, sizeof(text), "%s/proc/%d/mem", root, pid);
	f = fopen(text, "w");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x100, SEEK_SET), 0);
	assert_int_equal(fwrite(path, 1, strlen(path) + 1, f), strlen(path) + 1);
	if (path2) {
		assert_int_equal(fseek(f, 0x200, SEEK_SET), 0);
		assert_int_equal(fwrite(path2, 1, strlen(path2) + 1, f), strlen(path2) + 1);
	}
	fclose(f);
}

struct seen_paths {
	int n;
	char what[4][128];
};

static void seen(int pid, const char *path, void *arg)
{
	struct seen_paths *s = arg;

	if (s->n < 4)
		snprintf(s->what[s->n++], sizeof(s->what[0]), "%d %s", pid, path);
}

/*
 * the paths' reads in a child with a deadline: a process whose memory cannot be read (here a FIFO
 * nobody writes, as a process's mmap lock held by a thread stuck on the server) ends the scan at
 * the deadline with what was read before it; a chroot's absolute path lies under its root
 */
static void test_blocked_scan(void **state)
{
	char root[] = "/tmp/slotscope-scan-XXXXXX", p[600];
	struct seen_paths s = { 0 };
	int pids[] = { 51, 52, 53 };
	struct timespec t0, t1;

	(void)state;
	assert_non_null(mkdtemp(root));
	blocked(root, 51, 'D', "/tmp/a.part", "w/../final", 777);
	assert_int_equal(symlink("/mnt/c", strcat(strcpy(p, root), "/proc/51/cwd")), 0);
	blocked(root, 52, 'D', "/mnt/a/x", NULL, 777);
	assert_int_equal(symlink("/srv/jail", strcat(strcpy(p, root), "/proc/52/root")), 0);
	blocked(root, 53, 'D', "/mnt/a/y", NULL, 777);
	snprintf(p, sizeof(p), "%s/proc/53/mem", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(proc_blocked_scan(root, pids, 3, 300, seen, &s), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 2.0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.what[0], "51 /tmp/a.part");
	assert_string_equal(s.what[1], "51 /mnt/c/final");
	assert_string_equal(s.what[2], "52 /srv/jail/mnt/a/x");
	/* without the stuck one, the scan ends on its own */
	s.n = 0;
	assert_int_equal(proc_blocked_scan(root, pids, 2, 5000, seen, &s), 0);
	assert_int_equal(s.n, 3);
	rm_tree(root);
}

static void test_path_clean(void **state)
{
	const char *in[] = { "/a/./b/../c", "/..", "//a//b/", "/a/b/../../..", "/mnt/s/w0/..", "/." };
	const char *want[] = { "/a/c", "/", "/a/b", "/", "/mnt/s", "/" };
	char p[64];

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		snprintf(p, sizeof(p), "%s", in[i]);
		path_clean(p);
		assert_string_equal(p, want[i]);
	}
}

/*
 * the check on its own: a mount with requests waiting in sysfs and no reply over the threshold; a
 * transport not connected all along with tasks on its switch (writers stuck in open(), no
 * descriptor on the mount) is silent, one with none is an idle disconnect
 */
static void test_probe(void **state)
{
	char root[] = "/tmp/slotscope-probe-XXXXXX", sys[64], mi[512];
	struct health_row rows[HEALTH_MAX_MOUNTS];
	struct health_opts o = { .silent_after_s = 0.5 };

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(mi, sizeof(mi),
		 "21 1 0:20 / / rw - tmpfs rootfs rw\n"
		 "37 21 0:32 / /mnt/a rw - nfs 127.0.0.11:/export rw,vers=3,proto=tcp,addr=127.0.0.11\n"
		 "38 21 0:33 / /mnt/b rw - nfs 127.0.0.12:/export rw,vers=3,proto=tcp,addr=127.0.0.12\n"
		 "39 21 0:34 / /mnt/c rw - nfs 127.0.0.13:/export rw,vers=3,proto=rdma,addr=127.0.0.13\n"
		 "40 21 0:35 / /mnt/d rw - nfs 127.0.0.14:/export rw,vers=3,proto=tcp,addr=127.0.0.14\n"
		 "41 37 0:36 / /mnt/a/in rw - nfs 127.0.0.15:/export rw,vers=3,proto=tcp,addr=127.0.0.15\n");
	put(root, "proc/self/mountinfo", mi);
	put(root, "proc/self/mountstats",
	    "device 127.0.0.11:/export mounted on /mnt/a with fstype nfs statvers=1.1\n"
	    "\txprt:\ttcp 871 1 1 0 5 2000 1990 0 100 0 16 0 0\n"
	    "\tper-op statistics\n"
	    "\t        WRITE: 1000 1000 0 100 200 10 2000 2100 0\n"
	    "device 127.0.0.12:/export mounted on /mnt/b with fstype nfs statvers=1.1\n"
	    "\txprt:\ttcp 872 1 1 0 5 300 300 0 100 0 16 0 0\n"
	    "device 127.0.0.13:/export mounted on /mnt/c with fstype nfs statvers=1.1\n"
	    "\txprt:\trdma 0 0 1 0 9 500 499 0 0 0\n"
	    "device 127.0.0.14:/export mounted on /mnt/d with fstype nfs statvers=1.1\n"
	    "\txprt:\ttcp 873 1 1 0 400 80 80 0 100 0 16 0 0\n"
	    "device 127.0.0.15:/export mounted on /mnt/a/in with fstype nfs statvers=1.1\n"
	    "\txprt:\ttcp 874 1 1 0 400 80 80 0 100 0 16 0 0\n");
	/* 6.1's xprt_info of a transport not connected is -ENOTCONN (a missing file here); later "<closed>" */
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-3/xprt_switch_info",
	    "num_xprts=1\nnum_active=1\nnum_unique_destaddr_xprts=1\nqueue_len=3\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-3/xprt-6-rdma/dstaddr", "127.0.0.13\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-3/xprt-6-rdma/xprt_state", "state=    BOUND        \n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-4/xprt_switch_info",
	    "num_xprts=1\nnum_active=1\nnum_unique_destaddr_xprts=1\nqueue_len=0\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-4/xprt-7-tcp/xprt_info", "<closed>\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-4/xprt-7-tcp/dstaddr", "127.0.0.14\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-4/xprt-7-tcp/xprt_state", "state=CLOSED\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-1/xprt-4-tcp/xprt_info",
	    "last_used=1\nmax_num_slots=65536\npending_q_len=10\nbacklog_q_len=0\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-1/xprt-4-tcp/dstaddr", "127.0.0.11\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-1/xprt-4-tcp/xprt_state", "state= CONNECTED BOUND\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-2/xprt-5-tcp/xprt_info", "pending_q_len=0\n");
	put(root, "sys/kernel/sunrpc/xprt-switches/switch-2/xprt-5-tcp/dstaddr", "127.0.0.12\n");
	/*
	 * in D with no descriptor on a mount: 41 blocked in openat() of a path under /mnt/a (job 777),
	 * 42 in a relative one under /mnt/c from its working directory /mnt (job 778); 43 in one
	 * under /mnt/cc and 44 in one that leaves /mnt/a ("..") are neither's; 45 is asleep, not in
	 * D, in an open() under /mnt/a; 46's path is on the mount inside /mnt/a (idle), not /mnt/a's;
	 * 47 renames a local file to /mnt/c (its second path: job 782)
	 */
	blocked(root, 41, 'D', "/mnt/a/w0/../ckpt.3", NULL, 777);
	blocked(root, 42, 'D', "c/./w2/ckpt", NULL, 778);
	assert_int_equal(symlink("/mnt", strcat(strcpy(mi, root), "/proc/42/cwd")), 0);
	blocked(root, 43, 'D', "/mnt/cc/x", NULL, 777);
	blocked(root, 44, 'D', "/mnt/a/../../tmp/x", NULL, 777);
	blocked(root, 45, 'S', "/mnt/a/x", NULL, 779);
	blocked(root, 46, 'D', "/mnt/a/in/x", NULL, 779);
	blocked(root, 47, 'D', "/tmp/c.part", "/mnt/c/c.final", 782);
	snprintf(sys, sizeof(sys), "%s", root);
	o.procfs_root = o.sysfs_root = sys;
	assert_int_equal(health_probe(&o, rows, HEALTH_MAX_MOUNTS), 5);
	assert_string_equal(rows[0].mountpoint, "/mnt/a");
	assert_int_equal(rows[0].state, ANS_SILENT);
	assert_true(rows[0].unanswered == 10);
	assert_true(rows[0].silent_s >= 0.5 && rows[0].at_least);
	assert_int_equal(rows[0].stuck, 1);
	assert_string_equal(rows[0].jobs, "slurm:777");
	assert_string_equal(rows[1].mountpoint, "/mnt/b");
	assert_int_equal(rows[1].state, ANS_IDLE);
	assert_string_equal(rows[2].mountpoint, "/mnt/c");
	assert_int_equal(rows[2].state, ANS_SILENT);
	assert_true(rows[2].unanswered == 3);
	assert_int_equal(rows[2].stuck, 2);
	assert_string_equal(rows[2].jobs, "slurm:778 slurm:782");
	assert_string_equal(rows[3].mountpoint, "/mnt/d");
	assert_int_equal(rows[3].state, ANS_IDLE);
	assert_string_equal(rows[4].mountpoint, "/mnt/a/in");
	assert_int_equal(rows[4].state, ANS_IDLE);
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_tally),
		cmocka_unit_test(test_health_textfile),
		cmocka_unit_test(test_sysfs_state),
		cmocka_unit_test(test_path_clean),
		cmocka_unit_test(test_blocked_scan),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
