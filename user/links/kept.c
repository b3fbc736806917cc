// SPDX-License-Identifier: GPL-2.0
/*
 * Counter files kept open between samples (struct link_sampler' kept files): read again with
 * pread() at offset 0, where sysfs shows the value afresh, and closed when a sample no longer
 * reads them. Used by the RDMA ports' counters (rdma.c) and the netdevs' files (netdev.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "links/link_int.h"
#include "lib/util.h"

/* the file's first line, from its start; -errno */
static int pread_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

void kept_drop(struct link_sampler *pa, size_t i)
{
	close(pa->kept[i].fd);
	free(pa->kept[i].path);
	pa->kept[i] = pa->kept[--pa->nkept];
}

/*
 * @path's counter, through @pa's kept descriptor when it has one (found where the last sample's
 * order puts it, else by a scan), else opened now and kept. A read that fails (the device gone:
 * -ENODEV) drops the descriptor and is the caller's failure, as a failed open was.
 */
int kept_read_u64(struct link_sampler *pa, const char *path, uint64_t *v)
{
	struct statfs sfs;
	char buf[64];
	size_t i;
	int fd, err;

	if (!pa)
		return read_u64(path, v);
	i = pa->kept_next < pa->nkept && !strcmp(pa->kept[pa->kept_next].path, path) ? pa->kept_next
										       : pa->nkept;
	for (size_t j = 0; i == pa->nkept && j < pa->nkept; j++)
		if (!strcmp(pa->kept[j].path, path))
			i = j;
	if (i < pa->nkept) {
		err = pread_line(pa->kept[i].fd, buf, sizeof(buf));
		if (err) {
			kept_drop(pa, i);
			return err;
		}
		pa->kept[i].used = true;
		pa->kept_next = i + 1;
		return parse_u64(buf, v);
	}
	if (pa->nkept >= KEPT_FILES_MAX)
		return read_u64(path, v);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = pread_line(fd, buf, sizeof(buf));
	if (!err)
		err = parse_u64(buf, v);
	/*
	 * kept only when it reads as a counter ("N/A (no PMA)" is asked again next time) and is
	 * sysfs's, whose file of a device gone fails its reads (-ENODEV); a fixture tree's plain
	 * file would read on
	 */
	if (err || fstatfs(fd, &sfs) || sfs.f_type != SYSFS_MAGIC ||
	    GROW(pa->kept, pa->kept_cap, pa->nkept + 1, 32)) {
		close(fd);
		return err;
	}
	pa->kept[pa->nkept] = (struct kept_file){ .path = strdup(path), .fd = fd, .used = true };
	if (!pa->kept[pa->nkept].path) {
		close(fd);
		return 0;
	}
	pa->kept_next = ++pa->nkept;
	return 0;
}

/* the end of a sample: files it did not read are closed */
void kept_sweep(struct link_sampler *pa)
{
	if (!pa)
		return;
	for (size_t i = pa->nkept; i-- > 0;)
		if (!pa->kept[i].used)
			kept_drop(pa, i);
	for (size_t i = 0; i < pa->nkept; i++)
		pa->kept[i].used = false;
	pa->kept_next = 0;
}
