// SPDX-License-Identifier: GPL-2.0
/* slotscope: RPC slot tables, their waits and latency, per NFS transport and mount. */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "engine.h"
#include "log.h"
#include "mounts.h"
#include "output.h"
#include "rdma.h"
#include "verbs.h"
#include "view.h"

enum exit_code { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 64, EXIT_NOPERM = 77 };

static struct env {
	double interval;	/* seconds; 0 = only the summary */
	long count;		/* intervals; 0 = unlimited */
	double duration;	/* seconds; 0 = unlimited */
	bool json;
	bool have_interval;
	bool no_rdma;
	const char *procfs_root;
	const char *sysfs_root;
	char **command;
} env = {
	.procfs_root = "/",
	.sysfs_root = "/",
};

const char *argp_program_version = "slotscope " SLOTSCOPE_VERSION;
static const char doc[] =
	"slotscope: how full each NFS RPC transport's slot table is, how long RPCs wait for a slot,\n"
	"and where their time goes, per transport and per mount.\n"
	"\n"
	"USAGE: slotscope [OPTIONS] [INTERVAL [COUNT]]\n"
	"       slotscope [OPTIONS] -- COMMAND [ARGS...]\n"
	"\n"
	"EXAMPLES:\n"
	"    slotscope                  # a table every second until Ctrl-C, then a summary\n"
	"    slotscope 5 12             # every 5 s, 12 times\n"
	"    slotscope -d 60 --json     # JSON lines for a minute, then a summary line\n"
	"    slotscope -- ./checkpoint  # trace while the job runs; exit with its status\n"
	"\n"
	"Exit status: 0 ok (or COMMAND's status), 1 runtime error, 64 usage error,\n"
	"77 missing privilege or kernel feature.";
static const char args_doc[] = "[INTERVAL [COUNT]]";

enum { OPT_PROCFS = 1000, OPT_SYSFS, OPT_NO_RDMA };

static const struct argp_option options[] = {
	{ "duration", 'd', "SECONDS", 0, "Trace for SECONDS, then print the summary", 0 },
	{ "json", 'j', NULL, 0, "JSON lines: one per interval, then a summary (see README)", 0 },
	{ "quiet", 'q', NULL, 0, "Only errors on stderr", 0 },
	{ "verbose", 'v', NULL, 0, "Say how each hook attached; libbpf's messages too", 0 },
	{ "no-rdma", OPT_NO_RDMA, NULL, 0, "Do not read RDMA ports or netdev counters", 0 },
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

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	double v;

	switch (key) {
	case 'd':
		if (parse_num(arg, 0.001, 1e7, &v))
			argp_error(state, "invalid --duration '%s': give seconds, e.g. -d 60", arg);
		env.duration = v;
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

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep until @deadline, waking early for a signal or the command's exit. */
static void wait_until(double deadline)
{
	while (!stop_signal && !child_exited) {
		double left = deadline - mono_s();
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

static void render(const struct view *v)
{
	if (env.json)
		out_json(stdout, v);
	else if (log_level > LOG_QUIET)
		out_text(stdout, v);
}

static int report(const struct snapshot *prev, const struct snapshot *cur,
		  const struct link_sample *la, const struct link_sample *lb, bool final)
{
	struct mount_table mt = { 0 };
	struct view v;
	int err;

	/* a mount may come or go at any time: read the table each time */
	if (mounts_load(env.procfs_root, &mt))
		pr_debug("cannot read mountinfo: mount points left out\n");
	err = view_build(&v, prev, cur, &mt, final);
	if (!err && la && lb)
		err = view_add_links(&v, la, lb, env.procfs_root);
	if (!err)
		render(&v);
	view_free(&v);
	mounts_free(&mt);
	return err;
}

/* RDMA ports and netdevs, sampled on the same clock as the maps; NULL-safe when disabled */
static struct verbs_rate *rates;
static size_t nrates;

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
	if (env.no_rdma)
		return 0;
	return link_sample(env.sysfs_root, rates, nrates, s);
}

static pid_t start_command(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "slotscope: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int open_engine(struct engine **e)
{
	struct engine_opts eo = { .procfs_root = env.procfs_root, .sysfs_root = env.sysfs_root };
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
	if (err == -ENOENT) {
		pr_err("this kernel has no %s hook: slotscope needs a kernel with sunrpc tracepoints "
		       "(5.9+) and BTF\n", why);
		return EXIT_NOPERM;
	}
	if (err) {
		pr_err("cannot %s: %s: run with -v for the details (BTF and CAP_BPF are required)\n",
		       why, strerror(-err));
		return EXIT_NOPERM;
	}
	err = engine_attach(*e, &why);
	if (err) {
		pr_err("cannot %s: %s: run with -v for the details\n", why, strerror(-err));
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

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, args_doc, doc, NULL, NULL, NULL };
	struct snapshot start = { 0 }, prev = { 0 }, cur;
	struct link_sample lstart = { 0 }, lprev = { 0 }, lcur = { 0 };
	int dashdash = argc, rc, status = 0, err;
	struct engine *e = NULL;
	double t0, next;
	long intervals = 0;
	pid_t child = -1;

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
	if (argp_parse(&argp, dashdash, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	if (!env.have_interval && !env.command)
		env.interval = 1;
	libbpf_set_print(log_libbpf);

	rc = open_engine(&e);
	if (rc)
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	links_init();
	err = engine_snapshot(e, &start);
	if (!err)
		err = links_take(&lstart);
	if (err) {
		pr_err("cannot read the BPF maps: %s\n", strerror(-err));
		engine_close(e);
		return EXIT_RUNTIME;
	}
	/* the start snapshot is empty: everything counted comes after it */
	engine_arm(e);
	err = snapshot_dup(&prev, &start);
	if (!err)
		err = links_take(&lprev);
	if (!err && !env.no_rdma && !lstart.n)
		pr_warn("%s: RDMA columns stay empty; TCP transports get their netdev\n", lstart.why_empty);
	if (err) {
		pr_err("out of memory\n");
		snapshot_free(&start);
		engine_close(e);
		return EXIT_RUNTIME;
	}
	if (env.command) {
		signal(SIGCHLD, on_child);
		child = start_command(env.command);
		if (child < 0) {
			pr_err("cannot start %s: %s\n", env.command[0], strerror(errno));
			engine_close(e);
			return EXIT_RUNTIME;
		}
	}
	t0 = mono_s();
	next = t0 + (env.interval > 0 ? env.interval : 1e9);
	for (;;) {
		double end = env.duration > 0 ? t0 + env.duration : 1e18;

		wait_until(next < end ? next : end);
		if (stop_signal || child_exited || mono_s() >= end)
			break;
		if (env.interval <= 0)
			continue;
		err = engine_snapshot(e, &cur);
		if (!err)
			err = links_take(&lcur);
		if (err) {
			pr_err("cannot read the BPF maps or links: %s\n", strerror(-err));
			rc = EXIT_RUNTIME;
			break;
		}
		err = report(&prev, &cur, env.no_rdma ? NULL : &lprev, env.no_rdma ? NULL : &lcur, false);
		if (err)
			pr_warn("interval report failed: %s\n", strerror(-err));
		snapshot_free(&prev);
		prev = cur;
		link_sample_free(&lprev);
		lprev = lcur;
		if (prev.nxprts > MAX_XPRTS * 3 / 4)
			engine_reap(e, &prev);
		next += env.interval;
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
			rc = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			rc = 128 + WTERMSIG(status);
	}
	err = engine_snapshot(e, &cur);
	if (!err)
		err = links_take(&lcur);
	if (!err) {
		report(&start, &cur, env.no_rdma ? NULL : &lstart, env.no_rdma ? NULL : &lcur, true);
		snapshot_free(&cur);
		link_sample_free(&lcur);
	} else {
		pr_err("cannot read the BPF maps for the summary: %s\n", strerror(-err));
		if (!rc)
			rc = EXIT_RUNTIME;
	}
	snapshot_free(&prev);
	snapshot_free(&start);
	link_sample_free(&lprev);
	link_sample_free(&lstart);
	free(rates);
	engine_close(e);
	return rc;
}
