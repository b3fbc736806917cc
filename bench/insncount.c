// SPDX-License-Identifier: GPL-2.0
/*
 * A qemu TCG plugin for `make bench-insn`: the guest's instructions, counted where they run.
 * Time under TCG moves 1.5-2x from round to round; the instructions a guest executes do not
 * depend on how fast the host runs them, so a program's cost holds as a count.
 *
 * Every translated block gets an inline add of its instruction count to one total, and each
 * block in the kernel's half of the address space a counter of its own runs. The guest marks
 * the moments to read them by running a no-op no compiler emits (bench/insnmark.S: nopl with
 * the displacement "SLOT"); at each mark the plugin appends to out=FILE:
 *
 *   M <n> <total instructions so far>
 *   B <block address> <instructions in the block> <runs since the last mark>   (kernel blocks run)
 *
 * The host side (bench/insn.awk) joins the blocks with the BPF programs' addresses the guest
 * printed (/proc/kallsyms) and gives instructions per RPC per program between marks.
 * Run it with -accel tcg,thread=single: the inline adds are plain adds, exact only when no two
 * vCPUs run at once.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86-64: nopl 0x544f4c53(%rax,%rax,1), "SLOT" little-endian */
static const unsigned char mark_insn[] = { 0x0f, 0x1f, 0x84, 0x00, 0x53, 0x4c, 0x4f, 0x54 };
#define KERNEL_HALF	0xffff800000000000ull

struct block {
	uint64_t vaddr;
	uint64_t runs;		/* the inline add's target */
	uint64_t seen;		/* runs at the last mark */
	uint32_t ninsns;
};

#define CHUNK 65536
static struct block **chunks;
static size_t nblocks, nchunks;
static uint64_t total;
static unsigned int marks;
static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* a block record that never moves: the generated code adds to its address */
static struct block *block_new(uint64_t vaddr, uint32_t n)
{
	struct block *b;

	if (nblocks == nchunks * CHUNK) {
		struct block **c = realloc(chunks, (nchunks + 1) * sizeof(*chunks));

		if (!c)
			return NULL;
		chunks = c;
		chunks[nchunks] = calloc(CHUNK, sizeof(struct block));
		if (!chunks[nchunks])
			return NULL;
		nchunks++;
	}
	b = &chunks[nblocks / CHUNK][nblocks % CHUNK];
	nblocks++;
	b->vaddr = vaddr;
	b->ninsns = n;
	return b;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	fprintf(out, "M %u %" PRIu64 "\n", marks++, total);
	for (size_t i = 0; i < nblocks; i++) {
		struct block *b = &chunks[i / CHUNK][i % CHUNK];

		if (b->runs == b->seen)
			continue;
		fprintf(out, "B %" PRIx64 " %u %" PRIu64 "\n", b->vaddr, b->ninsns, b->runs - b->seen);
		b->seen = b->runs;
	}
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &total, n);
	if (vaddr >= KERNEL_HALF) {
		struct block *b;

		pthread_mutex_lock(&lock);
		b = block_new(vaddr, (uint32_t)n);
		pthread_mutex_unlock(&lock);
		if (b)
			qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->runs, 1);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(mark_insn) &&
		    !memcmp(qemu_plugin_insn_data(insn), mark_insn, sizeof(mark_insn)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	pthread_mutex_lock(&lock);
	fprintf(out, "E %" PRIu64 " %zu\n", total, nblocks);
	fclose(out);
	out = NULL;
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;

	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insncount: x86_64 guests only (its mark is an x86 instruction)\n");
		return -1;
	}
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path) {
		fprintf(stderr, "insncount: out=FILE is needed\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
