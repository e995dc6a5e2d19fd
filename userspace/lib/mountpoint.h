/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a mount point is safe for a root daemon to mount on again after
 * it unmounted the filesystem there: a user who can change any directory
 * on the way to it could swap a component for a symbolic link (or the mount
 * point for another directory) while the filesystem is down, and have root
 * mount her medium over /etc.
 */
#ifndef FSERR_MOUNTPOINT_H
#define FSERR_MOUNTPOINT_H

#include <stddef.h>

/*
 * Check the absolute @path: no component is a symbolic link, "." or "..",
 * every component is a directory, and every directory above the last one
 * is owned by root and writable by no one else, except a sticky directory
 * whose entry on the path is a directory owned by root that is not the
 * last component (the owner of an entry in a sticky directory may still
 * rename it; the last one is the mount point, whose owner is hidden while
 * something is mounted on it). Components are opened one by one with
 * O_NOFOLLOW from "/", never by resolving @path as a whole.
 *
 * Returns 0 when safe, 1 when not (@why says which component and why), or
 * -errno when @path cannot be walked (@why says where).
 */
int fserr_mountpoint_check(const char *path, char *why, size_t size);

/*
 * fstat() of @fd (an O_PATH descriptor will do) with statx()'s
 * AT_STATX_DONT_SYNC: type, mode, owner, inode and device from what the
 * kernel has, never asking the filesystem (a FUSE server a user mounted
 * on the path cannot make a root daemon wait). 0, or -1 with errno.
 */
struct stat;
int fserr_stat_nosync(int fd, struct stat *st);

#endif
