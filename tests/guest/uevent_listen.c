// SPDX-License-Identifier: GPL-2.0
/*
 * uevent_listen [--ready FILE]: print the fserr uevents the kernel
 * broadcasts, one line each, until killed.  With --ready, FILE is created
 * once the socket is bound: a uevent sent before that is never seen, so a
 * test that starts the listener in the background waits for FILE.  A stand-in for `udevadm monitor --kernel --property`
 * in the busybox guest, used by the demo.
 *
 * The netlink message is "ACTION@DEVPATH" followed by NUL-terminated
 * KEY=VALUE strings; a large receive buffer keeps a burst from being lost
 * (ENOBUFS).
 */
#define _GNU_SOURCE
#include <err.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int size = 2 * 1024 * 1024, fd, n, i;
	char buf[8192];

	fd = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		err(1, "netlink socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
		err(1, "bind to the uevent group");
	if (argc == 3 && !strcmp(argv[1], "--ready")) {
		int ready = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (ready < 0)
			err(1, "create %s", argv[2]);
		close(ready);
	} else if (argc != 1) {
		errx(2, "usage: uevent_listen [--ready FILE]");
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			warn("recv");
			continue;
		}
		buf[n] = 0;
		if (!memmem(buf, n, "SUBSYSTEM=fserr", 16))
			continue;
		printf("uevent:");
		for (i = strlen(buf) + 1; i < n; i += strlen(buf + i) + 1)
			if (strncmp(buf + i, "SEQNUM=", 7))
				printf(" %s", buf + i);
		printf("\n");
	}
}
