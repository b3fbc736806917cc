// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "log.h"
#include "privs.h"
#include "util.h"

long privs_paranoid(const char *procfs_root)
{
	char path[512];
	long v;

	if (root_path(path, sizeof(path), procfs_root, "/proc/sys/kernel/perf_event_paranoid") ||
	    read_long(path, &v))
		return -1;
	return v;
}

static bool has_cap(const struct __user_cap_data_struct *d, int c)
{
	return d[c / 32].effective & (1u << (c % 32));
}

int privs_missing(const char **name, bool *sys_admin)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	static const struct { int cap; const char *name; } need[] = {
		{ CAP_BPF, "CAP_BPF" }, { CAP_PERFMON, "CAP_PERFMON" },
	};

	*sys_admin = true;
	if (syscall(SYS_capget, &h, d))
		return 0;	/* cannot tell: let the load say */
	*sys_admin = has_cap(d, CAP_SYS_ADMIN);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has_cap(d, need[i].cap) && !*sys_admin) {
			*name = need[i].name;
			return 1;
		}
	return 0;
}

int privs_drop(const char *user, bool keep_job_caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	/* no execve of ours regains anything: no setuid bits, no file capabilities */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		pr_err("cannot set no_new_privs: %s\n", strerror(errno));
		return -errno;
	}
	/*
	 * An empty bounding set: even uid 0 gets no capability back at an execve. It takes
	 * CAP_SETPCAP, which a service started with only what it needs does not have: its
	 * bounding set is then the launcher's, already narrow (the unit's).
	 */
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL && errno != EPERM) {
			pr_err("cannot empty the capability bounding set: %s\n", strerror(errno));
			return -errno;
		}
	/*
	 * Naming a window's jobs reads /proc/PID/{fd,cwd,io} of other users' processes, which takes
	 * CAP_SYS_PTRACE (and CAP_DAC_READ_SEARCH for their fd directories): kept when held and
	 * asked for, never regained by an execve (the bounding set is empty).
	 */
	if (keep_job_caps) {
		struct __user_cap_data_struct now[2] = { { 0 } };

		if (!syscall(SYS_capget, &h, now))
			for (int c = 0; c < 2; c++) {
				int cap = c ? CAP_DAC_READ_SEARCH : CAP_SYS_PTRACE;

				if (has_cap(now, cap)) {
					d[cap / 32].effective |= 1u << (cap % 32);
					d[cap / 32].permitted |= 1u << (cap % 32);
				}
			}
	}
	if (user) {
		const struct passwd *pw = getpwnam(user);

		/* the user's own groups: a group-writable textfile directory stays writable */
		if (!pw || initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) ||
		    setuid(pw->pw_uid)) {
			pr_err("cannot switch to user %s: %s\n", user, strerror(errno));
			return -EPERM;
		}
	}
	if (syscall(SYS_capset, &h, d)) {
		pr_err("cannot drop capabilities: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

int privs_identity(const char *user, uid_t *uid, gid_t *gid, char *name, size_t len)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	const struct passwd *pw;
	char *end;

	if (user) {
		pw = getpwnam(user);
		if (!pw)
			return -ESRCH;
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		snprintf(name, len, "%s", pw->pw_name);
		return 0;
	}
	if (getuid() != 0 || !su || !sg || !*su || !*sg)
		return -ENOENT;
	*uid = (uid_t)strtoul(su, &end, 10);
	if (*end)
		return -EINVAL;
	*gid = (gid_t)strtoul(sg, &end, 10);
	if (*end)
		return -EINVAL;
	pw = getpwuid(*uid);
	snprintf(name, len, "%s", pw ? pw->pw_name : "");
	return 0;
}

int privs_become(uid_t uid, gid_t gid, const char *name)
{
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			return -errno;
	if ((name[0] ? initgroups(name, gid) : setgroups(0, NULL)) || setgid(gid) || setuid(uid))
		return -errno;
	/* setuid() away from 0 cleared the rest; nothing ambient survives either */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return 0;
}
