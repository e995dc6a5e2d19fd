// SPDX-License-Identifier: GPL-2.0
/* Host tests of what fserrd tells systemd's journal: each event's priority
 * and message ID, the field names of its keys, and when standard error
 * counts as the journal. The entries themselves are read back by
 * tests/fserrd-test.sh from a journal socket of its own. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "harness.h"
#include "lib/journal.h"

TEST(priorities)
{
	EXPECT_EQ(LOG_WARNING, fserr_log_priority("fault"));
	EXPECT_EQ(LOG_NOTICE, fserr_log_priority("repaired"));
	EXPECT_EQ(LOG_ERR, fserr_log_priority("repair-failed"));
	EXPECT_EQ(LOG_ERR, fserr_log_priority("repair-incomplete"));
	EXPECT_EQ(LOG_WARNING, fserr_log_priority("remounted-ro"));
	EXPECT_EQ(LOG_ERR, fserr_log_priority("state-not-saved"));
	EXPECT_EQ(LOG_DEBUG, fserr_log_priority("rescan"));
	/* anything not named is information */
	EXPECT_EQ(LOG_INFO, fserr_log_priority("start"));
	EXPECT_EQ(LOG_INFO, fserr_log_priority("fsck-start"));
	EXPECT_EQ(LOG_INFO, fserr_log_priority(""));
}

TEST(message_ids)
{
	EXPECT_STREQ(FSERR_MESSAGE_FAULT, fserr_log_message_id("fault"));
	EXPECT_STREQ(FSERR_MESSAGE_REPAIRED, fserr_log_message_id("repaired"));
	EXPECT_STREQ(FSERR_MESSAGE_REPAIR_FAILED, fserr_log_message_id("repair-failed"));
	EXPECT_STREQ(FSERR_MESSAGE_REPAIR_FAILED, fserr_log_message_id("repair-incomplete"));
	EXPECT_STREQ(FSERR_MESSAGE_REMOUNTED_RO, fserr_log_message_id("remounted-ro"));
	EXPECT_EQ(NULL, fserr_log_message_id("fsck-start"));
	/* 128 bits in lower-case hex, as journalctl MESSAGE_ID= takes them */
	EXPECT_EQ(32, strspn(FSERR_MESSAGE_FAULT, "0123456789abcdef"));
	EXPECT_EQ(32, strlen(FSERR_MESSAGE_FAULT));
}

TEST(field_names)
{
	char buf[80], small[12];

	EXPECT_TRUE(fserr_journal_field(buf, sizeof(buf), "first_errno"));
	EXPECT_STREQ("FSERR_FIRST_ERRNO", buf);
	EXPECT_TRUE(fserr_journal_field(buf, sizeof(buf), "fsck-timeout"));
	EXPECT_STREQ("FSERR_FSCK_TIMEOUT", buf);
	EXPECT_TRUE(fserr_journal_field(buf, sizeof(buf), "dev"));
	EXPECT_STREQ("FSERR_DEV", buf);
	/* not a field name: refused, not mangled */
	EXPECT_FALSE(fserr_journal_field(buf, sizeof(buf), ""));
	EXPECT_FALSE(fserr_journal_field(buf, sizeof(buf), "a=b"));
	EXPECT_FALSE(fserr_journal_field(buf, sizeof(buf), "a b"));
	EXPECT_FALSE(fserr_journal_field(buf, sizeof(buf),
					 "a_key_that_makes_a_field_name_longer_than_the_journal_allows"));
	EXPECT_FALSE(fserr_journal_field(small, sizeof(small), "fault_count"));
}

/* $JOURNAL_STREAM counts only while standard error is that stream. */
TEST(journal_stream)
{
	char path[] = "/tmp/fserr-journal-XXXXXX", env[64];
	struct stat st;
	int fd = mkstemp(path), saved = dup(2);

	ASSERT_LE(0, fd);
	ASSERT_LE(0, saved);
	ASSERT_EQ(0, fstat(fd, &st));
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	unsetenv("JOURNAL_STREAM");
	EXPECT_FALSE(fserr_journal_stream());
	setenv("JOURNAL_STREAM", env, 1);
	EXPECT_FALSE(fserr_journal_stream());	/* stderr is elsewhere */
	dup2(fd, 2);
	EXPECT_TRUE(fserr_journal_stream());
	setenv("JOURNAL_STREAM", "12:junk", 1);
	EXPECT_FALSE(fserr_journal_stream());
	strcat(env, "x");
	setenv("JOURNAL_STREAM", env, 1);
	EXPECT_FALSE(fserr_journal_stream());
	dup2(saved, 2);
	close(saved);
	close(fd);
	unlink(path);
}

TEST_HARNESS_MAIN
