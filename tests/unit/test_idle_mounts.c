// SPDX-License-Identifier: GPL-2.0
/*
 * Idle mounts in the textfile: a hundred mounts that did one burst each keep their series in
 * every file, per transport and rolled up, while the mount table has them; one unmounted leaves
 * and, mounted again, goes on from where it was.
 */
#include "rollfix.h"

/*
 * Many mounts, each mounted from its own server, each doing one burst of WRITEs and then nothing:
 * the mount table says they are there, so their series stay in every file with their counts,
 * however many sit idle (more than the ledger remembers gone). One unmounted leaves the file;
 * mounted again, it goes on from where it was.
 */
#define IDLE_MOUNTS 100
#define IDLE_VICTIM 7
#define IDLE_UNMOUNT 120
#define IDLE_REMOUNT 126
#define IDLE_STEPS 135

struct idlefix {
	struct snapshot s;
	struct xprt_snap x[IDLE_MOUNTS];
	struct op_snap o[IDLE_MOUNTS];
	struct client_snap c[IDLE_MOUNTS];
};

/* mount @i's WRITEs: one burst at @t = i + 1; the victim's new transport's when mounted again */
static __u64 idle_writes(int i, int t)
{
	if (i == IDLE_VICTIM && t > IDLE_UNMOUNT)
		return t >= IDLE_REMOUNT ? 10 : 0;
	return t > i ? 10 : 0;
}

static bool idle_mounted(int i, int t)
{
	return i != IDLE_VICTIM || t < IDLE_UNMOUNT || t >= IDLE_REMOUNT;
}

/* the kernel at @t seconds: the victim's first transport destroyed at its unmount, then reaped */
static void idle_scene(struct idlefix *f, int t)
{
	memset(f, 0, sizeof(*f));
	f->s.ts_ns = (__u64)t * 1000000000ull;
	f->s.epoch = (__u32)t;
	f->s.xprts = f->x;
	f->s.ops = f->o;
	f->s.clients = f->c;
	for (int i = 0; i < IDLE_MOUNTS; i++) {
		bool again = i == IDLE_VICTIM && t >= IDLE_REMOUNT;
		__u64 n = idle_writes(i, t);
		struct xprt_snap *x;
		struct op_snap *o;

		if (!idle_mounted(i, t) && t > IDLE_UNMOUNT)
			continue;
		x = &f->x[f->s.nxprts++];
		x->key = (again ? 0x8000 : 0x7000) + (__u64)i;
		x->s.id = (__u32)i;
		x->s.ident = IDENT_TCP;
		x->s.limit = x->s.max_reqs = 16;
		x->s.first_seen_ns = again ? (__u64)IDLE_REMOUNT * 1000000000ull : 1;
		snprintf(x->s.addr, sizeof(x->s.addr), "10.0.3.%d", i + 1);
		snprintf(x->s.port, sizeof(x->s.port), "2049");
		x->s.n.acquires = x->s.n.sends = n;
		if (!idle_mounted(i, t))
			x->s.flags |= XF_DESTROYED;
		else
			f->c[f->s.nclients++] = (struct client_snap){ .clid = (__u32)(again ? 300 + i : 1 + i),
								      .ci.dev = (__u32)(again ? 400 + i : 200 + i) };
		if (!n)
			continue;
		o = &f->o[f->s.nops++];
		o->k = (struct op_key){ .xprt = x->key, .clid = (__u32)(again ? 300 + i : 1 + i),
					.prog = 100003, .vers = 3, .proc = 7 };
		snprintf(o->s.name, sizeof(o->s.name), "WRITE");
		o->s.c.count = o->s.c.ntrans = n;
		o->s.c.bytes_sent = n * 65536;
		o->s.c.sum_ns[STAGE_EXECUTE] = n * 3000000;
		o->s.c.hist[STAGE_EXECUTE][lat_bucket(3000000)] = n;
		o->s.client_done = 1;
	}
}

static void idle_mount_table(struct mount_table *mt, int t)
{
	char *text = malloc(IDLE_MOUNTS * 128);
	size_t len;

	assert_non_null(text);
	len = (size_t)sprintf(text, "21 1 0:20 / / rw - ext4 /dev/vda rw\n");
	for (int i = 0; i < IDLE_MOUNTS; i++)
		if (idle_mounted(i, t))
			len += (size_t)sprintf(text + len, "%d 21 0:%d / /mnt/p%03d rw - nfs 10.0.3.%d:/x "
					       "rw,vers=3,proto=tcp,addr=10.0.3.%d\n", 100 + i,
					       i == IDLE_VICTIM && t >= IDLE_REMOUNT ? 400 + i : 200 + i,
					       i, i + 1, i + 1);
	mount_table(mt, text);
	free(text);
}

static void test_idle_mounts(void **state)
{
	struct idlefix *f = calloc(2, sizeof(*f));

	(void)state;
	assert_non_null(f);
	for (int roll = 0; roll < 2; roll++) {
		const struct prom_mounts pm = { .rollup = roll };
		struct ledger sums = { 0 };

		idle_scene(&f[0], 0);
		for (int t = 1; t <= IDLE_STEPS; t++) {
			struct idlefix *prev = &f[(t - 1) & 1], *cur = &f[t & 1];
			struct mount_table mt;
			struct tf_view m;
			struct model_in in = { .span = SPAN_INTERVAL, .from = &prev->s, .to = &cur->s,
					       .mounts = &mt, .prom = &pm,
					       .tun = { .tcp_max_slots = 16 } };
			const char *acq = roll ? "slotscope_slot_acquires_total{mountpoint=\"/mnt/p000\",server=\"10.0.3.1\"}"
					       : "slotscope_slot_acquires_total{server=\"10.0.3.1\",proto=\"tcp\",xprt=\"0\"}";
			double want_bytes = 0;
			int shown = 0;
			char *text;

			idle_scene(cur, t);
			idle_mount_table(&mt, t);
			tf_build(&in, &sums, &m);
			text = render(&m, roll);
			/* the mounts mounted that have done their burst, each with all it did */
			for (int i = 0; i < IDLE_MOUNTS; i++) {
				if (!idle_mounted(i, t) || t <= i)
					continue;
				shown++;
				want_bytes += (i == IDLE_VICTIM && t >= IDLE_REMOUNT ? 20 : 10) * 65536;
			}
			if (count_lines(text, "slotscope_mount_info{") != shown)
				fail_msg("%s file %d: %d mounts in mount_info, %d mounted with RPCs done",
					 roll ? "rollup" : "default", t, count_lines(text, "slotscope_mount_info{"), shown);
			assert_int_equal(count_lines(text, "slotscope_written_bytes_total{"), shown);
			assert_int_equal(count_lines(text, "slotscope_op_seconds_count{"), shown);
			assert_true(sum_of(text, "slotscope_written_bytes_total", NULL) == want_bytes);
			assert_true(value(text, "slotscope_written_bytes_total{mountpoint=\"/mnt/p000\"}") == 10 * 65536);
			assert_true(value(text, "slotscope_op_seconds_count{mountpoint=\"/mnt/p000\",op=\"WRITE\","
					  "stage=\"execute\"}") == 10);
			assert_true(value(text, "slotscope_mount_info{mountpoint=\"/mnt/p000\",server=\"10.0.3.1\"}") == 1);
			assert_true(value(text, acq) == 10);
			/* every transport, or every mount's row, is written whatever it did */
			assert_int_equal(count_lines(text, "slotscope_slot_limit{"),
					 IDLE_MOUNTS - (t > IDLE_UNMOUNT && t < IDLE_REMOUNT));
			if (t >= IDLE_UNMOUNT && t < IDLE_REMOUNT)
				assert_null(strstr(text, "/mnt/p007"));
			if (t >= IDLE_REMOUNT) {
				assert_true(value(text, "slotscope_written_bytes_total{mountpoint=\"/mnt/p007\"}") ==
					    20 * 65536);
				assert_true(value(text, roll ? "slotscope_slot_acquires_total{mountpoint=\"/mnt/p007\","
							       "server=\"10.0.3.8\"}"
							     : "slotscope_slot_acquires_total{server=\"10.0.3.8\","
							       "proto=\"tcp\",xprt=\"7\"}") == 20);
			}
			free(text);
			assert_int_equal(ledger_add(&sums, &m.m.view, &mt), 0);
			tf_free(&m);
			mounts_free(&mt);
		}
		/* one sum a path: the victim's went on */
		assert_int_equal(sums.nm, IDLE_MOUNTS);
		ledger_free(&sums);
	}
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_mounts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
