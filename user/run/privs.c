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
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "lib/log.h"
#include "run/privs.h"
#include "lib/util.h"

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

/*
 * whether @pw may make files in the directory @dirfd and replace its @name there: tried as @pw,
 * in a child that becomes it, so ACLs (the package's own on node_exporter's directory), LSMs and
 * read-only mounts answer as they will for the writes, which mode bits alone did not (#44)
 */
static bool writable_by(int dirfd, const char *name, const struct passwd *pw)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		char probe[64];
		struct stat st, f;
		int fd;

		if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
			_exit(2);
		snprintf(probe, sizeof(probe), ".slotscope-probe.%d", (int)getpid());
		fd = openat(dirfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			_exit(1);
		close(fd);
		unlinkat(dirfd, probe, 0);
		/* a sticky directory (/tmp): a file there is replaced only by its owner */
		_exit(fstat(dirfd, &st) || !(st.st_mode & S_ISVTX) ||
		      fstatat(dirfd, name, &f, AT_SYMLINK_NOFOLLOW) || f.st_uid == pw->pw_uid ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Root with nobody asked for: the user to become, if every output stays writable by it (the
 * package's own "slotscope", else "nobody"). NULL and @why when uid 0 must stay.
 */
static const struct passwd *unprivileged(const struct outfile *outs, size_t nouts, char *why,
					 size_t len)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	const struct passwd *pw = getpwnam("slotscope");

	if (!pw)
		pw = getpwnam("nobody");
	if (!pw) {
		snprintf(why, len, "no user slotscope or nobody to become");
		return NULL;
	}
	/* a container's root may lack them: it then stays who it is, with no capability */
	if (syscall(SYS_capget, &h, d) || !has_cap(d, CAP_SETUID) || !has_cap(d, CAP_SETGID)) {
		snprintf(why, len, "no CAP_SETUID and CAP_SETGID to become %s (a container's root: add both "
			 "to its capabilities, and let %s write the output directories)", pw->pw_name,
			 pw->pw_name);
		return NULL;
	}
	for (size_t i = 0; i < nouts; i++)
		if (outs[i].dirfd >= 0 && !writable_by(outs[i].dirfd, outs[i].name, pw)) {
			const char *slash = strrchr(outs[i].path, '/');
			int dl = slash ? (slash == outs[i].path ? 1 : (int)(slash - outs[i].path)) : 1;

			snprintf(why, len, "%s could not write %s (to run as %s, let it write the "
				 "directory: setfacl -m u:%s:rwx %.*s)", pw->pw_name, outs[i].path,
				 pw->pw_name, pw->pw_name, dl, slash ? outs[i].path : ".");
			return NULL;
		}
	return pw;
}

int privs_drop(const char *user, const struct outfile *outs, size_t nouts)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	const struct passwd *pw = NULL;
	char why[512] = "";

	/* no execve of ours regains anything: no setuid bits, no file capabilities */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		pr_err("cannot set no_new_privs: %s\n", strerror(errno));
		return -errno;
	}
	if (user) {
		pw = getpwnam(user);
		if (!pw) {
			pr_err("cannot switch to user %s: no such user\n", user);
			return -EPERM;
		}
	} else if (geteuid() == 0) {
		pw = unprivileged(outs, nouts, why, sizeof(why));
		if (!pw)
			pr_warn("staying uid 0 after attach, with no capability: %s\n", why);
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
	/* the user's own groups: a group-writable textfile directory stays writable */
	if (pw && (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) || setuid(pw->pw_uid))) {
		pr_err("cannot switch to user %s: %s\n", pw->pw_name, strerror(errno));
		return -EPERM;
	}
	if (pw && !user)
		pr_info("running as %s (uid %u) after attach, with no capability\n", pw->pw_name,
			(unsigned)pw->pw_uid);
	/* nothing kept: the maps are read through their fds, /proc and /sys by anyone */
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

int privs_server(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	const struct passwd *pw = NULL;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (geteuid() == 0 || getuid() == 0) {
		pw = getpwnam("slotscope");
		if (!pw)
			pw = getpwnam("nobody");
		if (!pw)
			return -ESRCH;
	}
	/* without CAP_SETPCAP (a unit's narrow set) the bounding set is the launcher's already */
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL && errno != EPERM)
			return -errno;
	if (pw && (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid)))
		return -EPERM;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}
