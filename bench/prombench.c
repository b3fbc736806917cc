// SPDX-License-Identifier: GPL-2.0
/*
 * prombench: the textfile's size, series and the CPU its writer takes per tick, for 1, 16 and 64
 * transports (nconnect 16 to four servers at most), two mounts with a dozen ops each, every
 * histogram filled. It times prom_write() itself (render, fsync, rename) into a tmpfs-or-disk
 * directory given as argument; the snapshot reads and view builds of a tick are in bench/self.sh.
 * The same view's JSON record (--json's interval line) is timed into /dev/null beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "out/output.h"

static const char *const ops[] = { "READ", "WRITE", "COMMIT", "GETATTR", "LOOKUP", "ACCESS",
				   "CREATE", "REMOVE", "SETATTR", "FSSTAT", "READDIRPLUS", "NULL" };

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* @mode: 0 per transport (the textfile's default), 1 --prom-detail, 2 per mount (--prom-rollup, --listen's default) */
static void run(const char *dir, size_t n, int mode, FILE *null)
{
	static struct mount_row rows[2];
	bool detail = mode == 1;
	static struct xprt_view x[64];
	static struct mount_op m[24];
	static struct mount_total t[2];
	static const char *const mnt[] = { "/mnt/ckpt", "/mnt/data" };
	struct view v = { .interval_s = 1, .nxprts = n, .xprts = x, .nmops = 24, .mops = m,
			  .nmounts = 2, .mounts = t };
	struct prom_input in = { .cum = &v, .iv = &v, .now_wall = 1, .detail = detail, .rollup = mode == 2,
				 .version = "bench", .kernel = "k" };
	char path[4096];
	struct stat st;
	const int rounds = 200;
	double c0;
	FILE *f;
	int series = 0;
	char line[4096];

	memset(x, 0, sizeof(x));
	for (size_t i = 0; i < n; i++) {
		x[i].key = i + 1;
		x[i].id = (__u32)i;
		x[i].ident = IDENT_RDMA;
		x[i].limit = 128;
		x[i].link.port = -1;
		snprintf(x[i].addr, sizeof(x[i].addr), "10.0.0.%zu", 1 + i / 16);
		x[i].nmounts = 1;
		x[i].mounts[0].mountpoint = mnt[i % 2];
		for (int b = 0; b < LAT_BUCKETS; b++)
			x[i].waits[WAIT_SLOT].buckets[b] = 1000 + (__u64)b;
	}
	for (size_t i = 0; i < 24; i++) {
		m[i].mountpoint = mnt[i / 12];
		snprintf(m[i].name, sizeof(m[i].name), "%s", ops[i % 12]);
		m[i].count = 1000;
		for (int s = 0; s < STAGES; s++)
			for (int b = 0; b < LAT_BUCKETS; b++)
				m[i].hist[s][b] = 10 + (__u64)b;
	}
	/* per mount: each mount's transports summed into one row (the model's sums; here the first's) */
	for (size_t r = 0; r < 2; r++) {
		rows[r].mountpoint = mnt[r];
		snprintf(rows[r].server, sizeof(rows[r].server), "10.0.0.1");
		rows[r].nxprts = n / 2 + (r < n % 2);
		rows[r].x = x[0];
	}
	v.nrows = n > 1 ? 2 : 1;
	v.rows = rows;
	t[0].mountpoint = mnt[0];
	t[1].mountpoint = mnt[1];
	snprintf(path, sizeof(path), "%s/bench.prom", dir);
	c0 = cpu_s();
	for (int r = 0; r < rounds; r++)
		if (prom_write(path, &in)) {
			perror(path);
			exit(1);
		}
	c0 = (cpu_s() - c0) / rounds;
	stat(path, &st);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		series += line[0] != '#';
	if (f)
		fclose(f);
	if (mode == 0) {
		double j = cpu_s();
		long sz;

		for (int r = 0; r < rounds; r++)
			out_json(null, &v);
		char *buf = NULL;
		size_t len = 0;
		FILE *ms;

		j = (cpu_s() - j) / rounds;
		ms = open_memstream(&buf, &len);
		if (ms) {
			out_json(ms, &v);
			fclose(ms);
		}
		sz = (long)len;
		free(buf);
		printf("| %zu | JSON record | - | %.1f | %.0f |\n", n, (double)sz / 1024, j * 1e6);
	}
	printf("| %zu | %s | %d | %.1f | %.0f |\n", n, mode == 1 ? "detail" : mode == 2 ? "per mount (--prom-rollup, --listen's default)" :
	       "per transport (the textfile's default)", series,
	       (double)st.st_size / 1024, c0 * 1e6);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";

	FILE *null = fopen("/dev/null", "w");

	if (!null) {
		perror("/dev/null");
		return 1;
	}
	printf("| transports | output | series | KiB | CPU us per write |\n|---|---|---|---|---|\n");
	for (int d = 0; d < 3; d++) {
		run(dir, 1, d, null);
		run(dir, 16, d, null);
		run(dir, 64, d, null);
	}
	fclose(null);
	return 0;
}
