// SPDX-License-Identifier: GPL-2.0
/* Host tests of fserrd's state file: round trip, the fault identity, the
 * repair limit, escapes, and damaged files refused whole. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lib/state.h"

TEST(fault_identity)
{
	struct fserr_state st;

	fserr_state_init(&st, "boot-a");
	EXPECT_FALSE(fserr_state_is_handled(&st, 100, 1));
	fserr_state_set_handled(&st, 100, 1);
	EXPECT_TRUE(fserr_state_is_handled(&st, 100, 1));
	/* the next raise of the same mount is a new fault */
	EXPECT_FALSE(fserr_state_is_handled(&st, 100, 2));
	/* the same count on the next mount (a new directory) too */
	EXPECT_FALSE(fserr_state_is_handled(&st, 101, 1));
	fserr_state_set_handled(&st, 100, 2);
	EXPECT_EQ(1, st.nr_handled);
	EXPECT_TRUE(fserr_state_is_handled(&st, 100, 2));
	fserr_state_free(&st);
}

/*
 * A fault is forgotten only when its directory is gone: the table once held
 * 256 entries and dropped the oldest, so the 257th fault made the first one
 * new again and its action ran twice.
 */
TEST(handled_table_keeps_every_fault)
{
	struct fserr_state st;
	unsigned long long i;

	fserr_state_init(&st, "b");
	for (i = 1; i <= 5000; i++)
		ASSERT_EQ(0, fserr_state_set_handled(&st, i, 1));
	EXPECT_EQ(5000, st.nr_handled);
	for (i = 1; i <= 5000; i++)
		EXPECT_TRUE(fserr_state_is_handled(&st, i, 1));
	fserr_state_free(&st);
}

static bool odd(unsigned long long ino, void *data)
{
	return ino & 1;
}

TEST(gone_directories_are_forgotten)
{
	struct fserr_state st;

	fserr_state_init(&st, "b");
	fserr_state_set_handled(&st, 1, 1);
	fserr_state_set_handled(&st, 2, 1);
	fserr_state_set_handled(&st, 3, 4);
	fserr_state_keep_handled(&st, odd, NULL);
	EXPECT_EQ(2, st.nr_handled);
	EXPECT_TRUE(fserr_state_is_handled(&st, 3, 4));
	EXPECT_FALSE(fserr_state_is_handled(&st, 2, 1));
	fserr_state_free(&st);
}

TEST(repair_limit_counts_one_hour_per_device)
{
	struct fserr_state st;
	time_t t = 1764700000;

	fserr_state_init(&st, "b");
	fserr_state_add_repair(&st, 179, 1, t);
	fserr_state_add_repair(&st, 179, 1, t + 600);
	fserr_state_add_repair(&st, 179, 2, t + 600);
	EXPECT_EQ(2, fserr_state_repairs_since(&st, 179, 1, t + 600));
	EXPECT_EQ(1, fserr_state_repairs_since(&st, 179, 2, t + 600));
	/* an hour after the first, only the second counts */
	EXPECT_EQ(1, fserr_state_repairs_since(&st, 179, 1, t + 3600));
	EXPECT_EQ(0, fserr_state_repairs_since(&st, 179, 1, t + 4200));
	/* adding drops what is older than an hour */
	fserr_state_add_repair(&st, 8, 0, t + 5000);
	EXPECT_EQ(1, st.nr_repairs);
	fserr_state_free(&st);
}

/*
 * repair-limit goes up to 1000 per device: every repair of the hour counts,
 * also with other devices' repairs in the table, and survives a save. (A
 * table of 64 made a limit above 64 unreachable.)
 */
TEST(repair_limit_above_64_is_reachable)
{
	struct fserr_state st, back;
	char *text, err[128] = "";
	time_t t = 1764700000;
	int i;

	fserr_state_init(&st, "b");
	for (i = 0; i < 150; i++) {
		fserr_state_add_repair(&st, 179, 1, t + i);
		fserr_state_add_repair(&st, 179, 2, t + i);
	}
	EXPECT_EQ(150, fserr_state_repairs_since(&st, 179, 1, t + 200));
	EXPECT_EQ(150, fserr_state_repairs_since(&st, 179, 2, t + 200));
	text = fserr_state_format(&st);
	ASSERT_NE(NULL, text);
	fserr_state_init(&back, "");
	ASSERT_EQ(0, fserr_state_parse(text, &back, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(150, fserr_state_repairs_since(&back, 179, 1, t + 200));
	free(text);
	fserr_state_free(&st);
	fserr_state_free(&back);
}

TEST(round_trip)
{
	struct fserr_state st, back;
	char *text, err[128] = "";

	fserr_state_init(&st, "0f1e2d3c-aaaa-bbbb-cccc-123456789abc");
	fserr_state_set_handled(&st, 4242, 3);
	fserr_state_add_repair(&st, 179, 1, 1764700000);
	st.step = FSERR_STEP_FSCK;
	st.major = 179;
	st.minor = 1;
	st.fsck_failed = true;
	ASSERT_EQ(0, fserr_state_add_mount(&st, "/media/my card", "/dev/mmcblk0p1", "vfat",
					   "/", "rw,relatime,notify"));
	ASSERT_EQ(0, fserr_state_add_mount(&st, "/home/u/tab\there", "/dev/mmcblk0p1", "vfat",
					   "/DCIM\\x", "rw"));
	text = fserr_state_format(&st);
	ASSERT_NE(NULL, text);
	/* one record per line: the space, the tab and the backslash are escaped */
	EXPECT_NE(NULL, strstr(text, "mount /media/my\\040card /dev/mmcblk0p1 vfat / "));
	EXPECT_NE(NULL, strstr(text, "/home/u/tab\\011here"));
	EXPECT_NE(NULL, strstr(text, "/DCIM\\134x"));
	fserr_state_init(&back, "");
	ASSERT_EQ(0, fserr_state_parse(text, &back, err, sizeof(err))) {
		TH_LOG("%s\n%s", err, text);
	}
	EXPECT_STREQ(st.boot_id, back.boot_id);
	EXPECT_TRUE(fserr_state_is_handled(&back, 4242, 3));
	EXPECT_EQ(1, fserr_state_repairs_since(&back, 179, 1, 1764700001));
	EXPECT_EQ(FSERR_STEP_FSCK, back.step);
	EXPECT_TRUE(back.fsck_failed);
	ASSERT_EQ(2, back.nr_mounts);
	EXPECT_STREQ("/media/my card", back.mounts[0].target);
	EXPECT_STREQ("rw,relatime,notify", back.mounts[0].options);
	EXPECT_STREQ("/home/u/tab\there", back.mounts[1].target);
	EXPECT_STREQ("/DCIM\\x", back.mounts[1].root);
	free(text);
	fserr_state_free(&st);
	fserr_state_free(&back);
}

TEST(save_and_load)
{
	char dir[] = "/tmp/fserrd-state-XXXXXX", path[64], err[128] = "";
	struct fserr_state st, back;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
	fserr_state_init(&back, "");
	EXPECT_EQ(-ENOENT, fserr_state_load(path, &back, err, sizeof(err)));
	fserr_state_init(&st, "boot");
	fserr_state_set_handled(&st, 7, 1);
	ASSERT_EQ(0, fserr_state_save(path, &st));
	ASSERT_EQ(0, fserr_state_load(path, &back, err, sizeof(err)));
	EXPECT_TRUE(fserr_state_is_handled(&back, 7, 1));
	/* no temporary file is left behind */
	snprintf(path, sizeof(path), "%s/state.new", dir);
	EXPECT_NE(0, access(path, F_OK));
	snprintf(path, sizeof(path), "%s/state", dir);
	unlink(path);
	rmdir(dir);
	fserr_state_free(&st);
	fserr_state_free(&back);
}

/*
 * A link planted at STATE.new (a stale one, or someone's who could write
 * the directory) is replaced, not followed: its target keeps its text and
 * the state file is a regular file.
 */
TEST(save_does_not_follow_a_planted_link)
{
	char dir[] = "/tmp/fserrd-state-XXXXXX", path[64], tmp[64], victim[64];
	char buf[64] = "", err[128] = "";
	struct fserr_state st, back;
	struct stat sb;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
	snprintf(tmp, sizeof(tmp), "%s/state.new", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	f = fopen(victim, "w");
	ASSERT_NE(NULL, f);
	fputs("precious\n", f);
	fclose(f);
	ASSERT_EQ(0, symlink(victim, tmp));
	fserr_state_init(&st, "boot");
	fserr_state_set_handled(&st, 7, 1);
	ASSERT_EQ(0, fserr_state_save(path, &st));
	f = fopen(victim, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_STREQ("precious\n", buf);
	ASSERT_EQ(0, lstat(path, &sb));
	EXPECT_TRUE(S_ISREG(sb.st_mode));
	fserr_state_init(&back, "");
	ASSERT_EQ(0, fserr_state_load(path, &back, err, sizeof(err)));
	EXPECT_TRUE(fserr_state_is_handled(&back, 7, 1));
	unlink(path);
	unlink(tmp);
	unlink(victim);
	rmdir(dir);
	fserr_state_free(&st);
	fserr_state_free(&back);
}

TEST(damaged_files_are_refused_whole)
{
	static const char *const bad[] = {
		"",					/* empty */
		"fserrd-state 2\nboot b\n",		/* another version */
		"fserrd-state 1\nboot b\nhandled 7\n",	/* missing field */
		"fserrd-state 1\nhandled 7 x\n",	/* not a number */
		"fserrd-state 1\nrepair 179 5\n",	/* not MAJ:MIN */
		"fserrd-state 1\nrepair 179:1 -5\n",	/* bad time */
		"fserrd-state 1\nhandled 1 1",		/* cut off */
		"fserrd-state 1\nstep fsck 179:1 fsck-ok\n",	/* no mounts */
		"fserrd-state 1\nstep dance 179:1 fsck-ok\nmount / /dev/x vfat / rw\n",
		"fserrd-state 1\nmount /mnt /dev/x vfat / rw\n",	/* mount without step */
		"fserrd-state 1\nstep mount 179:1 fsck-ok\nmount /mnt /dev/x vfat / rw extra\n",
		"fserrd-state 1\nstep mount 179:1 fsck-ok\nmount relative /dev/x vfat / rw\n",
		"fserrd-state 1\nstep mount 179:1 fsck-ok\nmount /m\\9 /dev/x vfat / rw\n",
		"fserrd-state 1\nstep mount 179:1 fsck-ok\nmount /m\\000 /dev/x vfat / rw\n",
		"fserrd-state 1\nwhat is this\n",
	};
	struct fserr_state st;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fserr_state_init(&st, "mine");
		fserr_state_set_handled(&st, 99, 9);
		err[0] = '\0';
		EXPECT_EQ(-1, fserr_state_parse(bad[i], &st, err, sizeof(err))) {
			TH_LOG("accepted: %s", bad[i]);
		}
		EXPECT_NE('\0', err[0]);
		/* nothing of it applied */
		EXPECT_STREQ("mine", st.boot_id);
		EXPECT_EQ(1, st.nr_handled);
		EXPECT_EQ(FSERR_STEP_NONE, st.step);
		fserr_state_free(&st);
	}
}

/* The volume's UUID goes with the repair in progress, and comes back */
TEST(volume_round_trip)
{
	struct fserr_state st, back;
	char err[128] = "", *text;

	fserr_state_init(&st, "b");
	fserr_state_init(&back, "");
	st.step = FSERR_STEP_FSCK;
	st.major = 179;
	st.minor = 1;
	snprintf(st.volume, sizeof(st.volume), "%s", "1234-ABCD");
	ASSERT_EQ(0, fserr_state_add_mount(&st, "/mnt", "/dev/x", "vfat", "/", "rw"));
	text = fserr_state_format(&st);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, fserr_state_parse(text, &back, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_STREQ("1234-ABCD", back.volume);
	/* and none without a repair step */
	EXPECT_EQ(-1, fserr_state_parse("fserrd-state 1\nvolume 1234-ABCD\n", &back, err,
					sizeof(err)));
	free(text);
	fserr_state_free(&st);
	fserr_state_free(&back);
}

/* The boot a carried repair began in goes with it, and comes back */
TEST(repair_boot_round_trip)
{
	struct fserr_state st, back;
	char err[128] = "", *text;

	fserr_state_init(&st, "new-boot");
	fserr_state_init(&back, "");
	st.step = FSERR_STEP_UNMOUNT;
	st.major = 179;
	st.minor = 1;
	snprintf(st.repair_boot, sizeof(st.repair_boot), "%s", "old-boot");
	ASSERT_EQ(0, fserr_state_add_mount(&st, "/mnt", "/dev/x", "vfat", "/", "rw"));
	text = fserr_state_format(&st);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, fserr_state_parse(text, &back, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_STREQ("old-boot", back.repair_boot);
	EXPECT_STREQ("new-boot", back.boot_id);
	/* none without a repair step; ended with the repair */
	EXPECT_EQ(-1, fserr_state_parse("fserrd-state 1\nrepair-boot x\n", &back, err,
					sizeof(err)));
	fserr_state_end_repair(&st);
	EXPECT_STREQ("", st.repair_boot);
	free(text);
	fserr_state_free(&st);
	fserr_state_free(&back);
}

struct lost_lines {
	unsigned int n;
	unsigned int lineno[8];
	char text[8][64];
};

static void note_lost(unsigned int lineno, const char *line, const char *why, void *data)
{
	struct lost_lines *l = data;

	(void)why;
	if (l->n < 8) {
		l->lineno[l->n] = lineno;
		snprintf(l->text[l->n], sizeof(l->text[0]), "%s", line);
	}
	l->n++;
}

/* A damaged file keeps every record that parses, and says what it lost */
TEST(salvage_keeps_what_parses)
{
	const char *text = "fserrd-state 1\nboot b1\nhandled 7 1\nwhat is this\n"
			   "repair 179:1 1764700000\nstep fsck 179:1 fsck-ok\n"
			   "mount /mnt /dev/x vfat / rw\nhandled 8 2\n";
	struct lost_lines lost = { 0 };
	struct fserr_state st;
	char err[128] = "";

	fserr_state_init(&st, "");
	ASSERT_EQ(1, fserr_state_salvage(text, &st, err, sizeof(err), note_lost, &lost));
	EXPECT_STREQ("4: not a state record", err);
	EXPECT_EQ(1, lost.n);
	EXPECT_EQ(4, lost.lineno[0]);
	EXPECT_STREQ("what is this", lost.text[0]);
	EXPECT_STREQ("b1", st.boot_id);
	EXPECT_TRUE(fserr_state_is_handled(&st, 7, 1));
	EXPECT_TRUE(fserr_state_is_handled(&st, 8, 2));
	EXPECT_EQ(1, st.nr_repairs);
	EXPECT_EQ(FSERR_STEP_FSCK, st.step);
	ASSERT_EQ(1, st.nr_mounts);
	EXPECT_STREQ("/mnt", st.mounts[0].target);
	fserr_state_free(&st);
}

/* A lost step line takes its mounts with it, and each is named */
TEST(salvage_names_the_mounts_of_a_lost_step)
{
	const char *text = "fserrd-state 1\nboot b1\nstep fs?ck 179:1 fsck-ok\n"
			   "mount /mnt /dev/x vfat / rw\nmount /b /dev/x vfat /d rw\n"
			   "handled 9 1";
	struct lost_lines lost = { 0 };
	struct fserr_state st;
	char err[128] = "";

	fserr_state_init(&st, "");
	ASSERT_EQ(4, fserr_state_salvage(text, &st, err, sizeof(err), note_lost, &lost));
	EXPECT_EQ(4, lost.n);
	EXPECT_STREQ("mount /mnt /dev/x vfat / rw", lost.text[1]);
	EXPECT_STREQ("mount /b /dev/x vfat /d rw", lost.text[2]);
	EXPECT_STREQ("handled 9 1", lost.text[3]);	/* cut off */
	EXPECT_EQ(FSERR_STEP_NONE, st.step);
	EXPECT_EQ(0, st.nr_mounts);
	fserr_state_free(&st);
}

/* Not a state file at all: nothing kept, @st unchanged */
TEST(salvage_refuses_another_file)
{
	struct fserr_state st;
	char err[128] = "";

	fserr_state_init(&st, "mine");
	EXPECT_EQ(-1, fserr_state_salvage("PNG...\n", &st, err, sizeof(err), NULL, NULL));
	EXPECT_STREQ("mine", st.boot_id);
	fserr_state_free(&st);
}

TEST_HARNESS_MAIN
