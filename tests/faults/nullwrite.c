// SPDX-License-Identifier: GPL-2.0
/*
 * nullwrite FILE BYTES TIMES: write(fd, NULL, BYTES), TIMES times, on FILE. Each call fails with
 * EFAULT having moved nothing: what a user who wants a window's attribution for free would do
 * (test_jobs, #44). Prints how many failed so; exits 0 when all did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, efault = 0, times;
	size_t n;

	if (argc != 4) {
		fprintf(stderr, "usage: nullwrite FILE BYTES TIMES\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 0);
	times = atoi(argv[3]);
	fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < times; i++)
		if (write(fd, NULL, n) < 0 && errno == EFAULT)
			efault++;
	printf("%d\n", efault);
	return efault == times ? 0 : 1;
}
