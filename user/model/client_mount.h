/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mount an RPC client serves (client_mount.c): what the model and the sessions' view both
 * ask, below both.
 */
#ifndef SLOTSCOPE_CLIENT_MOUNT_H
#define SLOTSCOPE_CLIENT_MOUNT_H

#include "engine/engine.h"
#include "host/mounts.h"

/* the mount whose superblock client @clid is, or is made from; NULL: none known */
const char *mountpoint_of(const struct snapshot *s, const struct mount_table *mt, __u32 clid);

#endif
