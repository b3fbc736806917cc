// SPDX-License-Identifier: GPL-2.0
/* What the kernel offers the hooks: BTF, tracefs, kallsyms, rpcrdma's pool. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "engine/btfmerge.h"
#include "engine/engine_int.h"
#include "lib/log.h"
#include "lib/util.h"

/*
 * libbpf finds module BTF by id (BPF_BTF_GET_NEXT_ID, BPF_BTF_GET_FD_BY_ID), which only
 * CAP_SYS_ADMIN may do. Without it, CO-RE is given one BTF holding vmlinux's types and the
 * modules' (btf_custom_path: libbpf then looks no further), and the hooks attach by name, which
 * needs no module BTF object. The sysfs files it is made from are readable by anyone. The same
 * for a module whose BTF the kernel did not publish (modbtf.c): nothing to attach by id.
 */
int merged_btf(struct engine *e)
{
	bool shadow[NMODS];
	struct btf *full;
	const char *raw;
	__u32 size, done = 0;
	int err = 0;

	for (size_t i = 0; i < NMODS; i++)
		shadow[i] = e->mod_src[i] != MOD_BTF_KERNEL;
	full = btf_merge_full(e->vmlinux, e->mods, NMODS, shadow);

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
	case HOOK_FEXIT: return "fexit";
	case HOOK_KRETPROBE: return "kretprobe";
	default: return "off";
	}
}

bool btf_has(struct engine *e, const char *name, int kind)
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
struct sym_query {
	const char *const *names;
	size_t n;
	bool *found;
};

static int parse_kallsyms(FILE *f, void *arg)
{
	const struct sym_query *q = arg;
	char line[512], sym[256];

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", sym) != 1)
			continue;
		for (size_t i = 0; i < q->n; i++)
			if (q->names[i] && !strcmp(sym, q->names[i]))
				q->found[i] = true;
	}
	return 0;
}

static void kallsyms_find(const struct engine *e, const char *const *names, size_t n, bool *found)
{
	struct sym_query q = { names, n, found };

	/* unreadable: nothing found, and the hooks that need it stay off */
	root_parse(parse_kallsyms, &q, e->o.procfs_root, "/proc/kallsyms");
}

bool kallsyms_has(const struct engine *e, const char *fn)
{
	bool found = false;

	kallsyms_find(e, &fn, 1, &found);
	return found;
}

/*
 * A hook whose prototype differs from what its program reads has no variant; one with no
 * prototype at all is unproven where a module's BTF was not the kernel's (made from DWARF or
 * given), and is left off there too.
 */
static void prove_args(struct engine *e, struct hook *h)
{
	int r = -1;

	if (!h->args || (!h->have[0] && !h->have[1]) || h->args_differ)
		return;
	for (size_t i = 0; r < 0 && i < NMODS; i++)
		if (e->mods[i])
			r = hook_args_check(e->mods[i], h);
	if (r < 0 && e->vmlinux)
		r = hook_args_check(e->vmlinux, h);
	if (r < 0 && engine_btf_made(e)) {
		snprintf(h->why, sizeof(h->why), "no prototype of %s in the BTF made for its module", h->name);
		r = 0;
	}
	if (r == 0) {
		pr_debug("hook %s left off: %s\n", h->name, h->why);
		h->args_differ = true;
		h->have[0] = h->have[1] = false;
	}
}

/*
 * Functions a later kernel renamed, their prototypes kept: each is hooked under the name the
 * running kernel's BTF has. vmlinux's open by path was do_filp_open() until "rename
 * do_filp_open() to do_file_open()" (Al Viro, 7.0).
 */
static const char *const renamed[][2] = {
	{ "do_filp_open", "do_file_open" },
};

static void rename_hook(struct engine *e, struct hook *h)
{
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(h->name, renamed[i][0]) && !btf_has(e, h->name, BTF_KIND_FUNC) &&
		    btf_has(e, renamed[i][1], BTF_KIND_FUNC))
			h->name = h->renamed = renamed[i][1];
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
			rename_hook(e, h);
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
			e->hooks[i].have[1] = found[i] && e->hooks[i].progs[1];
	for (size_t i = 0; i < e->nhooks; i++)
		prove_args(e, &e->hooks[i]);
}

/*
 * A variant of @h the kernel offers and the verifier has not refused; -1: none. A kprobe is none
 * when perf_event_open is refused us (no_kprobes): the tracepoint design's hooks do without, a
 * function hook of both designs (NFS's file I/O) is left off.
 */
static int pick_variant(const struct engine *e, const struct hook *h)
{
	/*
	 * the fallback is forced for the module's hooks (no module BTF by id without CAP_SYS_ADMIN,
	 * or asked); vmlinux's own functions (the VFS's) are attached by their vmlinux BTF id
	 */
	bool forced = e->o.force_fallback && h->group != G_JOBS_VFS && h->group != G_JOBS_VFS_CTX;

	for (int v = 0; v < 2; v++)
		if (h->have[v] && !(h->refused & (1u << v)) && !(v == 0 && forced) &&
		    !(v == 0 && h->kind != TP && e->no_trampoline) &&
		    !(v == 1 && h->kind != TP && e->o.no_kprobes))
			return v;
	return -1;
}

/* a jobs hook of the write direction (nfs_file_write, vfs_write, vfs_writev) */
static bool is_write(const struct hook *h)
{
	return strstr(h->name, "write") != NULL;
}

/* vmlinux's vfs_write (@write) or vfs_read can be hooked by fexit */
static bool vfs_fexit(const struct engine *e, bool write)
{
	for (size_t i = 0; i < e->nhooks; i++)
		if (e->hooks[i].group == G_JOBS_VFS && !strcmp(e->hooks[i].name, write ? "vfs_write" : "vfs_read"))
			return pick_variant(e, &e->hooks[i]) == 0;
	return false;
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
int choose_methods(struct engine *e)
{
	bool nfs_jobs[2] = { false, false };	/* NFS's own write, read hooked: the VFS's not needed */
	bool nfs_ctx = false;			/* NFS's own context births hooked: the open's not needed */

	probe_hooks(e);
	e->events = choose_events(e);
	for (size_t i = 0; i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];
		struct hook_status *st = &e->status[i];
		int pick;

		st->name = h->name;
		st->required = h->required;
		st->in_design = h->group == G_ALL ||
				((h->group == G_JOBS || h->group == G_JOBS_CTX) && !e->o.no_jobs) ||
				(h->group == G_FN && e->events == EVENTS_FUNCTIONS) ||
				(h->group == G_TP && e->events == EVENTS_TRACEPOINTS) ||
				(h->group == G_JOBS_VFS && !e->o.no_jobs && !nfs_jobs[is_write(h)]) ||
				(h->group == G_JOBS_VFS_CTX && !e->o.no_jobs && !nfs_ctx);
		pick = st->in_design ? pick_variant(e, h) : -1;
		/*
		 * A kretprobe sees the returns of at most max(10, 2 x CPUs) calls at once (the
		 * kernel's maxactive): writers beyond that would go uncounted. vmlinux's fexit has
		 * no such bound, so it is taken over the kretprobe unless the fallback was asked for.
		 */
		if (pick == 1 && h->group == G_JOBS && !e->fallback_asked && vfs_fexit(e, is_write(h))) {
			pr_debug("hook %s: through the VFS's fexit rather than a kretprobe\n", h->name);
			for (int p = 0; p < 2; p++)
				bpf_program__set_autoload(h->progs[p], false);
			if (h->with[1])
				bpf_program__set_autoload(h->with[1], false);
			st->method = HOOK_OFF;
			continue;
		}
		/* the program's section names the function by our name: the kernel's is attached */
		if (pick == 0 && h->renamed) {
			int err = bpf_program__set_attach_target(h->progs[0], 0, h->renamed);

			if (err) {
				pr_warn("hook %s left off: cannot aim its program at it: %s\n", h->name,
					strerror(-err));
				pick = -1;
			}
		}
		if (pick >= 0 && h->group == G_JOBS)
			nfs_jobs[is_write(h)] = true;
		if (pick >= 0 && h->group == G_JOBS_CTX)
			nfs_ctx = true;
		st->method = pick < 0 ? HOOK_OFF : h->kind == TP ? HOOK_TP_BTF + pick :
			     h->kind == FUNC ? HOOK_FENTRY + pick : HOOK_FEXIT + pick;
		for (int p = 0; p < 2; p++) {
			if (h->progs[p])
				bpf_program__set_autoload(h->progs[p], p == pick);
			if (h->with[p])
				bpf_program__set_autoload(h->with[p], p == pick);
		}
		if (pick >= 0) {
			pr_debug("hook %s: %s\n", h->name, hook_method_name(st->method));
			continue;
		}
		if (!st->in_design)
			continue;
		if (h->required) {
			if (h->args_differ)
				snprintf(e->why, e->whylen, "the %s hook cannot be proven (%s): slotscope does "
					 "not count from arguments it cannot prove", h->name, h->why);
			else if (h->refused)
				snprintf(e->why, e->whylen, "the verifier refused the %s hook (%s); "
					 "run with -v for its log", h->name, h->why);
			else
				snprintf(e->why, e->whylen, "this kernel has no %s hook: slotscope "
					 "needs sunrpc's tracepoints (5.9+)", h->name);
			return h->refused ? -EACCES : h->args_differ ? -EPROTO : -ENOENT;
		}
		if (h->said)
			continue;
		h->said = true;
		if (h->refused)
			pr_warn("hook %s refused by the verifier (%s): %s; everything else is measured\n",
				h->name, h->why, h->loses);
		else if (h->args_differ)
			pr_warn("hook %s left off, its arguments not proven (%s): %s\n", h->name, h->why,
				h->loses);
		else
			pr_info("hook %s not available on this kernel: %s\n", h->name, h->loses);
	}
	return 0;
}

/*
 * BPF atomics with a fetch (xadd returning the old value, cmpxchg, xchg) count a slot exactly
 * when two CPUs change it at once. They came with 5ca419f2864a ("bpf: Add BPF_FETCH field /
 * create atomic_fetch_add instruction") and 5ffa25502b5a ("bpf: Add instructions for
 * atomic_[cmp]xchg"), Linux 5.12; 5.10 rejects them ("BPF_STX uses reserved fields").
 * Probed by loading the smallest program that uses one.
 */
int probe_atomics(void)
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

/*
 * Whether this kernel can attach a BPF trampoline (fentry, fexit) at all. arm64 attaches none
 * before ftrace direct calls (2aa6ac03516d "arm64: ftrace: Add direct call support", 6.5): Debian's
 * arm64 6.1 verifies an fentry program and refuses its attach with ENOTSUPP. Found with the smallest fentry program on
 * vmlinux's vfs_write (a function every kernel has and the jobs hooks may take), so the one
 * object load takes every hook's fallback rather than verifying the fentry variants to have
 * their attach refused (a whole second load: ~30 s of slotscope's start on arm64 under
 * emulation). Only ENOTSUPP decides; any other failure (no CAP_SYS_ADMIN, no vfs_write in BTF)
 * leaves the attach itself to say (attach_probe() in engine_load.c).
 */
void probe_trampoline(struct engine *e)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = e->vmlinux ? btf__find_by_name_kind(e->vmlinux, "vfs_write", BTF_KIND_FUNC) : -1;
	int fd, link;

	if (id <= 0)
		return;
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = (__u32)id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "slotscope_tramp", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &po);
	if (fd < 0)
		return;
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0 && errno == 524) {
		e->no_trampoline = true;
		pr_info("no BPF trampoline on this kernel (fentry attach: ENOTSUPP): the function "
			"hooks attach by kprobe\n");
	}
	if (link >= 0)
		close(link);
	close(fd);
}

/*
 * rpcrdma's BTF can prove the pool is exactly max_reqs: reply_waits_for_send left struct
 * rpcrdma_stats with "xprtrdma: Decouple req recycling from RPC completion" (6.1.178, 6.12.97),
 * and the pool slack came only later. Without the member nothing is proven (see
 * effective_limit() in slotscope.bpf.c). Also set before the load, into .data.
 */
void rdma_pool_from_btf(struct engine *e, const struct btf *mod)
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
 * Called at attach and before every snapshot until rpcrdma is seen (engine_modules_arrived()):
 * its BTF, if any, is probed once, and the pool counters attached. The parsed vmlinux BTF is
 * several MiB, so it is loaded only for this and freed at once.
 */
void probe_rdma(struct engine *e)
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
			/* the parse's megabytes were heap blocks after the load (run.c, heap_for()): give them back */
			malloc_trim(0);
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
void free_probe_btf(struct engine *e)
{
	for (size_t i = 0; i < sizeof(e->mods) / sizeof(e->mods[0]); i++) {
		btf__free(e->mods[i]);
		e->mods[i] = NULL;
	}
	btf__free(e->vmlinux);
	e->vmlinux = NULL;
}

void engine_modules_arrived(struct engine *e)
{
	probe_rdma(e);
}
