// SPDX-License-Identifier: GPL-2.0
/* A session's slots in use against the limit in force: its level times read whole and closed. */
#include <string.h>
#include <bpf/bpf.h>
#include "account.h"
#include "engine/engine_int.h"
#include "lib/log.h"

/*
 * Each session's level times as the snapshot's clock closes them (#46). A take and a free on
 * two CPUs land their two adds after their swaps: a copy between them is torn, and is read again
 * from the map; still torn after a few reads, or no level seen yet (no free hooked, or no slot
 * taken since attach), the session counts no level time in this interval (LEVEL_BUCKETS marks it).
 */
void sessions_settle(int fd, struct snapshot *snap)
{
	for (size_t i = 0; i < snap->nsessions; i++) {
		struct session_stats *s = &snap->sessions[i].s;

		for (int n = 0; n < 4 && s->bucket < LEVEL_BUCKETS && !levels_whole(s->level_ns, false); n++) {
			struct session_stats v;

			if (bpf_map_lookup_elem(fd, &snap->sessions[i].key, &v) || v.first_ns != s->first_ns)
				break;
			memcpy(s->level_ns, v.level_ns, sizeof(v.level_ns));
			s->bucket = v.bucket;
		}
		if (s->bucket < LEVEL_BUCKETS && !levels_whole(s->level_ns, false)) {
			pr_debug("session of client %u: its levels read torn: none of its time this interval\n",
				 s->clid);
			s->bucket = LEVEL_BUCKETS;
		}
		if (s->bucket < LEVEL_BUCKETS)
			levels_close(s->level_ns, snap->ts_ns);
		else
			memset(s->level_ns, 0, sizeof(s->level_ns));
	}
}
