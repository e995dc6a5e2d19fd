// SPDX-License-Identifier: GPL-2.0
/* Host tests of the uevent parser on valid, truncated, oversized, forged and
 * malformed messages. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "lib/uevent.h"

/* Build a datagram from "\0"-separated text; returns its length. */
#define MSG(s) (sizeof(s) - 1)

static const char valid[] =
	"change@/fs/fat/mmcblk0p1\0ACTION=change\0DEVPATH=/fs/fat/mmcblk0p1\0"
	"SUBSYSTEM=fserr\0FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=mmcblk0p1\0FS_DEV=179:1\0"
	"FS_ERRNO=117\0FS_ERROR_COUNT=141\0FS_UEVENTS_SUPPRESSED=0\0SEQNUM=812\0";

TEST(valid_fault)
{
	struct fserr_uevent ev;

	ASSERT_EQ(0, fserr_uevent_parse(valid, MSG(valid), &ev));
	EXPECT_STREQ("/fs/fat/mmcblk0p1", ev.devpath);
	EXPECT_STREQ("vfat", ev.fs_type);
	EXPECT_STREQ("mmcblk0p1", ev.fs_id);
	EXPECT_EQ(179, ev.major);
	EXPECT_EQ(1, ev.minor);
	EXPECT_EQ(117, ev.fs_errno);
	EXPECT_EQ(141, ev.error_count);
	EXPECT_EQ(0, ev.suppressed);
	EXPECT_STREQ("", ev.uuid);
}

TEST(uuid_is_kept)
{
	static const char m[] =
		"change@/fs/ext2/vda\0ACTION=change\0DEVPATH=/fs/ext2/vda\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=ext2\0FS_ID=vda\0FS_DEV=254:0\0"
		"UUID=12345678-1234-1234-1234-123456789abc\0FS_ERRNO=5\0";
	struct fserr_uevent ev;

	ASSERT_EQ(0, fserr_uevent_parse(m, MSG(m), &ev));
	EXPECT_STREQ("12345678-1234-1234-1234-123456789abc", ev.uuid);
	EXPECT_EQ(5, ev.fs_errno);
}

/* Series v4 adds FS_FAULT_COUNT and sends FAT's serial as FS_UUID=XXXX-XXXX */
TEST(v4_fault_count_and_fat_uuid)
{
	static const char m[] =
		"change@/fs/fat/mmcblk0p1\0ACTION=change\0DEVPATH=/fs/fat/mmcblk0p1\0"
		"SUBSYSTEM=fserr\0FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=mmcblk0p1\0FS_DEV=179:1\0"
		"FS_UUID=1234-ABCD\0FS_ERRNO=117\0FS_ERROR_COUNT=3\0FS_FAULT_COUNT=2\0"
		"FS_UEVENTS_SUPPRESSED=0\0";
	static const char bad[] =
		"change@/fs/fat/mmcblk0p1\0ACTION=change\0DEVPATH=/fs/fat/mmcblk0p1\0"
		"SUBSYSTEM=fserr\0FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=mmcblk0p1\0FS_DEV=179:1\0"
		"FS_ERRNO=117\0FS_FAULT_COUNT=2x\0";
	struct fserr_uevent ev;

	ASSERT_EQ(0, fserr_uevent_parse(m, MSG(m), &ev));
	EXPECT_EQ(2, ev.fault_count);
	EXPECT_STREQ("1234-ABCD", ev.uuid);
	EXPECT_EQ(-EINVAL, fserr_uevent_parse(bad, MSG(bad), &ev));
	/* v3's uevent has none: 0 */
	ASSERT_EQ(0, fserr_uevent_parse(valid, MSG(valid), &ev));
	EXPECT_EQ(0, ev.fault_count);
}

TEST(other_subsystem_is_not_ours)
{
	static const char m[] =
		"add@/devices/virtual/block/loop0\0ACTION=add\0"
		"DEVPATH=/devices/virtual/block/loop0\0SUBSYSTEM=block\0SEQNUM=5\0";
	struct fserr_uevent ev;

	EXPECT_EQ(-ENOENT, fserr_uevent_parse(m, MSG(m), &ev));
}

TEST(udev_rebroadcast_is_not_ours)
{
	static const char m[] = "libudev\0\xfe\xed\xca\xfe";
	struct fserr_uevent ev;

	EXPECT_EQ(-ENOENT, fserr_uevent_parse(m, sizeof(m), &ev));
}

TEST(truncated_is_rejected)
{
	const char *errno_var = memmem(valid, MSG(valid), "FS_ERRNO=117", 12);
	size_t complete = errno_var - valid + 13;	/* the last required one */
	struct fserr_uevent ev;
	size_t len;

	/* A cut that does not end on a NUL, or that loses a required
	 * variable, is refused; the optional tail may be cut. */
	for (len = 1; len < MSG(valid); len++) {
		int want = valid[len - 1] != '\0' || len < complete ? -EINVAL : 0;

		EXPECT_EQ(want, fserr_uevent_parse(valid, len, &ev)) {
			TH_LOG("cut at %zu", len);
		}
	}
}

TEST(oversized_is_rejected)
{
	static char big[FSERR_UEVENT_MAX + 2];
	struct fserr_uevent ev;

	memcpy(big, valid, MSG(valid));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse(big, sizeof(big), &ev));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse(NULL, 10, &ev));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse(valid, 0, &ev));
}

TEST(duplicate_key_is_forgery)
{
	static const char m[] =
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1:1\0FS_ERRNO=5\0FS_ID=y\0";
	struct fserr_uevent ev;

	EXPECT_EQ(-EINVAL, fserr_uevent_parse(m, MSG(m), &ev));
}

TEST(malformed_variables)
{
	static const char *const bad[] = {
		/* no '=' */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0JUNK\0",
		/* lowercase key */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0fs_id=x\0",
		/* header and DEVPATH disagree */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/y\0SUBSYSTEM=fserr\0",
		/* no '@' in the header */
		"change\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0",
		/* FS_DEV not MAJ:MIN, a part not a number, out of range, negative */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1a:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=99999999999:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=-1:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1:\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1:1:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1:-1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=4096:0\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=0:1048576\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=01234567:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV= 1:1\0FS_ERRNO=5\0",
		/* the v2 form: MAJOR and MINOR, no FS_DEV */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0MAJOR=1\0MINOR=1\0FS_ERRNO=5\0",
		/* FS_FAULT other than 1, FS_ERRNO 0, FS_ID missing */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=0\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1:1\0FS_ERRNO=5\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=x\0FS_DEV=1:1\0FS_ERRNO=0\0",
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_DEV=1:1\0FS_ERRNO=5\0",
		/* FS_ID longer than the kernel's s_id */
		"change@/fs/fat/x\0ACTION=change\0DEVPATH=/fs/fat/x\0SUBSYSTEM=fserr\0"
		"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=0123456789012345678901234567890123456789\0"
		"FS_DEV=1:1\0FS_ERRNO=5\0",
	};
	struct fserr_uevent ev;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *end = bad[i];

		/* The length is up to the last "\0\0" of the literal. */
		while (end[0] || end[1])
			end++;
		EXPECT_EQ(-EINVAL, fserr_uevent_parse(bad[i], end - bad[i] + 1, &ev)) {
			TH_LOG("case %zu", i);
		}
	}
}

/* Properties as a library hands them over: key, value, ..., NULL */
static const char *prop(const char *key, void *data)
{
	const char *const *kv = data;

	for (; kv[0]; kv += 2)
		if (!strcmp(kv[0], key))
			return kv[1];
	return NULL;
}

TEST(props_valid_fault)
{
	/* udevd's own properties are among them, some not in the kernel's form */
	const char *kv[] = {
		"ACTION", "change", "DEVPATH", "/fs/fat/mmcblk0p1", "SUBSYSTEM", "fserr",
		"FS_FAULT", "1", "FS_TYPE", "vfat", "FS_ID", "mmcblk0p1", "FS_DEV", "179:1",
		"FS_ERRNO", "117", "FS_ERROR_COUNT", "141", "SEQNUM", "812",
		"USEC_INITIALIZED", "4711", "TAGS", ":systemd:", "lower_case", "x",
		"SYSTEMD_WANTS", "fserrd.service", NULL };
	struct fserr_uevent ev;

	ASSERT_EQ(0, fserr_uevent_parse_props(prop, kv, &ev));
	EXPECT_STREQ("/fs/fat/mmcblk0p1", ev.devpath);
	EXPECT_STREQ("vfat", ev.fs_type);
	EXPECT_EQ(179, ev.major);
	EXPECT_EQ(1, ev.minor);
	EXPECT_EQ(117, ev.fs_errno);
	EXPECT_EQ(141, ev.error_count);
}

TEST(props_checked_as_the_kernel_form)
{
	const char *other[] = { "ACTION", "change", "DEVPATH", "/devices/x", "SUBSYSTEM", "block",
				NULL };
	const char *no_action[] = { "DEVPATH", "/fs/fat/a", "SUBSYSTEM", "fserr", NULL };
	const char *no_errno[] = { "ACTION", "change", "DEVPATH", "/fs/fat/a", "SUBSYSTEM", "fserr",
				   "FS_FAULT", "1", "FS_TYPE", "vfat", "FS_ID", "a",
				   "FS_DEV", "179:1", NULL };
	const char *bad_dev[] = { "ACTION", "change", "DEVPATH", "/fs/fat/a", "SUBSYSTEM", "fserr",
				  "FS_FAULT", "1", "FS_TYPE", "vfat", "FS_ID", "a",
				  "FS_DEV", "179", "FS_ERRNO", "5", NULL };
	char long_value[FSERR_UEVENT_MAX + 8];
	const char *too_long[] = { "ACTION", "change", "DEVPATH", long_value, NULL };
	struct fserr_uevent ev;

	memset(long_value, 'a', sizeof(long_value) - 1);
	long_value[0] = '/';
	long_value[sizeof(long_value) - 1] = '\0';
	EXPECT_EQ(-ENOENT, fserr_uevent_parse_props(prop, other, &ev));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse_props(prop, no_action, &ev));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse_props(prop, no_errno, &ev));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse_props(prop, bad_dev, &ev));
	EXPECT_EQ(-EINVAL, fserr_uevent_parse_props(prop, too_long, &ev));
}

/*
 * The rebuilt message at and around the buffer's end: a field that does
 * not fit, and a message of exactly FSERR_UEVENT_MAX bytes and one more
 * (each refused, by the size or by the field's own limit; under ASan a
 * write past the buffer would fail the test).
 */
TEST(props_at_the_buffer_end)
{
	static char big[FSERR_UEVENT_MAX + 100];
	const char *kv[] = { "ACTION", "change", "DEVPATH", "/fs/fat/a", "SUBSYSTEM", "fserr",
			     "FS_FAULT", "1", "FS_TYPE", big, NULL };
	/* "change@/fs/fat/a\0" ACTION=... DEVPATH=... SUBSYSTEM=... FS_FAULT=1 "FS_TYPE=" */
	size_t fixed = sizeof("change@/fs/fat/a") + sizeof("ACTION=change") +
		       sizeof("DEVPATH=/fs/fat/a") + sizeof("SUBSYSTEM=fserr") +
		       sizeof("FS_FAULT=1") + strlen("FS_TYPE=") + 1;
	struct fserr_uevent ev;
	size_t n;

	memset(big, 'v', sizeof(big) - 1);
	EXPECT_EQ(-EINVAL, fserr_uevent_parse_props(prop, kv, &ev));
	for (n = FSERR_UEVENT_MAX - fixed - 1; n <= FSERR_UEVENT_MAX - fixed + 1; n++) {
		memset(big, 'v', n);
		big[n] = '\0';
		EXPECT_EQ(-EINVAL, fserr_uevent_parse_props(prop, kv, &ev));
	}
}

TEST_HARNESS_MAIN
