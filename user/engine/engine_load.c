// SPDX-License-Identifier: GPL-2.0
/* Load and attach: the load-retry loop, a refused variant traded for the next. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "opcount.h"
#include "engine/btfmerge.h"
#include "engine/engine_int.h"
#include "lib/log.h"
#include "lib/util.h"

/* The verifier's reason: the last line of its log that is not the closing statistics. */
static void verifier_reason(const char *log, char *out, size_t len)
{
	const char *end = log + strlen(log), *b, *e;

	snprintf(out, len, "no reason given");
	for (e = end; e > log; e = b) {
		b = e - 1;
		while (b > log && b[-1] != '\n')
			b--;
		size_t n = (size_t)(e - b);

		while (n && (b[n - 1] == '\n' || b[n - 1] == ' '))
			n--;
		if (!n || !strncmp(b, "processed ", 10) || !strncmp(b, "verification time", 17) ||
		    !strncmp(b, "stack depth", 11))
			continue;
		/* libbpf poisons a relocation it could not resolve with this call */
		if (memmem(b, n, "195896080", 9))
			snprintf(out, len, "a kernel field or type it needs is missing (CO-RE relocation)");
		else
			snprintf(out, len, "%.*s", (int)(n < 120 ? n : 120), b);
		return;
	}
}

static void add_hooks(struct engine *e)
{
	struct slotscope_bpf *s = e->skel;
	struct { const char *name; enum hook_kind kind; enum hook_group group; bool required;
		 const char *loses; struct bpf_program *a, *b; } t[NHOOKS] = {
		{ "xprt_reserve", TP, G_ALL, true, NULL, s->progs.btf_xprt_reserve, s->progs.raw_xprt_reserve },
		{ "rpc_stats_latency", TP, G_ALL, true, NULL, s->progs.btf_rpc_stats_latency,
		  s->progs.raw_rpc_stats_latency },
		{ "rpc_sleep_on", FUNC, G_FN, true, NULL, s->progs.fentry_rpc_sleep_on,
		  s->progs.kprobe_rpc_sleep_on },
		{ "rpc_delay", FUNC, G_FN, true, NULL, s->progs.fentry_rpc_delay, s->progs.kprobe_rpc_delay },
		{ "__xprt_set_rq", FUNC, G_FN, true, NULL, s->progs.fentry___xprt_set_rq,
		  s->progs.kprobe___xprt_set_rq },
		{ "rpc_sleep_on_priority", FUNC, G_FN, false,
		  "privileged NFSv4.1 tasks' waits for a session slot are not timed",
		  s->progs.fentry_rpc_sleep_on_priority, s->progs.kprobe_rpc_sleep_on_priority },
		{ "rpc_sleep_on_priority_timeout", FUNC, G_FN, false,
		  "privileged NFSv4.1 tasks' waits for a session slot on soft mounts are not timed",
		  s->progs.fentry_rpc_sleep_on_priority_timeout,
		  s->progs.kprobe_rpc_sleep_on_priority_timeout },
		{ "__rpc_atrun", FUNC, G_FN, false, "a delay ends when the task next takes a slot",
		  s->progs.fentry___rpc_atrun, s->progs.kprobe___rpc_atrun },
		{ "rpc_task_sleep", TP, G_TP, true, NULL, s->progs.btf_rpc_task_sleep,
		  s->progs.raw_rpc_task_sleep },
		{ "rpc_task_wakeup", TP, G_TP, true, NULL, s->progs.btf_rpc_task_wakeup,
		  s->progs.raw_rpc_task_wakeup },
		{ "xprt_create", TP, G_ALL, false, "a transport made while tracing is seen at its first RPC",
		  s->progs.btf_xprt_create, s->progs.raw_xprt_create },
		{ "xprt_destroy", TP, G_ALL, false, "destroyed transports are not told apart from idle ones",
		  s->progs.btf_xprt_destroy, s->progs.raw_xprt_destroy },
		{ "nfs4_setup_sequence", TP, G_ALL, false, "NFSv4.1 session slots are not measured",
		  s->progs.btf_nfs4_setup_sequence, s->progs.raw_nfs4_setup_sequence },
		{ "nfs4_free_slot", FUNC, G_ALL, false,
		  "NFSv4.1 sessions' time at their slot limit is not measured",
		  s->progs.fentry_nfs4_free_slot, s->progs.kprobe_nfs4_free_slot },
		/* bpf_for_each_map_elem(): 69c087ba6225 ("bpf: Add bpf_for_each_map_elem() helper"), 5.13 */
		{ "rpc_clnt_free", TP, G_ALL, false,
		  "a client id the kernel reuses for a new mount keeps the mount of the client it was",
		  s->progs.btf_rpc_clnt_free, s->progs.raw_rpc_clnt_free },
		{ "xprt_get_cong", TP, G_ALL, false,
		  "RDMA/UDP credits' time at the server's grant is not measured",
		  s->progs.btf_xprt_get_cong, s->progs.raw_xprt_get_cong },
		{ "xprt_put_cong", TP, G_ALL, false,
		  "RDMA/UDP credits' time at the server's grant is not measured",
		  s->progs.btf_xprt_put_cong, s->progs.raw_xprt_put_cong },
		/* each request's first send, so a server gone silent is seen without an event (#59) */
		{ "xprt_transmit", TP, G_ALL, false,
		  "a server that stops answering is not named (no request's wait for its reply is timed)",
		  s->progs.btf_xprt_transmit, s->progs.raw_xprt_transmit },
		/* at the return: the bytes moved, not the bytes asked for (#44) */
		{ "nfs_file_write", FUNC_RET, G_JOBS, false, "jobs are named through vfs_write",
		  s->progs.fexit_nfs_file_write, s->progs.kretprobe_nfs_file_write },
		{ "nfs_file_read", FUNC_RET, G_JOBS, false, "jobs are named through vfs_read",
		  s->progs.fexit_nfs_file_read, s->progs.kretprobe_nfs_file_read },
		/*
		 * a context's address reused: the job an old context there was named for goes (its
		 * struct file's may be reused too, and an O_DIRECT call's RPCs end before it returns)
		 */
		{ "alloc_nfs_open_context", FUNC_RET, G_JOBS_CTX, false,
		  "new open contexts are seen from vmlinux's open instead where it can be hooked "
		  "(do_filp_open), which open_by_handle_at() and the kernel's own opens do not pass", s->progs.fexit_alloc_nfs_open_context,
		  s->progs.kretprobe_alloc_nfs_open_context },
		/* where it cannot be hooked: the new file an open returns carries the new context */
		{ "do_filp_open", FUNC_RET, G_JOBS_VFS_CTX, false,
		  "an NFS open context made where a freed one was may count its first call's RPCs to "
		  "the old one's job", s->progs.fexit_do_filp_open, NULL },
		/* where the two above cannot be hooked (the unit's capabilities at Debian's defaults) */
		{ "vfs_write", FUNC_RET, G_JOBS_VFS, false,
		  "a window's jobs are not named (no bytes per cgroup)", s->progs.fexit_vfs_write, NULL },
		{ "vfs_read", FUNC_RET, G_JOBS_VFS, false,
		  "a restore window's jobs are not named (no bytes per cgroup)", s->progs.fexit_vfs_read, NULL },
		{ "vfs_writev", FUNC_RET, G_JOBS_VFS, false, "writev(2)'s bytes are not counted for jobs",
		  s->progs.fexit_vfs_writev, NULL },
		{ "vfs_readv", FUNC_RET, G_JOBS_VFS, false, "readv(2)'s bytes are not counted for jobs",
		  s->progs.fexit_vfs_readv, NULL },
	};

	e->nhooks = NHOOKS;
	for (size_t i = 0; i < NHOOKS; i++) {
		struct hook *h = &e->hooks[i];

		/* refused and why outlive the skeleton: they steer the next try */
		h->name = h->renamed ? h->renamed : t[i].name;
		h->kind = t[i].kind;
		h->group = t[i].group;
		h->required = t[i].required;
		h->loses = t[i].loses;
		h->args = hook_args_of(t[i].name);
		h->progs[0] = t[i].a;
		h->progs[1] = t[i].b;
		/* a kretprobe's entry kprobe: kretprobe_X's is kprobe_X */
		if (t[i].kind == FUNC_RET && t[i].b) {
			char entry[64];

			snprintf(entry, sizeof(entry), "kprobe_%s", t[i].name);
			h->with[1] = bpf_object__find_program_by_name(s->obj, entry);
		}
	}
	bpf_program__set_autoattach(s->progs.kprobe_rpcrdma_buffer_create, false);
	bpf_program__set_autoattach(s->progs.kprobe_rpcrdma_req_create, false);
	bpf_program__set_autoload(s->progs.kprobe_rpcrdma_buffer_create, !e->pools_off);
	bpf_program__set_autoload(s->progs.kprobe_rpcrdma_req_create, !e->pools_off);
}

static void free_vlogs(struct engine *e)
{
	for (size_t i = 0; i < NHOOKS; i++)
		for (int v = 0; v < 2; v++) {
			free(e->vlog[i][v]);
			e->vlog[i][v] = NULL;
		}
}

/*
 * After a failed load: the program whose log the verifier wrote is the one it refused (libbpf
 * asks for a log only on a second try of a failed program). Its variant is marked refused, so
 * the next try takes the fallback or leaves an optional hook off. false: no program to blame.
 */
static bool blame(struct engine *e)
{
	for (size_t i = 0; i < e->nhooks; i++)
		for (int v = 0; v < 2; v++) {
			struct hook *h = &e->hooks[i];
			const char *log = e->vlog[i][v];

			if (!log || !log[0])
				continue;
			h->refused |= 1u << v;
			verifier_reason(log, h->why, sizeof(h->why));
			pr_info("hook %s: the verifier refused %s (%s)\n", h->name,
				bpf_program__section_name(h->progs[v]), h->why);
			pr_debug("verifier log of %s:\n%s\n", bpf_program__name(h->progs[v]), log);
			return true;
		}
	return false;
}

/* the release build: nothing in a caller's environment can turn a hook off */
__attribute__((weak)) int engine_inject_refusals(struct engine *e)
{
	(void)e;
	return 0;
}

/* one more load of the object; -EAGAIN: a hook was refused, try again with what is left */
/* xprt_tab into our memory (BPF_F_MMAPABLE: its values from offset 0, one after the other) */
static int map_xprt_tab(struct engine *e)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = sizeof(struct xprt_stats) * XPRT_SLOTS;
	void *p;

	len = (len + (size_t)page - 1) / (size_t)page * (size_t)page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(e->skel->maps.xprt_tab), 0);
	if (p == MAP_FAILED) {
		snprintf(e->why, e->whylen, "cannot map the transports' table: %s", strerror(errno));
		return -errno;
	}
	e->xtab = p;
	e->xtab_len = len;
	return 0;
}

/* the skeleton's link slot of @p (NULL: none) */
static struct bpf_link **skel_link(struct engine *e, const struct bpf_program *p)
{
	const struct bpf_object_skeleton *sk = e->skel->skeleton;

	for (int i = 0; i < sk->prog_cnt; i++)
		if (*sk->progs[i].prog == p)
			return sk->progs[i].link;
	return NULL;
}

/*
 * A loaded fentry program may still not attach: arm64 kernels before ftrace direct calls
 * (2aa6ac03516d "arm64: ftrace: Add direct call support", 6.5) load it and refuse the trampoline
 * with ENOTSUPP. Each is attached here, and its link kept in the skeleton for engine_attach()
 * (nothing counts before armed): a trampoline attached and detached costs an RCU-tasks grace
 * period each way, ~0.13 s a hook under emulation. One that will not attach is treated as a
 * refused variant, so the hook takes its kprobe.
 */
static int attach_probe(struct engine *e)
{
	bool refused = false;

	for (size_t i = 0; i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];

		for (int v = 0; v < 2; v++) {
			struct bpf_program *p = h->progs[v];
			struct bpf_link *l;

			if (!p || !bpf_program__autoload(p) || bpf_program__type(p) != BPF_PROG_TYPE_TRACING ||
			    (bpf_program__expected_attach_type(p) != BPF_TRACE_FENTRY &&
			     bpf_program__expected_attach_type(p) != BPF_TRACE_FEXIT))
				continue;
			l = bpf_program__attach(p);
			if (l) {
				struct bpf_link **slot = skel_link(e, p);

				if (slot && !*slot)
					*slot = l;
				else
					bpf_link__destroy(l);
				continue;
			}
			/*
			 * ENOTSUPP (524) is the kernel's own, which strerror() does not know. It is the
			 * arch's, not the function's: no fentry or fexit of any hook will attach, so the
			 * next load takes every such hook's fallback at once (the VFS's fexit too, which
			 * this load did not carry): one reload, not one per group of hooks (arm64 6.1
			 * loaded the object four times, ~20 s each under emulation).
			 */
			if (errno == 524)
				e->no_trampoline = true;
			snprintf(h->why, sizeof(h->why), "the kernel cannot attach it: %s",
				 errno == 524 ? "no BPF trampoline here (ENOTSUPP)" : strerror(errno));
			h->refused |= 1u << v;
			refused = true;
			pr_info("hook %s: %s does not attach (%s)\n", h->name, bpf_program__section_name(p),
				h->why + strlen("the kernel cannot attach it: "));
		}
	}
	/* one more load for all of them */
	return refused ? -EAGAIN : 0;
}

static int load_once(struct engine *e)
{
	struct slotscope_bpf *s;
	__u32 marks, hashed;
	int err;

	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = e->btf_fd >= 0 ? e->btf_path : NULL);

	s = e->skel = slotscope_bpf__open_opts(&oo);
	if (!s) {
		snprintf(e->why, e->whylen, "cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	add_hooks(e);
	s->bss->rdma_pool_is_max_reqs = e->pool_is_max_reqs;
	err = choose_methods(e);
	/* every hook is probed now: libbpf parses its own copy of vmlinux BTF to load, drop ours */
	free_probe_btf(e);
	if (err)
		return err;
	/* the per-CPU op slots OP_SLOTS_BUDGET holds on this machine's possible CPUs: a power of two */
	e->ncpu = libbpf_num_possible_cpus();
	e->op_slots = MAX_OP_SLOTS;
	while (e->op_slots && (e->ncpu <= 0 ||
	       (size_t)e->op_slots * (size_t)e->ncpu * sizeof(struct op_counts) > OP_SLOTS_BUDGET))
		e->op_slots >>= 1;
	s->rodata->op_slots = e->op_slots;
	/* no file I/O hook names a file's job under --no-jobs: no RPC's time is looked up for one */
	s->rodata->jobs_timed = !e->o.no_jobs;
	bpf_map__set_max_entries(s->maps.op_pcpu, e->op_slots ? e->op_slots : 1);
	/*
	 * The slots' values as last read, kept between ticks (add_pcpu()): mapped at their bound,
	 * not grown to the highest slot in use, which follows the most ops ever held at once (slots
	 * go back to a ring in the order ops are reaped; CI saw the heap +73 KiB at the 125th of
	 * 150 mounts). Only the pages the batch calls fill become resident.
	 */
	if (e->op_slots) {
		size_t len = (size_t)e->op_slots * ((size_t)e->ncpu * sizeof(*e->pcpu) +
						    sizeof(*e->pcpu_keys));
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return -errno;
		e->pcpu = m;
		e->pcpu_keys = (__u32 *)(e->pcpu + (size_t)e->op_slots * (size_t)e->ncpu);
		e->pcpu_len = len;
	}
	err = engine_inject_refusals(e);
	if (err)
		return err;
	inflight_split(e->o.max_inflight ? e->o.max_inflight : MAX_INFLIGHT, &marks, &hashed);
	s->rodata->mark_mask = marks ? marks - 1 : 0;
	bpf_map__set_max_entries(s->maps.inflight, hashed);
	if (e->o.max_inflight)
		bpf_map__set_max_entries(s->maps.waiters, e->o.max_inflight);
	for (size_t i = 0; i < e->nhooks; i++)
		for (int v = 0; v < 2; v++) {
			struct bpf_program *p = e->hooks[i].progs[v];

			if (!p || !bpf_program__autoload(p))
				continue;
			e->vlog[i][v] = calloc(1, VLOG_SIZE);
			if (!e->vlog[i][v] || bpf_program__set_log_buf(p, e->vlog[i][v], VLOG_SIZE))
				return -ENOMEM;
		}
	err = slotscope_bpf__load(s);
	if (!err)
		err = attach_probe(e);
	if (!err) {
		err = map_xprt_tab(e);
		if (!err)
			return 0;
		free_vlogs(e);
		slotscope_bpf__destroy(s);
		e->skel = NULL;
		return err;
	}
	if (err == -EAGAIN)
		;
	else if (blame(e))
		err = -EAGAIN;
	else if (!e->pools_off) {
		/* not a hook: the pool counters are the only other programs; do without them */
		pr_info("RDMA request pools not counted (their kprobes did not load: %s): "
			"inferred from use\n", strerror(-err));
		e->pools_off = true;
		err = -EAGAIN;
	} else {
		snprintf(e->why, e->whylen, "cannot load the BPF programs: %s: %s",
			 strerror(-err), err == -EPERM ? "slotscope needs CAP_BPF and CAP_PERFMON (or root)"
						       : "run with -v for the details");
	}
	free_vlogs(e);
	slotscope_bpf__destroy(s);
	e->skel = NULL;
	return err;
}

bool engine_sunrpc_loaded(const char *sysfs_root)
{
	char path[512];

	return !root_path(path, sizeof(path), sysfs_root, "/sys/module/sunrpc") && !access(path, F_OK);
}

int engine_open(struct engine **out, const struct engine_opts *o, char *why, size_t len)
{
	struct engine *e = engine_alloc(o, why, len);
	int err;

	if (!e)
		return -ENOMEM;
	if (o->no_kprobes) {
		e->o.events_tp = true;
		e->pools_off = true;
	}
	err = probe_atomics();
	if (err == -EINVAL) {
		snprintf(e->why, e->whylen, "this kernel's BPF has no atomic fetch-and-add or "
			 "compare-and-exchange, which counting slots exactly needs: Linux 5.12 or newer "
			 "is required (on Debian 11, its 6.1 kernel from bullseye-backports)");
		err = -EOPNOTSUPP;
		goto fail;
	}
	if (err) {
		snprintf(e->why, e->whylen, "cannot load a BPF program: %s: slotscope needs "
			 "CAP_BPF and CAP_PERFMON (or root)", strerror(-err));
		goto fail;
	}
	e->vmlinux = btf__load_vmlinux_btf();
	if (!e->vmlinux) {
		err = -errno;
		snprintf(e->why, e->whylen, "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): "
			 "slotscope needs CONFIG_DEBUG_INFO_BTF", strerror(-err));
		goto fail;
	}
	err = engine_module_btf(e);
	if (err)
		goto fail;
	/* sunrpc may be built in; then its functions are in vmlinux's BTF (its types are anyway) */
	if (!e->mods[0] && btf__find_by_name_kind(e->vmlinux, "xprt_release", BTF_KIND_FUNC) <= 0 &&
	    !kallsyms_has(e, "xprt_release")) {
		err = -ENOENT;
		snprintf(why, len, "sunrpc");
		goto fail;
	}
	/* every handler reads sunrpc's structures through CO-RE: their BTF must be somewhere */
	if (!btf_has(e, "rpc_xprt", BTF_KIND_STRUCT)) {
		err = -ENOENT;
		snprintf(e->why, e->whylen, "sunrpc has no BTF (no /sys/kernel/btf/sunrpc): "
			 "slotscope needs CONFIG_DEBUG_INFO_BTF_MODULES, Linux 5.11 or newer");
		goto fail;
	}
	if (e->mods[3])
		rdma_pool_from_btf(e, e->mods[3]);
	e->fallback_asked = e->o.force_fallback;
	/*
	 * BTF the kernel did not publish has no id for fentry or tp_btf to attach by: CO-RE
	 * against the merged BTF, and every module hook by name (raw_tp, kprobe)
	 */
	if ((e->o.no_btf_ids && e->mods[0]) || engine_btf_made(e)) {
		err = merged_btf(e);
		if (err) {
			snprintf(e->why, e->whylen, "cannot merge the kernel's BTF for loading "
				 "without CAP_SYS_ADMIN: %s", strerror(-err));
			goto fail;
		}
		e->o.force_fallback = true;
	}
	if (!e->o.force_fallback)
		probe_trampoline(e);
	/* a refused hook costs one more load: at most one per variant */
	for (int tries = 0; tries <= 2 * NHOOKS + 1; tries++) {
		err = load_once(e);
		if (err != -EAGAIN)
			break;
	}
	if (err == -EAGAIN) {
		err = -EACCES;
		snprintf(e->why, e->whylen, "the verifier refused more programs than there are "
			 "variants: run with -v for its logs");
	}
	free_probe_btf(e);
	if (err)
		goto fail;
	free_vlogs(e);
	*out = e;
	return 0;
fail:
	engine_close(e);
	return err;
}

/*
 * What slotscope_bpf__attach() does, but a program attach_probe() attached already keeps its
 * link: whether libbpf skips a link already set differs between its versions.
 */
static int attach_all(struct engine *e)
{
	const struct bpf_object_skeleton *sk = e->skel->skeleton;

	for (int i = 0; i < sk->prog_cnt; i++) {
		struct bpf_program *p = *sk->progs[i].prog;
		struct bpf_link **slot = sk->progs[i].link;
		struct bpf_link *l;

		if (*slot || !bpf_program__autoload(p) || !bpf_program__autoattach(p))
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			/* a section libbpf cannot attach by itself, as the skeleton skips it */
			if (errno == EOPNOTSUPP)
				continue;
			pr_info("hook %s: cannot attach: %s\n", bpf_program__name(p), strerror(errno));
			return -errno;
		}
		*slot = l;
	}
	return 0;
}

int engine_attach(struct engine *e, char *why, size_t len)
{
	int err = attach_all(e);

	if (err) {
		snprintf(why, len, "cannot attach the BPF programs: %s: run with -v for the details",
			 strerror(-err));
		return err;
	}
	probe_rdma(e);
	return 0;
}

void engine_arm(struct engine *e)
{
	int cong = 0;

	for (size_t i = 0; i < e->nhooks; i++) {
		if (e->status[i].method == HOOK_OFF)
			continue;
		if (!strcmp(e->hooks[i].name, "nfs4_free_slot"))
			e->skel->bss->session_levels = 1;
		/*
		 * before arming: no file call has named a context yet, so every entry is born watched.
		 * Not for do_filp_open: opens that do not pass there (open_by_handle_at(), the
		 * kernel's own) make contexts it never sees, whose entries the file check still proves.
		 * Nor for a kretprobe, which misses returns past its maxactive calls at once.
		 */
		if (!strcmp(e->hooks[i].name, "alloc_nfs_open_context") && e->status[i].method == HOOK_FEXIT)
			e->skel->bss->ctx_births = 1;
		if (!strcmp(e->hooks[i].name, "xprt_get_cong") || !strcmp(e->hooks[i].name, "xprt_put_cong"))
			cong++;
	}
	e->skel->bss->credit_levels = cong == 2;
	__atomic_store_n(&e->skel->bss->armed, 1, __ATOMIC_SEQ_CST);
}

enum events engine_events(const struct engine *e)
{
	return e->events;
}

const char *events_name(enum events ev)
{
	return ev == EVENTS_FUNCTIONS ? "functions" : "tracepoints";
}

size_t engine_hooks(const struct engine *e, const struct hook_status **hooks)
{
	*hooks = e->status;
	return e->nhooks;
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(e->pool_links[i]);
	if (e->xtab)
		munmap(e->xtab, e->xtab_len);
	slotscope_bpf__destroy(e->skel);
	free_vlogs(e);
	level_marks_free(&e->marks);
	if (e->pcpu)
		munmap(e->pcpu, e->pcpu_len);
	for (int g = 0; g < GENS; g++)
		free(e->copies[g].arr);
	free(e->jobio_copy.arr);
	jobret_free(&e->retired);
	if (e->btf_fd >= 0)
		close(e->btf_fd);
	for (size_t i = 0; i < sizeof(e->mods) / sizeof(e->mods[0]); i++)
		btf__free(e->mods[i]);
	btf__free(e->vmlinux);
	free(e);
}
