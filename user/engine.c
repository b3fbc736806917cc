// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "btfmerge.h"
#include "engine.h"
#include "slotscope.skel.h"
#include "log.h"
#include "util.h"

/* Where each hook lives; tracepoints are probed by their btf_trace_<name> typedef. */
enum hook_kind { TP, FUNC };

/* Which event design a hook belongs to (see enum events); ALL: both. */
enum hook_group { G_ALL, G_FN, G_TP };

struct hook {
	const char *name;
	enum hook_kind kind;
	enum hook_group group;
	bool required;			/* within its design: without it the design is not taken */
	const char *loses;		/* what goes unmeasured without an optional hook */
	struct bpf_program *progs[2];	/* tp_btf/raw_tp or fentry/kprobe */
	unsigned int refused;		/* bit v: variant v was refused by the verifier */
	bool said;			/* its loss was said (loads are retried) */
	bool probed, have[2];		/* which variants the kernel offers, probed once */
	char why[160];			/* the verifier's reason, for the message */
};

#define NHOOKS 14
/* the verifier's log of a program that fails to load; a level-1 log of ours fits easily */
#define VLOG_SIZE (256 * 1024)

struct engine {
	struct slotscope_bpf *skel;
	struct engine_opts o;
	struct btf *vmlinux;
	struct btf *mods[4];
	int btf_fd;			/* no_btf_ids: the merged BTF, as /proc/self/fd/N */
	char btf_path[64];
	size_t nhooks;
	struct hook hooks[NHOOKS];
	struct hook_status status[NHOOKS];
	enum events events;		/* the design taken by the last choose_methods() */
	char *vlog[NHOOKS][2];
	/* the RDMA pool counters attach once rpcrdma is loaded (see slotscope.bpf.c) */
	struct bpf_link *pool_links[2];
	bool pools_off, pools_tried;
	bool rdma_btf_probed, pool_is_max_reqs;
	/* transports whose inferred RDMA pool was said (key, first_seen) */
	size_t nnoted;
	__u64 noted[64][2];
	struct level_marks marks;
};

static char why_buf[320];

static const char *const probe_modules[] = { "sunrpc", "nfs", "nfsv4", "rpcrdma" };

/*
 * libbpf finds module BTF by id (BPF_BTF_GET_NEXT_ID, BPF_BTF_GET_FD_BY_ID), which only
 * CAP_SYS_ADMIN may do. Without it, CO-RE is given one BTF holding vmlinux's types and the
 * modules' (btf_custom_path: libbpf then looks no further), and the hooks attach by name, which
 * needs no module BTF object. The sysfs files it is made from are readable by anyone.
 */
static int merged_btf(struct engine *e)
{
	struct btf *full = btf_merge_full(e->vmlinux, e->mods, sizeof(e->mods) / sizeof(e->mods[0]));
	const char *raw;
	__u32 size, done = 0;
	int err = 0;

	if (btf_merge_unknown)
		pr_info("%u BTF types of a kind this build does not know were left opaque in the merged "
			"BTF: only a relocation through them would fail\n", btf_merge_unknown);

	if (!full)
		return -errno;
	raw = btf__raw_data(full, &size);
	e->btf_fd = raw ? memfd_create("slotscope-btf", MFD_CLOEXEC) : -1;
	if (e->btf_fd < 0)
		err = raw ? -errno : -ENOMEM;
	while (!err && done < size) {
		ssize_t n = write(e->btf_fd, raw + done, size - done);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			done += (__u32)n;
	}
	btf__free(full);
	if (err)
		return err;
	snprintf(e->btf_path, sizeof(e->btf_path), "/proc/self/fd/%d", e->btf_fd);
	pr_debug("no CAP_SYS_ADMIN: CO-RE against a merged BTF (%u bytes), hooks by name\n", size);
	return 0;
}

const char *hook_method_name(enum hook_method m)
{
	switch (m) {
	case HOOK_TP_BTF: return "tp_btf";
	case HOOK_RAW_TP: return "raw_tp";
	case HOOK_FENTRY: return "fentry";
	case HOOK_KPROBE: return "kprobe";
	default: return "off";
	}
}

const char *limit_source_name(__u32 flags)
{
	if (flags & XF_LIMIT_INFERRED)
		return "inferred";
	if (flags & XF_LIMIT_COUNTED)
		return "counted";
	if (flags & XF_LIMIT_BTF)
		return "btf";
	if (flags & XF_LIMIT_ASSUMED)
		return "assumed";
	return "max_reqs";
}

const char *proto_name(__u32 ident)
{
	switch (ident) {
	case IDENT_TCP: return "tcp";
	case IDENT_UDP: return "udp";
	case IDENT_RDMA: return "rdma";
	default: return "other";
	}
}

static bool btf_has(struct engine *e, const char *name, int kind)
{
	if (e->vmlinux && btf__find_by_name_kind(e->vmlinux, name, kind) > 0)
		return true;
	for (size_t i = 0; i < sizeof(e->mods) / sizeof(e->mods[0]); i++)
		if (e->mods[i] && btf__find_by_name_kind(e->mods[i], name, kind) > 0)
			return true;
	return false;
}

static bool tracefs_has(struct engine *e, const char *tp)
{
	static const char *const dirs[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	static const char *const systems[] = { "sunrpc", "nfs", "nfs4" };
	char path[512];

	for (size_t d = 0; d < 2; d++)
		for (size_t s = 0; s < 3; s++)
			if (root_path(path, sizeof(path), e->o.sysfs_root, "%s/%s/%s", dirs[d],
				      systems[s], tp) == 0 && access(path, F_OK) == 0)
				return true;
	return false;
}

/* One pass over kallsyms: found[i] set for each of @names it lists (a kprobe needs no more). */
static void kallsyms_find(const struct engine *e, const char *const *names, size_t n, bool *found)
{
	char path[512], line[512], sym[256];
	FILE *f;

	if (root_path(path, sizeof(path), e->o.procfs_root, "/proc/kallsyms"))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", sym) != 1)
			continue;
		for (size_t i = 0; i < n; i++)
			if (names[i] && !strcmp(sym, names[i]))
				found[i] = true;
	}
	fclose(f);
}

static bool kallsyms_has(const struct engine *e, const char *fn)
{
	bool found = false;

	kallsyms_find(e, &fn, 1, &found);
	return found;
}

static void probe_hooks(struct engine *e)
{
	const char *funcs[NHOOKS] = { 0 };
	bool found[NHOOKS] = { 0 }, any = false;

	for (size_t i = 0; i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];
		char tname[128];

		if (h->probed)
			continue;
		if (h->kind == TP) {
			snprintf(tname, sizeof(tname), "btf_trace_%s", h->name);
			h->have[0] = btf_has(e, tname, BTF_KIND_TYPEDEF);
			/* tracefs is root's only: a btf_trace_ typedef proves the tracepoint too */
			h->have[1] = h->have[0] || tracefs_has(e, h->name);
		} else {
			h->have[0] = btf_has(e, h->name, BTF_KIND_FUNC);
			funcs[i] = h->name;
			any = true;
		}
		h->probed = true;
	}
	if (!any)
		return;
	kallsyms_find(e, funcs, e->nhooks, found);
	for (size_t i = 0; i < e->nhooks; i++)
		if (funcs[i])
			e->hooks[i].have[1] = found[i];
}

/* A variant of @h the kernel offers and the verifier has not refused; -1: none. */
static int pick_variant(const struct engine *e, const struct hook *h)
{
	for (int v = 0; v < 2; v++)
		if (h->have[v] && !(h->refused & (1u << v)) && !(v == 0 && e->o.force_fallback))
			return v;
	return -1;
}

/*
 * The function design when every hook it requires can be attached (and was not refused), else
 * the tracepoints, which every supported kernel has: no kernel is refused for lacking a function.
 */
static enum events choose_events(const struct engine *e)
{
	if (e->o.events_tp)
		return EVENTS_TRACEPOINTS;
	for (size_t i = 0; i < e->nhooks; i++) {
		const struct hook *h = &e->hooks[i];

		if (h->group == G_FN && h->required && pick_variant(e, h) < 0) {
			pr_debug("no %s to hook: waits from the rpc_task_sleep/wakeup tracepoints\n",
				 h->name);
			return EVENTS_TRACEPOINTS;
		}
	}
	return EVENTS_FUNCTIONS;
}

/*
 * Pick one attach method per hook: tp_btf (typed args, cheapest) where the kernel has BTF for the
 * tracepoint, raw_tp where only the tracepoint exists; fentry where the function has BTF, kprobe
 * where it is only in kallsyms. A variant the verifier refused is not picked again, and
 * force_fallback skips the preferred one. Hooks of the design not taken stay unloaded; optional
 * hooks left with nothing stay off; a required one fails the start.
 */
static int choose_methods(struct engine *e)
{
	probe_hooks(e);
	e->events = choose_events(e);
	for (size_t i = 0; i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];
		struct hook_status *st = &e->status[i];
		int pick;

		st->name = h->name;
		st->required = h->required;
		st->in_design = h->group == G_ALL ||
				(h->group == G_FN) == (e->events == EVENTS_FUNCTIONS);
		pick = st->in_design ? pick_variant(e, h) : -1;
		st->method = pick < 0 ? HOOK_OFF : h->kind == TP ? HOOK_TP_BTF + pick : HOOK_FENTRY + pick;
		for (int p = 0; p < 2; p++)
			bpf_program__set_autoload(h->progs[p], p == pick);
		if (pick >= 0) {
			pr_debug("hook %s: %s\n", h->name, hook_method_name(st->method));
			continue;
		}
		if (!st->in_design)
			continue;
		if (h->required) {
			if (h->refused)
				snprintf(why_buf, sizeof(why_buf), "the verifier refused the %s hook (%s); "
					 "run with -v for its log", h->name, h->why);
			else
				snprintf(why_buf, sizeof(why_buf), "this kernel has no %s hook: slotscope "
					 "needs sunrpc's tracepoints (5.9+)", h->name);
			return h->refused ? -EACCES : -ENOENT;
		}
		if (h->said)
			continue;
		h->said = true;
		if (h->refused)
			pr_warn("hook %s refused by the verifier (%s): %s; everything else is measured\n",
				h->name, h->why, h->loses);
		else
			pr_info("hook %s not available on this kernel: %s\n", h->name, h->loses);
	}
	return 0;
}

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

/*
 * BPF atomics with a fetch (xadd returning the old value, cmpxchg, xchg) count a slot exactly
 * when two CPUs change it at once. They came with 5ca419f2864a ("bpf: Add BPF_FETCH field /
 * create atomic_fetch_add instruction") and 5ffa25502b5a ("bpf: Add instructions for
 * atomic_[cmp]xchg"), Linux 5.12; 5.10 rejects them ("BPF_STX uses reserved fields").
 * Probed by loading the smallest program that uses one.
 */
static int probe_atomics(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "slotscope_atom", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return -errno;
}

static void free_probe_btf(struct engine *e);
static void rdma_pool_from_btf(struct engine *e, const struct btf *mod);

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
		/* bpf_for_each_map_elem(): 69c087ba6225 ("bpf: Add bpf_for_each_map_elem() helper"), 5.13 */
		{ "rpc_clnt_free", TP, G_ALL, false,
		  "a client id the kernel reuses for a new mount keeps the mount of the client it was",
		  s->progs.btf_rpc_clnt_free, s->progs.raw_rpc_clnt_free },
	};

	e->nhooks = NHOOKS;
	for (size_t i = 0; i < NHOOKS; i++) {
		struct hook *h = &e->hooks[i];

		/* refused and why outlive the skeleton: they steer the next try */
		h->name = t[i].name;
		h->kind = t[i].kind;
		h->group = t[i].group;
		h->required = t[i].required;
		h->loses = t[i].loses;
		h->progs[0] = t[i].a;
		h->progs[1] = t[i].b;
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

/*
 * Fault injection for the fallback tests, in the test build only (slotscope-faults, made with
 * -DSLOTSCOPE_FAULTS; never installed): SLOTSCOPE_TEST_REFUSE="HOOK[:all],..." makes the
 * preferred variant of HOOK (every variant with :all) one the verifier really refuses, so the
 * refusal is met the way a kernel's would be: a load that fails with a log. One instruction
 * becomes opcode 0, which the verifier refuses before it walks the program ("unknown opcode
 * 00"): a register-to-register ALU or jump, which no relocation patches (libbpf fails a load
 * itself, with no log, when a CO-RE or map relocation meets an instruction of the wrong kind).
 * The count stays, so relocations, made later by instruction index, still land inside it.
 */
#ifdef SLOTSCOPE_FAULTS
static int inject_refusals(struct engine *e)
{
	const char *spec = getenv("SLOTSCOPE_TEST_REFUSE");

	if (spec)
		pr_warn("test build: SLOTSCOPE_TEST_REFUSE=%s makes those hooks refused\n", spec);
	for (size_t i = 0; spec && i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];
		size_t n = strlen(h->name);
		const char *m;

		for (m = strstr(spec, h->name); m; m = strstr(m + 1, h->name))
			if ((m == spec || m[-1] == ',') && (!m[n] || m[n] == ',' || m[n] == ':'))
				break;
		if (!m)
			continue;
		for (int v = 0; v < (strncmp(m + n, ":all", 4) ? 1 : 2); v++) {
			struct bpf_program *p = h->progs[v];
			size_t cnt = bpf_program__insn_cnt(p);
			struct bpf_insn *bad;
			size_t k;
			int err;

			if (!bpf_program__autoload(p) || !cnt)
				continue;
			bad = malloc(cnt * sizeof(*bad));
			if (!bad)
				return -ENOMEM;
			memcpy(bad, bpf_program__insns(p), cnt * sizeof(*bad));
			for (k = 0; k < cnt; k++) {
				__u8 cls = BPF_CLASS(bad[k].code), op = BPF_OP(bad[k].code);

				if (BPF_SRC(bad[k].code) == BPF_X &&
				    (cls == BPF_ALU || cls == BPF_ALU64 ||
				     ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL &&
				      op != BPF_EXIT))) {
					bad[k].code = 0;
					break;
				}
			}
			if (k == cnt)
				bad[0].code = 0;
			err = bpf_program__set_insns(p, bad, cnt);
			free(bad);
			if (err)
				return err;
		}
	}
	return 0;
}
#else
/* the release build: nothing in a caller's environment can turn a hook off */
static int inject_refusals(struct engine *e)
{
	(void)e;
	return 0;
}
#endif

/* one more load of the object; -EAGAIN: a hook was refused, try again with what is left */
/*
 * A loaded fentry program may still not attach: arm64 kernels before ftrace direct calls
 * (2aa6ac03516d "arm64: ftrace: Add direct call support", 6.5) load it and refuse the trampoline
 * with ENOTSUPP. Each is attached once here and let go (nothing counts before armed); one that
 * will not attach is treated as a refused variant, so the hook takes its kprobe.
 */
static int attach_probe(struct engine *e)
{
	bool refused = false;

	for (size_t i = 0; i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];

		for (int v = 0; v < 2; v++) {
			struct bpf_program *p = h->progs[v];
			struct bpf_link *l;

			if (!bpf_program__autoload(p) || bpf_program__type(p) != BPF_PROG_TYPE_TRACING ||
			    bpf_program__expected_attach_type(p) != BPF_TRACE_FENTRY)
				continue;
			l = bpf_program__attach(p);
			if (l) {
				bpf_link__destroy(l);
				continue;
			}
			/* ENOTSUPP (524) is the kernel's own, which strerror() does not know */
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
	int err;

	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = e->btf_fd >= 0 ? e->btf_path : NULL);

	s = e->skel = slotscope_bpf__open_opts(&oo);
	if (!s) {
		snprintf(why_buf, sizeof(why_buf), "cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	add_hooks(e);
	s->bss->rdma_pool_is_max_reqs = e->pool_is_max_reqs;
	err = choose_methods(e);
	/* every hook is probed now: libbpf parses its own copy of vmlinux BTF to load, drop ours */
	free_probe_btf(e);
	if (err)
		return err;
	err = inject_refusals(e);
	if (err)
		return err;
	if (e->o.max_inflight) {
		bpf_map__set_max_entries(s->maps.inflight, e->o.max_inflight);
		bpf_map__set_max_entries(s->maps.waiters, e->o.max_inflight);
	}
	for (size_t i = 0; i < e->nhooks; i++)
		for (int v = 0; v < 2; v++) {
			struct bpf_program *p = e->hooks[i].progs[v];

			if (!bpf_program__autoload(p))
				continue;
			e->vlog[i][v] = calloc(1, VLOG_SIZE);
			if (!e->vlog[i][v] || bpf_program__set_log_buf(p, e->vlog[i][v], VLOG_SIZE))
				return -ENOMEM;
		}
	err = slotscope_bpf__load(s);
	if (!err)
		err = attach_probe(e);
	if (!err)
		return 0;
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
		snprintf(why_buf, sizeof(why_buf), "cannot load the BPF programs: %s: %s",
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

int engine_open(struct engine **out, const struct engine_opts *o, const char **why)
{
	struct engine *e = calloc(1, sizeof(*e));
	char path[512];
	int err;

	*why = why_buf;
	if (!e)
		return -ENOMEM;
	e->btf_fd = -1;
	e->o = *o;
	if (o->no_kprobes) {
		e->o.events_tp = true;
		e->pools_off = true;
	}
	err = probe_atomics();
	if (err == -EINVAL) {
		snprintf(why_buf, sizeof(why_buf), "this kernel's BPF has no atomic fetch-and-add or "
			 "compare-and-exchange, which counting slots exactly needs: Linux 5.12 or newer "
			 "is required (on Debian 11, its 6.1 kernel from bullseye-backports)");
		err = -EOPNOTSUPP;
		goto fail;
	}
	if (err) {
		snprintf(why_buf, sizeof(why_buf), "cannot load a BPF program: %s: slotscope needs "
			 "CAP_BPF and CAP_PERFMON (or root)", strerror(-err));
		goto fail;
	}
	e->vmlinux = btf__load_vmlinux_btf();
	if (!e->vmlinux) {
		err = -errno;
		snprintf(why_buf, sizeof(why_buf), "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): "
			 "slotscope needs CONFIG_DEBUG_INFO_BTF", strerror(-err));
		goto fail;
	}
	for (size_t i = 0; i < sizeof(e->mods) / sizeof(e->mods[0]); i++) {
		if (!root_path(path, sizeof(path), o->sysfs_root, "/sys/kernel/btf/%s",
			       probe_modules[i]))
			e->mods[i] = btf__parse_split(path, e->vmlinux);
		if (!e->mods[i])
			pr_debug("no BTF for module %s\n", probe_modules[i]);
	}
	/* sunrpc may be built in; then its functions are in vmlinux's BTF (its types are anyway) */
	if (!e->mods[0] && btf__find_by_name_kind(e->vmlinux, "xprt_release", BTF_KIND_FUNC) <= 0 &&
	    !kallsyms_has(e, "xprt_release")) {
		err = -ENOENT;
		*why = "sunrpc";
		goto fail;
	}
	/* every handler reads sunrpc's structures through CO-RE: their BTF must be somewhere */
	if (!btf_has(e, "rpc_xprt", BTF_KIND_STRUCT)) {
		err = -ENOENT;
		snprintf(why_buf, sizeof(why_buf), "sunrpc has no BTF (no /sys/kernel/btf/sunrpc): "
			 "slotscope needs CONFIG_DEBUG_INFO_BTF_MODULES, Linux 5.11 or newer");
		goto fail;
	}
	if (e->mods[3])
		rdma_pool_from_btf(e, e->mods[3]);
	if (e->o.no_btf_ids && e->mods[0]) {
		err = merged_btf(e);
		if (err) {
			snprintf(why_buf, sizeof(why_buf), "cannot merge the kernel's BTF for loading "
				 "without CAP_SYS_ADMIN: %s", strerror(-err));
			goto fail;
		}
		e->o.force_fallback = true;
	}
	/* a refused hook costs one more load: at most one per variant */
	for (int tries = 0; tries <= 2 * NHOOKS + 1; tries++) {
		err = load_once(e);
		if (err != -EAGAIN)
			break;
	}
	if (err == -EAGAIN) {
		err = -EACCES;
		snprintf(why_buf, sizeof(why_buf), "the verifier refused more programs than there are "
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
 * rpcrdma's BTF can prove the pool is exactly max_reqs: reply_waits_for_send left struct
 * rpcrdma_stats with "xprtrdma: Decouple req recycling from RPC completion" (6.1.178, 6.12.97),
 * and the pool slack came only later. Without the member nothing is proven (see
 * effective_limit() in slotscope.bpf.c). Also set before the load, into .data.
 */
static void rdma_pool_from_btf(struct engine *e, const struct btf *mod)
{
	const struct btf_type *t;
	int id;

	e->rdma_btf_probed = true;
	id = btf__find_by_name_kind(mod, "rpcrdma_stats", BTF_KIND_STRUCT);
	if (id <= 0)
		return;
	t = btf__type_by_id(mod, id);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(mod, btf_members(t)[i].name_off), "reply_waits_for_send")) {
			pr_debug("rpcrdma request pool: max_reqs (reply_waits_for_send in its BTF)\n");
			e->pool_is_max_reqs = true;
			if (e->skel)
				e->skel->bss->rdma_pool_is_max_reqs = 1;
			return;
		}
}

/*
 * Called at every snapshot until rpcrdma is seen (it may load mid-trace, with the first RDMA
 * mount): its BTF, if any, is probed once, and the pool counters attached. The parsed vmlinux
 * BTF is several MiB, so it is loaded only for this and freed at once.
 */
static void probe_rdma(struct engine *e)
{
	struct slotscope_bpf *s = e->skel;
	struct bpf_program *p[2] = { s->progs.kprobe_rpcrdma_buffer_create,
				     s->progs.kprobe_rpcrdma_req_create };
	struct btf *base, *mod;
	char path[512];

	if (e->pools_tried && e->rdma_btf_probed)
		return;
	if (root_path(path, sizeof(path), e->o.sysfs_root, "/sys/module/rpcrdma") ||
	    access(path, F_OK))
		return;
	if (!e->rdma_btf_probed) {
		e->rdma_btf_probed = true;
		if (root_path(path, sizeof(path), e->o.sysfs_root, "/sys/kernel/btf/rpcrdma") ||
		    access(path, R_OK)) {
			pr_warn("rpcrdma has no BTF: RDMA request pools are counted as a transport is made "
				"(kprobes), else taken as max_reqs and raised if more are ever in use\n");
		} else {
			base = btf__load_vmlinux_btf();
			mod = base ? btf__parse_split(path, base) : NULL;
			if (mod)
				rdma_pool_from_btf(e, mod);
			btf__free(mod);
			btf__free(base);
		}
	}
	if (e->pools_tried || e->pools_off)
		return;
	e->pools_tried = true;
	for (int i = 0; i < 2; i++) {
		e->pool_links[i] = bpf_program__attach(p[i]);
		if (!e->pool_links[i] && (errno == EPERM || errno == EACCES)) {
			/* rpcrdma came after the start: the capabilities to attach are dropped by now */
			pr_info("rpcrdma was loaded after slotscope dropped its capabilities: RDMA request "
				"pools are inferred from use, not counted\n");
			return;
		}
		if (!e->pool_links[i]) {
			pr_info("RDMA request pools not counted (kprobe %s: %s): inferred from use\n",
				bpf_program__name(p[i]) + 7, strerror(errno));
			return;
		}
	}
}

/* The probes are done: libbpf parses its own copy of vmlinux BTF to load, so drop ours first. */
static void free_probe_btf(struct engine *e)
{
	for (size_t i = 0; i < sizeof(e->mods) / sizeof(e->mods[0]); i++) {
		btf__free(e->mods[i]);
		e->mods[i] = NULL;
	}
	btf__free(e->vmlinux);
	e->vmlinux = NULL;
}

int engine_attach(struct engine *e, const char **why)
{
	int err = slotscope_bpf__attach(e->skel);

	if (err) {
		snprintf(why_buf, sizeof(why_buf), "cannot attach the BPF programs: %s: run with -v "
			 "for the details", strerror(-err));
		*why = why_buf;
		return err;
	}
	probe_rdma(e);
	return 0;
}

void engine_arm(struct engine *e)
{
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

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/*
 * A hash map into a growing array of (key, value) records, with BPF_MAP_LOOKUP_BATCH: a syscall
 * per chunk instead of two per entry, which is most of a tick's system time where syscalls are
 * dear (TCG: ~20 us each). Every kernel slotscope runs on has it: hash-map batch ops came with
 * 057996380a42 ("bpf: Add batch ops to all htab bpf map", 5.6), before the xprt_reserve
 * tracepoint slotscope requires (Chuck Lever's July 2020 sunrpc tracing series, 5.9).
 */
static int read_map(int fd, size_t ksz, size_t vsz, size_t koff, size_t voff, size_t rsz,
		    void **arr, size_t *n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	char *keys = NULL, *vals = NULL, *a = NULL;
	/* the kernel's position in the map (a bucket number for hash maps) */
	__u64 token[8] = { 0 };
	size_t chunk = 64, kcap = 0, vcap = 0, cap = 0;
	bool first = true;
	__u32 cnt;
	int err;

	*n = 0;
	*arr = NULL;
	if (koff + ksz > rsz || voff + vsz > rsz)
		return -EINVAL;
	for (;;) {
		if (grow(&keys, &kcap, chunk, ksz, chunk) ||
		    grow(&vals, &vcap, chunk, vsz, chunk)) {
			err = -ENOMEM;
			break;
		}
		cnt = (__u32)chunk;
		err = bpf_map_lookup_batch(fd, first ? NULL : token, token, keys, vals, &cnt, &opts);
		/* a hash bucket holds more entries than the chunk: ask for more at once */
		if (err == -ENOSPC && cnt == 0 && chunk < (1u << 16)) {
			chunk *= 2;
			continue;
		}
		if (err && err != -ENOENT)
			break;
		first = false;
		if (grow(&a, &cap, *n + cnt, rsz, 16)) {
			err = -ENOMEM;
			break;
		}
		for (__u32 i = 0; i < cnt; i++) {
			char *r = a + (*n + i) * rsz;

			memset(r, 0, rsz);
			memcpy(r + koff, keys + (size_t)i * ksz, ksz);
			memcpy(r + voff, vals + (size_t)i * vsz, vsz);
		}
		*n += cnt;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
	}
	free(keys);
	free(vals);
	if (err) {
		free(a);
		*n = 0;
		return err;
	}
	*arr = a;
	return 0;
}

/*
 * The kernel skips a program that fires while it already runs on that CPU (a softirq event
 * landing on a handler in task context): that event is lost to every count, so it is counted.
 */
static __u64 recursion_misses(const struct engine *e, char *who, size_t len)
{
	struct bpf_program *p;
	size_t at = 0;
	__u64 n = 0;

	if (who && len)
		who[0] = 0;
	bpf_object__for_each_program(p, e->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 ilen = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &ilen) || !info.recursion_misses)
			continue;
		n += info.recursion_misses;
		if (who && at < len)
			at += (size_t)snprintf(who + at, len - at, "%s%s %llu", at ? ", " : "",
					       bpf_program__section_name(p),
					       (unsigned long long)info.recursion_misses);
	}
	return n;
}

__u64 engine_misses(const struct engine *e, char *who, size_t len)
{
	return recursion_misses(e, who, len);
}

/* An RDMA pool raised from use is said once per transport: that is how its limit was found. */
static void note_inferred(struct engine *e, const struct snapshot *snap)
{
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_stats *x = &snap->xprts[i].s;
		size_t j;

		if (!(x->flags & XF_LIMIT_INFERRED))
			continue;
		for (j = 0; j < e->nnoted; j++)
			if (e->noted[j][0] == snap->xprts[i].key && e->noted[j][1] == x->first_seen_ns)
				break;
		if (j < e->nnoted)
			continue;
		pr_warn("transport %u (rdma %s): more requests in use than max_reqs %u, so its pool has "
			"slack: limit taken as %u (max_reqs + max_reqs/8, or the most seen in use)\n",
			x->id, x->addr, x->max_reqs, x->limit);
		if (e->nnoted == sizeof(e->noted) / sizeof(e->noted[0]))
			e->nnoted = 0;
		e->noted[e->nnoted][0] = snap->xprts[i].key;
		e->noted[e->nnoted++][1] = x->first_seen_ns;
	}
}

static int mark_cmp(const void *a, const void *b)
{
	const struct level_mark *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->first_seen < y->first_seen ? -1 : x->first_seen > y->first_seen;
}

/*
 * A map value is copied while programs change it: a copy may hold the stretch start from before
 * an event and the level time from after it, counting that stretch twice, or the other way round
 * miss it. Either is one stretch and heals at the next read, but a counter read too high once
 * reads lower next: Prometheus takes that for a reset. The time in a level only grows, so each
 * transport's levels never go below what the last snapshot said.
 */
int level_marks_apply(struct level_marks *m, struct snapshot *snap)
{
	struct level_mark *next = NULL;

	if (snap->nxprts) {
		next = calloc(snap->nxprts, sizeof(*next));
		if (!next)
			return -ENOMEM;
	}
	for (size_t i = 0; i < snap->nxprts; i++) {
		struct xprt_stats *x = &snap->xprts[i].s;
		struct level_mark k = { .key = snap->xprts[i].key, .first_seen = x->first_seen_ns };
		const struct level_mark *old = m->n ? bsearch(&k, m->m, m->n, sizeof(k), mark_cmp) : NULL;

		for (int b = 0; b < LEVEL_BUCKETS && old; b++)
			if (x->level_ns[b] < old->level_ns[b])
				x->level_ns[b] = old->level_ns[b];
		next[i] = k;
		memcpy(next[i].level_ns, x->level_ns, sizeof(next[i].level_ns));
	}
	qsort(next, snap->nxprts, sizeof(*next), mark_cmp);
	free(m->m);
	m->m = next;
	m->n = snap->nxprts;
	return 0;
}

void level_marks_free(struct level_marks *m)
{
	free(m->m);
	m->m = NULL;
	m->n = 0;
}

int engine_snapshot(struct engine *e, struct snapshot *snap)
{
	struct slotscope_bpf *s = e->skel;
	int ncpu = libbpf_num_possible_cpus(), err;
	__u64 *percpu;

	memset(snap, 0, sizeof(*snap));
	probe_rdma(e);
	/* close the interval first: programs now record interval peaks in the other slot */
	snap->epoch = s->bss->epoch;
	__atomic_store_n(&s->bss->epoch, snap->epoch + 1, __ATOMIC_SEQ_CST);
	snap->ts_ns = now_ns();
	err = read_map(bpf_map__fd(s->maps.xprts), sizeof(__u64), sizeof(struct xprt_stats),
		       offsetof(struct xprt_snap, key), offsetof(struct xprt_snap, s),
		       sizeof(struct xprt_snap), (void **)&snap->xprts, &snap->nxprts);
	if (!err)
		err = read_map(bpf_map__fd(s->maps.ops), sizeof(struct op_key), sizeof(struct op_stats),
			       offsetof(struct op_snap, k), offsetof(struct op_snap, s),
			       sizeof(struct op_snap), (void **)&snap->ops, &snap->nops);
	if (!err)
		err = read_map(bpf_map__fd(s->maps.clients), sizeof(__u32), sizeof(struct client_info),
			       offsetof(struct client_snap, clid), offsetof(struct client_snap, ci),
			       sizeof(struct client_snap), (void **)&snap->clients, &snap->nclients);
	if (!err)
		err = read_map(bpf_map__fd(s->maps.sessions), sizeof(__u64), sizeof(struct session_stats),
			       offsetof(struct session_snap, key), offsetof(struct session_snap, s),
			       sizeof(struct session_snap), (void **)&snap->sessions, &snap->nsessions);
	if (err) {
		snapshot_free(snap);
		return err;
	}
	note_inferred(e, snap);
	/* the current stretch has not been closed by an event yet: add it up to now */
	for (size_t i = 0; i < snap->nxprts; i++) {
		struct xprt_stats *x = &snap->xprts[i].s;
		__u64 end = x->destroyed_ns ? x->destroyed_ns : snap->ts_ns;
		__s32 lvl = x->in_use > 0 ? x->in_use : 0;

		if (end > x->last_change_ns)
			x->level_ns[level_bucket((unsigned int)lvl, x->limit)] += end - x->last_change_ns;
	}
	err = level_marks_apply(&e->marks, snap);
	if (err) {
		snapshot_free(snap);
		return err;
	}
	/* a failed count of CPUs must not size the buffer the kernel writes a value per CPU into */
	if (ncpu <= 0) {
		snapshot_free(snap);
		return ncpu < 0 ? ncpu : -EINVAL;
	}
	percpu = calloc(ncpu, sizeof(__u64));
	if (!percpu) {
		snapshot_free(snap);
		return -ENOMEM;
	}
	for (__u32 c = 0; c < COUNTERS; c++) {
		if (bpf_map_lookup_elem(bpf_map__fd(s->maps.counters), &c, percpu))
			continue;
		for (int cpu = 0; cpu < ncpu; cpu++)
			snap->counters[c] += percpu[cpu];
	}
	free(percpu);
	snap->counters[CNT_RECURSION_MISSES] = recursion_misses(e, NULL, 0);
	return 0;
}

static bool reaped(const struct snapshot *snap, const bool *dead, __u64 key)
{
	for (size_t i = 0; i < snap->nxprts; i++)
		if (dead[i] && snap->xprts[i].key == key)
			return true;
	return false;
}

/*
 * Transports destroyed by @snap's time go, with everything that refers to them: their ops, the
 * sessions whose main transport they were, and the clients seen only on them. Their last
 * numbers were in the views made from @snap. An entry is deleted only if it is still the one
 * @snap saw (a new transport may have taken the address since).
 */
int engine_reap(struct engine *e, const struct snapshot *snap, size_t *nreaped)
{
	int xfd = bpf_map__fd(e->skel->maps.xprts);
	struct xprt_stats now;
	bool *dead;
	size_t n = 0;

	*nreaped = 0;
	if (!snap->nxprts)
		return 0;
	dead = calloc(snap->nxprts, sizeof(*dead));
	if (!dead)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nxprts; i++) {
		const struct xprt_snap *x = &snap->xprts[i];

		if (!(x->s.flags & XF_DESTROYED) || bpf_map_lookup_elem(xfd, &x->key, &now) ||
		    now.first_seen_ns != x->s.first_seen_ns)
			continue;
		dead[i] = !bpf_map_delete_elem(xfd, &x->key);
		n += dead[i];
	}
	for (size_t i = 0; n && i < snap->nops; i++) {
		const struct op_snap *o = &snap->ops[i];
		bool live = false;

		if (!reaped(snap, dead, o->k.xprt))
			continue;
		bpf_map_delete_elem(bpf_map__fd(e->skel->maps.ops), &o->k);
		/* a client with ops on a transport still there stays */
		for (size_t j = 0; j < snap->nops && !live; j++)
			live = snap->ops[j].k.clid == o->k.clid && !reaped(snap, dead, snap->ops[j].k.xprt);
		if (!live)
			bpf_map_delete_elem(bpf_map__fd(e->skel->maps.clients), &o->k.clid);
	}
	for (size_t i = 0; n && i < snap->nsessions; i++)
		if (reaped(snap, dead, snap->sessions[i].s.xprt))
			bpf_map_delete_elem(bpf_map__fd(e->skel->maps.sessions), &snap->sessions[i].key);
	free(dead);
	*nreaped = n;
	return 0;
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(e->pool_links[i]);
	slotscope_bpf__destroy(e->skel);
	free_vlogs(e);
	level_marks_free(&e->marks);
	if (e->btf_fd >= 0)
		close(e->btf_fd);
	for (size_t i = 0; i < sizeof(e->mods) / sizeof(e->mods[0]); i++)
		btf__free(e->mods[i]);
	btf__free(e->vmlinux);
	free(e);
}

void snapshot_free(struct snapshot *snap)
{
	free(snap->xprts);
	free(snap->ops);
	free(snap->clients);
	free(snap->sessions);
	memset(snap, 0, sizeof(*snap));
}

static int dup_array(void **dst, const void *src, size_t n, size_t size)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = malloc(n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n * size);
	return 0;
}

int snapshot_dup(struct snapshot *dst, const struct snapshot *src)
{
	*dst = *src;
	if (dup_array((void **)&dst->xprts, src->xprts, src->nxprts, sizeof(*src->xprts)) ||
	    dup_array((void **)&dst->ops, src->ops, src->nops, sizeof(*src->ops)) ||
	    dup_array((void **)&dst->clients, src->clients, src->nclients, sizeof(*src->clients)) ||
	    dup_array((void **)&dst->sessions, src->sessions, src->nsessions, sizeof(*src->sessions))) {
		snapshot_free(dst);
		return -ENOMEM;
	}
	return 0;
}

const struct xprt_snap *snapshot_find_xprt(const struct snapshot *s, __u64 key, __u64 first_seen)
{
	for (size_t i = 0; i < s->nxprts; i++)
		if (s->xprts[i].key == key && s->xprts[i].s.first_seen_ns == first_seen)
			return &s->xprts[i];
	return NULL;
}

const struct op_snap *snapshot_find_op(const struct snapshot *s, const struct op_key *k)
{
	for (size_t i = 0; i < s->nops; i++)
		if (!memcmp(&s->ops[i].k, k, sizeof(*k)))
			return &s->ops[i];
	return NULL;
}
