// SPDX-License-Identifier: GPL-2.0
/* Host tests of the mount-point check fserrd makes before a repair takes a
 * filesystem down and again before it mounts it back: symbolic links,
 * directories others may change, sticky directories. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lib/mountpoint.h"

FIXTURE(tree) {
	char top[64];
	char path[256];
	char why[512];
};

/*
 * A tree under a fresh root-owned 0755 directory in /tmp (sticky, and the
 * entry is root's, so the way there is safe).
 */
FIXTURE_SETUP(tree)
{
	if (geteuid())
		SKIP(return, "the ownership checks need root (the files here must be root's)");
	strcpy(self->top, "/tmp/fserr-mountpoint-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->top));
	ASSERT_EQ(0, chmod(self->top, 0755));
}

FIXTURE_TEARDOWN(tree)
{
	char cmd[128];

	if (!geteuid() && self->top[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->top);
		if (system(cmd))
			TH_LOG("could not remove %s", self->top);
	}
}

static const char *mk(struct __test_metadata *_metadata, FIXTURE_DATA(tree) *self,
		      const char *rel, mode_t mode, uid_t uid)
{
	snprintf(self->path, sizeof(self->path), "%s/%s", self->top, rel);
	EXPECT_EQ(0, mkdir(self->path, mode));
	EXPECT_EQ(0, chmod(self->path, mode));
	EXPECT_EQ(0, chown(self->path, uid, 0));
	return self->path;
}

static const char *at(FIXTURE_DATA(tree) *self, const char *rel)
{
	snprintf(self->path, sizeof(self->path), "%s/%s", self->top, rel);
	return self->path;
}

TEST_F(tree, root_owned_chain_is_safe)
{
	mk(_metadata, self, "a", 0755, 0);
	mk(_metadata, self, "a/mnt", 0755, 1000);
	EXPECT_EQ(0, fserr_mountpoint_check(at(self, "a/mnt"), self->why, sizeof(self->why)));
	EXPECT_STREQ("", self->why);
	/* doubled and trailing slashes are the same path */
	EXPECT_EQ(0, fserr_mountpoint_check(at(self, "a//mnt/"), self->why, sizeof(self->why)));
}

TEST_F(tree, symlink_component_is_refused)
{
	mk(_metadata, self, "a", 0755, 0);
	mk(_metadata, self, "a/mnt", 0755, 0);
	ASSERT_EQ(0, symlink("a", at(self, "link")));
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "link/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "/link is a symbolic link"));
	/* the mount point itself as a link (to /etc, say) */
	ASSERT_EQ(0, symlink("/etc", at(self, "a/etc")));
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "a/etc"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "/a/etc is a symbolic link"));
}

TEST_F(tree, directory_others_may_write_is_refused)
{
	mk(_metadata, self, "w", 0777, 0);
	mk(_metadata, self, "w/mnt", 0755, 0);
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "w/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "/w is writable by others"));
	mk(_metadata, self, "g", 0775, 0);
	mk(_metadata, self, "g/mnt", 0755, 0);
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "g/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "/g is writable by its group"));
}

TEST_F(tree, directory_of_a_user_is_refused)
{
	mk(_metadata, self, "home", 0755, 1000);
	mk(_metadata, self, "home/mnt", 0755, 1000);
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "home/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "/home is owned by uid 1000"));
}

TEST_F(tree, sticky_directory)
{
	mk(_metadata, self, "s", 01777, 0);
	mk(_metadata, self, "s/mnt", 0755, 0);
	/* the mount point's own entry in a sticky directory: refused */
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "s/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "the mount point in it may belong to anyone"));
	/* a root-owned directory in it, and the mount point below that: safe */
	mk(_metadata, self, "s/root", 0755, 0);
	mk(_metadata, self, "s/root/mnt", 0755, 0);
	EXPECT_EQ(0, fserr_mountpoint_check(at(self, "s/root/mnt"), self->why, sizeof(self->why)));
	/* a user's directory in it: she may rename it */
	mk(_metadata, self, "s/user", 0755, 1000);
	mk(_metadata, self, "s/user/mnt", 0755, 0);
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "s/user/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "its entry on the path is owned by uid 1000"));
}

TEST_F(tree, bad_paths)
{
	mk(_metadata, self, "a", 0755, 0);
	mk(_metadata, self, "a/mnt", 0755, 0);
	EXPECT_EQ(1, fserr_mountpoint_check("relative/mnt", self->why, sizeof(self->why)));
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "a/../a/mnt"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "\"..\" component"));
	EXPECT_EQ(-ENOENT, fserr_mountpoint_check(at(self, "a/none"), self->why, sizeof(self->why)));
	ASSERT_EQ(0, close(creat(at(self, "a/file"), 0644)));
	EXPECT_EQ(1, fserr_mountpoint_check(at(self, "a/file"), self->why, sizeof(self->why)));
	EXPECT_NE(NULL, strstr(self->why, "is not a directory"));
}

TEST_HARNESS_MAIN
