// SPDX-License-Identifier: GPL-2.0
/*
 * The BTF of the NFS modules: the kernel's own (/sys/kernel/btf/MOD), else one made from the
 * module's own DWARF by pahole once the file on disk is proven to be the module loaded, else a
 * file the user names (--btf MOD=FILE). An out-of-tree NFS stack (VAST NFS, MLNX_OFED's
 * NFS/RDMA) built against a headers package has no vmlinux for pahole, so no BTF, and its
 * structures are not vmlinux's: reading it through vmlinux's types gave ten transports of
 * garbage and 0 of 512 WRITEs (#43). A module loaded without any proven BTF is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "engine/btfcache.h"
#include "engine/engine_int.h"
#include "lib/log.h"
#include "lib/util.h"

extern char **environ;

const char *const probe_modules[NMODS] = { "sunrpc", "nfs", "nfsv4", "rpcrdma" };

#define BUILD_ID_MAX 64

/* The GNU build id the kernel keeps of loaded module @mod (its .note.gnu.build-id section). */
static int loaded_build_id(const char *root, const char *mod, unsigned char *id, size_t *len)
{
	unsigned char buf[256];
	__u32 namesz, descsz;
	char path[512];
	ssize_t n;
	int fd, err;

	err = root_path(path, sizeof(path), root, "/sys/module/%s/notes/.note.gnu.build-id", mod);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 12)
		return n < 0 ? -errno : -ENODATA;
	memcpy(&namesz, buf, 4);
	memcpy(&descsz, buf + 4, 4);
	if (namesz != 4 || descsz == 0 || descsz > BUILD_ID_MAX || 12 + 4 + descsz > (size_t)n ||
	    memcmp(buf + 12, "GNU", 4))
		return -EBADMSG;
	memcpy(id, buf + 16, descsz);
	*len = descsz;
	return 0;
}

/* The GNU build id of the ELF file open at @fd. */
static int file_build_id(int fd, unsigned char *id, size_t *len)
{
	Elf_Scn *scn = NULL;
	int err = -ENODATA;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EBADMSG;
	while (err == -ENODATA && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) || !nh.n_descsz || nh.n_descsz > BUILD_ID_MAX)
				continue;
			memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
			*len = nh.n_descsz;
			err = 0;
			break;
		}
	}
	elf_end(elf);
	return err;
}

/*
 * The file modprobe would load for @mod, from ROOT/lib/modules/RELEASE/modules.dep (the
 * "updates" directory of DKMS before the kernel's own, as depmod ordered it).
 */
static int module_file(const char *rel, const char *root, const char *mod, char *out, size_t len)
{
	char path[512], line[4096];
	size_t ml = strlen(mod);
	int err = -ENOENT;
	FILE *f;

	if (root_path(path, sizeof(path), root, "/lib/modules/%s/modules.dep", rel) ||
	    !(f = fopen(path, "re")))
		return -ENOENT;
	while (err && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		/* modules.dep names files as built: sunrpc.ko, sunrpc.ko.xz, ... */
		if (strncmp(base, mod, ml) || strncmp(base + ml, ".ko", 3) ||
		    (base[ml + 3] && base[ml + 3] != '.'))
			continue;
		err = line[0] == '/' ? root_path(out, len, root, "%s", line) :
		      root_path(out, len, root, "/lib/modules/%s/%s", rel, line);
	}
	fclose(f);
	return err;
}

/* Run @argv with stdout to @out (-1: /dev/null), stderr to @errfd; its exit status or -errno. */
static int run_tool(char *const argv[], int out, int errfd)
{
	posix_spawn_file_actions_t fa;
	int err, st;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -err;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the last line a tool wrote to @fd (a memfd), for the message */
static void last_line(int fd, char *buf, size_t len)
{
	char tmp[2048], *p;
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n;

	buf[0] = '\0';
	if (end <= 0)
		return;
	n = pread(fd, tmp, sizeof(tmp) - 1, end > (off_t)sizeof(tmp) - 1 ? end - (off_t)sizeof(tmp) + 1 : 0);
	if (n <= 0)
		return;
	tmp[n] = '\0';
	while (n > 0 && (tmp[n - 1] == '\n' || tmp[n - 1] == ' '))
		tmp[--n] = '\0';
	p = strrchr(tmp, '\n');
	snprintf(buf, len, "%s", p ? p + 1 : tmp);
}

/*
 * A compressed module decompressed into a memfd (pahole reads ELF files only): the fd, -EAGAIN
 * when @path is not compressed, or -errno.
 */
static int decompress(const char *path, char *why, size_t len)
{
	static const struct { const char *ext, *tool, *arg; } z[] = {
		{ ".xz", "/usr/bin/xz", "-dc" }, { ".zst", "/usr/bin/zstd", "-dcq" }, { ".gz", "/bin/gzip", "-dc" },
	};
	size_t pl = strlen(path);

	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		size_t el = strlen(z[i].ext);
		char *argv[] = { (char *)z[i].tool, (char *)z[i].arg, (char *)path, NULL };
		int fd, nul, rc;

		if (pl < el || strcmp(path + pl - el, z[i].ext))
			continue;
		fd = memfd_create("slotscope-ko", MFD_CLOEXEC);
		nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
		rc = fd < 0 || nul < 0 ? -errno : run_tool(argv, fd, nul);
		if (nul >= 0)
			close(nul);
		if (rc) {
			snprintf(why, len, "%s could not be decompressed (%s: %s)", path, z[i].tool,
				 rc < 0 ? strerror(-rc) : "failed");
			if (fd >= 0)
				close(fd);
			return rc < 0 ? rc : -EIO;
		}
		return fd;
	}
	return -EAGAIN;
}

#define PAHOLE "/usr/bin/pahole"

unsigned int pahole_jobs(long online)
{
	return online < 1 ? 1 : online > PAHOLE_MAX_JOBS ? PAHOLE_MAX_JOBS : (unsigned int)online;
}

/*
 * @mod's BTF from its own DWARF: the module file proven to be the loaded one (same GNU build id),
 * then `pahole --btf_encode_detached` split on vmlinux's BTF. 0 with *@out, or -errno and @why.
 */
static int btf_from_dwarf(const struct engine *e, const char *mod, struct btf **out, bool *cached,
			  char *why, size_t len)
{
	unsigned char want[BUILD_ID_MAX], have[BUILD_ID_MAX];
	size_t wl = 0, hl = 0;
	char ko[512], base[512], arg[64], kopath[64], msg[200], rel[128], hex[2 * BUILD_ID_MAX + 1];
	char cpath[600];
	int kofd = -1, outfd = -1, errfd = -1, err, rc;

	*cached = false;
	if (root_path(base, sizeof(base), e->o.procfs_root, "/proc/sys/kernel/osrelease") ||
	    read_line(base, rel, sizeof(rel))) {
		snprintf(why, len, "the kernel release is unknown (/proc/sys/kernel/osrelease)");
		return -ENOENT;
	}
	err = loaded_build_id(e->o.sysfs_root, mod, want, &wl);
	/* notes are world-readable (S_IRUGO), but a sandbox may hide /sys/module: root's latest */
	if (err == -EACCES || err == -EPERM) {
		if (!btf_cache_find(rel, mod, NULL, cpath, sizeof(cpath)) &&
		    (*out = btf__parse_split(cpath, e->vmlinux))) {
			*cached = true;
			pr_info("%s: its BTF as root last made it (%s): proven against sunrpc's sysfs as it "
				"runs\n", mod, cpath);
			return 0;
		}
		snprintf(why, len, "its build id cannot be read here (/sys/module/%s/notes), "
			 "and no BTF of it made as root is in %s/%s: run 'slotscope --make-btf' as root "
			 "once it is loaded (the unit does before it starts)", mod, BTF_CACHE, rel);
		return -EPROTO;
	}
	if (err) {
		snprintf(why, len, "the kernel publishes no build id for it (/sys/module/%s/notes: %s), so "
			 "no file can be proven to be the module loaded", mod, strerror(-err));
		return -EPROTO;
	}
	for (size_t i = 0; i < wl; i++)
		snprintf(hex + 2 * i, 3, "%02x", want[i]);
	/* made from the file of this very build id before */
	if (!btf_cache_find(rel, mod, hex, cpath, sizeof(cpath)) &&
	    (*out = btf__parse_split(cpath, e->vmlinux))) {
		pr_debug("%s: BTF of build id %s from %s\n", mod, hex, cpath);
		return 0;
	}
	err = module_file(rel, e->o.sysfs_root, mod, ko, sizeof(ko));
	if (err) {
		/* the unit cannot see /lib/modules: root makes the BTF before it starts */
		snprintf(why, len, "its file is not found in /lib/modules/%s/modules.dep%s", rel,
			 geteuid() ? ", and no BTF of its build id is kept: run 'slotscope --make-btf' "
			 "as root" : "");
		return err;
	}
	kofd = decompress(ko, why, len);
	if (kofd == -EAGAIN)
		kofd = open(ko, O_RDONLY | O_CLOEXEC);
	if (kofd < 0) {
		if (kofd != -EIO)
			snprintf(why, len, "%s: %s", ko, strerror(-kofd));
		return kofd;
	}
	err = file_build_id(kofd, have, &hl);
	if (err || hl != wl || memcmp(have, want, wl)) {
		snprintf(why, len, "%s is not the module loaded (%s): reload it, or name its BTF with "
			 "--btf %s=FILE", ko, err ? "it has no build id" : "its build id differs", mod);
		err = -EPROTO;
		goto out;
	}
	if (access(PAHOLE, X_OK)) {
		snprintf(why, len, "%s is needed to read its layout from %s's DWARF: apt-get install dwarves",
			 PAHOLE, ko);
		err = -ENOENT;
		goto out;
	}
	outfd = memfd_create("slotscope-modbtf", 0);
	errfd = memfd_create("slotscope-pahole", MFD_CLOEXEC);
	if (outfd < 0 || errfd < 0 ||
	    root_path(base, sizeof(base), e->o.sysfs_root, "/sys/kernel/btf/vmlinux")) {
		err = errno ? -errno : -ENOMEM;
		snprintf(why, len, "memfd: %s", strerror(-err));
		goto out;
	}
	/* the memfds are inherited (no CLOEXEC on @outfd; @kofd is reopened by path) */
	snprintf(arg, sizeof(arg), "--btf_encode_detached=/proc/self/fd/%d", outfd);
	snprintf(kopath, sizeof(kopath), "/proc/%d/fd/%d", getpid(), kofd);
	{
		char basearg[600], jobs[16];
		/* -jN: threads as the kernel's own build runs it (scripts/pahole-flags.sh), bounded */
		char *argv[] = { PAHOLE, jobs, arg, basearg, kopath, NULL };

		snprintf(jobs, sizeof(jobs), "-j%u", pahole_jobs(sysconf(_SC_NPROCESSORS_ONLN)));
		snprintf(basearg, sizeof(basearg), "--btf_base=%s", base);
		pr_debug("%s: BTF from its DWARF: %s %s %s %s %s\n", mod, PAHOLE, jobs, arg, basearg, ko);
		rc = run_tool(argv, -1, errfd);
	}
	if (rc) {
		last_line(errfd, msg, sizeof(msg));
		snprintf(why, len, "pahole could not make BTF from %s's DWARF (%s%s%s)", ko,
			 rc < 0 ? strerror(-rc) : "failed", msg[0] ? ": " : "", msg);
		err = rc < 0 ? rc : -EIO;
		goto out;
	}
	snprintf(kopath, sizeof(kopath), "/proc/self/fd/%d", outfd);
	*out = btf__parse_split(kopath, e->vmlinux);
	if (!*out) {
		err = -errno;
		snprintf(why, len, "%s has no DWARF to read its layout from (built without -g, or "
			 "stripped): build it with debug info, or name its BTF with --btf %s=FILE", ko, mod);
	} else if ((rc = btf_cache_store(rel, mod, hex, outfd))) {
		/* root would have it kept: a run as another user is then refused for want of it */
		if (geteuid())
			pr_debug("%s: its BTF not kept in %s: %s\n", mod, BTF_CACHE, strerror(-rc));
		else
			pr_warn("%s: its BTF made from its DWARF is not kept in %s: %s\n", mod, BTF_CACHE,
				strerror(-rc));
	}
out:
	if (kofd >= 0)
		close(kofd);
	if (outfd >= 0)
		close(outfd);
	if (errfd >= 0)
		close(errfd);
	return err;
}

/* a module of the kernel's, loadable and loaded (listed in /proc/modules) */
static bool module_loaded(const struct engine *e, const char *mod)
{
	char path[512], line[512];
	size_t ml = strlen(mod);
	bool found = false;
	FILE *f;

	if (root_path(path, sizeof(path), e->o.procfs_root, "/proc/modules") || !(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, mod, ml) && line[ml] == ' ';
	fclose(f);
	return found;
}

static void module_taint(const struct engine *e, const char *mod, char *taint, size_t len)
{
	char path[512];

	taint[0] = '\0';
	if (!root_path(path, sizeof(path), e->o.sysfs_root, "/sys/module/%s/taint", mod))
		read_line(path, taint, len);
}

/*
 * Every probed module's BTF into e->mods[], its source into e->mod_src[]. A loaded module of the
 * NFS client (sunrpc, nfs, nfsv4) whose BTF cannot be had is refused (-EPROTO, e->why): its
 * structures would be read through vmlinux's. rpcrdma's structures are not read, only its
 * functions hooked, so it goes without (see probe_rdma()).
 */
int engine_module_btf(struct engine *e)
{
	for (size_t i = 0; i < NMODS; i++) {
		const char *mod = probe_modules[i], *file = e->o.btf_files[i];
		char path[512], why[400], taint[32];
		bool cached;
		int err;

		if (file) {
			e->mods[i] = btf__parse_split(file, e->vmlinux);
			if (!e->mods[i]) {
				snprintf(e->why, e->whylen, "--btf %s=%s: not a BTF file split on this kernel's "
					 "vmlinux BTF (%s)", mod, file, strerror(errno));
				return -EINVAL;
			}
			e->mod_src[i] = MOD_BTF_GIVEN;
			continue;
		}
		if (!root_path(path, sizeof(path), e->o.sysfs_root, "/sys/kernel/btf/%s", mod) &&
		    (e->mods[i] = btf__parse_split(path, e->vmlinux))) {
			e->mod_src[i] = MOD_BTF_KERNEL;
			continue;
		}
		if (!module_loaded(e, mod)) {
			pr_debug("no BTF for module %s (not loaded as a module)\n", mod);
			continue;
		}
		err = btf_from_dwarf(e, mod, &e->mods[i], &cached, why, sizeof(why));
		if (!err) {
			/* root's cache, not proven by build id: as a file given */
			e->mod_src[i] = cached ? MOD_BTF_GIVEN : MOD_BTF_DWARF;
			if (!cached)
				pr_info("%s has no BTF of its own: its layout read from its DWARF (pahole), the "
					"file proven the module loaded by its build id; hooks by name\n", mod);
			continue;
		}
		if (!strcmp(mod, "rpcrdma")) {
			pr_debug("no BTF for rpcrdma: %s\n", why);
			continue;
		}
		module_taint(e, mod, taint, sizeof(taint));
		snprintf(e->why, e->whylen, "%s is a loadable module without BTF (no /sys/kernel/btf/%s%s%s%s) "
			 "and its layout cannot be proven: %s; slotscope does not count from a layout it "
			 "cannot prove", mod, mod, taint[0] ? "; taint " : "", taint,
			 strchr(taint, 'O') ? ", built out of tree" : "", why);
		return -EPROTO;
	}
	return 0;
}

/* a module's BTF not published by the kernel: CO-RE only, by a merged BTF, and hooks by name */
bool engine_btf_made(const struct engine *e)
{
	for (size_t i = 0; i < NMODS; i++)
		if (e->mods[i] && e->mod_src[i] != MOD_BTF_KERNEL)
			return true;
	return false;
}

int engine_make_btf(const struct engine_opts *o, void (*said)(const char *mod, const char *how),
		    char *why, size_t len)
{
	static const char *const how[] = { "not loaded", "the kernel's own", "made from its DWARF, kept",
					   "given" };
	struct engine *e = engine_alloc(o, why, len);
	int err;

	if (!e)
		return -ENOMEM;
	e->vmlinux = btf__load_vmlinux_btf();
	if (!e->vmlinux) {
		err = -errno;
		snprintf(why, len, "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s)", strerror(-err));
	} else {
		err = engine_module_btf(e);
	}
	for (size_t i = 0; i < NMODS; i++) {
		if (!err)
			said(probe_modules[i], how[e->mod_src[i]]);
		btf__free(e->mods[i]);
	}
	btf__free(e->vmlinux);
	free(e);
	return err;
}
