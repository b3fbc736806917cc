// SPDX-License-Identifier: GPL-2.0
/* A run's start and end: outputs and filters checked, the engine opened, the audit, the trace. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "host/audit.h"
#include "run/command.h"
#include "lib/log.h"
#include "run/privs.h"
#include "run/run_int.h"
#include "run/signals.h"
#include "lib/util.h"

/* mountinfo, read for the filters and the audit: a failure is said here, once */
static int load_mounts(const struct run *r, struct mount_table *mt)
{
	int err = mounts_load(&r->msrc, mt);

	if (err)
		pr_err("cannot read %s/proc/%s/mountinfo: %s: is /proc mounted?\n",
		       strcmp(r->o.procfs_root, "/") ? r->o.procfs_root : "", r->o.mounts_of,
		       strerror(-err));
	return err;
}

/* --mount paths become filters before anything is loaded: a typo costs no BPF load */
static int check_filters(struct run *r)
{
	struct mount_table mt = { 0 };

	if (!r->o.nmounts)
		return EXIT_OK;
	if (load_mounts(r, &mt))
		return EXIT_RUNTIME;
	for (size_t i = 0; i < r->o.nmounts; i++) {
		const struct nfs_mount *m = mounts_by_path(&mt, r->o.mounts[i]);
		char fstype[32];

		if (!m) {
			if (mounts_fstype(&r->msrc, r->o.mounts[i], fstype, sizeof(fstype)) == 0)
				pr_err("--mount %s: not an NFS mount (it is %s): give an NFS mount point\n",
				       r->o.mounts[i], fstype);
			else
				pr_err("--mount %s: not a mount point: give an NFS mount point (see mount -t nfs,nfs4)\n",
				       r->o.mounts[i]);
			mounts_free(&mt);
			return EXIT_USAGE;
		}
		if (mount_xprt_of(m, &r->filters[r->nfilters])) {
			pr_err("--mount %s: neither its options (addr=) nor its source name a server: give an NFS mount point\n",
			       r->o.mounts[i]);
			mounts_free(&mt);
			return EXIT_USAGE;
		}
		r->nfilters++;
	}
	mounts_free(&mt);
	return EXIT_OK;
}

/* Print the limits audit and note the knobs for the verdicts; no NFS at all ends here. */
static int print_audit(struct run *r)
{
	struct mount_table mt = { 0 };
	struct audit a;
	int err;

	if (load_mounts(r, &mt))
		return EXIT_RUNTIME;
	if (!mt.n && !r->o.command && !run_exporter(r)) {
		pr_err("no NFS mounts: mount one first, or give the command that does after --\n");
		mounts_free(&mt);
		return EXIT_NOPERM;
	}
	err = audit_load(&a, r->o.sysfs_root, &r->msrc, &mt);
	if (err) {
		pr_err("limits audit: %s\n", strerror(-err));
		mounts_free(&mt);
		return EXIT_RUNTIME;
	}
	r->tun.tcp_max_slots = a.tcp_max_slots;
	r->tun.rdma_slots = a.rdma_slots;
	r->tun.max_session_slots = a.max_session_slots;
	r->tun.nconnect_max = a.nconnect_max;
	r->tun.tcp_wmem_max = a.tcp_wmem_max;
	if (r->o.json)
		out_audit_json(stdout, &a);
	else if (log_level > LOG_QUIET && log_level >= LOG_WARN)
		audit_print(stdout, &a);
	audit_free(&a);
	mounts_free(&mt);
	return EXIT_OK;
}

/*
 * glibc maps blocks of 128 KiB and more until the first is freed, then raises that threshold for
 * good to the freed block's size and its trim threshold to twice that: the megabytes of BTF
 * libbpf frees at load stayed in the heap for the rest of a run (2-3 MiB), and a later large free
 * (a map read, a tick at a new size) added 0.4-1.5 MiB at a moment that varied. So the thresholds
 * are fixed: at 128 KiB for the load, whose large blocks are mapped and given back; then what the
 * load left in the heap goes back, and a tick's blocks come from the heap below 4 MiB (mapped
 * afresh each tick, a 64-transport tick's arrays cost +0.2-1.1 % of a TCG vCPU in page faults),
 * trimmed above 1 MiB so a tick at a new size keeps little.
 */
static void heap_for(bool load)
{
	if (!load)
		malloc_trim(0);
	mallopt(M_MMAP_THRESHOLD, load ? 128 << 10 : 4 << 20);
	mallopt(M_TRIM_THRESHOLD, load ? 128 << 10 : 1 << 20);
}

static int open_engine(struct run *r)
{
	struct engine_opts eo = { .procfs_root = r->o.procfs_root, .sysfs_root = r->o.sysfs_root,
				  .max_inflight = r->o.max_inflight,
				  .force_fallback = r->o.force_fallback, .events_tp = r->o.events_tp,
				  .no_jobs = r->o.win.no_jobs };
	const char *cap = "";
	char why[640] = "";
	bool sys_admin;
	long level;
	int err;

	if (privs_missing(&cap, &sys_admin)) {
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
	level = sys_admin ? -1 : privs_paranoid(r->o.procfs_root);
	if (level > 2) {
		pr_warn("kernel.perf_event_paranoid is %ld, which allows kprobes only with CAP_SYS_ADMIN: "
			"waits from the tracepoints (4 program runs per RPC, not 2), RDMA request pools "
			"inferred from use, jobs through vmlinux's VFS (not io_uring or AIO); set it to 2 (sysctl -w kernel.perf_event_paranoid=2) or give "
			"CAP_SYS_ADMIN\n", level);
		eo.no_kprobes = true;
	}
	eo.no_btf_ids = !sys_admin;
	memcpy(eo.btf_files, r->o.btf_files, sizeof(eo.btf_files));
	/* before megabytes of BTF and kallsyms are parsed: the caller decides what no NFS means */
	if (!engine_sunrpc_loaded(r->o.sysfs_root))
		return -ENOENT;
	heap_for(true);
	err = engine_open(&r->e, &eo, why, sizeof(why));
	if (err == -ENOENT && !strcmp(why, "sunrpc"))
		return -ENOENT;
	if (err) {
		pr_err("%s\n", why);
		return EXIT_NOPERM;
	}
	err = engine_attach(r->e, why, sizeof(why));
	heap_for(false);
	if (err) {
		pr_err("%s\n", why);
		engine_close(r->e);
		r->e = NULL;
		return EXIT_NOPERM;
	}
	if (log_level >= LOG_INFO) {
		const struct hook_status *h;
		size_t n = engine_hooks(r->e, &h);

		pr_info("events %s\n", events_name(engine_events(r->e)));
		for (size_t i = 0; i < n; i++)
			if (h[i].in_design)
				pr_info("hook %-20s %s\n", h[i].name, hook_method_name(h[i].method));
	}
	return EXIT_OK;
}

static void said_btf(const char *mod, const char *how)
{
	/* the command's result: on stdout */
	printf("%s: %s\n", mod, how);
}

int run_make_btf(const struct run_opts *o)
{
	struct engine_opts eo = { .procfs_root = o->procfs_root, .sysfs_root = o->sysfs_root };
	char why[640];
	int err;

	if (geteuid()) {
		pr_err("--make-btf needs root: it reads the modules' build ids and writes %s\n",
		       "/var/cache/slotscope");
		return EXIT_NOPERM;
	}
	memcpy(eo.btf_files, o->btf_files, sizeof(eo.btf_files));
	err = engine_make_btf(&eo, said_btf, why, sizeof(why));
	if (err) {
		pr_err("%s\n", why);
		return EXIT_NOPERM;
	}
	return EXIT_OK;
}

int run_new(struct run **out, const struct run_opts *o)
{
	struct run *r = calloc(1, sizeof(*r));
	struct utsname u;
	bool same_netns;
	int rc;

	*out = NULL;
	if (!r) {
		pr_err("out of memory\n");
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < OUTS; i++)
		r->out[i].dirfd = r->out[i].lockfd = -1;
	r->o = *o;
	r->ledger.no_rows = !r->o.prom.rollup;
	r->cap.max = r->o.prom_max_series;
	linkmap_init(&r->links, r->o.procfs_root, r->o.sysfs_root);
	if (!r->o.mounts_of)
		r->o.mounts_of = "self";
	r->msrc.procfs_root = r->o.procfs_root;
	r->msrc.pid = r->o.mounts_of;
	/* kept open: after the drop, another process's table may not be opened again */
	if (mounts_keep_open(&r->msrc))
		pr_debug("cannot keep %s's mountinfo open: it is opened each tick\n", r->o.mounts_of);
	/* a pod without hostNetwork would map every transport to its own lo or eth0 */
	if (!mounts_netns_same(&r->msrc, &same_netns) && !same_netns)
		pr_err("PID %s, whose mounts are read, is in another network namespace: transports "
			"would be mapped to this one's routes and devices; run in the host's "
			"(hostNetwork: true in a DaemonSet)\n", r->o.mounts_of);
	if (!uname(&u))
		snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
	rc = outputs_open(r);
	if (!rc)
		rc = check_filters(r);
	if (rc) {
		run_free(r);
		return rc;
	}
	*out = r;
	return EXIT_OK;
}

/*
 * An exporter started before any NFS mount (sunrpc is loaded by the first one): the textfile
 * says so (slotscope_tracing 0) until sunrpc appears, then tracing starts. Each tick costs one
 * access(); a signal, -d or COUNT ends the wait as they would end the trace.
 */
/* the cgroups cache's test of counts kept in user space alone (cgroups.h) */
static bool jobio_kept(const void *e, const struct jobio_snap *s)
{
	return engine_jobio_forgotten(e, s);
}

static int wait_for_sunrpc(struct run *r)
{
	double tick = r->o.interval > 0 ? r->o.interval : 1, t0 = clock_s(CLOCK_MONOTONIC);
	double end = r->o.duration > 0 ? t0 + r->o.duration : 1e18;
	long ticks = 0;
	int rc;

	pr_info("sunrpc is not loaded yet (no NFS mount): waiting for it\n");
	for (;;) {
		outputs_prom(r, NULL, NULL, NULL);
		sig_wait_until(t0 + (double)(ticks + 1) * tick < end ? t0 + (double)(ticks + 1) * tick : end);
		ticks++;
		if (sig_stop())
			return EXIT_OK;
		if (engine_sunrpc_loaded(r->o.sysfs_root)) {
			rc = open_engine(r);
			if (rc != -ENOENT)
				return rc;
		}
		if (clock_s(CLOCK_MONOTONIC) >= end || (r->o.count > 0 && ticks >= r->o.count)) {
			pr_err("sunrpc did not appear in %.0f s (no NFS mount): nothing was traced\n",
			       clock_s(CLOCK_MONOTONIC) - t0);
			return EXIT_NOPERM;
		}
	}
}

int run_main(struct run *r)
{
	int rc, err;

	libbpf_set_print(log_libbpf);
	sig_install();
	rc = open_engine(r);
	if (rc == -ENOENT && run_exporter(r)) {
		rc = wait_for_sunrpc(r);
	} else if (rc == -ENOENT && r->o.command && r->o.run_untraced) {
		return command_run_untraced(r->o.command, r->o.user);
	} else if (rc == -ENOENT) {
		pr_err("sunrpc is not loaded, so there is no NFS client to trace: mount an NFS share "
		       "(or modprobe sunrpc) and run again%s\n",
		       r->o.command ? ", or add --run-untraced to run the command anyway" : "");
		rc = EXIT_NOPERM;
	}
	/* a signal while waiting: no engine, nothing traced */
	if (!rc && r->e)
		rc = print_audit(r);
	if (!rc && r->e && !r->o.win.no_jobs && !cgroups_init(&r->cg, r->o.procfs_root, r->o.sysfs_root)) {
		cgroups_set_namer(&r->cg, engine_cgroup_path, r->e);
		cgroups_set_kept(&r->cg, jobio_kept, r->e);
	} else if (!rc && r->e && !r->o.win.no_jobs)
		pr_warn("no cgroup v2 hierarchy is mounted: a window's jobs show as unknown (cgroup v2 "
			"is systemd's default; on v1, boot with systemd.unified_cgroup_hierarchy=1)\n");
	if (!rc && r->e) {
		err = run_trace(r, &rc);
		/* a layout disproven as it ran: as if refused at the start, whatever the command did */
		if (err == -EPROTO)
			rc = EXIT_NOPERM;
		else if (err && !rc)
			rc = EXIT_RUNTIME;
	}
	/* a stopped exporter's numbers would live on in node_exporter as if current */
	if (r->o.prom_file && !r->o.prom_keep && (err = outfile_remove(&r->out[OUT_PROM])) &&
	    err != -ENOENT)
		pr_warn("cannot remove %s: %s\n", r->o.prom_file, strerror(-err));
	return rc;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	/* detaches every program */
	engine_close(r->e);
	proof_free(&r->proof);
	link_sampler_free(&r->link_sampler);
	heat_free(&r->heat);
	cgroups_free(&r->cg);
	ledger_free(&r->ledger);
	prom_cap_free(&r->cap);
	linkmap_free(&r->links);
	tcp_watch_free(&r->tw);
	outputs_close(r);
	mounts_free(&r->mounts_now);
	view_arena_free(&r->arena);
	mounts_close(&r->msrc);
	free(r);
}
