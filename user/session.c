// SPDX-License-Identifier: GPL-2.0
/* The running trace: ticks, signals, the traced command, privileges, checkpoints, outputs. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "audit.h"
#include "ckpt.h"
#include "engine.h"
#include "log.h"
#include "ledger.h"
#include "mounts.h"
#include "outfile.h"
#include "output.h"
#include "rdma.h"
#include "session.h"
#include "util.h"
#include "verbs.h"
#include "view.h"

enum out_kind { OUT_PROM, OUT_FOLDED, OUT_SVG, OUTS };

struct session {
	struct session_opts o;
	struct engine *e;
	struct tunables tun;		/* from the audit: the knobs the verdicts name */
	double startup_cpu_s;
	struct port_attrs port_attrs;	/* state and rate (verbs too), read once per PORT_ATTR_REFRESH_NS */
	/* --mount: the server addresses (and protocols) whose transports are shown */
	size_t nfilters;
	struct { char addr[64], proto[8]; } filters[MAX_MOUNT_FILTERS];
	/*
	 * A mount may come or go at any time: the table is read once per tick, and every view of
	 * that tick (interval, cumulative, checkpoint) points into it, so views are freed before
	 * the next read.
	 */
	struct mount_table mounts_now;
	struct mount_src msrc;		/* whose mount table: --procfs-root, --mounts-of */
	int prom_err;			/* the textfile's last error, said once until it changes */
	bool out_gone;			/* stdout closed (EPIPE): nothing more printed */
	struct ledger ledger;		/* the textfile's counters: sums over intervals */
	struct linkmap links;		/* each transport's link, asked of the kernel */
	struct outfile out[OUTS];	/* by enum out_kind; dirfd -1 when not asked for */
	char kernel[65];		/* uname release, for slotscope_build_info */
	struct heat_column *heat;	/* for --svg: add_heat() */
	size_t nheat, capheat;
	unsigned int heat_span, heat_fill;	/* intervals per column, in the last one */
};

static long paranoid(const struct session *s)
{
	char path[512];
	long v;

	if (root_path(path, sizeof(path), s->o.procfs_root, "/proc/sys/kernel/perf_event_paranoid") ||
	    read_long(path, &v))
		return -1;
	return v;
}

static bool has_cap(const struct __user_cap_data_struct *d, int c)
{
	return d[c / 32].effective & (1u << (c % 32));
}

/*
 * What loading and attaching needs, whatever the uid: CAP_BPF for maps and programs, CAP_PERFMON
 * for tracing programs, kprobes and reading kernel memory (5.8: a17b53c4a4b5, 980737282232;
 * CAP_SYS_ADMIN stands in for either). 1 and *name when one is missing. *sys_admin: whether
 * module BTF can be looked up by id (the engine does without, engine_opts.no_btf_ids).
 */
static int missing_cap(const char **name, bool *sys_admin)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	static const struct { int cap; const char *name; } need[] = {
		{ CAP_BPF, "CAP_BPF" }, { CAP_PERFMON, "CAP_PERFMON" },
	};

	*sys_admin = true;
	if (syscall(SYS_capget, &h, d))
		return 0;	/* cannot tell: let the load say */
	*sys_admin = has_cap(d, CAP_SYS_ADMIN);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has_cap(d, need[i].cap) && !*sys_admin) {
			*name = need[i].name;
			return 1;
		}
	return 0;
}

/* a textfile and no command: left running on a node, where NFS comes and goes with the jobs */
static bool exporter(const struct session *s)
{
	return s->o.prom_file && !s->o.command;
}

/* the only state outside the session: what a signal handler may touch, and what was ignored */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static bool inherited_ignored[3];

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

/* Sleep until @deadline, waking early for a signal or the command's exit. */
static void wait_until(double deadline)
{
	while (!stop_signal && !child_exited) {
		double left = deadline - clock_s(CLOCK_MONOTONIC);
		struct timespec ts;

		if (left <= 0)
			return;
		if (left > 0.1)
			left = 0.1;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
}

static bool shown(const struct session *s, const struct xprt_view *x)
{
	if (!s->nfilters)
		return true;
	for (size_t i = 0; i < s->nfilters; i++)
		if (!strcmp(s->filters[i].addr, x->addr) && !strcmp(s->filters[i].proto, proto_name(x->ident)))
			return true;
	return false;
}

/* drop the transports --mount did not ask for, and their ops */
static void filter_view(const struct session *s, struct view *v)
{
	size_t n = 0, m = 0;

	for (size_t i = 0; i < v->nxprts; i++)
		if (shown(s, &v->xprts[i]))
			v->xprts[n++] = v->xprts[i];
	v->nxprts = n;
	for (size_t i = 0; i < v->nops; i++)
		for (size_t j = 0; j < v->nxprts; j++)
			if (v->ops[i].k.xprt == v->xprts[j].key) {
				v->ops[m++] = v->ops[i];
				break;
			}
	v->nops = m;
	m = 0;
	for (size_t i = 0; i < v->nsessions; i++)
		for (size_t j = 0; j < v->nxprts; j++)
			if (v->sessions[i].xprt == v->xprts[j].key) {
				v->sessions[m++] = v->sessions[i];
				break;
			}
	v->nsessions = m;
}

static void refresh_mounts(struct session *s)
{
	mounts_free(&s->mounts_now);
	if (mounts_load(&s->msrc, &s->mounts_now))
		pr_debug("cannot read mountinfo: mount points left out\n");
}

/* A window (checkpoint) view is finished by its caller, after ckpt_fix_view(). */
static int build(struct session *s, struct view *v, const struct snapshot *a, const struct snapshot *b,
		 const struct link_sample *la, const struct link_sample *lb, bool final, bool window)
{
	int err;

	err = view_build(v, a, b, &s->mounts_now, final);
	if (!err && !s->o.no_rdma && la && lb)
		err = view_add_links(v, la, lb, s->o.procfs_root, &s->links);
	if (err) {
		view_free(v);
		return err;
	}
	v->tun = s->tun;
	v->wall = clock_s(CLOCK_REALTIME);
	v->startup_cpu_s = s->startup_cpu_s;
	filter_view(s, v);
	v->window = window;
	if (!window)
		view_finish(v);
	return 0;
}

static void links_init(struct session *s)
{
	if (s->o.no_rdma)
		return;
	/* libibverbs knows the real rate (and XDR); a fixture tree has no verbs to ask */
	if (!strcmp(s->o.sysfs_root, "/"))
		s->port_attrs.read_rates = verbs_rates;
}

static int links_take(struct session *s, struct link_sample *ls)
{
	memset(ls, 0, sizeof(*ls));
	if (s->o.no_rdma)
		return 0;
	return link_sample(s->o.sysfs_root, NULL, 0, &s->port_attrs, ls);
}

/* mountinfo, read for the filters and the audit: a failure is said here, once */
static int load_mounts(const struct session *s, struct mount_table *mt)
{
	int err = mounts_load(&s->msrc, mt);

	if (err)
		pr_err("cannot read %s/proc/%s/mountinfo: %s: is /proc mounted%s?\n",
		       strcmp(s->o.procfs_root, "/") ? s->o.procfs_root : "", s->o.mounts_of,
		       strerror(-err), strcmp(s->o.mounts_of, "self") ? " (and CAP_SYS_PTRACE held)" : "");
	return err;
}

/* --mount paths become filters before anything is loaded: a typo costs no BPF load */
static int check_filters(struct session *s)
{
	struct mount_table mt = { 0 };

	if (!s->o.nmounts)
		return EXIT_OK;
	if (load_mounts(s, &mt))
		return EXIT_RUNTIME;
	for (size_t i = 0; i < s->o.nmounts; i++) {
		const struct nfs_mount *m = mounts_by_path(&mt, s->o.mounts[i]);
		char fstype[32];

		if (!m) {
			if (mounts_fstype(&s->msrc, s->o.mounts[i], fstype, sizeof(fstype)) == 0)
				pr_err("--mount %s: not an NFS mount (it is %s): give an NFS mount point\n",
				       s->o.mounts[i], fstype);
			else
				pr_err("--mount %s: not a mount point: give an NFS mount point (see mount -t nfs,nfs4)\n",
				       s->o.mounts[i]);
			mounts_free(&mt);
			return EXIT_USAGE;
		}
		if (!mount_option(m->opts, "addr", s->filters[s->nfilters].addr, sizeof(s->filters[0].addr)) ||
		    !mount_option(m->opts, "proto", s->filters[s->nfilters].proto, sizeof(s->filters[0].proto))) {
			pr_err("--mount %s: its options name no addr= or proto=\n", s->o.mounts[i]);
			mounts_free(&mt);
			return EXIT_USAGE;
		}
		s->nfilters++;
	}
	mounts_free(&mt);
	return EXIT_OK;
}

/* Print the limits audit and note the knobs for the verdicts; no NFS at all ends here. */
static int print_audit(struct session *s)
{
	struct mount_table mt = { 0 };
	struct audit a;
	int err;

	if (load_mounts(s, &mt))
		return EXIT_RUNTIME;
	if (!mt.n && !s->o.command && !exporter(s)) {
		pr_err("no NFS mounts: mount one first, or give the command that does after --\n");
		mounts_free(&mt);
		return EXIT_NOPERM;
	}
	err = audit_load(&a, s->o.sysfs_root, &s->msrc, &mt);
	if (err) {
		pr_err("limits audit: %s\n", strerror(-err));
		mounts_free(&mt);
		return EXIT_RUNTIME;
	}
	s->tun.tcp_max_slots = a.tcp_max_slots;
	s->tun.rdma_slots = a.rdma_slots;
	s->tun.max_session_slots = a.max_session_slots;
	if (s->o.json)
		out_audit_json(stdout, &a);
	else if (log_level > LOG_QUIET && log_level >= LOG_WARN)
		audit_print(stdout, &a);
	audit_free(&a);
	mounts_free(&mt);
	return EXIT_OK;
}

/*
 * Who the command runs as: --user, else the user who ran sudo (SUDO_UID/SUDO_GID, honoured only
 * when we are root), else whoever we are. A sudoers rule for slotscope must not be a root shell:
 * the job is the user's, slotscope's privileges are for loading BPF. 0, -ENOENT when there is
 * nobody to become (run as is), or -errno.
 */
static int command_identity(const struct session *s, uid_t *uid, gid_t *gid, char *name, size_t len)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	const struct passwd *pw;
	char *end;

	if (s->o.user) {
		pw = getpwnam(s->o.user);
		if (!pw)
			return -ESRCH;
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		snprintf(name, len, "%s", pw->pw_name);
		return 0;
	}
	if (getuid() != 0 || !su || !sg || !*su || !*sg)
		return -ENOENT;
	*uid = (uid_t)strtoul(su, &end, 10);
	if (*end)
		return -EINVAL;
	*gid = (gid_t)strtoul(sg, &end, 10);
	if (*end)
		return -EINVAL;
	pw = getpwuid(*uid);
	snprintf(name, len, "%s", pw ? pw->pw_name : "");
	return 0;
}

/* In the child: become @uid/@gid with no capability left to regain (an empty bounding set). */
static int become(uid_t uid, gid_t gid, const char *name)
{
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			return -errno;
	if ((name[0] ? initgroups(name, gid) : setgroups(0, NULL)) || setgid(gid) || setuid(uid))
		return -errno;
	/* setuid() away from 0 cleared the rest; nothing ambient survives either */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return 0;
}

static pid_t start_command(const struct session *s, char **argv)
{
	char name[256] = "";
	uid_t uid = 0;
	gid_t gid = 0;
	int who = command_identity(s, &uid, &gid, name, sizeof(name));
	pid_t pid;

	if (who && who != -ENOENT) {
		pr_err("cannot run %s as %s: %s\n", argv[0], s->o.user ? s->o.user : "SUDO_UID/SUDO_GID",
		       who == -ESRCH ? "no such user" : strerror(-who));
		errno = -who;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		/* as the shell gave them to us: nohup's ignored SIGHUP stays ignored in the job */
		for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
			signal(stop_signals[i], inherited_ignored[i] ? SIG_IGN : SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (!who && become(uid, gid, name)) {
			fprintf(stderr, "slotscope: cannot run %s as uid %u: %s\n", argv[0], (unsigned)uid,
				strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "slotscope: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int open_engine(struct session *s)
{
	struct engine_opts eo = { .procfs_root = s->o.procfs_root, .sysfs_root = s->o.sysfs_root,
				  .max_inflight = s->o.max_inflight,
				  .force_fallback = s->o.force_fallback, .events_tp = s->o.events_tp };
	const char *cap = "";
	char why[320] = "";
	bool sys_admin;
	long level;
	int err;

	if (missing_cap(&cap, &sys_admin)) {
		pr_err("missing %s: run it as root, or give it CAP_BPF and CAP_PERFMON (see "
		       "slotscope.service)\n", cap);
		return EXIT_NOPERM;
	}
	/*
	 * Debian's CONFIG_SECURITY_PERF_EVENTS_RESTRICT: at perf_event_paranoid 3 (its default)
	 * perf_event_open, which a kprobe takes, needs CAP_SYS_ADMIN, whatever CAP_PERFMON says.
	 * Without CAP_SYS_ADMIN every function is hooked by kprobe; raw tracepoints need no
	 * perf_event_open, so the tracepoint design still measures everything, at a higher cost.
	 */
	level = sys_admin ? -1 : paranoid(s);
	if (level > 2) {
		pr_warn("kernel.perf_event_paranoid is %ld, which allows kprobes only with CAP_SYS_ADMIN: "
			"waits from the tracepoints (4 program runs per RPC, not 2), RDMA request pools "
			"inferred from use; set it to 2 (sysctl -w kernel.perf_event_paranoid=2) or give "
			"CAP_SYS_ADMIN\n", level);
		eo.no_kprobes = true;
	}
	eo.no_btf_ids = !sys_admin;
	/* before megabytes of BTF and kallsyms are parsed: the caller decides what no NFS means */
	if (!engine_sunrpc_loaded(s->o.sysfs_root))
		return -ENOENT;
	err = engine_open(&s->e, &eo, why, sizeof(why));
	if (err == -ENOENT && !strcmp(why, "sunrpc"))
		return -ENOENT;
	if (err) {
		pr_err("%s\n", why);
		return EXIT_NOPERM;
	}
	err = engine_attach(s->e, why, sizeof(why));
	if (err) {
		pr_err("%s\n", why);
		engine_close(s->e);
		s->e = NULL;
		return EXIT_NOPERM;
	}
	if (log_level >= LOG_INFO) {
		const struct hook_status *h;
		size_t n = engine_hooks(s->e, &h);

		pr_info("events %s\n", events_name(engine_events(s->e)));
		for (size_t i = 0; i < n; i++)
			if (h[i].in_design)
				pr_info("hook %-20s %s\n", h[i].name, hook_method_name(h[i].method));
	}
	return EXIT_OK;
}

static int prom_fn(FILE *f, const void *arg)
{
	return out_prom(f, arg);
}

/*
 * The Prometheus file, from a cumulative and an interval view (NULL both while waiting for
 * NFS): a failure is said once (until it changes), tracing goes on.
 */
static void write_prom(struct session *s, struct view *cum, const struct view *iv,
		       const struct ckpt *ck /* [WIN_KINDS] or NULL */)
{
	struct prom_input in = { .cum = NULL, .iv = iv, .ck = ck, .now_wall = clock_s(CLOCK_REALTIME),
				 .detail = s->o.prom_detail, .version = SLOTSCOPE_VERSION,
				 .kernel = s->kernel };
	struct view sums;
	int err;

	if (!s->o.prom_file)
		return;
	/* no counters rather than counters that would go back */
	if (cum && ledger_view(&s->ledger, cum, &sums)) {
		pr_debug("out of memory: the textfile is not rewritten this time\n");
		return;
	}
	in.cum = cum ? &sums : NULL;
	err = outfile_write(&s->out[OUT_PROM], prom_fn, &in);
	if (cum)
		ledger_view_free(&sums);
	if (err == -EBUSY && err != s->prom_err)
		pr_err("cannot write %s: another slotscope (pid %d) writes it now; tracing goes on\n",
		       s->o.prom_file, s->out[OUT_PROM].lock_pid);
	else if (err && err != s->prom_err)
		pr_err("cannot write %s: %s: the last complete file stays; tracing goes on, and the "
		       "write is tried again every interval\n", s->o.prom_file, strerror(-err));
	else if (!err && s->prom_err)
		pr_warn("%s written again\n", s->o.prom_file);
	s->prom_err = err;
}

/*
 * The heat map's columns: one per interval, until HEAT_COLUMNS; then neighbours are merged and
 * each column covers twice as many intervals, so a week-long trace keeps a bounded map.
 */
#define HEAT_COLUMNS 512

static void add_heat(struct session *s, const struct view *v)
{
	struct heat_column *c;

	if (!s->o.svg_file)
		return;
	if (s->nheat && s->heat_fill < s->heat_span) {
		c = &s->heat[s->nheat - 1];
	} else {
		if (s->nheat == HEAT_COLUMNS) {
			for (size_t k = 0; k < HEAT_COLUMNS / 2; k++) {
				s->heat[k].wall = s->heat[2 * k].wall;
				for (int b = 0; b < LAT_BUCKETS; b++)
					s->heat[k].buckets[b] = s->heat[2 * k].buckets[b] +
								s->heat[2 * k + 1].buckets[b];
			}
			s->nheat = HEAT_COLUMNS / 2;
			s->heat_span *= 2;
		}
		if (GROW(s->heat, s->capheat, s->nheat + 1, 64))
			return;
		c = &s->heat[s->nheat++];
		memset(c, 0, sizeof(*c));
		c->wall = v->wall;
		s->heat_fill = 0;
	}
	s->heat_fill++;
	for (size_t i = 0; i < v->nxprts; i++)
		for (int b = 0; b < LAT_BUCKETS; b++)
			c->buckets[b] += v->xprts[i].waits[WAIT_SLOT].buckets[b];
}

struct file_job {
	const struct session *s;
	const struct view *v;
};

static int folded_fn(FILE *f, const void *arg)
{
	out_folded(f, ((const struct file_job *)arg)->v);
	return 0;
}

static int svg_fn(FILE *f, const void *arg)
{
	const struct file_job *j = arg;

	out_svg(f, j->v, j->s->heat, j->s->nheat);
	return 0;
}

/* --folded, --svg at exit: whole or not at all, like the textfile */
static int write_file(struct session *s, int which, const struct view *v)
{
	struct file_job j = { s, v };
	int err = outfile_write(&s->out[which], which == OUT_SVG ? svg_fn : folded_fn, &j);

	if (err)
		pr_err("cannot write %s: %s\n", s->out[which].path, strerror(-err));
	return err;
}

static int check_outputs(const struct session *s);

/*
 * Once attached, nothing needs a capability: map fds stay usable, /proc and /sys are readable
 * by anyone, links are detached by closing fds. Drop them all (and the user, if asked), so a
 * bug in the parsers or renderers runs unprivileged.
 */
static int drop_privileges(const struct session *s)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	/* no execve of ours regains anything: no setuid bits, no file capabilities */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		pr_err("cannot set no_new_privs: %s\n", strerror(errno));
		return -errno;
	}
	/*
	 * An empty bounding set: even uid 0 gets no capability back at an execve. It takes
	 * CAP_SETPCAP, which a service started with only what it needs does not have: its
	 * bounding set is then the launcher's, already narrow (the unit's).
	 */
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL && errno != EPERM) {
			pr_err("cannot empty the capability bounding set: %s\n", strerror(errno));
			return -errno;
		}
	/*
	 * Naming a window's jobs reads /proc/PID/{fd,cwd,io} of other users' processes, which takes
	 * CAP_SYS_PTRACE (and CAP_DAC_READ_SEARCH for their fd directories): kept when held and
	 * jobs are looked for, never regained by an execve (the bounding set is empty). Not with
	 * --user: these two are root's reach, and switching user is asking to give that up.
	 */
	if (!s->o.ckpt.no_jobs && !s->o.user) {
		struct __user_cap_data_struct now[2] = { { 0 } };

		if (!syscall(SYS_capget, &h, now))
			for (int c = 0; c < 2; c++) {
				int cap = c ? CAP_DAC_READ_SEARCH : CAP_SYS_PTRACE;

				if (has_cap(now, cap)) {
					d[cap / 32].effective |= 1u << (cap % 32);
					d[cap / 32].permitted |= 1u << (cap % 32);
				}
			}
	}
	if (s->o.user) {
		const struct passwd *pw = getpwnam(s->o.user);

		/* the user's own groups: a group-writable textfile directory stays writable */
		if (!pw || initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) ||
		    setuid(pw->pw_uid)) {
			pr_err("cannot switch to user %s: %s\n", s->o.user, strerror(errno));
			return -EPERM;
		}
	}
	if (syscall(SYS_capset, &h, d)) {
		pr_err("cannot drop capabilities: %s\n", strerror(errno));
		return -errno;
	}
	return check_outputs(s);
}

static void report_ckpt(struct session *s, struct ckpt *c)
{
	struct ckpt_view cv;
	struct view v;

	if (build(s, &v, &c->start, &c->last, &c->lstart, &c->llast, false, true))
		return;
	ckpt_fix_view(c, &v);
	view_finish(&v);
	ckpt_view(c, &v, &cv);
	if (s->o.json)
		out_ckpt_json(stdout, &v, &cv);
	else if (log_level > LOG_QUIET)
		out_ckpt_text(stdout, &v, &cv);
	view_free(&v);
}

/* A snapshot and its link sample, taken together: one instant of the model's inputs. */
struct sample {
	struct snapshot snap;
	struct link_sample links;
};

static int take(struct session *s, struct sample *x)
{
	int err = engine_snapshot(s->e, &x->snap);

	return err ? err : links_take(s, &x->links);
}

static void sample_free(struct sample *x)
{
	snapshot_free(&x->snap);
	link_sample_free(&x->links);
	memset(x, 0, sizeof(*x));
}

/*
 * The inputs of a tick or of the summary: a sample and the mount table as they are now. A
 * failure is said here, naming @what the sample was for; the sample is then empty.
 */
static int take_now(struct session *s, struct sample *x, const char *what)
{
	int err = take(s, x);

	if (err) {
		pr_err("cannot read the BPF maps or links for %s: %s\n", what, strerror(-err));
		sample_free(x);
		return err;
	}
	refresh_mounts(s);
	return 0;
}

/* The state of the trace loop: what is compared with what. */
struct trace {
	struct sample start, prev;
	struct ckpt ck[WIN_KINDS];	/* checkpoints and restores */
	pid_t child;
};

/*
 * Take the empty start, arm the programs, start the command, drop privileges. Errors are said
 * here; *rc is set when the command must report its own status.
 */
static int trace_begin(struct session *s, struct trace *t, int *rc)
{
	int err;

	for (int k = 0; k < WIN_KINDS; k++)
		ckpt_init(&t->ck[k], &s->o.ckpt, (enum win_kind)k);
	t->child = -1;
	links_init(s);
	err = take(s, &t->start);
	/* the start snapshot is empty: everything counted comes after it */
	engine_arm(s->e);
	s->startup_cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (!err)
		err = snapshot_dup(&t->prev.snap, &t->start.snap);
	if (!err)
		err = link_sample_dup(&t->prev.links, &t->start.links);
	if (err) {
		pr_err("cannot read the BPF maps: %s\n", strerror(-err));
		return err;
	}
	if (!s->o.no_rdma && !t->start.links.n)
		pr_warn("%s: RDMA columns stay empty; TCP transports get their netdev\n",
			t->start.links.why_empty);
	if (s->o.command && stop_signal) {
		/* stopped while loading: the job never ran, and says so as a shell would */
		*rc = 128 + stop_signal;
	} else if (s->o.command) {
		/* the user's job, as the user (command_identity); exits only: a job stopped and
		 * continued (Ctrl-Z, a scheduler's suspend) goes on */
		struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP | SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
		t->child = start_command(s, s->o.command);
		if (t->child < 0) {
			pr_err("cannot start %s: %s\n", s->o.command[0], strerror(errno));
			return -errno;
		}
	}
	return drop_privileges(s);
}

/*
 * The processes behind an open window: those using the mounts that moved its kind's bytes in
 * this interval (every NFS mount of the view when none did), and the command's tree.
 */
static void sample_jobs(struct session *s, struct trace *t, struct ckpt *c, const struct view *v)
{
	const char *mnts[64];
	struct jobs_scan sc = { .procfs_root = s->o.procfs_root, .mounts = mnts,
				.tree = t->child > 0 ? t->child : 0, .writes = c->kind == WIN_CHECKPOINT };

	if (s->o.ckpt.no_jobs)
		return;
	for (int pass = 0; pass < 2 && !sc.nmounts; pass++)
		for (size_t i = 0; i < v->nmounts && sc.nmounts < 64; i++) {
			const struct mount_total *m = &v->mounts[i];
			__u64 b = c->kind == WIN_CHECKPOINT ? m->bytes_written : m->bytes_read;

			if (m->mountpoint && (b || pass))
				mnts[sc.nmounts++] = m->mountpoint;
		}
	if (jobs_sample(&c->jobs, &sc))
		pr_debug("cannot list processes: the window's jobs are unknown\n");
}

/* One interval: its view printed, the textfile rewritten, checkpoints stepped, the dead reaped. */
static int trace_tick(struct session *s, struct trace *t)
{
	struct sample cur = { 0 };
	enum ckpt_event ev[WIN_KINDS];
	size_t reaped;
	struct view v;
	int err;

	err = take_now(s, &cur, "an interval");
	if (err)
		return err;
	if (build(s, &v, &t->prev.snap, &cur.snap, &t->prev.links, &cur.links, false, false) == 0) {
		struct view cv;

		if (s->o.interval > 0 && s->o.json)
			out_json(stdout, &v);
		else if (s->o.interval > 0 && log_level > LOG_QUIET)
			out_text(stdout, &v);
		add_heat(s, &v);
		for (int k = 0; k < WIN_KINDS; k++) {
			ev[k] = ckpt_step(&t->ck[k], &v, &t->prev.snap, &cur.snap, &t->prev.links,
					  &cur.links, v.wall);
			if (t->ck[k].active)
				sample_jobs(s, t, &t->ck[k], &v);
		}
		if (s->o.prom_file && ledger_add(&s->ledger, &v))
			pr_debug("out of memory: an interval left out of the textfile's sums\n");
		if (s->o.prom_file && build(s, &cv, &t->start.snap, &cur.snap, &t->start.links,
					    &cur.links, true, false) == 0) {
			write_prom(s, &cv, &v, t->ck);
			view_free(&cv);
		}
		for (int k = 0; k < WIN_KINDS; k++)
			if (ev[k] == CKPT_ENDED)
				report_ckpt(s, &t->ck[k]);
		view_free(&v);
	}
	/* transports seen destroyed were just reported, in this interval and the textfile */
	if (engine_reap(s->e, &cur.snap, &reaped))
		pr_debug("cannot reap destroyed transports: out of memory\n");
	sample_free(&t->prev);
	t->prev = cur;
	return 0;
}

/*
 * stdout closed under us (| head): stop as for a signal, the files still written. The job, whose
 * output went the same way, is told to stop too.
 */
static bool stdout_gone(struct session *s)
{
	if (!s->out_gone && (fflush(stdout) == EOF || ferror(stdout))) {
		s->out_gone = true;
		pr_debug("stdout closed: stopping\n");
	}
	return s->out_gone;
}

/* the job decides how long we trace; a signal to us is passed on */
static void wait_child(struct session *s, struct trace *t, int *rc)
{
	int status = 0;

	if (t->child <= 0)
		return;
	if (stop_signal && !child_exited)
		kill(t->child, stop_signal);
	else if (s->out_gone && !child_exited)
		kill(t->child, SIGTERM);
	while (waitpid(t->child, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		*rc = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		*rc = 128 + WTERMSIG(status);
}

/* The summary, whatever ended the trace: an open checkpoint ends with it; files written. */
static int trace_end(struct session *s, struct trace *t)
{
	struct sample cur = { 0 };
	struct view v;
	int err;

	err = take_now(s, &cur, "the summary");
	if (err)
		return err;
	for (int k = 0; k < WIN_KINDS; k++) {
		struct ckpt *c = &t->ck[k];

		if (!ckpt_finish(c, clock_s(CLOCK_REALTIME), (double)cur.snap.ts_ns / 1e9))
			continue;
		struct snapshot tmp = c->last;
		struct link_sample ltmp = c->llast;

		if (!snapshot_dup(&c->last, &cur.snap) && !link_sample_dup(&c->llast, &cur.links)) {
			snapshot_free(&tmp);
			link_sample_free(&ltmp);
		} else {
			c->last = tmp;
			c->llast = ltmp;
		}
		report_ckpt(s, c);
	}
	/* the last interval's share of the textfile's sums, up to the summary */
	if (s->o.prom_file &&
	    build(s, &v, &t->prev.snap, &cur.snap, &t->prev.links, &cur.links, false, false) == 0) {
		if (ledger_add(&s->ledger, &v))
			pr_debug("out of memory: an interval left out of the textfile's sums\n");
		view_free(&v);
	}
	if (build(s, &v, &t->start.snap, &cur.snap, &t->start.links, &cur.links, true, false) == 0) {
		if (v.counters[CNT_RECURSION_MISSES]) {
			char who[512];

			engine_misses(s->e, who, sizeof(who));
			pr_warn("the kernel skipped %llu runs of slotscope's programs, each fired while it "
				"ran on that CPU (%s): counts may be short by as many events\n",
				(unsigned long long)v.counters[CNT_RECURSION_MISSES], who);
		}
		if (s->o.json)
			out_json(stdout, &v);
		else if (log_level > LOG_QUIET)
			out_text(stdout, &v);
		write_prom(s, &v, &v, t->ck);
		if (s->o.folded_file && write_file(s, OUT_FOLDED, &v))
			err = -EIO;
		if (s->o.svg_file && write_file(s, OUT_SVG, &v))
			err = -EIO;
		view_free(&v);
	}
	sample_free(&cur);
	return err;
}

static int trace(struct session *s, int *rc)
{
	/* checkpoints need intervals even when none are printed */
	double tick = s->o.interval > 0 ? s->o.interval : 1, t0, next, end;
	struct trace t = { 0 };
	long intervals = 0;
	int err, end_err;

	err = trace_begin(s, &t, rc);
	if (err)
		goto out;
	t0 = clock_s(CLOCK_MONOTONIC);
	next = t0 + tick;
	end = s->o.duration > 0 ? t0 + s->o.duration : 1e18;
	for (;;) {
		double now;

		wait_until(next < end ? next : end);
		if (stop_signal || child_exited || clock_s(CLOCK_MONOTONIC) >= end)
			break;
		err = trace_tick(s, &t);
		if (err)
			break;
		if (stdout_gone(s))
			break;
		if (s->o.count && ++intervals >= s->o.count)
			break;
		/*
		 * After a stall (a stopped slotscope, a starved VM) the missed ticks are skipped, not
		 * run back to back: intervals near 0 s would start checkpoints and use up COUNT.
		 */
		next += tick;
		now = clock_s(CLOCK_MONOTONIC);
		if (now > next)
			next += tick * (floor((now - next) / tick) + 1);
	}
	wait_child(s, &t, rc);
	/* the first error decides the exit status; the summary is still made */
	end_err = trace_end(s, &t);
	if (!err)
		err = end_err;
out:
	for (int k = 0; k < WIN_KINDS; k++)
		ckpt_free(&t.ck[k]);
	sample_free(&t.start);
	sample_free(&t.prev);
	return err;
}

/*
 * Output files, before anything is loaded: their directories opened (no symlink in them), the
 * textfile locked against a second writer. An exit code, the reason said once.
 */
static int open_outputs(struct session *s)
{
	const char *paths[OUTS] = { s->o.prom_file, s->o.folded_file, s->o.svg_file };

	for (int i = 0; i < OUTS; i++) {
		int err;

		s->out[i].dirfd = s->out[i].lockfd = -1;
		if (!paths[i])
			continue;
		err = outfile_open(&s->out[i], paths[i], i == OUT_PROM);
		if (err == -EBUSY)
			pr_err("%s is being written by another slotscope (pid %d): stop it, or give "
			       "another file\n", paths[i], s->out[i].lock_pid);
		else if (err && s->out[i].lock_failed) {
			/* a lock file an earlier run left as another user (root): the service's
			 * restarts retry (exit 1) and succeed once it is removed */
			pr_err("cannot open the lock file of %s (.%s.lock in its directory): %s: an "
			       "earlier run as another user left it; remove it\n", paths[i],
			       s->out[i].name, strerror(-err));
			return EXIT_RUNTIME;
		}
		else if (err == -ELOOP || err == -ENOTDIR)
			pr_err("cannot write %s: a directory in it is a symbolic link or not a "
			       "directory: give its real path (realpath)\n", paths[i]);
		else if (!err && (err = outfile_check(&s->out[i])))
			pr_err("cannot write into the directory of %s: %s: pick another path\n",
			       paths[i], strerror(-err));
		else if (err)
			pr_err("cannot write %s: %s: create its directory or pick another path\n",
			       paths[i], strerror(-err));
		if (err)
			return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* after the drop: the directories must still be writable by who we are now */
static int check_outputs(const struct session *s)
{
	for (int i = 0; i < OUTS; i++) {
		int err = s->out[i].dirfd >= 0 ? outfile_check(&s->out[i]) : 0;

		if (err) {
			pr_err("cannot write into the directory of %s as %s: %s: give that user write "
			       "access, or pick another path\n", s->out[i].path,
			       s->o.user ? s->o.user : "this user", strerror(-err));
			return err;
		}
	}
	return 0;
}

int session_new(struct session **out, const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	struct utsname u;
	bool same_netns;
	int rc;

	*out = NULL;
	if (!s) {
		pr_err("out of memory\n");
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < OUTS; i++)
		s->out[i].dirfd = s->out[i].lockfd = -1;
	s->heat_span = 1;
	s->o = *o;
	linkmap_init(&s->links, s->o.procfs_root, s->o.sysfs_root);
	if (!s->o.mounts_of)
		s->o.mounts_of = "self";
	s->msrc.procfs_root = s->o.procfs_root;
	s->msrc.pid = s->o.mounts_of;
	/* a pod without hostNetwork would map every transport to its own lo or eth0 */
	if (!mounts_netns_same(&s->msrc, &same_netns) && !same_netns)
		pr_err("PID %s, whose mounts are read, is in another network namespace: transports "
			"would be mapped to this one's routes and devices; run in the host's "
			"(hostNetwork: true in a DaemonSet)\n", s->o.mounts_of);
	if (!uname(&u))
		snprintf(s->kernel, sizeof(s->kernel), "%s", u.release);
	rc = open_outputs(s);
	if (!rc)
		rc = check_filters(s);
	if (rc) {
		session_free(s);
		return rc;
	}
	*out = s;
	return EXIT_OK;
}

/*
 * An exporter started before any NFS mount (sunrpc is loaded by the first one): the textfile
 * says so (slotscope_tracing 0) until sunrpc appears, then tracing starts. Each tick costs one
 * access(); a signal, -d or COUNT ends the wait as they would end the trace.
 */
static int wait_for_sunrpc(struct session *s)
{
	double tick = s->o.interval > 0 ? s->o.interval : 1, t0 = clock_s(CLOCK_MONOTONIC);
	double end = s->o.duration > 0 ? t0 + s->o.duration : 1e18;
	long ticks = 0;
	int rc;

	pr_info("sunrpc is not loaded yet (no NFS mount): waiting for it\n");
	for (;;) {
		write_prom(s, NULL, NULL, NULL);
		wait_until(t0 + (double)(ticks + 1) * tick < end ? t0 + (double)(ticks + 1) * tick : end);
		ticks++;
		if (stop_signal)
			return EXIT_OK;
		if (engine_sunrpc_loaded(s->o.sysfs_root)) {
			rc = open_engine(s);
			if (rc != -ENOENT)
				return rc;
		}
		if (clock_s(CLOCK_MONOTONIC) >= end || (s->o.count > 0 && ticks >= s->o.count)) {
			pr_err("sunrpc did not appear in %.0f s (no NFS mount): nothing was traced\n",
			       clock_s(CLOCK_MONOTONIC) - t0);
			return EXIT_NOPERM;
		}
	}
}

/* -- COMMAND --run-untraced on a node with no NFS client: the job runs anyway, as the user's */
static int run_untraced(struct session *s)
{
	int status = 0;
	pid_t pid;

	pr_warn("sunrpc is not loaded (no NFS mount): running %s untraced\n", s->o.command[0]);
	pid = start_command(s, s->o.command);
	if (pid < 0)
		return EXIT_RUNTIME;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		if (stop_signal)
			kill(pid, stop_signal);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int session_run(struct session *s)
{
	int rc, err;

	libbpf_set_print(log_libbpf);
	/*
	 * Before the load: under emulation it takes seconds, and a signal then must still end in a
	 * summary and exit 0, not kill us. The verifier returns -EAGAIN on a pending signal and
	 * libbpf retries the load, so catching one here costs nothing.
	 */
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction old;

		/*
		 * What we were started with is what the command gets. We keep an ignored SIGHUP
		 * (nohup: a logout must not end the trace); SIGINT and SIGTERM always end it, with
		 * a summary, even when a shell started us in the background with SIGINT ignored.
		 */
		inherited_ignored[i] = !sigaction(stop_signals[i], NULL, &old) &&
				       old.sa_handler == SIG_IGN;
		if (!(inherited_ignored[i] && stop_signals[i] == SIGHUP))
			signal(stop_signals[i], on_signal);
	}
	/* a closed pipe on stdout (| head) is an EPIPE where we print, not a death */
	signal(SIGPIPE, SIG_IGN);
	rc = open_engine(s);
	if (rc == -ENOENT && exporter(s)) {
		rc = wait_for_sunrpc(s);
	} else if (rc == -ENOENT && s->o.command && s->o.run_untraced) {
		return run_untraced(s);
	} else if (rc == -ENOENT) {
		pr_err("sunrpc is not loaded, so there is no NFS client to trace: mount an NFS share "
		       "(or modprobe sunrpc) and run again%s\n",
		       s->o.command ? ", or add --run-untraced to run the command anyway" : "");
		rc = EXIT_NOPERM;
	}
	/* a signal while waiting: no engine, nothing traced */
	if (!rc && s->e)
		rc = print_audit(s);
	if (!rc && s->e && trace(s, &rc) && !rc)
		rc = EXIT_RUNTIME;
	/* a stopped exporter's numbers would live on in node_exporter as if current */
	if (s->o.prom_file && !s->o.prom_keep && (err = outfile_remove(&s->out[OUT_PROM])) &&
	    err != -ENOENT)
		pr_warn("cannot remove %s: %s\n", s->o.prom_file, strerror(-err));
	return rc;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	/* detaches every program */
	engine_close(s->e);
	port_attrs_free(&s->port_attrs);
	free(s->heat);
	ledger_free(&s->ledger);
	linkmap_free(&s->links);
	for (int i = 0; i < OUTS; i++)
		outfile_close(&s->out[i]);
	mounts_free(&s->mounts_now);
	free(s);
}
