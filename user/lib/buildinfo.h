/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this binary is: its version, the commit it was built from, the libbpf it runs with, its
 * architecture. --version prints them, slotscope_build_info labels its series with them.
 */
#ifndef SLOTSCOPE_BUILDINFO_H
#define SLOTSCOPE_BUILDINFO_H

#include <stdio.h>

struct build_ident {
	const char *version;	/* the Makefile's VERSION */
	const char *revision;	/* git describe of the tree built (its .revision in a package's copy); "unknown" */
	char libbpf[16];	/* the libbpf linked in, as it says itself: "1.1" */
	const char *arch;	/* "amd64", "arm64" */
};

void build_ident(struct build_ident *b);
/* --version: the identity, and the two BPF designs the running kernel chooses between */
void build_print(FILE *f);

#endif
