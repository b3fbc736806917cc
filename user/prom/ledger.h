/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The textfile's counters: running sums of interval views, kept per series (a transport's labels,
 * a mount's path), not per kernel object. Prometheus reads a counter that goes down as a reset;
 * made from two snapshots, a cumulative view would go down whenever the kernel takes something
 * away under a series: a transport reaped (its id then reused by the next), a mount unmounted
 * while its transport lives on, a device number or client id reused by another mount. Each
 * interval's figures are added to the series they belonged to then, and stay added.
 */
#ifndef SLOTSCOPE_LEDGER_H
#define SLOTSCOPE_LEDGER_H

#include "model/prom_mounts.h"
#include "model/view.h"

/*
 * Series gone from the maps are remembered, so one that comes back (the kernel reuses a transport
 * id for the same server, a path is mounted again) goes on from where it was; past this many the
 * one gone longest is forgotten, and should it come back it restarts from 0 (a reset, which
 * Prometheus's rate() takes in its stride). Live series are never forgotten: a mount is live while
 * the mount table has it, RPCs or none (an idle mount is not gone).
 */
#define LEDGER_GONE_MAX 64
/*
 * A live transport that has taken no slot, sent nothing and held none for this long (the
 * per-job mounts' transports the kernel keeps a while, a mount's spare nconnect ones) leaves the
 * per-transport exposition; its next RPC brings it back, its counters where they were.
 */
#define LEDGER_IDLE_S 300

/* a transport series (server, protocol, kernel id): its counters summed over intervals */
struct xprt_sum {
	char addr[ADDR_LEN];
	__u32 ident, id;
	double last_s;			/* end of the last interval it was in */
	double active_s;		/* ...in which it took a slot, sent, or held one (or its first) */
	struct xprt_counts n;
	__u64 retrans, timeouts;
	__u64 ops, bytes_written, bytes_read;
	double at_limit_ns, busy_ns, span_ns;
	/* credits against the grant: summed here as the slots' are, so a counter never goes back */
	double credit_at_limit_ns, credit_busy_ns;
	struct wait_view waits[WAIT_KINDS];
	__u64 curve_rpcs[LEVEL_BUCKETS], curve_rtt_ns[LEVEL_BUCKETS], curve_exec_ns[LEVEL_BUCKETS];
	__u32 limit;			/* the last interval's: the curve's buckets are of it */
	double verdict_s[VERDICTS];
	double link_busy_bytes;
};

/*
 * --prom-rollup's series: a mount's transports (model.c: the mount each counts under) summed over
 * intervals. A transport that moves to another mount, or goes, leaves its past counts where they
 * were added, so no row's counter goes back.
 */
struct roll_sum {
	char *mountpoint;		/* owned; "" for transports of no known mount */
	struct xprt_sum s;		/* s.addr: the row's server */
	/* the in-flight curve by quarter of each transport's own limit (transports' limits differ) */
	double q_rpcs[5], q_rtt_ns[5], q_exec_ns[5];
};

struct mount_sum {
	double last_s;
	struct mount_total total;	/* total.mountpoint: owned; "" for ops of no known mount */
	size_t nops, capops;
	struct mount_op *ops;		/* ops[i].mountpoint is total.mountpoint */
};

struct ledger {
	/*
	 * --prom-rollup off: its rows are not summed (a roll_sum per mount and server, and a search
	 * of them per transport, at every tick, for series nobody writes)
	 */
	bool no_rows;
	__u64 counters[NCOUNTERS];	/* the views' counters, since attach */
	size_t nx, capx, nm, capm, nr, capr;
	struct xprt_sum *x;
	struct mount_sum *m;
	struct roll_sum *r;
};

/*
 * add a finished interval view; @mt, the mount table it was made with (NULL: none), keeps the
 * mounts it has from being forgotten while they do no RPC. 0 or -ENOMEM (what found no room is
 * not counted)
 */
int ledger_add(struct ledger *l, const struct view *iv, const struct mount_table *mt);
/*
 * @out: the textfile's view of @l with interval @iv added, what ledger_add(@l, @iv, @mt) will
 * make of it, without changing @l: one transport per series, @iv's transports (their gauges and
 * labels) with the sums as counters, the mounts that are live (in @iv or in @mt; ops of no mount
 * while summed), and with @pm's rollup the rows of the transports in @iv. What @pm filters out is
 * left out (NULL: nothing). No links: its caller's. It points into @l, @iv and @mt: free it with
 * ledger_view_free() before they change. 0 or -ENOMEM.
 */
int ledger_view(const struct ledger *l, const struct view *iv, const struct mount_table *mt,
		const struct prom_mounts *pm, struct view *out);
void ledger_view_free(struct view *out);
void ledger_free(struct ledger *l);

#endif
