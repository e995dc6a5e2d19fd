// SPDX-License-Identifier: GPL-2.0
/* Host tests of the fserrd policy configuration: valid files, the choice
 * of policy, and bad files refused whole with the line number. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "lib/config.h"

static const char good[] =
	"# fserrd.conf\n"
	"default log\n"
	"\n"
	"match fstype vfat repair   # the SD card\n"
	"match fstype ext2 remount-ro\n"
	"match mountpoint /media/sd exec /usr/local/bin/tell-admin --urgent \"x\"\n"
	"repair-limit 5\n"
	"exec-timeout 10\n";

TEST(defaults)
{
	struct fserr_config cfg;

	fserr_config_init(&cfg);
	EXPECT_EQ(FSERR_LOG, fserr_config_action(&cfg, "vfat", "/mnt")->policy);
	EXPECT_EQ(3, cfg.repair_limit);
	EXPECT_EQ(30, cfg.exec_timeout);
}

TEST(valid_file)
{
	struct fserr_config cfg;
	const struct fserr_action *a;
	char err[256] = "";

	fserr_config_init(&cfg);
	ASSERT_EQ(0, fserr_config_parse("fserrd.conf", good, &cfg, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(3, cfg.nr_rules);
	EXPECT_EQ(5, cfg.repair_limit);
	EXPECT_EQ(10, cfg.exec_timeout);
	/* The mount point wins over the type, the type over the default. */
	a = fserr_config_action(&cfg, "vfat", "/media/sd");
	EXPECT_EQ(FSERR_EXEC, a->policy);
	EXPECT_STREQ("/usr/local/bin/tell-admin", a->argv[0]);
	EXPECT_STREQ("--urgent", a->argv[1]);
	EXPECT_STREQ("x", a->argv[2]);
	EXPECT_EQ(NULL, a->argv[3]);
	EXPECT_EQ(FSERR_REPAIR, fserr_config_action(&cfg, "vfat", "/media/other")->policy);
	EXPECT_EQ(FSERR_REMOUNT_RO, fserr_config_action(&cfg, "ext2", NULL)->policy);
	EXPECT_EQ(FSERR_LOG, fserr_config_action(&cfg, "msdos", "/x")->policy);
	fserr_config_free(&cfg);
}

/* Several mount points: the rule that comes first in the file decides. */
TEST(first_rule_in_the_file_wins)
{
	static const char text[] =
		"match mountpoint /b log\n"
		"match mountpoint /a remount-ro\n"
		"match fstype vfat repair\n";
	const char *ab[] = { "/a", "/b" }, *ba[] = { "/b", "/a" }, *cx[] = { "/c", "/x" };
	struct fserr_config cfg;
	char err[256] = "";

	fserr_config_init(&cfg);
	ASSERT_EQ(0, fserr_config_parse("order.conf", text, &cfg, err, sizeof(err)));
	EXPECT_EQ(FSERR_LOG, fserr_config_choose(&cfg, "vfat", ab, 2)->policy);
	EXPECT_EQ(FSERR_LOG, fserr_config_choose(&cfg, "vfat", ba, 2)->policy);
	EXPECT_EQ(FSERR_REMOUNT_RO, fserr_config_choose(&cfg, "vfat", ab, 1)->policy);
	EXPECT_EQ(FSERR_REPAIR, fserr_config_choose(&cfg, "vfat", cx, 2)->policy);
	EXPECT_EQ(FSERR_REPAIR, fserr_config_choose(&cfg, "vfat", NULL, 0)->policy);
	EXPECT_EQ(FSERR_LOG, fserr_config_choose(&cfg, "ext2", cx, 2)->policy);
	fserr_config_free(&cfg);
}

/* Quotes let a word hold blanks and '#'; quoted parts join their neighbours. */
TEST(quoted_words)
{
	static const char text[] =
		"match mountpoint \"/media/my card\" repair\n"
		"match mountpoint '/media/a#b' remount-ro # a comment\n"
		"match mountpoint /x/\"a b\"'c d' log\n"
		"default exec /bin/tell \"say \\\"hi\\\"\" '\\' \"\" 'a\"b' #\"\n";
	const char *card[] = { "/media/my card" }, *hash[] = { "/media/a#b" };
	const char *joined[] = { "/x/a bc d" }, *half[] = { "/media/my" };
	const struct fserr_action *a;
	struct fserr_config cfg;
	char err[256] = "";

	fserr_config_init(&cfg);
	ASSERT_EQ(0, fserr_config_parse("q.conf", text, &cfg, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(3, cfg.nr_rules);
	EXPECT_EQ(FSERR_REPAIR, fserr_config_choose(&cfg, "vfat", card, 1)->policy);
	EXPECT_EQ(FSERR_REMOUNT_RO, fserr_config_choose(&cfg, "vfat", hash, 1)->policy);
	EXPECT_EQ(FSERR_LOG, fserr_config_choose(&cfg, "vfat", joined, 1)->policy);
	a = fserr_config_choose(&cfg, "vfat", half, 1);
	EXPECT_EQ(FSERR_EXEC, a->policy);
	EXPECT_STREQ("/bin/tell", a->argv[0]);
	EXPECT_STREQ("say \"hi\"", a->argv[1]);
	EXPECT_STREQ("\\", a->argv[2]);
	EXPECT_STREQ("", a->argv[3]);
	EXPECT_STREQ("a\"b", a->argv[4]);
	EXPECT_EQ(NULL, a->argv[5]);
	fserr_config_free(&cfg);
}

TEST(bad_files_are_refused_whole_with_the_line)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "default log\nfrobnicate 3\n", "t.conf:2: unknown keyword 'frobnicate'" },
		{ "default fix\n", "t.conf:1: unknown policy 'fix'" },
		{ "\n\nmatch fstype vfat\n", "t.conf:3: a policy is missing" },
		{ "match fstype\n", "t.conf:1: match needs" },
		{ "match label X repair\n", "t.conf:1: match takes fstype or mountpoint, not 'label'" },
		{ "match mountpoint media repair\n", "t.conf:1: mount point 'media' is not an absolute path" },
		{ "default exec\n", "t.conf:1: exec needs a program" },
		{ "default exec rm -rf /\n", "t.conf:1: exec needs an absolute program path" },
		{ "default repair now\n", "t.conf:1: policy 'repair' takes no arguments" },
		{ "repair-limit -1\n", "t.conf:1: 'repair-limit' must be a number from 0 to 1000" },
		{ "repair-limit 3x\n", "t.conf:1: 'repair-limit' must be a number" },
		{ "exec-timeout 0\n", "t.conf:1: 'exec-timeout' must be a number from 1 to 3600" },
		{ "exec-timeout\n", "t.conf:1: 'exec-timeout' takes one number" },
		{ "repair-limit 99999999999999999999\n", "t.conf:1: 'repair-limit' must be a number" },
		{ "match mountpoint \"/media/x repair\n", "t.conf:1: a \" is not closed" },
		{ "match mountpoint '/media/x repair\n", "t.conf:1: a ' is not closed" },
		{ "default exec /bin/x \"a\\\n", "t.conf:1: a \" is not closed" },
		{ "default exec /bin/x \"\\n\"\n",
		  "t.conf:1: \\n in double quotes: only \\\" and \\\\ are escapes" },
		{ "match mountpoint \"\" log\n", "t.conf:1: mount point '' is not an absolute path" },
	};
	struct fserr_config cfg;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fserr_config_init(&cfg);
		/* A valid configuration is in place; a bad one must not touch it. */
		ASSERT_EQ(0, fserr_config_parse("old", good, &cfg, err, sizeof(err)));
		EXPECT_EQ(-1, fserr_config_parse("t.conf", bad[i].text, &cfg, err, sizeof(err)));
		EXPECT_EQ(0, strncmp(err, bad[i].want, strlen(bad[i].want))) {
			TH_LOG("case %zu: got '%s', want '%s...'", i, err, bad[i].want);
		}
		EXPECT_EQ(3, cfg.nr_rules);
		EXPECT_EQ(5, cfg.repair_limit);
		fserr_config_free(&cfg);
	}
}

TEST(long_lines_and_too_many_rules)
{
	struct fserr_config cfg;
	char err[256], *text;
	size_t i, len = 0;

	fserr_config_init(&cfg);
	text = malloc(70 * 40 + 2000);
	ASSERT_NE(NULL, text);
	memset(text, 'a', 1500);
	strcpy(text + 1500, "\n");
	EXPECT_EQ(-1, fserr_config_parse("t.conf", text, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "t.conf:1: line longer than"));
	text[0] = '\0';
	for (i = 0; i < FSERR_MAX_RULES + 1; i++)
		len += sprintf(text + len, "match fstype t%zu log\n", i);
	EXPECT_EQ(-1, fserr_config_parse("t.conf", text, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "t.conf:65: more than 64 match lines")) TH_LOG("%s", err);
	EXPECT_EQ(0, cfg.nr_rules);
	free(text);
}

TEST(load_from_files)
{
	char path[] = "/tmp/fserr-config-XXXXXX", err[256];
	struct fserr_config cfg;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	ASSERT_EQ(6, write(fd, "def\0ul", 6));
	close(fd);
	fserr_config_init(&cfg);
	EXPECT_EQ(-1, fserr_config_load(path, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "NUL byte"));
	unlink(path);
	EXPECT_EQ(-1, fserr_config_load(path, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "No such file"));
	EXPECT_EQ(FSERR_LOG, cfg.fallback.policy);
}

TEST_HARNESS_MAIN
