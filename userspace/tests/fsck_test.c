// SPDX-License-Identifier: GPL-2.0
/* Host tests of the fsck commands fserrd runs and how it reads their exit
 * status. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "harness.h"
#include "lib/fsck.h"

/* A wait status for a normal exit with @code, as waitpid() makes it */
#define EXITED(code) ((code) << 8)

static const char *outcome(const char *program, int code)
{
	return fserr_fsck_outcome(program, EXITED(code), false);
}

TEST(commands)
{
	char *argv[5];

	ASSERT_TRUE(fserr_fsck_argv("vfat", "/proc/self/fd/3", argv));
	EXPECT_STREQ("fsck.fat", argv[0]);
	EXPECT_STREQ("-a", argv[1]);
	EXPECT_STREQ("-w", argv[2]);
	EXPECT_STREQ("/proc/self/fd/3", argv[3]);
	EXPECT_EQ(NULL, argv[4]);
	ASSERT_TRUE(fserr_fsck_argv("ext4", "/dev/x", argv));
	EXPECT_STREQ("e2fsck", argv[0]);
	EXPECT_STREQ("-p", argv[1]);
	EXPECT_STREQ("-f", argv[2]);
	ASSERT_TRUE(fserr_fsck_argv("exfat", "/dev/y", argv));
	EXPECT_STREQ("fsck.exfat", argv[0]);
	EXPECT_STREQ("-p", argv[1]);
	EXPECT_STREQ("/dev/y", argv[2]);
	EXPECT_EQ(NULL, argv[3]);
	EXPECT_FALSE(fserr_fsck_argv("xfs", "/dev/x", argv));
	EXPECT_FALSE(fserr_fsck_argv("", "/dev/x", argv));
}

TEST(fsck_fat_status)
{
	EXPECT_STREQ("clean", outcome("/sbin/fsck.fat", 0));
	EXPECT_STREQ("repaired", outcome("/sbin/fsck.fat", 1));
	EXPECT_EQ(NULL, outcome("/sbin/fsck.fat", 2));
	EXPECT_EQ(NULL, outcome("fsck.fat", 3));
}

/* e2fsck's status is a bit mask: 3 is "corrected" and "reboot", both fixed */
TEST(e2fsck_status)
{
	EXPECT_STREQ("clean", outcome("/sbin/e2fsck", 0));
	EXPECT_STREQ("repaired", outcome("/sbin/e2fsck", 1));
	EXPECT_STREQ("repaired", outcome("/sbin/e2fsck", 2));
	EXPECT_STREQ("repaired", outcome("/sbin/e2fsck", 3));
	EXPECT_EQ(NULL, outcome("/sbin/e2fsck", 4));
	EXPECT_EQ(NULL, outcome("/sbin/e2fsck", 5));
	EXPECT_EQ(NULL, outcome("/sbin/e2fsck", 8));
	EXPECT_EQ(NULL, outcome("/sbin/e2fsck", 12));
	EXPECT_EQ(NULL, outcome("/sbin/e2fsck", 32));
}

/* fsck.exfat (exfatprogs) takes e2fsck's values; it opens the device O_EXCL */
TEST(fsck_exfat)
{
	EXPECT_STREQ("clean", outcome("/sbin/fsck.exfat", 0));
	EXPECT_STREQ("repaired", outcome("fsck.exfat", 1));
	EXPECT_EQ(NULL, outcome("fsck.exfat", 4));
	EXPECT_EQ(NULL, outcome("fsck.exfat", 8));
	EXPECT_TRUE(fserr_fsck_opens_exclusively("/usr/sbin/fsck.exfat"));
	EXPECT_TRUE(fserr_fsck_opens_exclusively("e2fsck"));
	EXPECT_FALSE(fserr_fsck_opens_exclusively("fsck.fat"));
}

/* The logged command has the words there are: fsck.exfat has one fewer */
TEST(command_line)
{
	char *argv[5], buf[64];

	ASSERT_TRUE(fserr_fsck_argv("exfat", "/proc/self/fd/3", argv));
	fserr_fsck_command(argv, buf, sizeof(buf));
	EXPECT_STREQ("fsck.exfat -p /proc/self/fd/3", buf);
	ASSERT_TRUE(fserr_fsck_argv("vfat", "/proc/self/fd/3", argv));
	fserr_fsck_command(argv, buf, sizeof(buf));
	EXPECT_STREQ("fsck.fat -a -w /proc/self/fd/3", buf);
	fserr_fsck_command(argv, buf, 12);
	EXPECT_STREQ("fsck.fat -a", buf);
}

TEST(killed_or_timed_out)
{
	EXPECT_EQ(NULL, fserr_fsck_outcome("/sbin/fsck.fat", 9 /* SIGKILL */, false));
	EXPECT_EQ(NULL, fserr_fsck_outcome("/sbin/e2fsck", EXITED(0), true));
}

TEST_HARNESS_MAIN
