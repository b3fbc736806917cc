// SPDX-License-Identifier: GPL-2.0
/*
 * jitlines (in the VM, `make bench-insn-lines`): every loaded BPF program's JIT image and the
 * source line each part of it came from, for bench/insn-lines.py to put the insncount plugin's
 * per-block counts on source lines. Debian's bpftool is built without a disassembler, so its
 * `dump jited linum` prints nothing; the kernel gives the same facts to any caller of
 * BPF_OBJ_GET_INFO_BY_FD: the image (jited_prog_insns), where each function of it starts and how
 * long it is (jited_ksyms, jited_func_lens), and the address each line_info record was JITed
 * to (jited_line_info). Lines:
 *
 *   JF <address> <length> <program name>      a function of the program (its main one, then subprograms)
 *   JX <address> <the function's bytes, in hex>
 *   JL <address> <file>:<line> <source text>
 *
 * Built static: the VM image has no libbpf of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

struct prog_dump {
	struct bpf_prog_info info;
	unsigned char *image;
	__u64 *ksyms;
	__u32 *func_lens;
	struct bpf_line_info *lines;
	__u64 *jited_lines;
};

static void dump_free(struct prog_dump *d)
{
	free(d->image);
	free(d->ksyms);
	free(d->func_lens);
	free(d->lines);
	free(d->jited_lines);
}

/* the second call fills the arrays the first one sized */
static int dump_get(int fd, struct prog_dump *d)
{
	struct bpf_prog_info a = {}, *b = &d->info;
	__u32 len = sizeof(a);

	memset(d, 0, sizeof(*d));
	if (bpf_obj_get_info_by_fd(fd, &a, &len))
		return -errno;
	if (!a.jited_prog_len)
		return -ENOENT;
	d->image = calloc(1, a.jited_prog_len);
	d->ksyms = calloc(a.nr_jited_ksyms + 1, sizeof(*d->ksyms));
	d->func_lens = calloc(a.nr_jited_func_lens + 1, sizeof(*d->func_lens));
	d->lines = calloc(a.nr_line_info + 1, sizeof(*d->lines));
	d->jited_lines = calloc(a.nr_jited_line_info + 1, sizeof(*d->jited_lines));
	if (!d->image || !d->ksyms || !d->func_lens || !d->lines || !d->jited_lines)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	b->jited_prog_len = a.jited_prog_len;
	b->jited_prog_insns = (__u64)(unsigned long)d->image;
	b->nr_jited_ksyms = a.nr_jited_ksyms;
	b->jited_ksyms = (__u64)(unsigned long)d->ksyms;
	b->nr_jited_func_lens = a.nr_jited_func_lens;
	b->jited_func_lens = (__u64)(unsigned long)d->func_lens;
	b->nr_line_info = a.nr_line_info;
	b->line_info_rec_size = sizeof(*d->lines);
	b->line_info = (__u64)(unsigned long)d->lines;
	b->nr_jited_line_info = a.nr_jited_line_info;
	b->jited_line_info_rec_size = sizeof(*d->jited_lines);
	b->jited_line_info = (__u64)(unsigned long)d->jited_lines;
	len = sizeof(*b);
	if (bpf_obj_get_info_by_fd(fd, b, &len))
		return -errno;
	memcpy(b->name, a.name, sizeof(a.name));
	b->btf_id = a.btf_id;
	return 0;
}

static void dump_print(const struct prog_dump *d)
{
	const struct bpf_prog_info *p = &d->info;
	struct btf *btf = p->btf_id ? btf__load_from_kernel_by_id(p->btf_id) : NULL;
	__u32 off = 0;

	for (__u32 i = 0; i < p->nr_jited_ksyms && i < p->nr_jited_func_lens; i++) {
		printf("JF %llx %u %s\nJX %llx ", (unsigned long long)d->ksyms[i], d->func_lens[i], p->name,
		       (unsigned long long)d->ksyms[i]);
		for (__u32 j = 0; j < d->func_lens[i] && off + j < p->jited_prog_len; j++)
			printf("%02x", d->image[off + j]);
		putchar('\n');
		off += d->func_lens[i];
	}
	/* a program loaded without BTF has no lines: its functions alone */
	for (__u32 i = 0; btf && i < p->nr_line_info && i < p->nr_jited_line_info; i++) {
		const char *f = btf__name_by_offset(btf, d->lines[i].file_name_off);
		const char *l = btf__name_by_offset(btf, d->lines[i].line_off);
		const char *base = f ? strrchr(f, '/') : NULL;

		while (l && (*l == ' ' || *l == '\t'))
			l++;
		printf("JL %llx %s:%u %s\n", (unsigned long long)d->jited_lines[i],
		       base ? base + 1 : f ? f : "?", BPF_LINE_INFO_LINE_NUM(d->lines[i].line_col), l ? l : "");
	}
	btf__free(btf);
}

int main(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct prog_dump d;
		int fd = bpf_prog_get_fd_by_id(id);

		/* unloaded since it was listed */
		if (fd < 0)
			continue;
		if (!dump_get(fd, &d)) {
			dump_print(&d);
			n++;
		}
		dump_free(&d);
		close(fd);
	}
	if (!n) {
		fprintf(stderr, "jitlines: no JITed BPF program readable (root, and bpf_jit_enable=1?)\n");
		return 1;
	}
	return 0;
}
