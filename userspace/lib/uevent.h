/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of the kernel's netlink uevents, for the fserr uevent.
 *
 * The kernel sends "ACTION@DEVPATH" followed by NUL-terminated KEY=VALUE
 * strings, all in one datagram (lib/kobject_uevent.c). fserr's uevent has
 * SUBSYSTEM=fserr, ACTION=change, FS_FAULT=1 and the identity of the
 * filesystem (Documentation/filesystems/fserr.rst).
 */
#ifndef FSERR_UEVENT_H
#define FSERR_UEVENT_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's limit for one uevent (UEVENT_BUFFER_SIZE). */
#define FSERR_UEVENT_MAX 2048

struct fserr_uevent {
	char devpath[256];	/* /fs/<family>/<id> */
	char fs_type[32];
	char fs_id[32];
	char uuid[40];		/* empty when the superblock has none */
	unsigned int major, minor;
	int fs_errno;		/* positive, the error that raised the fault */
	unsigned long long error_count;
	unsigned long long fault_count;	/* 0 when not sent (series v3) */
	unsigned long long suppressed;
};

/*
 * Parse one datagram. Returns 0 for an fserr fault uevent, filled into @ev;
 * -ENOENT for a well-formed uevent that is not one (another subsystem or
 * action); -EINVAL for a malformed message: not NUL-terminated, a variable
 * without '=', a key twice, an empty or too long value, a number that
 * is not one, or a required variable missing. Nothing is trusted that the
 * checks did not cover.
 */
int fserr_uevent_parse(const char *buf, size_t len, struct fserr_uevent *ev);

/*
 * The same checks on a uevent that a library already split into
 * properties (sd_device, after udevd): @get returns the value of a key,
 * or NULL. The variables fserr's uevent has are put back into the
 * kernel's form and parsed as above; other properties (udevd's SEQNUM,
 * TAGS, ...) are not looked at. Returns what fserr_uevent_parse() does.
 */
typedef const char *fserr_uevent_getter(const char *key, void *data);
int fserr_uevent_parse_props(fserr_uevent_getter *get, void *data, struct fserr_uevent *ev);

#endif
