// SPDX-License-Identifier: GPL-2.0
/*
 * poll_attr FILE TIMEOUT_MS: wait for a sysfs attribute to change, the way
 * the ABI documents it (read, poll() for POLLPRI, seek to 0, read again),
 * and print what it changed to.  Exits 0 when woken, 1 on timeout.
 */
#include <err.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct pollfd pfd = { .events = POLLPRI };
	char buf[64];
	long start;
	int n;

	if (argc != 3)
		errx(2, "usage: poll_attr FILE TIMEOUT_MS");
	pfd.fd = open(argv[1], O_RDONLY);
	if (pfd.fd < 0)
		err(2, "%s", argv[1]);
	if (read(pfd.fd, buf, sizeof(buf)) < 0)
		err(2, "read %s", argv[1]);
	start = now_ms();
	n = poll(&pfd, 1, atoi(argv[2]));
	if (n < 0)
		err(2, "poll");
	if (n == 0) {
		printf("no change within %s ms\n", argv[2]);
		return 1;
	}
	if (lseek(pfd.fd, 0, SEEK_SET) < 0 || (n = read(pfd.fd, buf, sizeof(buf) - 1)) < 0)
		err(2, "re-read %s", argv[1]);
	buf[n] = 0;
	printf("woken after %ld ms, %s is now %s", now_ms() - start, argv[1], buf);
	return 0;
}
