// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/mountpoint.h"

/* Is the directory @parent (named @name) safe above the component @child? */
static int check_parent(const char *name, const struct stat *parent,
			const struct stat *child, bool child_is_last,
			char *why, size_t size)
{
	if (parent->st_uid != 0) {
		snprintf(why, size, "%s is owned by uid %u", name, (unsigned int)parent->st_uid);
		return 1;
	}
	if (!(parent->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (!(parent->st_mode & S_ISVTX)) {
		snprintf(why, size, "%s is writable by %s", name,
			 parent->st_mode & S_IWOTH ? "others" : "its group");
		return 1;
	}
	/* sticky: only the entry's owner (or root) can rename it */
	if (child_is_last) {
		snprintf(why, size, "%s is sticky and writable by others, and the mount "
			 "point in it may belong to anyone", name);
		return 1;
	}
	if (child->st_uid != 0) {
		snprintf(why, size, "%s is sticky and writable by others, and its entry "
			 "on the path is owned by uid %u", name, (unsigned int)child->st_uid);
		return 1;
	}
	return 0;
}

int fserr_stat_nosync(int fd, struct stat *st)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MODE | STATX_UID | STATX_GID | STATX_INO, &stx))
		return -1;
	memset(st, 0, sizeof(*st));
	st->st_mode = stx.stx_mode;
	st->st_uid = stx.stx_uid;
	st->st_gid = stx.stx_gid;
	st->st_ino = stx.stx_ino;
	st->st_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	st->st_rdev = makedev(stx.stx_rdev_major, stx.stx_rdev_minor);
	return 0;
}

int fserr_mountpoint_check(const char *path, char *why, size_t size)
{
	char walked[4096] = "/", comp[256];
	struct stat parent, child;
	const char *p = path, *end;
	int fd, next, ret = 0;
	size_t len;

	*why = 0;
	if (path[0] != '/') {
		snprintf(why, size, "%s is not an absolute path", path);
		return 1;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &parent)) {
		snprintf(why, size, "/: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		len = end - p;
		if (len >= sizeof(comp) || strlen(walked) + len + 2 > sizeof(walked)) {
			snprintf(why, size, "%s: a component or the path is too long", path);
			ret = 1;
			break;
		}
		memcpy(comp, p, len);
		comp[len] = 0;
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			snprintf(why, size, "%s has a \"%s\" component", path, comp);
			ret = 1;
			break;
		}
		next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fserr_stat_nosync(next, &child)) {
			ret = -errno;
			snprintf(why, size, "%s%s%s: %s", walked, walked[1] ? "/" : "", comp,
				 strerror(errno));
			if (next >= 0)
				close(next);
			break;
		}
		p = end;
		while (*p == '/')
			p++;
		ret = check_parent(walked, &parent, &child, !*p, why, size);
		if (walked[1])
			strcat(walked, "/");
		strcat(walked, comp);
		if (!ret && S_ISLNK(child.st_mode)) {
			snprintf(why, size, "%s is a symbolic link", walked);
			ret = 1;
		} else if (!ret && !S_ISDIR(child.st_mode)) {
			snprintf(why, size, "%s is not a directory", walked);
			ret = 1;
		}
		close(fd);
		fd = next;
		parent = child;
		if (ret)
			break;
	}
	close(fd);
	return ret;
}
