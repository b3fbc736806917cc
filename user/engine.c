// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "engine.h"
#include "slotscope.skel.h"
#include "log.h"

/* Where each hook lives; tracepoints are probed by their btf_trace_<name> typedef. */
enum hook_kind { TP, FUNC };

struct hook {
	const char *name;
	enum hook_kind kind;
	bool required;
	struct bpf_program *progs[2];	/* tp_btf/raw_tp or fentry/kprobe */
};

struct engine {
	struct slotscope_bpf *skel;
	struct engine_opts o;
	struct btf *vmlinux;
	struct btf *mods[4];
	size_t nhooks;
	struct hook hooks[16];
	struct hook_status status[16];
};

static const char *const probe_modules[] = { "sunrpc", "nfs", "nfsv4", "rpcrdma" };

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

const char *proto_name(__u32 ident)
{
	switch (ident) {
	case IDENT_TCP: return "tcp";
	case IDENT_UDP: return "udp";
	case IDENT_RDMA: return "rdma";
	default: return "other";
	}
}

static char *rooted(const char *root, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", root && strcmp(root, "/") ? root : "", path);
	return buf;
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
	char rel[256], path[512];

	for (size_t d = 0; d < 2; d++)
		for (size_t s = 0; s < 3; s++) {
			snprintf(rel, sizeof(rel), "%s/%s/%s", dirs[d], systems[s], tp);
			if (access(rooted(e->o.sysfs_root, rel, path, sizeof(path)), F_OK) == 0)
				return true;
		}
	return false;
}

static bool kallsyms_has(struct engine *e, const char *fn)
{
	char path[512], line[512], sym[256];
	bool found = false;
	FILE *f = fopen(rooted(e->o.procfs_root, "/proc/kallsyms", path, sizeof(path)), "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && strcmp(sym, fn) == 0;
	fclose(f);
	return found;
}

static void add_hook(struct engine *e, const char *name, enum hook_kind kind, bool required,
		     struct bpf_program *a, struct bpf_program *b)
{
	struct hook *h = &e->hooks[e->nhooks++];

	h->name = name;
	h->kind = kind;
	h->required = required;
	h->progs[0] = a;
	h->progs[1] = b;
}

/*
 * Pick one attach method per hook: tp_btf (typed args, cheapest) where the kernel has BTF for the
 * tracepoint, raw_tp where only the tracepoint exists; fentry where the function has BTF, kprobe
 * where it is only in kallsyms. Hooks that exist nowhere stay off; required ones fail the start.
 */
static int choose_methods(struct engine *e, const char **why)
{
	for (size_t i = 0; i < e->nhooks; i++) {
		struct hook *h = &e->hooks[i];
		struct hook_status *st = &e->status[i];
		char tname[128];
		int pick = -1;

		st->name = h->name;
		st->required = h->required;
		if (h->kind == TP) {
			snprintf(tname, sizeof(tname), "btf_trace_%s", h->name);
			if (btf_has(e, tname, BTF_KIND_TYPEDEF))
				pick = 0, st->method = HOOK_TP_BTF;
			else if (tracefs_has(e, h->name))
				pick = 1, st->method = HOOK_RAW_TP;
		} else {
			if (btf_has(e, h->name, BTF_KIND_FUNC))
				pick = 0, st->method = HOOK_FENTRY;
			else if (kallsyms_has(e, h->name))
				pick = 1, st->method = HOOK_KPROBE;
		}
		for (int p = 0; p < 2; p++)
			bpf_program__set_autoload(h->progs[p], p == pick);
		if (pick < 0) {
			st->method = HOOK_OFF;
			if (h->required) {
				*why = h->name;
				return -ENOENT;
			}
			pr_info("hook %s not available on this kernel: left off\n", h->name);
		} else {
			pr_debug("hook %s: %s\n", h->name, hook_method_name(st->method));
		}
	}
	return 0;
}

static void free_probe_btf(struct engine *e);

int engine_open(struct engine **out, const struct engine_opts *o, const char **why)
{
	struct engine *e = calloc(1, sizeof(*e));
	struct slotscope_bpf *s;
	char path[512], rel[128];
	int err;

	if (!e)
		return -ENOMEM;
	e->o = *o;
	e->vmlinux = btf__load_vmlinux_btf();
	if (!e->vmlinux) {
		err = -errno;
		*why = "kernel BTF (/sys/kernel/btf/vmlinux)";
		goto fail;
	}
	for (size_t i = 0; i < sizeof(probe_modules) / sizeof(probe_modules[0]); i++) {
		snprintf(rel, sizeof(rel), "/sys/kernel/btf/%s", probe_modules[i]);
		e->mods[i] = btf__parse_split(rooted(o->sysfs_root, rel, path, sizeof(path)), e->vmlinux);
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
	s = e->skel = slotscope_bpf__open();
	if (!s) {
		err = -errno;
		*why = "open BPF object";
		goto fail;
	}
	add_hook(e, "xprt_reserve", TP, true, s->progs.btf_xprt_reserve, s->progs.raw_xprt_reserve);
	add_hook(e, "xprt_release", FUNC, true, s->progs.fentry_xprt_release, s->progs.kprobe_xprt_release);
	add_hook(e, "rpc_task_sleep", TP, true, s->progs.btf_rpc_task_sleep, s->progs.raw_rpc_task_sleep);
	add_hook(e, "rpc_task_wakeup", TP, true, s->progs.btf_rpc_task_wakeup, s->progs.raw_rpc_task_wakeup);
	add_hook(e, "rpc_stats_latency", TP, true, s->progs.btf_rpc_stats_latency,
		 s->progs.raw_rpc_stats_latency);
	add_hook(e, "xprt_create", TP, false, s->progs.btf_xprt_create, s->progs.raw_xprt_create);
	add_hook(e, "xprt_destroy", TP, false, s->progs.btf_xprt_destroy, s->progs.raw_xprt_destroy);
	add_hook(e, "nfs4_setup_sequence", TP, false, s->progs.btf_nfs4_setup_sequence,
		 s->progs.raw_nfs4_setup_sequence);
	add_hook(e, "nfs4_sequence_done", TP, false, s->progs.btf_nfs4_sequence_done,
		 s->progs.raw_nfs4_sequence_done);
	err = choose_methods(e, why);
	if (err)
		goto fail;
	if (o->max_inflight) {
		bpf_map__set_max_entries(s->maps.inflight, o->max_inflight);
		bpf_map__set_max_entries(s->maps.waiters, o->max_inflight);
	}
	free_probe_btf(e);
	err = slotscope_bpf__load(s);
	if (err) {
		*why = "load BPF programs";
		goto fail;
	}
	*out = e;
	return 0;
fail:
	engine_close(e);
	return err;
}

/*
 * The RDMA request pool has max_reqs + max_reqs/8 entries on kernels with "xprtrdma: Decouple
 * RPC completion from Send completion" (May 2026), which also dropped reply_waits_for_send from
 * struct rpcrdma_stats: that member is the probe. Unknown until rpcrdma's BTF is there.
 */
static void rdma_slack_from(struct engine *e, const struct btf *mod)
{
	const struct btf_type *t;
	int id;

	id = btf__find_by_name_kind(mod, "rpcrdma_stats", BTF_KIND_STRUCT);
	if (id <= 0)
		return;
	t = btf__type_by_id(mod, id);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(mod, btf_members(t)[i].name_off), "reply_waits_for_send")) {
			e->skel->data->rdma_slack_shift = SLACK_NONE;
			return;
		}
	e->skel->data->rdma_slack_shift = 3;
	pr_debug("rpcrdma request pool: max_reqs + max_reqs/8\n");
}

/*
 * Called at every snapshot until rpcrdma's BTF is there (the module may load mid-trace). The
 * parsed vmlinux BTF is several MiB, so it is loaded only for this and freed at once.
 */
static void probe_rdma_slack(struct engine *e)
{
	struct btf *base, *mod;
	char path[512];

	if (e->skel->data->rdma_slack_shift != SLACK_UNKNOWN)
		return;
	rooted(e->o.sysfs_root, "/sys/kernel/btf/rpcrdma", path, sizeof(path));
	if (access(path, R_OK))
		return;
	base = btf__load_vmlinux_btf();
	mod = base ? btf__parse_split(path, base) : NULL;
	if (mod)
		rdma_slack_from(e, mod);
	btf__free(mod);
	btf__free(base);
}

/* The probes are done: libbpf parses its own copy of vmlinux BTF to load, so drop ours first. */
static void free_probe_btf(struct engine *e)
{
	if (e->mods[3] && e->skel->data->rdma_slack_shift == SLACK_UNKNOWN)
		rdma_slack_from(e, e->mods[3]);
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
		*why = "attach BPF programs";
		return err;
	}
	probe_rdma_slack(e);
	return 0;
}

void engine_arm(struct engine *e)
{
	__atomic_store_n(&e->skel->bss->armed, 1, __ATOMIC_SEQ_CST);
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
	__u32 chunk = 0, want = 64, cnt;
	/* the kernel's position in the map (a bucket number for hash maps) */
	__u64 token[8] = { 0 };
	size_t cap = 0;
	bool first = true;
	int err;

	*n = 0;
	*arr = NULL;
	if (koff + ksz > rsz || voff + vsz > rsz)
		return -EINVAL;
	for (;;) {
		if (want != chunk) {
			char *nk = realloc(keys, (size_t)want * ksz), *nv;

			if (nk)
				keys = nk;
			nv = nk ? realloc(vals, (size_t)want * vsz) : NULL;
			if (!nv) {
				err = -ENOMEM;
				break;
			}
			vals = nv;
			chunk = want;
		}
		cnt = chunk;
		err = bpf_map_lookup_batch(fd, first ? NULL : token, token, keys, vals, &cnt, &opts);
		/* a hash bucket holds more entries than the chunk: ask for more at once */
		if (err == -ENOSPC && cnt == 0 && chunk < (1u << 16)) {
			want = chunk * 2;
			continue;
		}
		if (err && err != -ENOENT)
			break;
		first = false;
		if (*n + cnt > cap) {
			size_t c = cap ? cap : 16;
			char *na;

			while (c < *n + cnt)
				c *= 2;
			na = realloc(a, c * rsz);
			if (!na) {
				err = -ENOMEM;
				break;
			}
			a = na;
			cap = c;
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

int engine_snapshot(struct engine *e, struct snapshot *snap)
{
	struct slotscope_bpf *s = e->skel;
	int ncpu = libbpf_num_possible_cpus(), err;
	__u64 *percpu;

	memset(snap, 0, sizeof(*snap));
	probe_rdma_slack(e);
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
	/* the current stretch has not been closed by an event yet: add it up to now */
	for (size_t i = 0; i < snap->nxprts; i++) {
		struct xprt_stats *x = &snap->xprts[i].s;
		__u64 end = x->destroyed_ns ? x->destroyed_ns : snap->ts_ns;
		__s32 lvl = x->in_use > 0 ? x->in_use : 0;

		if (end > x->last_change_ns)
			x->level_ns[level_bucket((unsigned int)lvl, x->limit)] += end - x->last_change_ns;
	}
	percpu = calloc(ncpu > 0 ? ncpu : 1, sizeof(__u64));
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
	return 0;
}

void engine_reap(struct engine *e, const struct snapshot *snap)
{
	for (size_t i = 0; i < snap->nxprts; i++)
		if (snap->xprts[i].s.flags & XF_DESTROYED)
			bpf_map_delete_elem(bpf_map__fd(e->skel->maps.xprts), &snap->xprts[i].key);
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	slotscope_bpf__destroy(e->skel);
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
