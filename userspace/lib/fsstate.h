/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fserr state of mounted filesystems: the kernel's directories
 * /sys/fs/<family>/<id>/ (Documentation/ABI/testing/sysfs-fs-fserr), and
 * the mount points that show each filesystem in this mount namespace
 * (through libmount, never by parsing mountinfo by hand).
 */
#ifndef FSERR_FSSTATE_H
#define FSERR_FSSTATE_H

#include <libmount/libmount.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct fserr_fs {
	char dir[PATH_MAX];		/* /sys/fs/<family>/<id> */
	char family[32];
	char id[64];
	dev_t dev;
	ino_t ino;			/* of dir: differs for every mount */
	int fault;
	unsigned long long error_count;
	unsigned long long fault_count;	/* 0->1 raises since mount */
	long long first_error_time, last_error_time;
	int first_errno, last_errno;
	unsigned long long uevents_suppressed;
	long long io_error_count;	/* -1: not told (a kernel before v4) */
};

/* Read the state in @dir. Returns 0, or -errno (-EINVAL for junk content). */
int fserr_fs_read(const char *dir, struct fserr_fs *fs);

/*
 * Call @cb for every fserr directory under @sysfs_fs (normally "/sys/fs"):
 * those with an fs_fault file. Stops at and returns @cb's first non-zero
 * return value. Otherwise returns 0 when every directory was read, or the
 * -errno of the first that could not be (skipped with a warning): a caller
 * that forgets what it did not see must not trust such a scan to be whole.
 */
int fserr_fs_scan(const char *sysfs_fs,
		  int (*cb)(const struct fserr_fs *fs, void *data), void *data);

/*
 * The fserr state of the superblock of @dev under @sysfs_fs, into @out:
 * 0, or -ENOENT if no mounted filesystem of @dev has one.
 */
int fserr_fs_find(const char *sysfs_fs, dev_t dev, struct fserr_fs *out);

/*
 * Whether the device failed a read or a write since @fs was mounted: its
 * io_error_count, or where the kernel does not have that (series v3), an
 * EIO as the first or the last error (an EIO between two others is not
 * seen then).
 */
bool fserr_fs_io_failed(const struct fserr_fs *fs);

/* The symbolic name of an errno that fserr reports; "-" for 0. */
const char *fserr_errno_name(int e);

/* Write "0" to fs_fault. Returns 0 or -errno (-EACCES, -EPERM: not root). */
int fserr_fs_clear(const struct fserr_fs *fs);

/*
 * The mount table of this namespace, from @path (NULL: the process's own
 * /proc/self/mountinfo). NULL on failure, with errno set.
 */
struct libmnt_table *fserr_mounts_load(const char *path);

/*
 * Join the mount points of device @dev in @tb with @sep, into @buf.
 * A backslash, a control character or a character of @sep in a mount
 * point is written as \ooo (octal, as in /proc/self/mountinfo), so that
 * a directory named "a\nb" or "a,b" reads as one mount point, not two.
 * Returns the number of mount points.
 */
int fserr_mounts_of(struct libmnt_table *tb, dev_t dev, const char *sep,
		    char *buf, size_t size);

/* The first mount of @dev in @tb, or NULL (libmount's mnt_table_find_devno()). */
struct libmnt_fs *fserr_mounts_first(struct libmnt_table *tb, dev_t dev);

/*
 * The next mount of @dev in @tb after @it's position, into @fs: 0, or 1
 * when there is none or libmount fails (mnt_table_find_next_fs(),
 * matching the device number).
 */
int fserr_mounts_next(struct libmnt_table *tb, struct libmnt_iter *it, dev_t dev,
		      struct libmnt_fs **fs);

#endif
