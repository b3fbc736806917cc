// SPDX-License-Identifier: GPL-2.0
/*
 * The op counters the stats tracepoint's program keeps (bpf/opcount.h), driven on the host: counts
 * per CPU and shared, page I/O told from the rest, and the op slots a tick reads again.
 */
#include "accfix.h"

/*
 * An op's RPCs counted in per-CPU slots (plain adds) and in its own entry (atomic adds) sum, field
 * for field, to the counts rpc_count_iostats_metrics() makes, once user space adds the CPUs onto
 * the entry (op_counts_add()).
 */
static void test_op_counts(void **state)
{
	struct op_counts cpu[3] = {}, want = {};
	struct op_stats shared = {};
	unsigned int seed = 29;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		__s64 v[STAGES] = { rand_r(&seed) % 5000 - 100, rand_r(&seed) % 4000000, rand_r(&seed) };
		int ntrans = rand_r(&seed) % 3, where = rand_r(&seed) % 4;
		__u32 timeouts = rand_r(&seed) % 7 == 0;
		bool err = rand_r(&seed) % 11 == 0;
		__u64 sent = rand_r(&seed) % 70000, recvd = rand_r(&seed) % 300;

		if (where < 3)
			op_account(&cpu[where], false, ntrans, timeouts, err, sent, recvd, v);
		else
			op_account(&shared.c, true, ntrans, timeouts, err, sent, recvd, v);
		/* the reference: rpc_count_iostats_metrics()'s own arithmetic, written out */
		want.count++;
		want.ntrans += ntrans > 1 ? ntrans : 1;
		want.timeouts += timeouts;
		want.errors += err;
		want.bytes_sent += sent;
		want.bytes_recv += recvd;
		for (int st = 0; st < STAGES; st++) {
			__u64 ns = v[st] > 0 ? (__u64)v[st] : 0;

			want.sum_ns[st] += ns;
			want.hist[st][lat_bucket(ns)]++;
		}
	}
	for (int c = 0; c < 3; c++)
		op_counts_add(&shared.c, &cpu[c]);
	assert_memory_equal(&shared.c, &want, sizeof(want));
	assert_true(shared.c.count == 1000 && shared.c.errors > 0 && shared.c.timeouts > 0);
}

/*
 * The op slots a tick reads again: those stamped with the epoch it moved to or the two before,
 * across the epoch's wrap, in runs that take small gaps along.
 */
static __u32 due_runs(const __u32 *st, __u32 cur, __u32 gap, __u32 got[8][2])
{
	__u32 from = 0, to = 0, n = 0;

	while (n < 8 && op_slots_due_run(st, to, 16, cur, gap, &from, &to)) {
		got[n][0] = from;
		got[n++][1] = to;
	}
	return n;
}

/* the procs whose call data leads to a superblock, and none that only share READ's letters */
static void test_op_is_page_io(void **state)
{
	static const char *const yes[] = { "READ", "WRITE", "READ_PLUS" };
	static const char *const no[] = { "", "READDIR", "READDIRPLUS", "READLINK", "WRITE_SAME", "WRIT",
					  "REA", "GETATTR", "COMMIT", "READ_PLUSX", "R", "W" };
	char buf[OPNAME_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		/* a whole OPNAME_LEN buffer, as the programs pass: nothing past the name is read */
		memset(buf, 'X', sizeof(buf));
		memcpy(buf, yes[i], strlen(yes[i]) + 1);
		assert_true(op_is_page_io(buf));
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		memset(buf, 'X', sizeof(buf));
		memcpy(buf, no[i], strlen(no[i]) + 1);
		assert_false(op_is_page_io(buf));
	}
}

static void test_op_slots_due(void **state)
{
	__u32 st[16] = { 0 }, from = 0, to = 0, got[8][2];
	const __u32 cur = 1;	/* wrapped: 0 and 0xffffffff are the two before */

	(void)state;
	for (int i = 0; i < 16; i++)
		st[i] = 0xfffffff0;		/* quiet for 17 epochs */
	st[1] = 1;				/* counted since the tick moved the epoch */
	st[3] = 0;				/* in the interval that closes */
	st[4] = 0xffffffff;			/* landed after its slot was read */
	st[10] = 0;				/* put back by a run that read the epoch late */
	st[11] = 0xfffffffe;			/* three epochs ago: read then, not now */
	st[15] = 1;
	assert_int_equal(due_runs(st, cur, 0, got), 4);
	assert_int_equal(got[0][0], 1);
	assert_int_equal(got[0][1], 2);
	assert_int_equal(got[1][0], 3);
	assert_int_equal(got[1][1], 5);
	assert_int_equal(got[2][0], 10);
	assert_int_equal(got[2][1], 11);
	assert_int_equal(got[3][0], 15);
	assert_int_equal(got[3][1], 16);
	/* a gap of 4 joins 1..4 and 10, not 15 (4 quiet slots between 10 and 15 would: 11..14) */
	assert_int_equal(due_runs(st, cur, 4, got), 2);
	assert_int_equal(got[0][0], 1);
	assert_int_equal(got[0][1], 5);
	assert_int_equal(got[1][0], 10);
	assert_int_equal(got[1][1], 16);
	/* nothing due, and the bound: slot 15 is not looked at below hi 15 */
	st[1] = st[3] = st[4] = st[10] = 0xfffffff0;
	assert_false(op_slots_due_run(st, 0, 15, cur, 4, &from, &to));
	assert_true(op_slots_due_run(st, 0, 16, cur, 4, &from, &to));
	assert_int_equal(from, 15);
	assert_int_equal(to, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_op_counts),
		cmocka_unit_test(test_op_slots_due),
		cmocka_unit_test(test_op_is_page_io),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
