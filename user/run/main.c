// SPDX-License-Identifier: GPL-2.0
/* slotscope: RPC slot tables, their waits and latency, per NFS transport and mount. */
#include <argp.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <pwd.h>
#include "lib/buildinfo.h"
#include "lib/log.h"
#include "run/health.h"
#include "run/run.h"

static struct run_opts env = {
	.procfs_root = "/",
	.sysfs_root = "/",
	.win = { .threshold_Bps = 10e6, .restore_threshold_Bps = 10e6, .quiet_intervals = 2, .max_s = 3600 },
	.prom_max_series = PROM_MAX_SERIES_DEFAULT,
};
static bool have_interval;

static void print_version(FILE *f, struct argp_state *state)
{
	(void)state;
	build_print(f);
}
void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;
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

enum { OPT_PROCFS = 1000, OPT_SYSFS, OPT_NO_RDMA, OPT_CKPT_MBPS, OPT_CKPT_QUIET, OPT_WINDOW_MAX, OPT_PROM,
       OPT_FOLDED, OPT_SVG, OPT_USER, OPT_MAX_INFLIGHT, OPT_PROM_DETAIL, OPT_PROM_USER, OPT_PROM_KEEP,
       OPT_MOUNTS_OF, OPT_RESTORE_MBPS, OPT_NO_JOBS, OPT_RUN_UNTRACED, OPT_PROM_ROLLUP,
       OPT_PROM_INCLUDE, OPT_PROM_EXCLUDE, OPT_BTF, OPT_MAKE_BTF, OPT_LISTEN, OPT_PROM_PER_XPRT,
       OPT_PROM_MAX_SERIES, OPT_SILENT_AFTER, OPT_CHECK, OPT_CHECK_EXIT, OPT_CHECK_MAX_AGE, OPT_WEB_CONFIG };

static bool make_btf, per_transport, check;
static struct health_opts hopts;

static const struct argp_option options[] = {
	{ "duration", 'd', "SECONDS", 0, "Trace for SECONDS, then print the summary", 0 },
	{ "mount", 'm', "PATH", 0, "Only transports serving this NFS mount (repeatable)", 0 },
	{ "json", 'j', NULL, 0, "JSON lines: audit, intervals, checkpoints, summary (see docs/json.md)", 0 },
	{ "quiet", 'q', NULL, 0, "Only errors on stderr; no tables", 0 },
	{ "verbose", 'v', NULL, 0, "Say how each hook attached; libbpf's messages too", 0 },
	{ "no-rdma", OPT_NO_RDMA, NULL, 0, "Do not read RDMA ports or netdev counters", 0 },
	{ "run-untraced", OPT_RUN_UNTRACED, NULL, 0,
	  "With -- COMMAND on a node with no NFS client (sunrpc) loaded: run it untraced, said in one "
	  "line, instead of exiting 77", 0 },
	{ "ckpt-threshold", OPT_CKPT_MBPS, "MB/s", 0,
	  "Write rate that starts a checkpoint window (default 10)", 0 },
	{ "restore-threshold", OPT_RESTORE_MBPS, "MB/s", 0,
	  "Read rate that starts a restore window (default 10)", 0 },
	{ "ckpt-quiet", OPT_CKPT_QUIET, "N", 0,
	  "Intervals below the threshold that end a window (default 2)", 0 },
	{ "window-max", OPT_WINDOW_MAX, "SECS", 0,
	  "Longest window: one still busy then ends (cut) and the next goes on from it (default 3600; "
	  "0: none)", 0 },
	{ "no-jobs", OPT_NO_JOBS, NULL, 0,
	  "Do not name the jobs behind a window", 0 },
	{ "prom-file", OPT_PROM, "PATH", 0,
	  "Prometheus textfile, rewritten atomically every interval (node_exporter textfile "
	  "collector); removed at exit. Without -- COMMAND, waits for NFS to appear", 0 },
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve the textfile's metrics at http://ADDR:PORT/metrics, and /healthz, for Prometheus "
	  "to scrape (':9868': every address); with or without --prom-file. Without -- COMMAND, "
	  "waits for NFS to appear", 0 },
	{ "web-config", OPT_WEB_CONFIG, "FILE", 0,
	  "With --listen: TLS and basic auth from FILE, in the web-config format of Prometheus's "
	  "exporters (tls_server_config, basic_auth_users)", 0 },
	{ "prom-detail", OPT_PROM_DETAIL, NULL, 0,
	  "Textfile with every op, stage and wait kind as histograms, and RDMA hw counters", 0 },
	{ "prom-user", OPT_PROM_USER, NULL, 0,
	  "Textfile and /metrics: the jobs' uids and user names in slotscope_last_window_job_info's "
	  "labels (left empty unless asked: whoever scrapes reads them)", 0 },
	{ "prom-keep", OPT_PROM_KEEP, NULL, 0, "Leave the textfile (the summary's) at exit", 0 },
	{ "prom-rollup", OPT_PROM_ROLLUP, NULL, 0,
	  "Textfile per mount instead of per transport: a mount's transports summed (labels "
	  "mountpoint, server)", 0 },
	{ "prom-per-transport", OPT_PROM_PER_XPRT, NULL, 0,
	  "With --listen: a transport's series (labels server, proto, xprt) rather than a mount's, "
	  "--listen's default", 0 },
	{ "prom-max-series", OPT_PROM_MAX_SERIES, "N", 0,
	  "Textfile and /metrics: at most N series; past it, the mounts seen last are left out "
	  "(default 5000; 0: no cap)", 0 },
	{ "prom-mount-include", OPT_PROM_INCLUDE, "GLOB", 0,
	  "Textfile: only mounts whose mount point matches GLOB (fnmatch; repeatable)", 0 },
	{ "prom-mount-exclude", OPT_PROM_EXCLUDE, "GLOB", 0,
	  "Textfile: leave out mounts whose mount point matches GLOB, e.g. '/home/*' (repeatable; "
	  "wins over an include)", 0 },
	{ "folded", OPT_FOLDED, "PATH", 0, "At exit, folded stacks of where RPC time went", 0 },
	{ "svg", OPT_SVG, "PATH", 0, "At exit, an SVG flame (icicle) chart and a slot-wait heat map", 0 },
	{ "max-inflight", OPT_MAX_INFLIGHT, "N", 0,
	  "Slots and waits tracked at once (default 65536; the BPF maps' size)", 0 },
	{ "user", OPT_USER, "NAME", 0, "After attaching, run as user NAME (capabilities are dropped anyway)", 0 },
	{ "procfs-root", OPT_PROCFS, "DIR", 0,
	  "Read proc files under DIR (tests; the host's /proc mounted in a container)", 0 },
	{ "mounts-of", OPT_MOUNTS_OF, "PID", 0,
	  "Read the mount table of PID instead of our own (1: the host's, from a container)", 0 },
	{ "sysfs-root", OPT_SYSFS, "DIR", 0, "Read sysfs files under DIR (tests)", 0 },
	{ "silent-after", OPT_SILENT_AFTER, "SECONDS", 0,
	  "A server that answers nothing for SECONDS while requests await a reply, and whose oldest "
	  "request is that old, is not answering (default 5; at least 4 of its mean round trips)", 0 },
	{ "check", OPT_CHECK, NULL, 0,
	  "Health check for a scheduler (Slurm, NHC, node-problem-detector): one line and exit 0 OK, "
	  "1 WARNING, 2 CRITICAL (a server not answering), 3 UNKNOWN; from the service's textfile "
	  "(--prom-file, default " HEALTH_TEXTFILE ") when fresh, else measured over --silent-after", 0 },
	{ "check-exit", OPT_CHECK_EXIT, "CODES", 0,
	  "--check's exit codes: nagios (the default) or npd (node-problem-detector: 0 OK, 1 a "
	  "server not answering, 2 unknown)", 0 },
	{ "check-max-age", OPT_CHECK_MAX_AGE, "SECONDS", 0,
	  "--check: a textfile older than SECONDS is not the service's state (default 60)", 0 },
	{ "make-btf", OPT_MAKE_BTF, NULL, 0,
	  "As root: make and keep (/var/cache/slotscope/btf) the BTF of each loaded NFS module the "
	  "kernel publishes none for, from its DWARF, for runs without root; then exit", 0 },
	{ "btf", OPT_BTF, "MOD=FILE", 0,
	  "BTF of module MOD (sunrpc, nfs, nfsv4, rpcrdma) from FILE, for a module the kernel "
	  "publishes none for and whose DWARF is elsewhere (pahole --btf_encode_detached "
	  "--btf_base=/sys/kernel/btf/vmlinux); checked against sunrpc's sysfs as it runs", 0 },
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

static void add_glob(struct argp_state *state, bool include, const char *pattern)
{
	const char *opt = include ? "--prom-mount-include" : "--prom-mount-exclude";
	size_t *n = include ? &env.prom.ninclude : &env.prom.nexclude;
	char why[200];

	if (prom_mount_glob_check(pattern, why, sizeof(why)))
		argp_error(state, "invalid %s '%s': %s", opt, pattern, why);
	if (*n == MAX_MOUNT_GLOBS)
		argp_error(state, "too many %s options: at most %d (one pattern can match many: "
			   "'/home/*')", opt, MAX_MOUNT_GLOBS);
	(include ? env.prom.include : env.prom.exclude)[(*n)++] = pattern;
}

/* the textfile's options want a textfile; an include that an exclude cancels shows nothing */
static void check_prom_opts(void)
{
	const char *alone = env.prom.rollup ? "--prom-rollup" : env.prom.ninclude ? "--prom-mount-include" :
			    env.prom.nexclude ? "--prom-mount-exclude" : NULL;

	if (alone && !env.prom_file && !env.listen)
		usage_error("%s shapes the Prometheus metrics only: give --prom-file PATH or --listen "
			    "ADDR:PORT too", alone);
	if (per_transport && env.prom.rollup)
		usage_error("--prom-per-transport and --prom-rollup ask for opposite rows: drop one");
	if (env.web_config && !env.listen)
		usage_error("--web-config secures --listen's port: give --listen ADDR:PORT too");
	if (per_transport && !env.listen)
		usage_error("--prom-per-transport undoes --listen's per-mount default: give --listen "
			    "ADDR:PORT too (a textfile alone is per transport already)");
	/*
	 * a node served to a cluster's Prometheus is per mount unless asked: per transport costs
	 * 923 series at nconnect 16 against 60 a mount (docs/metrics.md, "Series budget")
	 */
	if (env.listen && !per_transport)
		env.prom.rollup = true;
	for (size_t i = 0; i < env.prom.ninclude; i++)
		for (size_t j = 0; j < env.prom.nexclude; j++)
			if (!strcmp(env.prom.include[i], env.prom.exclude[j]))
				usage_error("--prom-mount-include '%s' is also excluded, and exclude wins: "
					    "drop one of the two", env.prom.include[i]);
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
	case OPT_RUN_UNTRACED:
		env.run_untraced = true;
		break;
	case OPT_CKPT_MBPS:
		if (parse_num(arg, 0.001, 1e9, &v))
			argp_error(state, "invalid --ckpt-threshold '%s': give MB/s, e.g. 100", arg);
		env.win.threshold_Bps = v * 1e6;
		break;
	case OPT_RESTORE_MBPS:
		if (parse_num(arg, 0.001, 1e9, &v))
			argp_error(state, "invalid --restore-threshold '%s': give MB/s, e.g. 100", arg);
		env.win.restore_threshold_Bps = v * 1e6;
		break;
	case OPT_NO_JOBS:
		env.win.no_jobs = true;
		break;
	case OPT_CKPT_QUIET:
		if (parse_num(arg, 1, 1000, &v) || v != (unsigned int)v)
			argp_error(state, "invalid --ckpt-quiet '%s': give a whole number of intervals >= 1", arg);
		env.win.quiet_intervals = (unsigned int)v;
		break;
	case OPT_WINDOW_MAX:
		if (parse_num(arg, 0, 1e9, &v) || (v > 0 && v < 1))
			argp_error(state, "invalid --window-max '%s': give seconds, 1 or more (0: no bound)", arg);
		env.win.max_s = v;
		break;
	case OPT_PROM:
		env.prom_file = arg;
		break;
	case OPT_LISTEN:
		env.listen = arg;
		break;
	case OPT_WEB_CONFIG:
		env.web_config = arg;
		break;
	case OPT_PROM_DETAIL:
		env.prom_detail = true;
		break;
	case OPT_PROM_USER:
		env.prom_user = true;
		break;
	case OPT_PROM_KEEP:
		env.prom_keep = true;
		break;
	case OPT_PROM_PER_XPRT:
		per_transport = true;
		break;
	case OPT_PROM_ROLLUP:
		env.prom.rollup = true;
		break;
	case OPT_PROM_INCLUDE:
	case OPT_PROM_EXCLUDE:
		add_glob(state, key == OPT_PROM_INCLUDE, arg);
		break;
	case OPT_FOLDED:
		env.folded_file = arg;
		break;
	case OPT_SVG:
		env.svg_file = arg;
		break;
	case OPT_PROM_MAX_SERIES:
		if (parse_num(arg, 0, 10000000, &v) || v != (double)(size_t)v)
			argp_error(state, "invalid --prom-max-series '%s': give a whole number from 0 (no cap) "
				   "to 10000000", arg);
		env.prom_max_series = (size_t)v;
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
	case OPT_MOUNTS_OF:
		if (parse_num(arg, 1, 4194304, &v) || v != (long)v)
			argp_error(state, "invalid --mounts-of '%s': give a process id, e.g. 1", arg);
		env.mounts_of = arg;
		break;
	case OPT_PROCFS:
		env.procfs_root = arg;
		break;
	case OPT_SYSFS:
		env.sysfs_root = arg;
		break;
	case OPT_MAKE_BTF:
		make_btf = true;
		break;
	case OPT_SILENT_AFTER:
		if (parse_num(arg, 0.5, 3600, &v))
			argp_error(state, "invalid --silent-after '%s': give seconds from 0.5 to 3600, e.g. 5", arg);
		env.silent_after = v;
		break;
	case OPT_CHECK:
		check = true;
		break;
	case OPT_CHECK_EXIT:
		if (strcmp(arg, "nagios") && strcmp(arg, "npd"))
			argp_error(state, "invalid --check-exit '%s': say nagios or npd", arg);
		hopts.npd = !strcmp(arg, "npd");
		break;
	case OPT_CHECK_MAX_AGE:
		if (parse_num(arg, 1, 86400, &v))
			argp_error(state, "invalid --check-max-age '%s': give seconds, e.g. 60", arg);
		hopts.max_age_s = v;
		break;
	case OPT_BTF: {
		static const char *const mods[] = { "sunrpc", "nfs", "nfsv4", "rpcrdma" };
		const char *eq = strchr(arg, '=');
		size_t i;

		for (i = 0; eq && i < 4; i++)
			if ((size_t)(eq - arg) == strlen(mods[i]) && !strncmp(arg, mods[i], (size_t)(eq - arg)))
				break;
		if (!eq || i == 4 || !eq[1])
			argp_error(state, "invalid --btf '%s': give MOD=FILE, MOD one of sunrpc, nfs, nfsv4, "
				   "rpcrdma", arg);
		if (access(eq + 1, R_OK))
			argp_error(state, "--btf %s: %s: give a readable BTF file", arg, strerror(errno));
		env.btf_files[i] = eq + 1;
		break;
	}
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			if (parse_num(arg, 0.01, 86400, &v))
				argp_error(state, "invalid INTERVAL '%s': give seconds, e.g. 1 or 0.5", arg);
			env.interval = v;
			have_interval = true;
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

/* stdout's buffer: static, as it must outlive every write, the last at exit() */
static char stdout_block[1 << 18];

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, args_doc, doc, NULL, NULL, NULL };
	const char *attach = getenv("SLOTSCOPE_ATTACH"), *events = getenv("SLOTSCOPE_EVENTS");
	struct run *r;
	int dashdash = argc, rc;

	/*
	 * A --json tick at 64 transports is ~220 KB: stdio's default block (st_blksize, 4 KiB on
	 * tmpfs and pipes) made it ~20 write()s a tick. glibc's setvbuf() ignores the size unless it
	 * is given the buffer. The line is flushed whole at each tick either way; a terminal keeps
	 * its line buffering.
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, stdout_block, _IOFBF, sizeof(stdout_block));
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
	if (check) {
		if (env.command) {
			fprintf(stderr, "slotscope: --check runs no command: drop '-- %s'\n", env.command[0]);
			return EXIT_USAGE;
		}
		hopts.textfile = env.prom_file;
		hopts.silent_after_s = env.silent_after;
		hopts.procfs_root = env.procfs_root;
		hopts.sysfs_root = env.sysfs_root;
		hopts.nmounts = env.nmounts;
		hopts.mounts = env.mounts;
		return health_main(&hopts);
	}
	if (!have_interval && !env.command)
		env.interval = 1;
	check_prom_opts();
	env.force_fallback = attach && !strcmp(attach, "fallback");
	if (events && strcmp(events, "tracepoints") && strcmp(events, "functions")) {
		fprintf(stderr, "slotscope: SLOTSCOPE_EVENTS=%s: say tracepoints or functions\n", events);
		return EXIT_USAGE;
	}
	env.events_tp = events && !strcmp(events, "tracepoints");
	if (make_btf)
		return run_make_btf(&env);
	rc = run_new(&r, &env);
	if (rc)
		return rc;
	rc = run_main(r);
	run_free(r);
	return rc;
}
