// SPDX-License-Identifier: GPL-2.0
/*
 * The repair rig's fserr state (tests/repair-rig.sh). fserrd-rig is
 * fserrd linked with -Wl,--wrap for fserr_fs_scan(), fserr_fs_find() and
 * fserr_mounts_load(): before every scan, the tree under --sysfs is made to
 * follow the mounts of fserrd's own mount namespace, as the kernel's
 * /sys/fs/<family>/<id>/ follow the superblocks. For every loop device
 * (major 7) with an ext2 filesystem mounted there is a directory
 * ext2/loop<minor>/ with fserr's files, made clean when the device is
 * first seen mounted and removed as soon as it is mounted nowhere; a new
 * mount gets a new directory, so a new inode (the tree is on a tmpfs). The
 * test raises a fault by writing fs_fault, fault_count and the errnos.
 *
 * RIG_MOUNTS_FAIL=N makes the first N reads of the mount table through
 * fserr_mounts_load() fail with EMFILE, as when fserrd runs out of
 * descriptors.
 *
 * Nothing here is in the fserrd that is installed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/fsstate.h"

#define LOOP_MAJOR 7
#define MAX_DEVS 64

int __real_fserr_fs_scan(const char *sysfs_fs,
			 int (*cb)(const struct fserr_fs *fs, void *data), void *data);
int __real_fserr_fs_find(const char *sysfs_fs, dev_t dev, struct fserr_fs *out);
struct libmnt_table *__real_fserr_mounts_load(const char *path);

int __wrap_fserr_fs_scan(const char *sysfs_fs,
			 int (*cb)(const struct fserr_fs *fs, void *data), void *data);
int __wrap_fserr_fs_find(const char *sysfs_fs, dev_t dev, struct fserr_fs *out);
struct libmnt_table *__wrap_fserr_mounts_load(const char *path);

static void put(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX + 512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "rig: %s: %m\n", path);
		exit(99);
	}
	fprintf(f, "%s\n", value);
	fclose(f);
}

static void make_clean(const char *dir, dev_t dev)
{
	static const char *const zero[] = {
		"fs_fault", "error_count", "fault_count", "first_error_time",
		"last_error_time", "first_errno", "last_errno", "uevents_suppressed",
	};
	char devno[32];
	size_t i;

	if (mkdir(dir, 0755)) {
		fprintf(stderr, "rig: mkdir %s: %m\n", dir);
		exit(99);
	}
	for (i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		put(dir, zero[i], "0");
	snprintf(devno, sizeof(devno), "%u:%u", major(dev), minor(dev));
	put(dir, "dev", devno);
}

static void remove_dir(const char *dir)
{
	char path[PATH_MAX + 512];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* Make @sysfs_fs/ext2/ follow the ext2 loop mounts of this namespace. */
static void follow_mounts(const char *sysfs_fs)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	dev_t mounted[MAX_DEVS];
	size_t n = 0, i;
	struct libmnt_fs *fs;
	char family[PATH_MAX], dir[PATH_MAX + 64];

	if (!tb || !it || mnt_table_parse_file(tb, "/proc/self/mountinfo")) {
		fprintf(stderr, "rig: cannot read the mount table\n");
		exit(99);
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		dev_t dev = mnt_fs_get_devno(fs);

		if (major(dev) != LOOP_MAJOR || !mnt_fs_get_fstype(fs) ||
		    strcmp(mnt_fs_get_fstype(fs), "ext2"))
			continue;
		for (i = 0; i < n && mounted[i] != dev; i++)
			;
		if (i == n && n < MAX_DEVS)
			mounted[n++] = dev;
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);

	snprintf(family, sizeof(family), "%s/ext2", sysfs_fs);
	mkdir(family, 0755);
	for (i = 0; i < 256; i++) {
		struct stat st;
		size_t j;
		bool is_mounted = false;

		snprintf(dir, sizeof(dir), "%s/loop%zu", family, i);
		for (j = 0; j < n; j++)
			if (mounted[j] == makedev(LOOP_MAJOR, i))
				is_mounted = true;
		if (!stat(dir, &st) && !is_mounted)
			remove_dir(dir);
		else if (stat(dir, &st) && is_mounted)
			make_clean(dir, makedev(LOOP_MAJOR, i));
	}
}

int __wrap_fserr_fs_scan(const char *sysfs_fs,
			 int (*cb)(const struct fserr_fs *fs, void *data), void *data)
{
	follow_mounts(sysfs_fs);
	return __real_fserr_fs_scan(sysfs_fs, cb, data);
}

int __wrap_fserr_fs_find(const char *sysfs_fs, dev_t dev, struct fserr_fs *out)
{
	follow_mounts(sysfs_fs);
	return __real_fserr_fs_find(sysfs_fs, dev, out);
}

struct libmnt_table *__wrap_fserr_mounts_load(const char *path)
{
	static int failures = -1;

	if (failures < 0) {
		const char *env = getenv("RIG_MOUNTS_FAIL");

		failures = env ? atoi(env) : 0;
	}
	if (failures > 0) {
		failures--;
		errno = EMFILE;
		return NULL;
	}
	return __real_fserr_mounts_load(path);
}
