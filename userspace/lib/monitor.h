/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Listening for fserr uevents, from one of two sources:
 *
 *   kernel  the kernel's own multicast group (1) of NETLINK_KOBJECT_UEVENT:
 *           only messages from port id 0 are believed (the kernel; a
 *           process with CAP_NET_ADMIN can send to the group from its own
 *           port). Works without udev: the busybox guest, an initramfs.
 *   udev    libsystemd's sd_device_monitor, on the group udevd passes
 *           events on to after its rules ran. The library checks the
 *           sender (credentials uid 0, the message's magic) and filters
 *           by subsystem in the kernel (a socket filter on "fserr").
 *
 * FSERR_MONITOR_AUTO picks udev when the programs were built with
 * libsystemd and udevd runs (/run/udev/control exists: without it
 * sd_device_monitor quietly listens to nothing), the kernel otherwise.
 */
#ifndef FSERR_MONITOR_H
#define FSERR_MONITOR_H

#include <stdbool.h>

#include "uevent.h"

enum fserr_monitor_source {
	FSERR_MONITOR_AUTO,
	FSERR_MONITOR_KERNEL,
	FSERR_MONITOR_UDEV,
};

struct fserr_monitor;

/* What one fserr_monitor_read() saw. */
struct fserr_monitor_result {
	unsigned int faults;	/* fserr fault uevents passed to the callback */
	bool lost;		/* the socket overflowed: some were lost */
	int error;		/* udev: the library failed (a positive errno): close it */
	/* kernel source: messages from a port that is not the kernel's */
	unsigned long ignored;
	unsigned int ignored_port;	/* the last one's */
};

typedef void fserr_monitor_cb(const struct fserr_uevent *ev, void *data);

/* "auto", "kernel" or "udev" into @src; -EINVAL for anything else */
int fserr_monitor_source_parse(const char *name, enum fserr_monitor_source *src);

/*
 * Open a monitor on @src (resolved when AUTO) with a 2 MiB receive buffer
 * (past rmem_max when privileged). Returns 0 or a negative errno:
 * -EOPNOTSUPP for udev in a build without libsystemd, -ENOENT for udev
 * when udevd does not run.
 */
int fserr_monitor_open(enum fserr_monitor_source src, struct fserr_monitor **ret);

/* The descriptor to poll for POLLIN */
int fserr_monitor_fd(const struct fserr_monitor *m);

/* "kernel" or "udev" */
const char *fserr_monitor_source_name(const struct fserr_monitor *m);

/*
 * Take what is queued, at most 256 messages; poll for POLLIN and POLLERR
 * (a netlink socket can have a pending error and nothing queued) (a flood must not starve the
 * caller's other channels), calling @cb (if not NULL) for each fserr fault
 * uevent.
 */
void fserr_monitor_read(struct fserr_monitor *m, fserr_monitor_cb *cb, void *data,
			struct fserr_monitor_result *res);

void fserr_monitor_close(struct fserr_monitor *m);

#endif
