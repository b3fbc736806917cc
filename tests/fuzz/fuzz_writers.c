// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the writers with names made of any bytes (mount points, op and server names, RDMA
 * device names): the textfile, JSON, folded stacks and SVG must stay UTF-8, one folded stack per
 * line, and every label and string closed; a violation aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "out/output.h"
#include "lib/utf8.h"

static void check_utf8(const char *buf, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq_len((const unsigned char *)buf + i);

		if (!n)
			abort();
		i += n;
	}
}

static void folded_lines(const char *buf)
{
	/* "frames weight\n": exactly one space, before the weight */
	for (const char *l = buf; *l;) {
		const char *nl = strchr(l, '\n'), *sp = strchr(l, ' '), *sp2;

		if (!nl || !sp || sp > nl)
			abort();
		sp2 = strchr(sp + 1, ' ');
		if (sp2 && sp2 < nl)
			abort();
		l = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1), *buf = NULL;
	struct xprt_view x = { .key = 1, .id = 3, .ident = IDENT_TCP, .limit = 16, .nmounts = 1 };
	struct op_view op = { .k = { .xprt = 1, .clid = 2 }, .count = 5 };
	struct mount_op mop = { .count = 5 };
	struct mount_total mt = { 0 };
	struct view v = { .interval_s = 1, .nxprts = 1, .xprts = &x, .nops = 1, .ops = &op,
			  .nmops = 1, .mops = &mop, .nmounts = 1, .mounts = &mt };
	struct prom_input in = { .cum = &v, .iv = &v, .now_wall = 1, .version = "f", .kernel = "k" };
	size_t len;
	FILE *f;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = 0;
	x.link.port = -1;
	x.mounts[0].mountpoint = name;
	snprintf(x.addr, sizeof(x.addr), "%s", name);
	snprintf(x.link.netdev, sizeof(x.link.netdev), "%s", name);
	snprintf(op.name, sizeof(op.name), "%s", name);
	op.mountpoint = name;
	op.sum_ns[STAGE_EXECUTE] = 5000000;
	op.hist[STAGE_EXECUTE][20] = 5;
	/* the model's split (op_parts()): what the folded and SVG writers print */
	op.part_ns[PART_OTHER] = 4000000;
	op.part_ns[PART_SLOT_WAIT] = 1000;
	x.waits[WAIT_SLOT].sum_ns = 1000;
	x.waits[WAIT_SLOT].buckets[9] = 1;
	mop.mountpoint = name;
	snprintf(mop.name, sizeof(mop.name), "%s", name);
	mt.mountpoint = name;

	f = open_memstream(&buf, &len);
	out_prom(f, &in);
	fclose(f);
	check_utf8(buf, len);
	free(buf);
	f = open_memstream(&buf, &len);
	out_json(f, &v);
	fclose(f);
	check_utf8(buf, len);
	if (len && (buf[len - 1] != '\n' || memchr(buf, '\n', len - 1)))
		abort();
	free(buf);
	f = open_memstream(&buf, &len);
	out_folded(f, &v);
	fclose(f);
	check_utf8(buf, len);
	folded_lines(buf);
	free(buf);
	f = open_memstream(&buf, &len);
	out_svg(f, &v, NULL);
	fclose(f);
	check_utf8(buf, len);
	free(buf);
	free(name);
	return 0;
}
