/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_VERBS_H
#define SLOTSCOPE_VERBS_H

#include <stddef.h>
#include "links/rdma.h"

/*
 * Link rate of every RDMA port, from libibverbs (loaded at run time, so hosts without it still
 * run). 0 or -errno; *why says what was missing.
 */
int verbs_rates(struct verbs_rate **out, size_t *n, const char **why);

#endif
