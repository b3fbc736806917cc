// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <bpf/libbpf.h>
#include "lib/buildinfo.h"
#include "revision.h"	/* the build directory's: the Makefile's REVISION */

void build_ident(struct build_ident *b)
{
	b->version = SLOTSCOPE_VERSION;
	b->revision = SLOTSCOPE_REVISION;
	/* the library's own answer at run time: a shared libbpf may not be the one built against */
	snprintf(b->libbpf, sizeof(b->libbpf), "%u.%u", libbpf_major_version(), libbpf_minor_version());
#if defined(__x86_64__)
	b->arch = "amd64";
#elif defined(__aarch64__)
	b->arch = "arm64";
#else
	b->arch = "other";
#endif
}

void build_print(FILE *f)
{
	struct build_ident b;

	build_ident(&b);
	fprintf(f, "slotscope %s\n", b.version);
	fprintf(f, "  revision:    %s\n", b.revision);
	fprintf(f, "  libbpf:      %s\n", b.libbpf);
	fprintf(f, "  arch:        %s\n", b.arch);
	/* which one is the kernel's to say: the first whose programs load (-v names it) */
	fprintf(f, "  BPF designs: functions (fentry, fexit, tp_btf), tracepoints (raw_tp, kprobe); "
		   "the running kernel's is chosen at load (slotscope -v, slotscope_build_info's design)\n");
}
