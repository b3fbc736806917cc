/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One running trace: the engine, the ticks, signals, the traced command, the privilege drop,
 * checkpoints and every output. main.c parses the options into session_opts and hands over.
 */
#ifndef SLOTSCOPE_SESSION_H
#define SLOTSCOPE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "ckpt.h"

enum exit_code { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 64, EXIT_NOPERM = 77 };

#define MAX_MOUNT_FILTERS 16

struct session_opts {
	double interval;	/* seconds between printed reports; 0 = only the summary */
	long count;		/* intervals; 0 = unlimited */
	double duration;	/* seconds; 0 = unlimited */
	bool json;
	bool no_rdma;
	bool force_fallback;	/* load every hook's fallback variant (tests, SLOTSCOPE_ATTACH) */
	bool events_tp;		/* waits from the tracepoints (SLOTSCOPE_EVENTS=tracepoints) */
	size_t nmounts;
	const char *mounts[MAX_MOUNT_FILTERS];
	struct ckpt_opts ckpt;
	const char *prom_file;
	bool prom_detail;	/* every op, stage and wait kind in the textfile */
	bool prom_keep;		/* leave the textfile at exit (else it is removed) */
	const char *folded_file;
	const char *svg_file;
	const char *user;
	unsigned int max_inflight;
	const char *procfs_root;
	const char *mounts_of;	/* whose mount table: "self" or a pid ("1": the host's) */
	const char *sysfs_root;
	char **command;		/* after "--": traced while it runs; NULL when none */
	bool run_untraced;	/* COMMAND without sunrpc: run it untraced rather than exit 77 */
};

struct session;

/*
 * Everything that can be refused without loading BPF (output directories, --mount paths): an
 * exit code, the reason said once on stderr. On EXIT_OK *out is the session, to be run.
 */
int session_new(struct session **out, const struct session_opts *o);
/* Load, attach, trace until the end the options set, report; the process's exit code. */
int session_run(struct session *s);
void session_free(struct session *s);

#endif
