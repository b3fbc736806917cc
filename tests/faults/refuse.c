// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include "engine/engine_int.h"
#include "lib/log.h"

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
int engine_inject_refusals(struct engine *e)
{
	const char *spec = getenv("SLOTSCOPE_TEST_REFUSE");
	const char *xs = getenv("SLOTSCOPE_TEST_XPRT_SLOTS"), *os = getenv("SLOTSCOPE_TEST_OP_SLOTS");
	const char *js = getenv("SLOTSCOPE_TEST_JOBIO"), *cm = getenv("SLOTSCOPE_TEST_CLAIM_MEETS");

	/*
	 * Fewer transport slots (a power of two: ids alias, and all but one transport of a slot
	 * live in the hash) and fewer per-CPU op slots (the ops past them count atomically in
	 * their own entry; reaped ones give theirs back): the paths a large machine takes.
	 */
	if (xs) {
		e->skel->rodata->xprt_slot_mask = (__u32)strtoul(xs, NULL, 0) - 1;
		pr_warn("test build: %s transport slots\n", xs);
	}
	/*
	 * A transport slot's claim left unpublished until that many events have met it: the path
	 * of a CPU that finds another's claim, taken by a transport's first events on every CPU
	 */
	if (cm) {
		e->skel->rodata->claim_meets = (__u32)strtoul(cm, NULL, 0);
		pr_warn("test build: a transport's entry published after %s events met its claim\n", cm);
	}
	/* a smaller job map: the crowding a node's 16,384 (cgroup, mount, direction) meet, sooner */
	if (js) {
		int err = bpf_map__set_max_entries(e->skel->maps.jobio, (__u32)strtoul(js, NULL, 0));

		if (err)
			return err;
		pr_warn("test build: a job map of %s entries\n", js);
	}
	if (os && (__u32)strtoul(os, NULL, 0) <= e->op_slots) {
		e->op_slots = (__u32)strtoul(os, NULL, 0);
		e->skel->rodata->op_slots = e->op_slots;
		pr_warn("test build: %u per-CPU op slots\n", e->op_slots);
	}

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
