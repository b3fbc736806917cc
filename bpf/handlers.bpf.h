/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every handler that reads kernel memory, included twice by slotscope.bpf.c: with RD() a plain
 * load and FN() suffixed _btf for tp_btf/fentry programs, with RD() BPF_CORE_READ and FN()
 * suffixed _raw for raw_tp/kprobe programs. No include guard on purpose. By concern, in the
 * order each needs the one before: a handler handle_NAME is FN(handle_NAME) in one of these.
 */
#include "slot.bpf.h"	/* transports and their slots */
#include "reply.bpf.h"	/* requests sent and awaiting their reply */
#include "credit.bpf.h"	/* RDMA/UDP credits against the grant in force */
#include "wait.bpf.h"	/* waits, and the takes that end them */
#include "op.bpf.h"	/* an RPC's end: ops, clients */
#include "io.bpf.h"	/* sessions, jobs' file I/O */
