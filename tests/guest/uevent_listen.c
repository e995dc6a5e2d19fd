// SPDX-License-Identifier: GPL-2.0
/*
 * uevent_listen: print the fserr uevents the kernel broadcasts, one line
 * each, until killed.  A stand-in for `udevadm monitor --kernel --property`
 * in the busybox guest, used by the demo.
 *
 * The netlink message is "ACTION@DEVPATH" followed by NUL-terminated
 * KEY=VALUE strings; a large receive buffer keeps a burst from being lost
 * (ENOBUFS).
 */
#define _GNU_SOURCE
#include <err.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
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
