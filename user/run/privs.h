/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Privileges: what loading needs, what is dropped once attached, and who the traced command
 * runs as. 0 or -errno throughout; the caller reports.
 */
#ifndef SLOTSCOPE_PRIVS_H
#define SLOTSCOPE_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "lib/outfile.h"

/*
 * What loading and attaching needs, whatever the uid: CAP_BPF for maps and programs, CAP_PERFMON
 * for tracing programs, kprobes and reading kernel memory (5.8: a17b53c4a4b5, 980737282232;
 * CAP_SYS_ADMIN stands in for either). 1 and *name when one is missing. *sys_admin: whether
 * module BTF can be looked up by id (the engine does without, engine_opts.no_btf_ids).
 */
int privs_missing(const char **name, bool *sys_admin);
/* kernel.perf_event_paranoid under @procfs_root; -1 when unreadable */
long privs_paranoid(const char *procfs_root);
/*
 * Once attached, nothing needs a capability: map fds stay usable, links are detached by closing
 * fds, the mount table is read through a file kept open, jobs are named from cgroupfs. So
 * no_new_privs, an empty bounding set and every capability dropped, in every mode; @user becomes
 * the uid, and root with no @user becomes "slotscope" (the package's user) or "nobody" when every
 * output in @outs stays writable by it (else it stays uid 0, and -v says why). -errno, said here.
 */
int privs_drop(const char *user, const struct outfile *outs, size_t nouts);
/*
 * Who the command runs as: @user, else the user who ran sudo (SUDO_UID/SUDO_GID, honoured only
 * when we are root), else whoever we are. 0, -ENOENT when there is nobody to become (run as
 * is), -ESRCH for no such user, or -errno.
 */
int privs_identity(const char *user, uid_t *uid, gid_t *gid, char *name, size_t len);
/*
 * --listen's server (serve.c): no_new_privs, an empty bounding set, no capability; root becomes
 * "slotscope" (the package's user) or "nobody", with no supplementary group. 0 or -errno
 * (-EPERM: root without CAP_SETUID and CAP_SETGID, which must not answer the network as root).
 */
int privs_server(void);
/* In a child: become @uid/@gid with no capability left to regain (an empty bounding set). */
int privs_become(uid_t uid, gid_t gid, const char *name);

#endif
