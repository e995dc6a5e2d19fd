// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsstate.h"

/* Read one attribute as a number; -EINVAL unless it is one number + "\n". */
static int read_number(const char *dir, const char *attr, long long *out)
{
	char path[PATH_MAX + 32], buf[64], *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	errno = 0;
	*out = strtoll(buf, &end, 10);
	if (errno || end == buf || (*end && strcmp(end, "\n")))
		return -EINVAL;
	return 0;
}

static int read_dev(const char *dir, dev_t *dev)
{
	char path[PATH_MAX + 8];
	unsigned int maj, min;
	char extra;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/dev", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%u:%u%c", &maj, &min, &extra) == 3 && extra == '\n';
	fclose(f);
	if (!ok)
		return -EINVAL;
	*dev = makedev(maj, min);
	return 0;
}

/* @dir is ".../<family>/<id>". */
static int split_dir(const char *dir, struct fserr_fs *fs)
{
	const char *id = strrchr(dir, '/'), *family;

	if (!id || id == dir || !id[1])
		return -EINVAL;
	for (family = id - 1; family > dir && *family != '/'; family--)
		;
	if (*family != '/')
		return -EINVAL;
	snprintf(fs->id, sizeof(fs->id), "%s", id + 1);
	snprintf(fs->family, sizeof(fs->family), "%.*s",
		 (int)(id - family - 1), family + 1);
	return 0;
}

int fserr_fs_read(const char *dir, struct fserr_fs *fs)
{
	static const struct {
		const char *name;
		size_t offset;
		int is_int;
	} attrs[] = {
		{ "error_count", offsetof(struct fserr_fs, error_count), 0 },
		{ "fault_count", offsetof(struct fserr_fs, fault_count), 0 },
		{ "first_error_time", offsetof(struct fserr_fs, first_error_time), 0 },
		{ "last_error_time", offsetof(struct fserr_fs, last_error_time), 0 },
		{ "first_errno", offsetof(struct fserr_fs, first_errno), 1 },
		{ "last_errno", offsetof(struct fserr_fs, last_errno), 1 },
		{ "uevents_suppressed", offsetof(struct fserr_fs, uevents_suppressed), 0 },
	};
	struct stat st;
	long long v;
	size_t i;
	int err;

	memset(fs, 0, sizeof(*fs));
	if (snprintf(fs->dir, sizeof(fs->dir), "%s", dir) >= (int)sizeof(fs->dir))
		return -ENAMETOOLONG;
	err = split_dir(dir, fs);
	if (err)
		return err;
	/*
	 * sysfs gives every kobject's directory an inode number of its own,
	 * so it tells one mount of a device from the next.
	 */
	if (stat(dir, &st))
		return -errno;
	fs->ino = st.st_ino;

	err = read_number(dir, "fs_fault", &v);
	if (err)
		return err;
	if (v != 0 && v != 1)
		return -EINVAL;
	fs->fault = v;
	err = read_dev(dir, &fs->dev);
	if (err)
		return err;
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		err = read_number(dir, attrs[i].name, &v);
		if (err)
			return err;
		if (v < 0)
			return -EINVAL;
		if (attrs[i].is_int)
			*(int *)((char *)fs + attrs[i].offset) = v;
		else
			*(long long *)((char *)fs + attrs[i].offset) = v;
	}
	/* (new in series v4: absent, not junk, on an older kernel) */
	err = read_number(dir, "io_error_count", &v);
	if (err == -ENOENT)
		v = -1;
	else if (err)
		return err;
	else if (v < 0)
		return -EINVAL;
	fs->io_error_count = v;
	return 0;
}

bool fserr_fs_io_failed(const struct fserr_fs *fs)
{
	if (fs->io_error_count >= 0)
		return fs->io_error_count > 0;
	return fs->first_errno == EIO || fs->last_errno == EIO;
}

/*
 * Not a directory fserr made: gone since readdir(), not a directory, or
 * one the caller may not read (fserr's are world-readable; /sys/fs/bpf is
 * not). Anything else (EMFILE, ENOMEM, EIO ...) leaves the scan incomplete.
 */
static bool not_ours(int err)
{
	return err == ENOENT || err == ENOTDIR || err == EACCES;
}

int fserr_fs_scan(const char *sysfs_fs,
		  int (*cb)(const struct fserr_fs *fs, void *data), void *data)
{
	struct dirent *family, *entry;
	char dir[PATH_MAX], probe[PATH_MAX + 16];
	struct fserr_fs fs;
	DIR *top, *sub;
	int ret = 0, err, incomplete = 0;

	top = opendir(sysfs_fs);
	if (!top)
		return -errno;
	while (!ret && (family = readdir(top))) {
		if (family->d_name[0] == '.')
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", sysfs_fs, family->d_name) >= (int)sizeof(dir)) {
			incomplete = incomplete ?: ENAMETOOLONG;
			continue;
		}
		sub = opendir(dir);
		if (!sub) {
			if (!not_ours(errno)) {
				fprintf(stderr, "fserr: skipping %s: %m\n", dir);
				incomplete = incomplete ?: errno;
			}
			continue;
		}
		while (!ret && (entry = readdir(sub))) {
			if (entry->d_name[0] == '.')
				continue;
			if (snprintf(probe, sizeof(probe), "%s/%s/fs_fault", dir,
				     entry->d_name) >= (int)sizeof(probe)) {
				incomplete = incomplete ?: ENAMETOOLONG;
				continue;
			}
			if (access(probe, F_OK)) {
				if (!not_ours(errno))
					incomplete = incomplete ?: errno;
				continue;
			}
			probe[strlen(probe) - strlen("/fs_fault")] = '\0';
			err = fserr_fs_read(probe, &fs);
			if (err) {
				if (err == -ENOENT)	/* unmounted since readdir() */
					continue;
				fprintf(stderr, "fserr: skipping %s: %s\n", probe, strerror(-err));
				incomplete = incomplete ?: -err;
				continue;
			}
			ret = cb(&fs, data);
		}
		closedir(sub);
	}
	closedir(top);
	return ret ?: -incomplete;
}

struct find_ctx {
	dev_t dev;
	struct fserr_fs *out;
};

static int find_one(const struct fserr_fs *fs, void *data)
{
	struct find_ctx *ctx = data;

	if (fs->dev != ctx->dev)
		return 0;
	*ctx->out = *fs;
	return 1;
}

int fserr_fs_find(const char *sysfs_fs, dev_t dev, struct fserr_fs *out)
{
	struct find_ctx ctx = { .dev = dev, .out = out };

	return fserr_fs_scan(sysfs_fs, find_one, &ctx) == 1 ? 0 : -ENOENT;
}

const char *fserr_errno_name(int e)
{
	switch (e) {
	case 0: return "-";
	case EIO: return "EIO";
	case EUCLEAN: return "EUCLEAN";
	case ENOMEM: return "ENOMEM";
	case EROFS: return "EROFS";
	default: return "other";
	}
}

int fserr_fs_clear(const struct fserr_fs *fs)
{
	char path[PATH_MAX + 16];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/fs_fault", fs->dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

struct libmnt_table *fserr_mounts_load(const char *path)
{
	struct libmnt_table *tb = mnt_new_table();
	int rc;

	if (!tb) {
		errno = ENOMEM;
		return NULL;
	}
	rc = mnt_table_parse_file(tb, path ? path : "/proc/self/mountinfo");
	if (rc) {
		mnt_unref_table(tb);
		/* libmount's -errno (EMFILE, ENOMEM, ...), else a parse error */
		errno = rc < 0 ? -rc : EINVAL;
		return NULL;
	}
	return tb;
}

struct libmnt_fs *fserr_mounts_first(struct libmnt_table *tb, dev_t dev)
{
	return mnt_table_find_devno(tb, dev, MNT_ITER_FORWARD);
}

static int same_devno(struct libmnt_fs *fs, void *dev)
{
	return mnt_fs_get_devno(fs) == *(dev_t *)dev;
}

int fserr_mounts_next(struct libmnt_table *tb, struct libmnt_iter *it, dev_t dev,
		      struct libmnt_fs **fs)
{
	return mnt_table_find_next_fs(tb, it, same_devno, &dev, fs) ? 1 : 0;
}

/* Append @s to @buf, escaped as fserr_mounts_of() says; false if it did not fit. */
static bool append_escaped(char *buf, size_t size, size_t *used, const char *s,
			   const char *sep)
{
	for (; *s; s++) {
		unsigned char c = *s;
		int n;

		if (c == '\\' || c < 0x20 || c == 0x7f || strchr(sep, c))
			n = snprintf(buf + *used, size - *used, "\\%03o", c);
		else
			n = snprintf(buf + *used, size - *used, "%c", c);
		if (n < 0 || (size_t)n >= size - *used)
			return false;
		*used += n;
	}
	return true;
}

int fserr_mounts_of(struct libmnt_table *tb, dev_t dev, const char *sep,
		    char *buf, size_t size)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	size_t used = 0, before;
	int count = 0;

	if (size)
		buf[0] = '\0';
	if (!it)
		return 0;
	while (fserr_mounts_next(tb, it, dev, &fs) == 0) {
		const char *target = mnt_fs_get_target(fs);
		int n;

		if (!target)
			continue;
		before = used;
		n = count ? snprintf(buf + used, size - used, "%s", sep) : 0;
		if (n >= 0 && (size_t)n < size - used)
			used += n;
		else
			n = -1;
		if (n < 0 || !append_escaped(buf, size, &used, target, sep)) {
			buf[before] = '\0';	/* no half mount point */
			break;
		}
		count++;
	}
	mnt_free_iter(it);
	return count;
}
