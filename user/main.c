// SPDX-License-Identifier: GPL-2.0
/* slotscope: RPC slot tables, their waits and latency, per NFS transport and mount. */
#include <argp.h>
#include <stdarg.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "audit.h"
#include "ckpt.h"
#include "engine.h"
#include "log.h"
#include "mounts.h"
#include "output.h"
#include "rdma.h"
#include "verbs.h"
#include "view.h"

enum exit_code { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 64, EXIT_NOPERM = 77 };

#define MAX_MOUNT_FILTERS 16

static struct env {
	double interval;	/* seconds between printed reports; 0 = only the summary */
	long count;		/* intervals; 0 = unlimited */
	double duration;	/* seconds; 0 = unlimited */
	bool json;
	bool have_interval;
	bool no_rdma;
	size_t nmounts;
	const char *mounts[MAX_MOUNT_FILTERS];
	struct ckpt_opts ckpt;
	const char *prom_file;
	const char *folded_file;
	const char *svg_file;
	const char *user;
	unsigned int max_inflight;
	const char *procfs_root;
	const char *sysfs_root;
	char **command;
} env = {
	.procfs_root = "/",
	.sysfs_root = "/",
	.ckpt = { .threshold_Bps = 10e6, .quiet_intervals = 2 },
};

const char *argp_program_version = "slotscope " SLOTSCOPE_VERSION;
static const char doc[] =
	"slotscope: how full each NFS RPC transport's slot table is, how long RPCs wait for a slot,\n"
	"where their time goes, and what limits throughput, per transport and per mount.\n"
	"\n"
	"USAGE: slotscope [OPTIONS] [INTERVAL [COUNT]]\n"
	"       slotscope [OPTIONS] -- COMMAND [ARGS...]\n"
	"\n"
	"EXAMPLES:\n"
	"    slotscope                   # a table every second until Ctrl-C, then a summary\n"
	"    slotscope 5 12              # every 5 s, 12 times\n"
	"    slotscope -m /mnt/ckpt 1    # only the transports of /mnt/ckpt\n"
	"    slotscope -d 60 --json      # JSON lines for a minute, then a summary line\n"
	"    slotscope -- ./checkpoint   # trace while the job runs; exit with its status\n"
	"\n"
	"Exit status: 0 ok (or COMMAND's status), 1 runtime error, 64 usage error,\n"
	"77 missing privilege or kernel feature.";
static const char args_doc[] = "[INTERVAL [COUNT]]";

enum { OPT_PROCFS = 1000, OPT_SYSFS, OPT_NO_RDMA, OPT_CKPT_MBPS, OPT_CKPT_QUIET, OPT_PROM,
       OPT_FOLDED, OPT_SVG, OPT_USER, OPT_MAX_INFLIGHT };

static const struct argp_option options[] = {
	{ "duration", 'd', "SECONDS", 0, "Trace for SECONDS, then print the summary", 0 },
	{ "mount", 'm', "PATH", 0, "Only transports serving this NFS mount (repeatable)", 0 },
	{ "json", 'j', NULL, 0, "JSON lines: audit, intervals, checkpoints, summary (see README)", 0 },
	{ "quiet", 'q', NULL, 0, "Only errors on stderr; no tables", 0 },
	{ "verbose", 'v', NULL, 0, "Say how each hook attached; libbpf's messages too", 0 },
	{ "no-rdma", OPT_NO_RDMA, NULL, 0, "Do not read RDMA ports or netdev counters", 0 },
	{ "ckpt-threshold", OPT_CKPT_MBPS, "MB/s", 0,
	  "Write rate that starts a checkpoint window (default 10)", 0 },
	{ "ckpt-quiet", OPT_CKPT_QUIET, "N", 0,
	  "Intervals below the threshold that end one (default 2)", 0 },
	{ "prom-file", OPT_PROM, "PATH", 0,
	  "Prometheus textfile, rewritten atomically every interval (node_exporter textfile collector)", 0 },
	{ "folded", OPT_FOLDED, "PATH", 0, "At exit, folded stacks of where RPC time went", 0 },
	{ "svg", OPT_SVG, "PATH", 0, "At exit, an SVG flame (icicle) chart and a slot-wait heat map", 0 },
	{ "max-inflight", OPT_MAX_INFLIGHT, "N", 0,
	  "Slots and waits tracked at once (default 65536; the BPF maps' size)", 0 },
	{ "user", OPT_USER, "NAME", 0, "After attaching, run as user NAME (capabilities are dropped anyway)", 0 },
	{ "procfs-root", OPT_PROCFS, "DIR", 0, "Read proc files under DIR (tests)", 0 },
	{ "sysfs-root", OPT_SYSFS, "DIR", 0, "Read sysfs files under DIR (tests)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};

/* strtod with an end pointer and a range: "1.5" yes, "1.5s", "", "nan", "-1" no */
static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

/* argp_error() adds a "Try --help" line: bad input gets one line */
static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("slotscope: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(EXIT_USAGE);
}
#define argp_error(state, ...) ((void)(state), usage_error(__VA_ARGS__))

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	double v;

	switch (key) {
	case 'd':
		if (parse_num(arg, 0.001, 1e7, &v))
			argp_error(state, "invalid --duration '%s': give seconds, e.g. -d 60", arg);
		env.duration = v;
		break;
	case 'm':
		if (env.nmounts == MAX_MOUNT_FILTERS)
			argp_error(state, "too many --mount options: at most %d", MAX_MOUNT_FILTERS);
		env.mounts[env.nmounts++] = arg;
		break;
	case 'j':
		env.json = true;
		break;
	case 'q':
		log_level = LOG_ERR;
		break;
	case 'v':
		log_level = LOG_DEBUG;
		break;
	case OPT_NO_RDMA:
		env.no_rdma = true;
		break;
	case OPT_CKPT_MBPS:
		if (parse_num(arg, 0.001, 1e9, &v))
			argp_error(state, "invalid --ckpt-threshold '%s': give MB/s, e.g. 100", arg);
		env.ckpt.threshold_Bps = v * 1e6;
		break;
	case OPT_CKPT_QUIET:
		if (parse_num(arg, 1, 1000, &v) || v != (unsigned int)v)
			argp_error(state, "invalid --ckpt-quiet '%s': give a whole number of intervals >= 1", arg);
		env.ckpt.quiet_intervals = (unsigned int)v;
		break;
	case OPT_PROM:
		env.prom_file = arg;
		break;
	case OPT_FOLDED:
		env.folded_file = arg;
		break;
	case OPT_SVG:
		env.svg_file = arg;
		break;
	case OPT_MAX_INFLIGHT:
		if (parse_num(arg, 1, 1 << 22, &v) || v != (unsigned int)v)
			argp_error(state, "invalid --max-inflight '%s': give a whole number from 1 to 4194304", arg);
		env.max_inflight = (unsigned int)v;
		break;
	case OPT_USER:
		if (!getpwnam(arg))
			argp_error(state, "--user %s: no such user: give an existing user name", arg);
		env.user = arg;
		break;
	case OPT_PROCFS:
		env.procfs_root = arg;
		break;
	case OPT_SYSFS:
		env.sysfs_root = arg;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			if (parse_num(arg, 0.01, 86400, &v))
				argp_error(state, "invalid INTERVAL '%s': give seconds, e.g. 1 or 0.5", arg);
			env.interval = v;
			env.have_interval = true;
		} else if (state->arg_num == 1) {
			if (parse_num(arg, 1, 1e9, &v) || v != (long)v)
				argp_error(state, "invalid COUNT '%s': give a whole number >= 1", arg);
			env.count = (long)v;
		} else {
			argp_error(state, "unexpected argument '%s' (a command goes after --)", arg);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* ---- state of one trace */

static struct tunables tun;
static double startup_cpu_s;
static struct verbs_rate *rates;
static size_t nrates;
/* --mount: the server addresses (and protocols) whose transports are shown */
static size_t nfilters;
static struct { char addr[64], proto[8]; } filters[MAX_MOUNT_FILTERS];

static bool shown(const struct xprt_view *x)
{
	if (!nfilters)
		return true;
	for (size_t i = 0; i < nfilters; i++)
		if (!strcmp(filters[i].addr, x->addr) && !strcmp(filters[i].proto, proto_name(x->ident)))
			return true;
	return false;
}

/* drop the transports --mount did not ask for, and their ops */
static void filter_view(struct view *v)
{
	size_t n = 0, m = 0;

	for (size_t i = 0; i < v->nxprts; i++)
		if (shown(&v->xprts[i]))
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

/*
 * A mount may come or go at any time: the table is read once per tick, and every view of that
 * tick (interval, cumulative, checkpoint) points into it, so views are freed before the next read.
 */
static struct mount_table mounts_now;

static void refresh_mounts(void)
{
	mounts_free(&mounts_now);
	if (mounts_load(env.procfs_root, &mounts_now))
		pr_debug("cannot read mountinfo: mount points left out\n");
}

/* A window (checkpoint) view is finished by its caller, after ckpt_fix_view(). */
static int build(struct view *v, const struct snapshot *a, const struct snapshot *b,
		 const struct link_sample *la, const struct link_sample *lb, bool final, bool window)
{
	int err;

	err = view_build(v, a, b, &mounts_now, final);
	if (!err && !env.no_rdma && la && lb)
		err = view_add_links(v, la, lb, env.procfs_root);
	if (err) {
		view_free(v);
		return err;
	}
	v->tun = tun;
	v->wall = clock_s(CLOCK_REALTIME);
	v->startup_cpu_s = startup_cpu_s;
	filter_view(v);
	v->window = window;
	if (!window)
		view_finish(v);
	return 0;
}

static void links_init(void)
{
	const char *why = "";

	if (env.no_rdma)
		return;
	/* libibverbs knows the real rate (and XDR); a fixture tree has no verbs to ask */
	if (!strcmp(env.sysfs_root, "/") && verbs_rates(&rates, &nrates, &why))
		pr_info("link rates from sysfs only: %s\n", why);
}

static int links_take(struct link_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (env.no_rdma)
		return 0;
	return link_sample(env.sysfs_root, rates, nrates, s);
}

/* mountinfo, read for the filters and the audit: a failure is said here, once */
static int load_mounts(struct mount_table *mt)
{
	int err = mounts_load(env.procfs_root, mt);

	if (err)
		pr_err("cannot read %s/proc/self/mountinfo: %s: is /proc mounted?\n",
		       strcmp(env.procfs_root, "/") ? env.procfs_root : "", strerror(-err));
	return err;
}

/* --mount paths become filters before anything is loaded: a typo costs no BPF load */
static int check_filters(void)
{
	struct mount_table mt = { 0 };

	if (!env.nmounts)
		return EXIT_OK;
	if (load_mounts(&mt))
		return EXIT_RUNTIME;
	for (size_t i = 0; i < env.nmounts; i++) {
		const struct nfs_mount *m = mounts_by_path(&mt, env.mounts[i]);
		char fstype[32];

		if (!m) {
			if (mounts_fstype(env.procfs_root, env.mounts[i], fstype, sizeof(fstype)) == 0)
				pr_err("--mount %s: not an NFS mount (it is %s): give an NFS mount point\n",
				       env.mounts[i], fstype);
			else
				pr_err("--mount %s: not a mount point: give an NFS mount point (see mount -t nfs,nfs4)\n",
				       env.mounts[i]);
			mounts_free(&mt);
			return EXIT_USAGE;
		}
		if (!mount_option(m->opts, "addr", filters[nfilters].addr, sizeof(filters[0].addr)) ||
		    !mount_option(m->opts, "proto", filters[nfilters].proto, sizeof(filters[0].proto))) {
			pr_err("--mount %s: its options name no addr= or proto=\n", env.mounts[i]);
			mounts_free(&mt);
			return EXIT_USAGE;
		}
		nfilters++;
	}
	mounts_free(&mt);
	return EXIT_OK;
}

/* Print the limits audit and note the knobs for the verdicts; no NFS at all ends here. */
static int print_audit(void)
{
	struct mount_table mt = { 0 };
	struct audit a;
	int err;

	if (load_mounts(&mt))
		return EXIT_RUNTIME;
	if (!mt.n && !env.command) {
		pr_err("no NFS mounts: mount one first, or give the command that does after --\n");
		mounts_free(&mt);
		return EXIT_NOPERM;
	}
	err = audit_load(&a, env.sysfs_root, env.procfs_root, &mt);
	if (err) {
		pr_err("limits audit: %s\n", strerror(-err));
		mounts_free(&mt);
		return EXIT_RUNTIME;
	}
	tun.tcp_max_slots = a.tcp_max_slots;
	tun.rdma_slots = a.rdma_slots;
	tun.max_session_slots = a.max_session_slots;
	if (env.json)
		out_audit_json(stdout, &a);
	else if (log_level > LOG_QUIET && log_level >= LOG_WARN)
		audit_print(stdout, &a);
	audit_free(&a);
	mounts_free(&mt);
	return EXIT_OK;
}

static pid_t start_command(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "slotscope: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int open_engine(struct engine **e)
{
	const char *attach = getenv("SLOTSCOPE_ATTACH");
	struct engine_opts eo = { .procfs_root = env.procfs_root, .sysfs_root = env.sysfs_root,
				  .max_inflight = env.max_inflight,
				  .force_fallback = attach && !strcmp(attach, "fallback") };
	const char *why = "";
	int err;

	if (geteuid() != 0) {
		pr_err("needs root (CAP_BPF, CAP_PERFMON): run it with sudo\n");
		return EXIT_NOPERM;
	}
	err = engine_open(e, &eo, &why);
	if (err == -ENOENT && !strcmp(why, "sunrpc")) {
		pr_err("sunrpc is not loaded, so there is no NFS client to trace: mount an NFS share "
		       "(or modprobe sunrpc) and run again\n");
		return EXIT_NOPERM;
	}
	if (err) {
		pr_err("%s\n", why);
		return EXIT_NOPERM;
	}
	err = engine_attach(*e, &why);
	if (err) {
		pr_err("%s\n", why);
		engine_close(*e);
		return EXIT_NOPERM;
	}
	if (log_level >= LOG_INFO) {
		const struct hook_status *h;
		size_t n = engine_hooks(*e, &h);

		for (size_t i = 0; i < n; i++)
			pr_info("hook %-20s %s\n", h[i].name, hook_method_name(h[i].method));
	}
	return EXIT_OK;
}

/* the Prometheus file: a failure is said once (until it changes), tracing goes on */
static void write_prom(const struct view *cum, const struct view *iv)
{
	static int last_err;
	int err;

	if (!env.prom_file)
		return;
	err = prom_write(env.prom_file, cum, iv, clock_s(CLOCK_REALTIME));
	if (err && err != last_err)
		pr_err("cannot write %s: %s: the last complete file stays; tracing goes on\n",
		       env.prom_file, strerror(-err));
	else if (!err && last_err)
		pr_warn("%s written again\n", env.prom_file);
	last_err = err;
}

/* one column of the heat map: the slot waits of the shown transports in an interval */
static struct heat_column *heat;
static size_t nheat, capheat;

static void add_heat(const struct view *v)
{
	struct heat_column *c;

	if (!env.svg_file)
		return;
	if (nheat == capheat) {
		struct heat_column *n = realloc(heat, (capheat = capheat ? capheat * 2 : 64) * sizeof(*n));

		if (!n)
			return;
		heat = n;
	}
	c = &heat[nheat++];
	memset(c, 0, sizeof(*c));
	c->wall = v->wall;
	for (size_t i = 0; i < v->nxprts; i++)
		for (int b = 0; b < LAT_BUCKETS; b++)
			c->buckets[b] += v->xprts[i].waits[WAIT_SLOT].buckets[b];
}

static int write_file(const char *path, const struct view *v, bool svg)
{
	/* never through a symlink: we may be root, the directory may not be ours */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int err = 0;

	if (!f) {
		if (fd >= 0)
			close(fd);
		pr_err("cannot write %s: %s: check the directory exists and is writable\n", path,
		       strerror(errno));
		return -errno;
	}
	if (svg)
		out_svg(f, v, heat, nheat);
	else
		out_folded(f, v);
	if (ferror(f) || fclose(f)) {
		err = -(errno ? errno : EIO);
		pr_err("cannot write %s: %s\n", path, strerror(-err));
	}
	return err;
}

/*
 * Once attached, nothing needs a capability: map fds stay usable, /proc and /sys are readable
 * by anyone, links are detached by closing fds. Drop them all (and the user, if asked), so a
 * bug in the parsers or renderers runs unprivileged.
 */
static int drop_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	if (env.user) {
		const struct passwd *pw = getpwnam(env.user);

		if (!pw || setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
			pr_err("cannot switch to user %s: %s\n", env.user, strerror(errno));
			return -EPERM;
		}
	}
	if (syscall(SYS_capset, &h, d)) {
		pr_err("cannot drop capabilities: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

static void report_ckpt(struct ckpt *c)
{
	struct view v;

	if (build(&v, &c->start, &c->last, &c->lstart, &c->llast, false, true))
		return;
	ckpt_fix_view(c, &v);
	view_finish(&v);
	if (env.json)
		out_ckpt_json(stdout, &v, c);
	else if (log_level > LOG_QUIET)
		out_ckpt_text(stdout, &v, c);
	view_free(&v);
}

static int trace(struct engine *e, int *rc)
{
	struct snapshot start = { 0 }, prev = { 0 }, cur = { 0 };
	struct link_sample lstart = { 0 }, lprev = { 0 }, lcur = { 0 };
	/* checkpoints need intervals even when none are printed */
	double tick = env.interval > 0 ? env.interval : 1, t0, next;
	bool print = env.interval > 0;
	long intervals = 0;
	size_t reaped;
	struct ckpt ck;
	struct view v;
	pid_t child = -1;
	int err, status = 0;

	ckpt_init(&ck, &env.ckpt);
	links_init();
	err = engine_snapshot(e, &start);
	if (!err)
		err = links_take(&lstart);
	/* the start snapshot is empty: everything counted comes after it */
	engine_arm(e);
	startup_cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (!err)
		err = snapshot_dup(&prev, &start);
	if (!err)
		err = link_sample_dup(&lprev, &lstart);
	if (err) {
		pr_err("cannot read the BPF maps: %s\n", strerror(-err));
		goto out;
	}
	if (!env.no_rdma && !lstart.n)
		pr_warn("%s: RDMA columns stay empty; TCP transports get their netdev\n", lstart.why_empty);
	if (env.command && stop_signal) {
		/* stopped while loading: the job never ran, and says so as a shell would */
		*rc = 128 + stop_signal;
	} else if (env.command) {
		/* the command is the user's job: it keeps root, capabilities come back at exec */
		signal(SIGCHLD, on_child);
		child = start_command(env.command);
		if (child < 0) {
			pr_err("cannot start %s: %s\n", env.command[0], strerror(errno));
			err = -errno;
			goto out;
		}
	}
	err = drop_privileges();
	if (err)
		goto out;
	t0 = clock_s(CLOCK_MONOTONIC);
	next = t0 + tick;
	for (;;) {
		double end = env.duration > 0 ? t0 + env.duration : 1e18;

		wait_until(next < end ? next : end);
		if (stop_signal || child_exited || clock_s(CLOCK_MONOTONIC) >= end)
			break;
		err = engine_snapshot(e, &cur);
		if (!err)
			err = links_take(&lcur);
		if (err) {
			pr_err("cannot read the BPF maps or links: %s\n", strerror(-err));
			break;
		}
		refresh_mounts();
		if (build(&v, &prev, &cur, &lprev, &lcur, false, false) == 0) {
			struct view cv;

			if (print && env.json)
				out_json(stdout, &v);
			else if (print && log_level > LOG_QUIET)
				out_text(stdout, &v);
			add_heat(&v);
			if (env.prom_file && build(&cv, &start, &cur, &lstart, &lcur, true, false) == 0) {
				write_prom(&cv, &v);
				view_free(&cv);
			}
			if (ckpt_step(&ck, &v, &prev, &cur, &lprev, &lcur, v.wall) == CKPT_ENDED)
				report_ckpt(&ck);
			view_free(&v);
		}
		/* transports seen destroyed were just reported, in this interval and the textfile */
		if (engine_reap(e, &cur, &reaped))
			pr_debug("cannot reap destroyed transports: out of memory\n");
		snapshot_free(&prev);
		prev = cur;
		link_sample_free(&lprev);
		lprev = lcur;
		memset(&cur, 0, sizeof(cur));
		memset(&lcur, 0, sizeof(lcur));
		next += tick;
		if (env.count && ++intervals >= env.count)
			break;
	}
	if (child > 0) {
		/* the job decides how long we trace; a signal to us is passed on */
		if (stop_signal && !child_exited)
			kill(child, stop_signal);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status))
			*rc = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			*rc = 128 + WTERMSIG(status);
	}
	/* the summary always: whatever ended the trace */
	err = engine_snapshot(e, &cur);
	if (!err)
		err = links_take(&lcur);
	if (err) {
		pr_err("cannot read the BPF maps for the summary: %s\n", strerror(-err));
		goto out;
	}
	refresh_mounts();
	if (ckpt_finish(&ck)) {
		/* the open burst ends with the trace */
		struct snapshot tmp = ck.last;
		struct link_sample ltmp = ck.llast;

		if (!snapshot_dup(&ck.last, &cur) && !link_sample_dup(&ck.llast, &lcur)) {
			snapshot_free(&tmp);
			link_sample_free(&ltmp);
		} else {
			ck.last = tmp;
			ck.llast = ltmp;
		}
		ck.end_wall = clock_s(CLOCK_REALTIME);
		report_ckpt(&ck);
	}
	if (build(&v, &start, &cur, &lstart, &lcur, true, false) == 0) {
		if (v.counters[CNT_RECURSION_MISSES]) {
			char who[512];

			engine_misses(e, who, sizeof(who));
			pr_warn("the kernel skipped %llu runs of slotscope's programs, each fired while it "
				"ran on that CPU (%s): counts may be short by as many events\n",
				(unsigned long long)v.counters[CNT_RECURSION_MISSES], who);
		}
		if (env.json)
			out_json(stdout, &v);
		else if (log_level > LOG_QUIET)
			out_text(stdout, &v);
		write_prom(&v, &v);
		if (env.folded_file && write_file(env.folded_file, &v, false))
			err = -EIO;
		if (env.svg_file && write_file(env.svg_file, &v, true))
			err = -EIO;
		view_free(&v);
	}
out:
	ckpt_free(&ck);
	snapshot_free(&start);
	snapshot_free(&prev);
	snapshot_free(&cur);
	link_sample_free(&lstart);
	link_sample_free(&lprev);
	link_sample_free(&lcur);
	free(rates);
	free(heat);
	mounts_free(&mounts_now);
	return err;
}

/* an output file's directory must exist before a long trace, not at its end */
static int check_outputs(void)
{
	const char *paths[] = { env.prom_file, env.folded_file, env.svg_file };

	for (size_t i = 0; i < 3; i++) {
		char dir[4096];
		const char *slash;

		if (!paths[i])
			continue;
		slash = strrchr(paths[i], '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - paths[i]) + 1 : 1,
			 slash ? paths[i] : ".");
		if (access(dir, W_OK)) {
			fprintf(stderr, "slotscope: cannot write into %s (for %s): %s: create it or pick "
				"another path\n", dir, paths[i], strerror(errno));
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, args_doc, doc, NULL, NULL, NULL };
	struct engine *e = NULL;
	int dashdash = argc, rc;

	/* everything after "--" is the command; argp must not see it */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	if (dashdash < argc) {
		if (dashdash + 1 >= argc) {
			fprintf(stderr, "slotscope: nothing after '--': give a command to run\n");
			return EXIT_USAGE;
		}
		env.command = &argv[dashdash + 1];
	}
	/* argp_error() exits with argp_err_exit_status, EX_USAGE (64) */
	if (argp_parse(&argp, dashdash, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	if (!env.have_interval && !env.command)
		env.interval = 1;
	rc = check_outputs();
	if (!rc)
		rc = check_filters();
	if (rc)
		return rc;
	libbpf_set_print(log_libbpf);
	/*
	 * Before the load: under emulation it takes seconds, and a signal then must still end in a
	 * summary and exit 0, not kill us. The verifier returns -EAGAIN on a pending signal and
	 * libbpf retries the load, so catching one here costs nothing.
	 */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	rc = open_engine(&e);
	if (rc)
		return rc;
	rc = print_audit();
	if (rc) {
		engine_close(e);
		return rc;
	}
	if (trace(e, &rc) && !rc)
		rc = EXIT_RUNTIME;
	/* detaches every program */
	engine_close(e);
	return rc;
}
