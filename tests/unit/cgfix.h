/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup tree made of plain directories under @root (a mkdtemp() the test makes): its ids are
 * the directories' inode numbers, as cgroup v2's are. Included after cmocka.h by the jobs' tests.
 */
#ifndef SLOTSCOPE_TEST_CGFIX_H
#define SLOTSCOPE_TEST_CGFIX_H

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>

static char root[64];

/* make @rel under root; its id */
static inline __u64 mkcg(const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static inline void rmcg(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(rmdir(path), 0);
}

#endif
