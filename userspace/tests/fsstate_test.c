// SPDX-License-Identifier: GPL-2.0
/* Host tests of reading fserr directories and of mapping a device to its
 * mount points through libmount, on a synthetic sysfs tree and synthetic
 * mountinfo files. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "harness.h"
#include "lib/fsstate.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

/* A fake /sys/fs/<family>/<id> with the given fs_fault and dev. */
static void fake_fs(const char *root, const char *family, const char *id,
		    const char *fault, const char *dev)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s", root, family);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/%s/%s", root, family, id);
	mkdir(dir, 0755);
	put(dir, "fs_fault", fault);
	put(dir, "dev", dev);
	put(dir, "error_count", "7\n");
	put(dir, "fault_count", "3\n");
	put(dir, "first_error_time", "1764700000\n");
	put(dir, "last_error_time", "1764700100\n");
	put(dir, "first_errno", "117\n");
	put(dir, "last_errno", "5\n");
	put(dir, "uevents_suppressed", "2\n");
}

static int collect(const struct fserr_fs *fs, void *data)
{
	char *out = data;

	sprintf(out + strlen(out), "%s/%s=%d,%u:%u;", fs->family, fs->id, fs->fault,
		major(fs->dev), minor(fs->dev));
	return 0;
}

static const char mountinfo[] =
	"21 1 0:19 / / rw,relatime - tmpfs tmp rw\n"
	"30 21 179:1 / /media/sd rw,relatime - vfat /dev/mmcblk0p1 rw,errors=remount-ro,notify\n"
	"31 21 179:1 /DCIM /home/user/photos\\040and\\040video rw,relatime - vfat /dev/mmcblk0p1 rw\n"
	"32 21 179:2 / /srv/data rw - ext2 /dev/mmcblk0p2 rw\n"
	"33 30 179:1 / /media/sd/again rw - vfat /dev/mmcblk0p1 rw\n"
	/* a mount point that tries to look like two, and a backslash */
	"34 21 179:3 / /media/a\\012/srv/data,b\\134 rw - vfat /dev/mmcblk0p3 rw\n";

/* A fake /sys/fs with a FAT and an ext2 directory, and a mountinfo file. */
FIXTURE(tree) {
	char root[64];
};

FIXTURE_SETUP(tree)
{
	char other[PATH_MAX];

	strcpy(self->root, "/tmp/fserr-fsstate-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	fake_fs(self->root, "fat", "mmcblk0p1", "1\n", "179:1\n");
	fake_fs(self->root, "ext2", "mmcblk0p2", "0\n", "179:2\n");
	/* A directory without fs_fault (like /sys/fs/cgroup) is not ours. */
	snprintf(other, sizeof(other), "%s/cgroup", self->root);
	mkdir(other, 0755);
	put(self->root, "mountinfo", mountinfo);
}

FIXTURE_TEARDOWN(tree)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->root);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->root);
}

TEST_F(tree, scan_reads_every_fserr_directory)
{
	char out[512] = "";

	ASSERT_EQ(0, fserr_fs_scan(self->root, collect, out));
	EXPECT_NE(NULL, strstr(out, "fat/mmcblk0p1=1,179:1;"));
	EXPECT_NE(NULL, strstr(out, "ext2/mmcblk0p2=0,179:2;"));
}

/*
 * A directory that could not be read makes the scan incomplete: fserrd
 * forgot the handled fault of a directory it had only skipped, and ran its
 * action again at the next scan.
 */
TEST_F(tree, a_skipped_directory_leaves_the_scan_incomplete)
{
	char path[PATH_MAX], out[512] = "";

	snprintf(path, sizeof(path), "%s/ext2/mmcblk0p2/error_count", self->root);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, mkdir(path, 0755));	/* read() gives EISDIR */
	EXPECT_EQ(-EISDIR, fserr_fs_scan(self->root, collect, out));
	/* what could be read is still reported */
	EXPECT_NE(NULL, strstr(out, "fat/mmcblk0p1=1,179:1;"));
	EXPECT_EQ(NULL, strstr(out, "ext2/"));
}

/* A family directory that is not a directory is not fserr's: still complete. */
TEST_F(tree, a_file_in_the_top_directory_is_not_a_skip)
{
	char out[512] = "";

	put(self->root, "stray", "x\n");
	EXPECT_EQ(0, fserr_fs_scan(self->root, collect, out));
}

TEST_F(tree, find_by_device_number)
{
	struct fserr_fs fs;

	ASSERT_EQ(0, fserr_fs_find(self->root, makedev(179, 2), &fs));
	EXPECT_STREQ("ext2", fs.family);
	EXPECT_STREQ("mmcblk0p2", fs.id);
	EXPECT_EQ(-ENOENT, fserr_fs_find(self->root, makedev(179, 9), &fs));
}

TEST_F(tree, read_gives_all_counters)
{
	char dir[PATH_MAX];
	struct fserr_fs fs;

	snprintf(dir, sizeof(dir), "%s/fat/mmcblk0p1", self->root);
	ASSERT_EQ(0, fserr_fs_read(dir, &fs));
	EXPECT_STREQ("fat", fs.family);
	EXPECT_STREQ("mmcblk0p1", fs.id);
	EXPECT_EQ(1, fs.fault);
	EXPECT_EQ(7, fs.error_count);
	EXPECT_EQ(3, fs.fault_count);
	EXPECT_NE(0, fs.ino);
	EXPECT_EQ(1764700000, fs.first_error_time);
	EXPECT_EQ(117, fs.first_errno);
	EXPECT_EQ(5, fs.last_errno);
	EXPECT_EQ(2, fs.uevents_suppressed);
}

TEST_F(tree, junk_content_is_refused)
{
	static const char *const faults[] = { "2\n", "abc\n", "", "1 2\n", "-1\n" };
	static const char *const devs[] = { "179\n", "a:b\n", "179:1", "" };
	struct fserr_fs fs;
	char dir[PATH_MAX];
	char out[512] = "";
	size_t i;

	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		fake_fs(self->root, "junk", "x", faults[i], "1:1\n");
		snprintf(dir, sizeof(dir), "%s/junk/x", self->root);
		EXPECT_EQ(-EINVAL, fserr_fs_read(dir, &fs)) TH_LOG("fs_fault '%s'", faults[i]);
	}
	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		fake_fs(self->root, "junk", "x", "0\n", devs[i]);
		EXPECT_EQ(-EINVAL, fserr_fs_read(dir, &fs)) TH_LOG("dev '%s'", devs[i]);
	}
	/*
	 * A scan skips the broken directory, still reports the others and
	 * says that it is incomplete.
	 */
	ASSERT_EQ(-EINVAL, fserr_fs_scan(self->root, collect, out));
	EXPECT_EQ(NULL, strstr(out, "junk/"));
	EXPECT_NE(NULL, strstr(out, "fat/mmcblk0p1"));
}

static struct libmnt_table *load(struct __test_metadata *_metadata,
				 const char *root)
{
	char path[PATH_MAX];
	struct libmnt_table *tb;

	snprintf(path, sizeof(path), "%s/mountinfo", root);
	tb = fserr_mounts_load(path);
	ASSERT_NE(NULL, tb);
	return tb;
}

TEST_F(tree, bind_mounts_and_escapes)
{
	struct libmnt_table *tb = load(_metadata, self->root);
	char buf[1024];

	EXPECT_EQ(3, fserr_mounts_of(tb, makedev(179, 1), ",", buf, sizeof(buf)));
	EXPECT_STREQ("/media/sd,/home/user/photos and video,/media/sd/again", buf);
	EXPECT_EQ(1, fserr_mounts_of(tb, makedev(179, 2), ",", buf, sizeof(buf)));
	EXPECT_STREQ("/srv/data", buf);
	EXPECT_EQ(0, fserr_mounts_of(tb, makedev(8, 1), ",", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	/* one mount point stays one: separators, newlines, backslashes escaped */
	EXPECT_EQ(1, fserr_mounts_of(tb, makedev(179, 3), ",", buf, sizeof(buf)));
	EXPECT_STREQ("/media/a\\012/srv/data\\054b\\134", buf);
	EXPECT_EQ(1, fserr_mounts_of(tb, makedev(179, 3), "\n", buf, sizeof(buf)));
	EXPECT_STREQ("/media/a\\012/srv/data,b\\134", buf);
	/* a list that does not fit holds whole mount points only */
	EXPECT_EQ(1, fserr_mounts_of(tb, makedev(179, 1), ",", buf, 20));
	EXPECT_STREQ("/media/sd", buf);
	mnt_unref_table(tb);
}

TEST_F(tree, first_mount_gives_type_source_and_options)
{
	struct libmnt_table *tb = load(_metadata, self->root);
	struct libmnt_fs *fs = fserr_mounts_first(tb, makedev(179, 1));

	ASSERT_NE(NULL, fs);
	EXPECT_STREQ("vfat", mnt_fs_get_fstype(fs));
	EXPECT_STREQ("/dev/mmcblk0p1", mnt_fs_get_source(fs));
	EXPECT_STREQ("/media/sd", mnt_fs_get_target(fs));
	EXPECT_NE(NULL, strstr(mnt_fs_get_fs_options(fs), "notify"));
	EXPECT_EQ(NULL, fserr_mounts_first(tb, makedev(8, 1)));
	mnt_unref_table(tb);
}

TEST(broken_mount_table_is_refused)
{
	EXPECT_EQ(NULL, fserr_mounts_load("/nonexistent/mountinfo"));
}

TEST_HARNESS_MAIN
