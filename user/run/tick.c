// SPDX-License-Identifier: GPL-2.0
/*
 * The trace: an empty start, then one tick per interval (its view printed, the textfile
 * rewritten, windows stepped, the dead reaped), then the summary, whatever ended it.
 */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "host/cpustat.h"
#include "run/command.h"
#include "lib/log.h"
#include "run/jobreap.h"
#include "run/privs.h"
#include "run/run_int.h"
#include "prom/totals.h"
#include "run/silence.h"
#include "run/signals.h"
#include "lib/util.h"
#include "links/verbs.h"

/* A snapshot and its link sample, taken together: one instant of the model's inputs. */
struct sample {
	struct snapshot snap;
	struct link_sample links;
	bool suspect;		/* a transport disagreed with sysfs once: not reported (prove.h) */
};

/* The state of the trace loop: what is compared with what. */
struct trace {
	struct sample start, prev;
	struct snapshot before;		/* the jobio and clock of the snapshot before prev */
	struct window win[WIN_KINDS];	/* checkpoints and restores */
	pid_t child;			/* the command's keeper */
	int ctl;			/* its signal pipe */
};

static void links_init(struct run *r)
{
	if (r->o.no_rdma)
		return;
	/* libibverbs knows the real rate (and XDR); a fixture tree has no verbs to ask */
	if (!strcmp(r->o.sysfs_root, "/"))
		r->link_sampler.read_rates = verbs_rates;
}

/* the proof's look at a transport after its sysfs read (prove.h) */
static int xprt_now(void *e, const struct xprt_snap *c, struct xprt_stats *out)
{
	return engine_xprt_now(e, c, out);
}

/*
 * A sample: the maps, then the links at once (a rate is their bytes over the links' clock, a
 * duration the snapshots': a moment apart), then its transports proven: a layout that reads them
 * differently from what the kernel publishes is said here (-EPROTO), and nothing is reported
 * from it.
 */
static int take(struct run *r, struct sample *x)
{
	char why[400];
	int err;

	engine_modules_arrived(r->e);
	err = engine_snapshot(r->e, &x->snap);

	memset(&x->links, 0, sizeof(x->links));
	x->suspect = false;
	if (!err && !r->o.no_rdma)
		err = link_sample(r->o.sysfs_root, NULL, 0, &r->link_sampler, &x->links);
	if (err)
		return err;
	/* unread (a fixture root without it): the what-if reads its curves as if the CPUs had room */
	if (cpustat_read(r->o.procfs_root, &x->links.cpu))
		x->links.cpu.known = false;
	/* the connections' counters while they queue RPCs (tcpwatch.h): a failed read is not the tick's */
	if (tcp_watch_tick(&r->tw, &x->snap, &r->links, !strcmp(r->o.sysfs_root, "/") &&
			   !strcmp(r->o.procfs_root, "/"), &x->links) == -ENOMEM)
		return -ENOMEM;
	r->proof.now = xprt_now;
	r->proof.now_ctx = r->e;
	err = proof_check(&r->proof, &x->snap, r->o.sysfs_root, why, sizeof(why));
	if (r->proof.unpublished[0] && !r->said_unpublished) {
		r->said_unpublished = true;
		pr_warn("%s\n", r->proof.unpublished);
	}
	if (r->proof.no_sysfs && !r->said_unproven) {
		r->said_unproven = true;
		pr_warn("%s/sys/kernel/sunrpc/xprt-switches is missing (sunrpc publishes its transports "
			"there from Linux 5.14): transport ids, classes, slot limits and levels are reported "
			"as read, not proven against the kernel's own\n",
			strcmp(r->o.sysfs_root, "/") ? r->o.sysfs_root : "");
	}
	/* a first look that disagrees: this sample is not reported, the next decides */
	x->suspect = err == 1;
	if (err == -EPROTO)
		pr_err("the layout slotscope reads sunrpc through is wrong: %s; nothing is reported "
		       "from it (give the module's own BTF: --btf sunrpc=FILE)\n", why);
	return err == 1 ? 0 : err;
}

static void sample_free(struct sample *x)
{
	snapshot_free(&x->snap);
	link_sample_free(&x->links);
	memset(x, 0, sizeof(*x));
}

/*
 * The inputs of a tick or of the summary: a sample, the mount table and the link paths as they
 * are now. A failure is said here, naming @what the sample was for; the sample is then empty.
 */
static int take_now(struct run *r, struct sample *x, const char *what)
{
	int err = take(r, x);

	if (err) {
		if (err != -EPROTO)
			pr_err("cannot read the BPF maps or links for %s: %s\n", what, strerror(-err));
		sample_free(x);
		return err;
	}
	/* the table of the last tick stands until a mount or unmount (or a failed read) */
	if (!r->mounts_ok || mounts_changed(&r->msrc)) {
		mounts_free(&r->mounts_now);
		r->mounts_ok = mounts_load(&r->msrc, &r->mounts_now) == 0;
		if (!r->mounts_ok)
			pr_debug("cannot read mountinfo: mount points left out\n");
	}
	if (!r->o.no_rdma && linkmap_update(&r->links, &x->snap))
		pr_debug("out of memory: some transports' links are unknown this time\n");
	/* a short job's cgroup may be gone by the window's end: its path is learned now */
	if (!r->o.win.no_jobs && cgroups_learn(&r->cg, &x->snap, clock_s(CLOCK_MONOTONIC)))
		pr_debug("out of memory: some cgroups are not named\n");
	return 0;
}

/* the model's inputs from @a to @b: everything but the span's own (peaks, sums) */
static struct model_in model_in(struct run *r, enum view_span span, const struct sample *a,
				const struct sample *b)
{
	struct model_in in = {
		.arena = &r->arena, .span = span, .from = &a->snap, .to = &b->snap,
		.lfrom = r->o.no_rdma ? NULL : &a->links, .lto = r->o.no_rdma ? NULL : &b->links,
		.tfrom = &a->links, .tto = &b->links,
		.mounts = &r->mounts_now, .paths = r->o.no_rdma ? NULL : &r->links,
		.nfilters = r->nfilters, .filters = r->filters, .tun = r->tun,
		.wall = clock_s(CLOCK_REALTIME), .cost = { .startup_cpu_s = r->startup_cpu_s },
	};

	return in;
}

/*
 * Take the empty start, arm the programs, start the command, drop privileges. Errors are said
 * here; *rc is set when the command must report its own status.
 */
static int trace_begin(struct run *r, struct trace *t, int *rc)
{
	int err;

	for (int k = 0; k < WIN_KINDS; k++)
		window_init(&t->win[k], &r->o.win, (enum win_kind)k);
	t->child = -1;
	t->ctl = -1;
	links_init(r);
	err = take(r, &t->start);
	/* the start snapshot is empty: everything counted comes after it */
	engine_arm(r->e);
	r->startup_cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (!err)
		err = snapshot_dup(&t->prev.snap, &t->start.snap);
	if (!err)
		err = link_sample_dup(&t->prev.links, &t->start.links);
	if (err) {
		if (err != -EPROTO)
			pr_err("cannot read the BPF maps: %s\n", strerror(-err));
		return err;
	}
	if (!r->o.no_rdma && !t->start.links.n)
		pr_warn("%s: RDMA columns stay empty; TCP transports get their netdev\n",
			t->start.links.why_empty);
	if (r->o.command && sig_stop()) {
		/* stopped while loading: the job never ran, and says so as a shell would */
		*rc = 128 + sig_stop();
	} else if (r->o.command) {
		sig_watch_child();
		t->child = command_start(r->o.command, r->o.user, &t->ctl);
		if (t->child < 0) {
			pr_err("cannot start %s: %s\n", r->o.command[0], strerror(errno));
			return -errno;
		}
	}
	err = privs_drop(r->o.user, r->out, OUTS);
	return err ? err : outputs_check(r);
}

/*
 * The jobs of window @w (its view @v): the kernel's counts of NFS file I/O in its direction on
 * the mounts that moved its bytes (every mount when none can be told), per cgroup, named.
 */
static void window_jobs(struct run *r, struct window *w, const struct view *v)
{
	__u32 dir = w->kind == WIN_CHECKPOINT ? JOB_WRITE : JOB_READ, devs[64];
	const struct snapshot *from = w->jobs_from.ts_ns ? &w->jobs_from : &w->start;
	struct jobs_in in = { .from = from, .to = w->jobs_to.ts_ns ? &w->jobs_to : &w->last,
			      .devs = devs, .dir = dir,
			      .cg = r->cg.root[0] ? &r->cg : NULL, .since_ns = from->ts_ns };
	struct task_seen *tasks = NULL;

	if (r->o.win.no_jobs)
		return;
	for (size_t i = 0; i < v->nmounts && in.ndevs < 64; i++) {
		const struct mount_total *t = &v->mounts[i];
		const struct nfs_mount *m = t->mountpoint ? mounts_by_path(&r->mounts_now, t->mountpoint) : NULL;

		if (m && (dir == JOB_WRITE ? t->bytes_written : t->bytes_read))
			devs[in.ndevs++] = m->major << 20 | m->minor;
	}
	if (engine_tasks(r->e, &tasks, &in.ntasks))
		pr_debug("cannot read the processes seen: a window's jobs show none\n");
	in.tasks = tasks;
	if (jobs_of_window(&w->ended_jobs, &in)) {
		pr_debug("out of memory: a window's jobs are left out\n");
	} else {
		jobs_time_of_window(&w->ended_jobs, &in, &w->job_active, w->end_mono - w->start_mono);
		job_totals_add(&w->job_totals, &w->ended_jobs);
	}
	free(tasks);
}

static void report_window(struct run *r, struct window *w)
{
	struct sample a = { .snap = w->start, .links = w->lstart };
	struct sample b = { .snap = w->last, .links = w->llast };
	struct window_peak peaks[WINDOW_SAT_MAX];
	struct model_in in = model_in(r, SPAN_WINDOW, &a, &b);
	struct window_view cv;
	struct model_out m;

	in.peaks = peaks;
	in.npeaks = window_peaks(w, peaks);
	if (model_build(&in, &m))
		return;
	window_jobs(r, w, &m.view);
	window_view(w, &m.view, &cv);
	if (r->o.json)
		out_window_json(stdout, &m.view, &cv);
	else if (log_level > LOG_QUIET)
		out_window_text(stdout, &m.view, &cv);
	model_out_free(&m);
}

/* @s's clock if it holds counts a window may read, and it is older than @m */
static __u64 older(__u64 m, const struct snapshot *s)
{
	return s->ts_ns && s->ts_ns < m ? s->ts_ns : m;
}

/*
 * The oldest snapshot a window may count its jobs from: the one before the last, an open
 * window's ends and lead-in, and a closed one's lead-in while it can still serve (jobs_from).
 */
static __u64 oldest_held(const struct trace *t)
{
	__u64 m = older(t->prev.snap.ts_ns, &t->before);

	for (int k = 0; k < WIN_KINDS; k++) {
		const struct window *w = &t->win[k];

		if (w->active) {
			m = older(m, &w->start);
			m = older(m, &w->last);
			m = older(m, &w->jobs_from);
			m = older(m, &w->jobs_to);
		}
		if (w->lead_n <= WINDOW_LEAD_MAX)
			m = older(m, &w->lead);
	}
	return m;
}

/* who is stuck behind each mount whose server does not answer (#59) */
static void name_stuck(struct run *r, struct view *v, const struct snapshot *snap)
{
	struct stuck_in in = { .procfs_root = r->o.procfs_root, .mounts = &r->mounts_now, .snap = snap,
			       .cg = r->o.win.no_jobs ? NULL : &r->cg };
	struct task_seen *tasks = NULL;
	bool any = false;

	for (size_t i = 0; i < v->nanswers; i++)
		any |= v->answers[i].a.state >= ANS_CONNECTING;
	if (!any || r->o.win.no_jobs || engine_tasks(r->e, &tasks, &in.ntasks))
		return;
	in.tasks = tasks;
	silence_stuck(v, &in);
	free(tasks);
}

/*
 * The textfile (and --listen's exposition) from the interval's view @v: the sums with it added,
 * rendered, then the sums kept (the totals point into them).
 */
static void textfile(struct run *r, struct trace *t, const struct sample *cur, const struct view *v)
{
	struct textfile_in in = {
		.sums = &r->ledger, .iv = v, .mounts = &r->mounts_now, .prom = &r->o.prom,
		.lstart = r->o.no_rdma ? NULL : &t->start.links, .lto = r->o.no_rdma ? NULL : &cur->links,
	};
	struct view totals;

	if (textfile_totals(&in, &totals)) {
		pr_debug("out of memory: an interval left out of the textfile\n");
		return;
	}
	outputs_prom(r, &totals, v, t->win);
	textfile_totals_free(&totals);
	if (ledger_add(&r->ledger, v, &r->mounts_now))
		pr_debug("out of memory: an interval left out of the textfile's sums\n");
}

/* the interval from t->prev to @cur */
static int interval(struct run *r, struct trace *t, const struct sample *cur, struct model_out *m)
{
	struct model_in in = model_in(r, SPAN_INTERVAL, &t->prev, cur);

	__u64 down[64];
	int err;

	if (run_prom(r))
		in.prom = &r->o.prom;
	in.silent_after_s = r->o.silent_after;
	in.disconnected = down;
	in.ndisconnected = silence_disconnected(r->o.sysfs_root, &t->prev.snap, &cur->snap, down,
						 sizeof(down) / sizeof(down[0]));
	err = model_build(&in, m);
	if (!err)
		name_stuck(r, &m->view, &cur->snap);
	return err;
}

/* One interval: its view printed, the textfile rewritten, windows stepped, the dead reaped. */
static int trace_tick(struct run *r, struct trace *t)
{
	enum window_event ev[WIN_KINDS];
	struct sample cur = { 0 };
	struct model_out m;
	size_t reaped;
	int err;

	err = take_now(r, &cur, "an interval");
	if (err)
		return err;
	if (cur.suspect) {
		pr_debug("an interval not reported: a transport's values disagree with sysfs once\n");
	} else if (interval(r, t, &cur, &m) == 0) {
		const struct view *v = &m.view;

		if (r->o.interval > 0 && r->o.json)
			out_json(stdout, v);
		else if (r->o.interval > 0 && log_level > LOG_QUIET)
			out_text(stdout, v);
		if (r->o.svg_file && heat_add(&r->heat, v))
			pr_debug("out of memory: an interval left out of the heat map\n");
		for (int k = 0; k < WIN_KINDS; k++) {
			ev[k] = window_step(&t->win[k], v, &t->prev.snap, &cur.snap, &t->prev.links,
					    &cur.links, v->wall);
			if (window_jobs_track(&t->win[k], ev[k], &t->before, &t->prev.snap, &cur.snap))
				pr_debug("out of memory: a window's jobs count within its busy intervals\n");
		}
		/* before the textfile: it names the last window's job */
		for (int k = 0; k < WIN_KINDS; k++)
			if (ev[k] == WIN_ENDED)
				report_window(r, &t->win[k]);
		if (run_prom(r))
			textfile(r, t, &cur, v);
		model_out_free(&m);
		jobs_reap(r, &t->prev.snap, &cur.snap, oldest_held(t));
	} else {
		pr_debug("out of memory: an interval left out\n");
	}
	/* transports seen destroyed were just reported, in this interval and the textfile */
	if (engine_reap(r->e, &cur.snap, &reaped))
		pr_debug("cannot reap destroyed transports: out of memory\n");
	/* prev's jobio lives on as the one before the next interval's start */
	snapshot_free(&t->before);
	t->before.ts_ns = t->prev.snap.ts_ns;
	t->before.jobio = t->prev.snap.jobio;
	t->before.njobio = t->prev.snap.njobio;
	t->before.jobio_sorted = t->prev.snap.jobio_sorted;
	t->prev.snap.jobio = NULL;
	t->prev.snap.njobio = 0;
	sample_free(&t->prev);
	t->prev = cur;
	view_arena_tick(&r->arena);
	return 0;
}

/*
 * stdout closed under us (| head): stop as for a signal, the files still written. The job, whose
 * output went the same way, is told to stop too.
 */
static bool stdout_gone(struct run *r)
{
	if (!r->out_gone && (fflush(stdout) == EOF || ferror(stdout))) {
		r->out_gone = true;
		pr_debug("stdout closed: stopping\n");
	}
	return r->out_gone;
}

/* the summary's own costs: what tracing took of this process */
static struct self_cost self_cost(const struct run *r)
{
	struct self_cost c = { .startup_cpu_s = r->startup_cpu_s };
	struct rusage ru;

	if (!getrusage(RUSAGE_SELF, &ru)) {
		c.user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		c.sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		c.max_rss_kib = (__u64)ru.ru_maxrss;
	}
	return c;
}

static void warn_misses(const struct run *r, const struct view *v)
{
	char who[512];

	if (!v->counters[CNT_RECURSION_MISSES])
		return;
	engine_misses(r->e, who, sizeof(who));
	pr_warn("the kernel skipped %llu runs of slotscope's programs, each fired while it ran on "
		"that CPU (%s): counts may be short by as many events\n",
		(unsigned long long)v->counters[CNT_RECURSION_MISSES], who);
}

/* The summary, whatever ended the trace: an open window ends with it; files written. */
static int trace_end(struct run *r, struct trace *t)
{
	struct sample cur = { 0 };
	struct model_out m;
	struct model_in in;
	int err;

	engine_read_all(r->e);
	err = take_now(r, &cur, "the summary");
	/* the summary is never made from a look that disagreed: a second decides */
	if (!err && cur.suspect) {
		sample_free(&cur);
		usleep(200 * 1000);
		err = take_now(r, &cur, "the summary");
		if (!err && cur.suspect) {
			sample_free(&cur);
			usleep(200 * 1000);
			err = take_now(r, &cur, "the summary");
		}
	}
	if (err)
		return err;
	for (int k = 0; k < WIN_KINDS; k++) {
		struct window *w = &t->win[k];
		struct snapshot tmp = w->last;
		struct link_sample ltmp = w->llast;

		if (!window_finish(w, clock_s(CLOCK_REALTIME), (double)cur.snap.ts_ns / 1e9))
			continue;
		if (!snapshot_dup(&w->last, &cur.snap) && !link_sample_dup(&w->llast, &cur.links)) {
			snapshot_free(&tmp);
			link_sample_free(&ltmp);
		} else {
			w->last = tmp;
			w->llast = ltmp;
		}
		report_window(r, w);
	}
	/* the last interval's share of the textfile's sums, up to the summary */
	if (run_prom(r) && interval(r, t, &cur, &m) == 0) {
		textfile(r, t, &cur, &m.view);
		model_out_free(&m);
	}
	in = model_in(r, SPAN_SUMMARY, &t->start, &cur);
	in.cost = self_cost(r);
	if (model_build(&in, &m) == 0) {
		warn_misses(r, &m.view);
		if (r->o.json)
			out_json(stdout, &m.view);
		else if (log_level > LOG_QUIET)
			out_text(stdout, &m.view);
		err = outputs_files(r, &m.view);
		model_out_free(&m);
	}
	sample_free(&cur);
	return err;
}

/*
 * The command waited for, our stop signal passed on. @failed: tracing never began (an output
 * the dropped user cannot write), so it would run untraced: it is stopped, not left behind.
 */
static void end_command(struct run *r, struct trace *t, bool failed, int *rc)
{
	if (t->child <= 0)
		return;
	if (failed && !sig_stop() && !command_exited(t->child)) {
		pr_err("stopping %s: it would run untraced\n", r->o.command[0]);
		command_signal(t->ctl, SIGTERM);
	}
	*rc = command_wait(t->child, t->ctl, r->out_gone);
	t->child = -1;
}

int run_trace(struct run *r, int *rc)
{
	/* windows need intervals even when none are printed */
	double tick = r->o.interval > 0 ? r->o.interval : 1, t0, next, end;
	struct trace t = { 0 };
	long intervals = 0;
	int err, end_err;

	err = trace_begin(r, &t, rc);
	if (err) {
		end_command(r, &t, true, rc);
		goto out;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	next = t0 + tick;
	end = r->o.duration > 0 ? t0 + r->o.duration : 1e18;
	for (;;) {
		double now;

		sig_wait_until(next < end ? next : end);
		/* a SIGCHLD of privs_drop()'s writability probes is not the command's end */
		if (sig_child_exited() && !(t.child > 0 && command_exited(t.child)))
			sig_child_clear();
		if (sig_stop() || sig_child_exited() || clock_s(CLOCK_MONOTONIC) >= end)
			break;
		err = trace_tick(r, &t);
		if (err)
			break;
		if (stdout_gone(r))
			break;
		if (r->o.count && ++intervals >= r->o.count)
			break;
		/*
		 * After a stall (a stopped slotscope, a starved VM) the missed ticks are skipped, not
		 * run back to back: intervals near 0 s would start windows and use up COUNT.
		 */
		next += tick;
		now = clock_s(CLOCK_MONOTONIC);
		if (now > next)
			next += tick * (floor((now - next) / tick) + 1);
	}
	end_command(r, &t, false, rc);
	/* the first error decides the exit status; the summary is still made, unless unproven */
	end_err = err == -EPROTO ? 0 : trace_end(r, &t);
	if (!err)
		err = end_err;
out:
	for (int k = 0; k < WIN_KINDS; k++)
		window_free(&t.win[k]);
	sample_free(&t.start);
	snapshot_free(&t.before);
	sample_free(&t.prev);
	return err;
}
