// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "host/audit.h"
#include "lib/util.h"

static int load_xprts(struct audit *a, const char *sysfs_root)
{
	char base[512], dir[600];
	struct dirent *sw, *xe;
	size_t cap = 0;
	DIR *d, *sd;
	int err;

	err = root_path(base, sizeof(base), sysfs_root, "/sys/kernel/sunrpc/xprt-switches");
	if (err)
		return err;
	d = opendir(base);
	if (!d)
		return 0;
	a->have_sysfs = true;
	while ((sw = readdir(d))) {
		unsigned int swid;

		if (sscanf(sw->d_name, "switch-%u", &swid) != 1)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, sw->d_name);
		sd = opendir(dir);
		while (sd && (xe = readdir(sd))) {
			struct audit_xprt *x;
			unsigned int id;
			char proto[16];

			if (sscanf(xe->d_name, "xprt-%u-%15s", &id, proto) != 2)
				continue;
			if (GROW(a->x, cap, a->nx + 1, 8)) {
				closedir(sd);
				closedir(d);
				return -ENOMEM;
			}
			x = &a->x[a->nx++];
			memset(x, 0, sizeof(*x));
			x->id = id;
			x->switch_id = swid;
			snprintf(x->proto, sizeof(x->proto), "%s", proto);
			snprintf(dir, sizeof(dir), "%s/%s/%s", base, sw->d_name, xe->d_name);
			xprt_info_read(dir, x);
		}
		if (sd)
			closedir(sd);
	}
	closedir(d);
	return 0;
}

static void warn(struct audit *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct audit *a, const char *fmt, ...)
{
	va_list ap;

	if (a->nwarn >= AUDIT_MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(a->warn[a->nwarn++], sizeof(a->warn[0]), fmt, ap);
	va_end(ap);
}

/*
 * mountstats escapes the mount point as mountinfo does (space, tab, newline, backslash as \ooo):
 * compare @mnt, which mountinfo's parser unescaped, with the escaped form. Lines of any length.
 */
int mountstats_ports_parse(FILE *f, const char *mnt, unsigned int *ports, int max)
{
	char *line = NULL, *esc = malloc(4 * strlen(mnt) + 1), *e = esc;
	size_t cap = 0;
	bool in = false;
	int n = 0;

	if (!esc)
		return -ENOMEM;
	for (const char *p = mnt; *p; p++)
		e += strchr(" \t\n\\", *p) ? sprintf(e, "\\%03o", (unsigned char)*p) : (*e = *p, 1);
	*e = 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned int port;
		char *on, *end;

		if (!strncmp(line, "device ", 7)) {
			on = strstr(line, " mounted on ");
			end = on ? strstr(on + 12, " with fstype ") : NULL;
			in = end && (size_t)(end - on - 12) == strlen(esc) && !strncmp(on + 12, esc, strlen(esc));
		} else if (in && n < max && sscanf(line, " xprt: tcp %u", &port) == 1) {
			ports[n++] = port;
		}
	}
	free(line);
	free(esc);
	return n;
}

struct ports_query {
	const char *mnt;
	unsigned int *ports;
	int max;
};

static int parse_ports(FILE *f, void *arg)
{
	const struct ports_query *q = arg;

	return mountstats_ports_parse(f, q->mnt, q->ports, q->max);
}

/* source ports of the xprt: lines of one mount in ROOT/proc/PID/mountstats; count or -errno */
static int mountstats_ports(const struct mount_src *src, const char *mnt, unsigned int *ports, int max)
{
	struct ports_query q = { mnt, ports, max };

	return mounts_parse_file(src, "mountstats", parse_ports, &q);
}

/*
 * @addr among the addresses of VAST NFS's remoteports=@spec: IPv4 ranges FIRST-LAST and single
 * addresses joined by "~"; "dns" (addresses the client resolved) takes any
 */
static bool remoteports_has(const char *spec, const char *addr)
{
	struct in_addr a, lo, hi;
	char item[128];

	if (!strcmp(spec, "dns"))
		return true;
	while (*spec) {
		size_t n = strcspn(spec, "~");
		char *dash;

		snprintf(item, sizeof(item), "%.*s", (int)n, spec);
		spec += n + (spec[n] == '~');
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (!strcmp(item, addr))
			return true;
		if (dash && inet_pton(AF_INET, addr, &a) == 1 && inet_pton(AF_INET, item, &lo) == 1 &&
		    inet_pton(AF_INET, dash + 1, &hi) == 1 && ntohl(a.s_addr) >= ntohl(lo.s_addr) &&
		    ntohl(a.s_addr) <= ntohl(hi.s_addr))
			return true;
	}
	return false;
}

/* @x is one of a TCP mount's transports: a source port mountstats lists for it, to its server or
 * (@remoteports set) to one of the addresses that option lists */
static bool tcp_of_mount(const struct audit_xprt *x, const unsigned int *ports, int np,
			 const char *remoteports, const char *addr)
{
	if (strcmp(x->proto, "tcp") || !(remoteports ? remoteports_has(remoteports, x->dstaddr) :
						       !strcmp(x->dstaddr, addr)))
		return false;
	for (int k = 0; k < np; k++)
		if (x->src_port == ports[k])
			return true;
	return false;
}

static void audit_mounts(struct audit *a, const struct mount_table *mt, const struct mount_src *src)
{
	for (size_t i = 0; i < mt->n; i++) {
		struct audit_mount *am = &a->m[a->nm++];
		char v[32];
		bool v41;

		memset(am, 0, sizeof(*am));
		am->m = &mt->m[i];
		mount_option(am->m->opts, "vers", am->vers, sizeof(am->vers));
		mount_option(am->m->opts, "proto", am->proto, sizeof(am->proto));
		mount_option(am->m->opts, "addr", am->addr, sizeof(am->addr));
		am->rsize = mount_option(am->m->opts, "rsize", v, sizeof(v)) ? strtoul(v, NULL, 10) : 0;
		am->wsize = mount_option(am->m->opts, "wsize", v, sizeof(v)) ? strtoul(v, NULL, 10) : 0;
		am->nconnect = mount_option(am->m->opts, "nconnect", v, sizeof(v)) ? atoi(v) : 1;
		mount_option(am->m->opts, "remoteports", am->remoteports, sizeof(am->remoteports));
		mount_option(am->m->opts, "localports", am->localports, sizeof(am->localports));
		v41 = !strncmp(am->vers, "4.", 2) && strcmp(am->vers, "4.0");
		/*
		 * The transports of a mount. TCP: mountstats lists each one's source port, and so
		 * does sysfs. RDMA has no source port: take the first switch to the same server.
		 */
		if (!strcmp(am->proto, "tcp")) {
			unsigned int ports[160];
			int np = mountstats_ports(src, am->m->mountpoint, ports, 160);
			/* VAST's multipath spreads the transports over the addresses remoteports= lists */
			const char *rp = am->remoteports[0] ? am->remoteports : NULL;

			for (size_t j = 0; j < a->nx; j++) {
				bool seen = false;

				if (!tcp_of_mount(&a->x[j], ports, np, rp, am->addr))
					continue;
				/* an address not among the mount's earlier transports' */
				for (size_t e = 0; e < j && !seen; e++)
					seen = tcp_of_mount(&a->x[e], ports, np, rp, am->addr) &&
					       !strcmp(a->x[e].dstaddr, a->x[j].dstaddr);
				am->naddrs += !seen;
				am->xprts++;
				if (a->x[j].main || !am->max_slots)
					am->max_slots = a->x[j].max_slots;
			}
		} else {
			int sw = -1;

			for (size_t j = 0; j < a->nx; j++) {
				const struct audit_xprt *x = &a->x[j];

				if (strcmp(x->dstaddr, am->addr) || strcmp(x->proto, am->proto) ||
				    (sw >= 0 && (unsigned int)sw != x->switch_id))
					continue;
				sw = (int)x->switch_id;
				am->xprts++;
				am->naddrs = 1;
				if (x->main || !am->max_slots)
					am->max_slots = x->max_slots;
			}
		}
		if (!strcmp(am->proto, "tcp") && v41)
			continue;	/* NFS_CS_INFINITE_SLOTS: the session limits it, below */
		if (!strcmp(am->proto, "tcp") && a->tcp_max_slots > 0 && am->max_slots &&
		    am->max_slots != (unsigned long)a->tcp_max_slots)
			warn(a, "%s: transport has %u slots but tcp_max_slot_table_entries is now %ld, "
			     "which applies to new transports: unmount every mount of %s and mount again",
			     am->m->mountpoint,
			     am->max_slots, a->tcp_max_slots, am->addr);
		if (!strcmp(am->proto, "rdma") && a->rdma_slots > 0 && am->max_slots &&
		    am->max_slots != (unsigned long)a->rdma_slots)
			warn(a, "%s: transport has %u slots but rdma_slot_table_entries is now %ld, "
			     "which applies to new transports: unmount every mount of %s and mount again",
			     am->m->mountpoint,
			     am->max_slots, a->rdma_slots, am->addr);
		if (am->nconnect > 1 && am->xprts && am->xprts < am->nconnect)
			warn(a, "%s: nconnect=%u but %u transport%s to %s%s", am->m->mountpoint, am->nconnect,
			     am->xprts, am->xprts == 1 ? "" : "s", am->addr,
			     !strcmp(am->proto, "rdma") ? " (nconnect over RDMA needs b326df4a8ec6, ~6.9)" : "");
	}
}

/* a sysctl or module parameter, -1 when this kernel has none (or says something else) */
static int tunable(const char *root, const char *file, long *v)
{
	char path[512];
	int err = root_path(path, sizeof(path), root, "%s", file);

	if (err)
		return err;
	if (read_long(path, v))
		*v = -1;
	return 0;
}

/* net.ipv4.tcp_wmem's third figure ("min default max"), -1 when unread */
static int wmem_max(const char *root, long *v)
{
	char path[512], line[64];
	long lo, def;
	int err = root_path(path, sizeof(path), root, "/proc/sys/net/ipv4/tcp_wmem");

	if (err)
		return err;
	if (read_line(path, line, sizeof(line)) || sscanf(line, "%ld %ld %ld", &lo, &def, v) != 3 || *v <= 0)
		*v = -1;
	return 0;
}

/* which NFS stack sunrpc is, by what the module publishes (see struct audit) */
static void audit_stack(struct audit *a, const char *sysfs_root)
{
	char path[512], taint[16] = "";

	snprintf(a->stack, sizeof(a->stack), "kernel");
	a->nconnect_max = 16;
	if (!root_path(path, sizeof(path), sysfs_root, "/sys/module/sunrpc/parameters/nfs_bundle_version") &&
	    !read_line(path, a->stack_version, sizeof(a->stack_version))) {
		snprintf(a->stack, sizeof(a->stack), "vastnfs");
		a->nconnect_max = 64;
		return;
	}
	if (!root_path(path, sizeof(path), sysfs_root, "/sys/module/sunrpc/taint") &&
	    !read_line(path, taint, sizeof(taint)) && strchr(taint, 'O')) {
		snprintf(a->stack, sizeof(a->stack), "out-of-tree");
		if (root_path(path, sizeof(path), sysfs_root, "/sys/module/sunrpc/version") ||
		    read_line(path, a->stack_version, sizeof(a->stack_version)))
			a->stack_version[0] = '\0';
	}
}

int audit_load(struct audit *a, const char *sysfs_root, const struct mount_src *src,
	       const struct mount_table *mt)
{
	int err;

	memset(a, 0, sizeof(*a));
	audit_stack(a, sysfs_root);
	err = tunable(src->procfs_root, "/proc/sys/sunrpc/tcp_max_slot_table_entries",
		      &a->tcp_max_slots);
	/* registered only with CONFIG_SUNRPC_DEBUG; the module parameter is there otherwise */
	if (!err)
		err = tunable(src->procfs_root, "/proc/sys/sunrpc/rdma_slot_table_entries",
			      &a->rdma_slots);
	if (!err)
		err = tunable(sysfs_root, "/sys/module/nfs/parameters/max_session_slots",
			      &a->max_session_slots);
	if (!err)
		err = wmem_max(src->procfs_root, &a->tcp_wmem_max);
	if (!err)
		err = load_xprts(a, sysfs_root);
	if (err)
		return err;
	a->m = calloc(mt->n + 1, sizeof(*a->m));
	if (!a->m)
		return -ENOMEM;
	audit_mounts(a, mt, src);
	return 0;
}

void audit_free(struct audit *a)
{
	free(a->x);
	free(a->m);
	memset(a, 0, sizeof(*a));
}

void audit_print(FILE *f, const struct audit *a)
{
	if (strcmp(a->stack, "kernel"))
		fprintf(f, "NFS stack: %s%s%s (sunrpc built apart from the kernel)\n", a->stack,
			a->stack_version[0] ? " " : "", a->stack_version);
	fprintf(f, "Limits: tcp_max_slot_table_entries=%ld rdma_slot_table_entries=%ld "
		   "max_session_slots=%ld\n", a->tcp_max_slots, a->rdma_slots, a->max_session_slots);
	if (!a->nm)
		fprintf(f, "  no NFS mounts\n");
	else
		fprintf(f, "  %-24s %-5s %-4s %-22s %6s %5s %8s %8s\n", "MOUNT", "VERS", "PROTO",
			"SERVER", "XPRTS", "SLOTS", "RSIZE", "WSIZE");
	for (size_t i = 0; i < a->nm; i++) {
		const struct audit_mount *m = &a->m[i];

		fprintf(f, "  %-24.24s %-5s %-4s %-22.22s %6u %5u %8lu %8lu\n", m->m->mountpoint, m->vers,
			m->proto, m->addr, m->xprts, m->max_slots, m->rsize, m->wsize);
		/* VAST's multipath: nconnect's transports over the server's addresses, not a fault */
		if (m->naddrs > 1 || m->remoteports[0] || m->localports[0])
			fprintf(f, "    %u transports over %u server addresses%s%s%s%s\n", m->xprts, m->naddrs,
				m->remoteports[0] ? ", remoteports=" : "", m->remoteports,
				m->localports[0] ? ", localports=" : "", m->localports);
	}
	/* no sunrpc sysfs is said once, by the run's proof (run/tick.c), in every output mode */
	for (size_t i = 0; i < a->nwarn; i++)
		print_wrapped(f, "  warning: ", a->warn[i]);
	fflush(f);
}
