/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the link side (rdma.c, netdev.c, kept.c): what the RDMA ports' sample asks of the
 * netdevs and of the kept counter files. Nothing outside those three includes it.
 */
#ifndef SLOTSCOPE_LINK_INT_H
#define SLOTSCOPE_LINK_INT_H

#include "links/rdma.h"

/* kept.c: @path's counter through @pa's kept descriptor (opened and kept when new); 0 or -errno */
int kept_read_u64(struct link_sampler *pa, const char *path, uint64_t *v);
/* kept.c: close the kept file @i */
void kept_drop(struct link_sampler *pa, size_t i);
/* kept.c: the end of a sample: files it did not read are closed */
void kept_sweep(struct link_sampler *pa);

/* netdev.c: every netdev of ROOT/sys/class/net into @s, sorted by name; 0 or -errno */
int sample_netdevs(const char *sysfs_root, struct link_sample *s, struct link_sampler *pa);
/* netdev.c: the netdev @name under a RoCE port, into @p->nd (this sample's row when it has one) */
void port_netdev(const char *sysfs_root, const struct link_sample *s, const char *name,
		 struct rdma_port *p, struct link_sampler *pa);

#endif
