/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run: slotscope from its options to its exit code. main.c parses the options into run_opts
 * and hands over; run.c starts (outputs, filters, the engine, the audit), tick.c traces,
 * outputs.c writes the files, privs.c and command.c hold the privileges and the traced command.
 */
#ifndef SLOTSCOPE_RUN_H
#define SLOTSCOPE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include "model/prom_mounts.h"
#include "model/window.h"

enum exit_code { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 64, EXIT_NOPERM = 77 };

#define MAX_MOUNT_FILTERS 16
/* --prom-max-series's default (prom_cap.h) */
#define PROM_MAX_SERIES_DEFAULT 5000

struct run_opts {
	double interval;	/* seconds between printed reports; 0 = only the summary */
	long count;		/* intervals; 0 = unlimited */
	double duration;	/* seconds; 0 = unlimited */
	bool json;
	bool no_rdma;
	bool force_fallback;	/* load every hook's fallback variant (tests, SLOTSCOPE_ATTACH) */
	bool events_tp;		/* waits from the tracepoints (SLOTSCOPE_EVENTS=tracepoints) */
	size_t nmounts;
	const char *mounts[MAX_MOUNT_FILTERS];
	struct window_opts win;
	const char *prom_file;
	const char *listen;	/* --listen ADDR:PORT: /metrics and /healthz (http.h) */
	const char *web_config;	/* --web-config FILE: --listen's TLS and basic auth (webconfig.h) */
	bool prom_detail;	/* every op, stage and wait kind in the textfile */
	bool prom_user;		/* the jobs' uids and user names in the exposition's labels */
	bool prom_keep;		/* leave the textfile at exit (else it is removed) */
	struct prom_mounts prom;	/* the textfile's mounts: filters, --prom-rollup */
	size_t prom_max_series;	/* --prom-max-series: 0, none */
	const char *folded_file;
	const char *svg_file;
	const char *user;
	unsigned int max_inflight;
	const char *procfs_root;
	const char *mounts_of;	/* whose mount table: "self" or a pid ("1": the host's) */
	const char *sysfs_root;
	const char *btf_files[4];	/* --btf MOD=FILE: sunrpc, nfs, nfsv4, rpcrdma */
	char **command;		/* after "--": traced while it runs; NULL when none */
	bool run_untraced;	/* COMMAND without sunrpc: run it untraced rather than exit 77 */
	double silent_after;	/* --silent-after: a server silent this long is not answering (#59) */
};

struct run;

/* --make-btf: the NFS modules' BTF made and kept; each said on stderr; an exit code */
int run_make_btf(const struct run_opts *o);

/*
 * Everything that can be refused without loading BPF (output directories, --mount paths): an
 * exit code, the reason said once on stderr. On EXIT_OK *out is the run, to be started.
 */
int run_new(struct run **out, const struct run_opts *o);
/* Load, attach, trace until the end the options set, report; the process's exit code. */
int run_main(struct run *r);
void run_free(struct run *r);

#endif
