// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include "lib/log.h"
#include "lib/util.h"
#include "links/verbs.h"

struct verbs_api {
	struct ibv_device **(*get_device_list)(int *);
	void (*free_device_list)(struct ibv_device **);
	const char *(*get_device_name)(struct ibv_device *);
	struct ibv_context *(*open_device)(struct ibv_device *);
	int (*close_device)(struct ibv_context *);
	int (*query_device)(struct ibv_context *, struct ibv_device_attr *);
	int (*query_port)(struct ibv_context *, uint8_t, struct _compat_ibv_port_attr *);
};

/* what ibv_query_port() inlines, with the library's symbol resolved by dlsym */
static int query_port(const struct verbs_api *api, struct ibv_context *ctx, uint8_t port,
		      struct ibv_port_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);

	memset(attr, 0, sizeof(*attr));
	if (!vctx)
		return api->query_port(ctx, port, (struct _compat_ibv_port_attr *)attr);
	return vctx->query_port(ctx, port, attr, sizeof(*attr));
}

int verbs_rates(struct verbs_rate **out, size_t *n, const char **why)
{
	struct verbs_api api;
	struct ibv_device **list;
	struct verbs_rate *r = NULL;
	size_t cap = 0;
	int ndev = 0;
	void *lib;

	*out = NULL;
	*n = 0;
	lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		*why = "libibverbs.so.1 is not installed (Debian package libibverbs1)";
		return -ENOENT;
	}
#define SYM(f, s) (*(void **)&api.f = dlsym(lib, s))
	if (!SYM(get_device_list, "ibv_get_device_list") || !SYM(free_device_list, "ibv_free_device_list") ||
	    !SYM(get_device_name, "ibv_get_device_name") || !SYM(open_device, "ibv_open_device") ||
	    !SYM(close_device, "ibv_close_device") || !SYM(query_device, "ibv_query_device") ||
	    !SYM(query_port, "ibv_query_port")) {
		*why = "libibverbs.so.1 lacks the verbs it should have";
		dlclose(lib);
		return -ENOENT;
	}
#undef SYM
	list = api.get_device_list(&ndev);
	if (!list) {
		*why = "ibv_get_device_list failed";
		dlclose(lib);
		return -errno ? -errno : -ENODEV;
	}
	for (int i = 0; i < ndev; i++) {
		struct ibv_context *ctx = api.open_device(list[i]);
		struct ibv_device_attr da;

		if (!ctx)
			continue;
		if (api.query_device(ctx, &da) == 0)
			for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
				struct ibv_port_attr pa;
				unsigned int speed;

				if (query_port(&api, ctx, p, &pa))
					continue;
				speed = pa.active_speed;
#ifdef HAVE_ACTIVE_SPEED_EX
				/* XDR (0x100) does not fit the 8-bit field */
				if (pa.active_speed_ex)
					speed = pa.active_speed_ex;
#endif
				if (GROW(r, cap, *n + 1, 4))
					break;
				snprintf(r[*n].dev, sizeof(r[*n].dev), "%s", api.get_device_name(list[i]));
				r[*n].port = p;
				r[*n].gbps = verbs_rate_gbps(speed, pa.active_width);
				pr_debug("verbs: %s port %u speed %u width %u: %.1f Gb/s\n", r[*n].dev, p,
					 speed, pa.active_width, r[*n].gbps);
				(*n)++;
			}
		api.close_device(ctx);
	}
	api.free_device_list(list);
	/* providers stay loaded; unloading libibverbs under them is not supported */
	*out = r;
	return 0;
}
