// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests of fserr's channels on one real, corrupted filesystem: the
 * sysfs state and counters, poll() on fs_fault, the uevent, fanotify
 * FAN_FS_ERROR and the mountinfo wake-up per mount namespace.
 *
 * The filesystem under test comes from the environment (the scenario sets it):
 *   FSERR_DEV      block device, e.g. /dev/mmcblk0p1
 *   FSERR_FSTYPE   mount type, e.g. vfat
 *   FSERR_FAMILY   directory under /sys/fs, e.g. fat
 *   FSERR_VICTIM   a path on it that fscorrupt damaged
 *   FSERR_TRIGGER  how touching the victim makes the fs report one error:
 *                  "read" (one O_DIRECT read) or "stat" (one lookup)
 *   FSERR_READ_AT  where "read" reads (optional, default 0): past the
 *                  first cluster for a break in the cluster chain
 *   FSERR_REPORTS  reports the filesystem makes per failed access
 *                  (optional, default 1; exFAT reports a bad cluster chain
 *                  where it finds it and again as "failed to bmap")
 *   FSERR_ERRNO    the errno the filesystem reports, e.g. 117 (EUCLEAN)
 *   FSERR_OPTS     mount options besides notify (optional)
 * Each test mounts the filesystem on /mnt and unmounts it afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define MNT "/mnt"
#define PARAMS "/sys/module/fserr/parameters/"

/* Line-buffered output through the pipe, so a hang shows which test hung. */
static void __attribute__((constructor)) line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v) {
		fprintf(stderr, "# %s is not set\n", name);
		exit(KSFT_FAIL);
	}
	return v;
}

static void attr_path(char *buf, size_t len, const char *attr)
{
	const char *dev = env("FSERR_DEV");
	const char *id = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;

	snprintf(buf, len, "/sys/fs/%s/%s/%s", env("FSERR_FAMILY"), id, attr);
}

/*
 * Read a file into @buf, to its end (a seq_file gives a page per read) or
 * until @buf is full; returns the length or -errno.
 */
static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), n = 0, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	if (n < 0 && !got)
		got = -errno;
	else
		buf[got] = 0;
	close(fd);
	return got;
}

/* Reports per failed access (FSERR_REPORTS) */
static long long per_access(void)
{
	return getenv("FSERR_REPORTS") ? atoll(getenv("FSERR_REPORTS")) : 1;
}

static long long read_attr(const char *attr)
{
	char path[PATH_MAX], buf[64];

	attr_path(path, sizeof(path), attr);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* Write @len bytes to an attribute; returns 0 or -errno. */
static int write_attr_len(const char *attr, const char *val, size_t len)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	attr_path(path, sizeof(path), attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int write_attr(const char *attr, const char *val)
{
	return write_attr_len(attr, val, strlen(val));
}

static void write_param(const char *name, const char *val)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0) {
		fprintf(stderr, "# cannot set %s: %s\n", path, strerror(errno));
		exit(KSFT_FAIL);
	}
	close(fd);
}

/* The scenario's mount options, with or without notify. */
static const char *mount_opts(bool notify)
{
	static char buf[256];
	const char *extra = getenv("FSERR_OPTS") ? getenv("FSERR_OPTS") : "";

	snprintf(buf, sizeof(buf), "%s%s%s", notify ? "notify" : "",
		 notify && *extra ? "," : "", extra);
	return buf;
}

/* Whether the filesystem keeps a record of its errors on disk (ext2) */
static bool records_errors(void)
{
	return !strcmp(env("FSERR_FSTYPE"), "ext2");
}

/*
 * Remove ext2's on-disk record of an error (EXT2_ERROR_FS in s_state, at
 * byte 58 of the superblock at 1024), as e2fsck does after a repair, but
 * keep the damage: each test starts from a volume that mounts clean.
 * Returns 0 or -errno.
 */
static int forget_error_record(void)
{
	const off_t state = 1024 + 58;
	unsigned char s[2];
	int fd, ret = 0;

	if (!records_errors())
		return 0;
	fd = open(env("FSERR_DEV"), O_RDWR);
	if (fd < 0)
		return -errno;
	if (pread(fd, s, 2, state) != 2)
		ret = -EIO;
	s[0] &= ~0x02;		/* EXT2_ERROR_FS */
	if (!ret && (pwrite(fd, s, 2, state) != 2 || fsync(fd)))
		ret = -EIO;
	close(fd);
	return ret;
}

static int do_mount(bool notify)
{
	return mount(env("FSERR_DEV"), MNT, env("FSERR_FSTYPE"), 0,
		     mount_opts(notify));
}

/*
 * Make the filesystem report @n errors by touching the victim.  Returns how
 * many of the accesses failed, which should be all of them.
 */
static int trigger(int n)
{
	char path[PATH_MAX];
	struct stat st;
	void *buf;
	int i, fd, failed = 0;

	snprintf(path, sizeof(path), MNT "/%s", env("FSERR_VICTIM"));
	if (!strcmp(env("FSERR_TRIGGER"), "stat")) {
		for (i = 0; i < n; i++)
			failed += stat(path, &st) < 0;
		return failed;
	}
	/* O_DIRECT: every read maps the broken cluster chain again. */
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		return -1;
	for (i = 0; i < n; i++)
		failed += pread(fd, buf, 512, getenv("FSERR_READ_AT") ?
				atoll(getenv("FSERR_READ_AT")) : 0) < 0;
	free(buf);
	close(fd);
	return failed;
}

/* ------------------------------------------------------------- uevents */

static int uevent_open(void)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1,	/* the kernel's broadcast group */
	};
	int size = 2 * 1024 * 1024;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Find VAR=value in a uevent message; returns the value or NULL. */
static const char *uevent_var(const char *msg, int len, const char *var)
{
	size_t vl = strlen(var);
	int i;

	for (i = strlen(msg) + 1; i < len; i += strlen(msg + i) + 1)
		if (!strncmp(msg + i, var, vl) && msg[i + vl] == '=')
			return msg + i + vl + 1;
	return NULL;
}

/*
 * Count the fserr uevents of our superblock that arrive within @ms
 * milliseconds; keep the last one in @last.
 */
static int uevent_count(int fd, int ms, char *last, int *last_len)
{
	char buf[8192], devpath[PATH_MAX];
	const char *dev = env("FSERR_DEV");
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec end, now;
	int count = 0, n, left;

	snprintf(devpath, sizeof(devpath), "/fs/%s/%s", env("FSERR_FAMILY"),
		 strrchr(dev, '/') + 1);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 +
		       (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			break;
		buf[n] = 0;
		if (!uevent_var(buf, n, "DEVPATH") ||
		    strcmp(uevent_var(buf, n, "DEVPATH"), devpath))
			continue;
		count++;
		if (last) {
			memcpy(last, buf, n + 1);
			*last_len = n;
		}
	}
	return count;
}

/* ------------------------------------------------------------- fixture */

FIXTURE(fs) {
	int uevents;		/* netlink socket, open before the mount */
};

FIXTURE_SETUP(fs)
{
	/* A test killed by its timeout leaves its mount behind. */
	umount2(MNT, MNT_DETACH);
	ASSERT_EQ(0, forget_error_record());
	self->uevents = uevent_open();
	ASSERT_LE(0, self->uevents);
	ASSERT_EQ(0, do_mount(true)) {
		TH_LOG("mount %s: %s", env("FSERR_DEV"), strerror(errno));
	}
}

FIXTURE_TEARDOWN(fs)
{
	umount(MNT);
	close(self->uevents);
}

/* A clean mount: fs_fault 0, nothing counted, dev names the superblock. */
TEST_F(fs, clean_mount)
{
	char path[PATH_MAX], buf[64], want[64];
	struct stat st;

	ASSERT_EQ(0, read_attr("fs_fault"));
	EXPECT_EQ(0, read_attr("error_count"));
	EXPECT_EQ(0, read_attr("first_errno"));
	EXPECT_EQ(0, read_attr("last_error_time"));
	EXPECT_EQ(0, read_attr("uevents_suppressed"));
	ASSERT_EQ(0, stat(MNT, &st));
	snprintf(want, sizeof(want), "%u:%u\n", major(st.st_dev), minor(st.st_dev));
	attr_path(path, sizeof(path), "dev");
	ASSERT_LT(0, read_file(path, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
}

/* A real error raises fs_fault and fills in the counters. */
TEST_F(fs, error_raises_fault)
{
	long long errno_want = atoll(env("FSERR_ERRNO"));
	time_t before = time(NULL);

	ASSERT_EQ(1, trigger(1));
	EXPECT_EQ(1, read_attr("fs_fault"));
	EXPECT_EQ(per_access(), read_attr("error_count"));
	EXPECT_EQ(errno_want, read_attr("first_errno"));
	EXPECT_EQ(errno_want, read_attr("last_errno"));
	/* both times from this test: not before it began, not after now */
	EXPECT_LE(before, read_attr("first_error_time"));
	EXPECT_LE(before, read_attr("last_error_time"));
	EXPECT_GE(time(NULL), read_attr("last_error_time"));
	EXPECT_EQ(read_attr("first_error_time"), read_attr("last_error_time"));
}

/* poll() on fs_fault wakes on the error and again on the clear. */
TEST_F(fs, poll_wakes_on_error_and_clear)
{
	char path[PATH_MAX], buf[8];
	struct pollfd pfd = { .events = POLLPRI };

	attr_path(path, sizeof(path), "fs_fault");
	pfd.fd = open(path, O_RDONLY);
	ASSERT_LE(0, pfd.fd);
	ASSERT_EQ(2, read(pfd.fd, buf, sizeof(buf)));
	ASSERT_EQ(0, poll(&pfd, 1, 0));		/* nothing pending */

	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_TRUE(pfd.revents & POLLPRI);
	EXPECT_TRUE(pfd.revents & POLLERR);
	ASSERT_EQ(0, lseek(pfd.fd, 0, SEEK_SET));
	ASSERT_EQ(2, read(pfd.fd, buf, sizeof(buf)));
	EXPECT_EQ('1', buf[0]);

	ASSERT_EQ(0, write_attr("fs_fault", "0"));
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	ASSERT_EQ(0, lseek(pfd.fd, 0, SEEK_SET));
	ASSERT_EQ(2, read(pfd.fd, buf, sizeof(buf)));
	EXPECT_EQ('0', buf[0]);
	close(pfd.fd);
}

/*
 * The volume's identity as blkid prints it, read from the device: FAT's
 * serial number (at 0x43 of the boot sector for FAT32, whose 16-bit FAT
 * size at 0x16 is 0, else at 0x27) and exFAT's (at 0x64) as XXXX-XXXX,
 * ext2's s_uuid (at 104 of the superblock at 1024) as 8-4-4-4-12.  0 or -1.
 */
static int volume_uuid(char *out, size_t size)
{
	unsigned char b[1024 + 120];
	int fd = open(env("FSERR_DEV"), O_RDONLY);
	ssize_t n = fd >= 0 ? pread(fd, b, sizeof(b), 0) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(b))
		return -1;
	if (!strcmp(env("FSERR_FAMILY"), "exfat")) {
		const unsigned char *v = b + 0x64;	/* VolumeSerialNumber */

		snprintf(out, size, "%02X%02X-%02X%02X", v[3], v[2], v[1], v[0]);
	} else if (records_errors()) {
		const unsigned char *u = b + 1024 + 104;

		snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
			 u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	} else {
		const unsigned char *v = (b[0x16] | b[0x17]) ? b + 0x27 : b + 0x43;

		snprintf(out, size, "%02X%02X-%02X%02X", v[3], v[2], v[1], v[0]);
	}
	return 0;
}

/* Exactly one uevent for the transition, with the documented variables. */
TEST_F(fs, one_uevent_with_identity)
{
	char msg[8192], num[64];
	const char *dev = env("FSERR_DEV");
	struct stat st;
	int len = 0;

	ASSERT_EQ(0, stat(MNT, &st));
	ASSERT_EQ(20, trigger(20));
	ASSERT_EQ(1, uevent_count(self->uevents, 1500, msg, &len));
	EXPECT_STREQ("change", uevent_var(msg, len, "ACTION"));
	EXPECT_STREQ("fserr", uevent_var(msg, len, "SUBSYSTEM"));
	EXPECT_STREQ("1", uevent_var(msg, len, "FS_FAULT"));
	EXPECT_STREQ(env("FSERR_FSTYPE"), uevent_var(msg, len, "FS_TYPE"));
	EXPECT_STREQ(strrchr(dev, '/') + 1, uevent_var(msg, len, "FS_ID"));
	snprintf(num, sizeof(num), "%u:%u", major(st.st_dev), minor(st.st_dev));
	EXPECT_STREQ(num, uevent_var(msg, len, "FS_DEV"));
	/*
	 * No MAJOR/MINOR: udev takes them as the event's own device number
	 * and files the event under the char device of that number.
	 */
	EXPECT_EQ(NULL, uevent_var(msg, len, "MAJOR"));
	EXPECT_EQ(NULL, uevent_var(msg, len, "MINOR"));
	EXPECT_STREQ(env("FSERR_ERRNO"), uevent_var(msg, len, "FS_ERRNO"));
	/* the count when the worker sent it: 1 to 20 accesses' worth, a number */
	ASSERT_NE(NULL, uevent_var(msg, len, "FS_ERROR_COUNT"));
	EXPECT_LE(1, atoi(uevent_var(msg, len, "FS_ERROR_COUNT")));
	EXPECT_GE(20 * per_access(), atoi(uevent_var(msg, len, "FS_ERROR_COUNT")));
	EXPECT_EQ(strspn(uevent_var(msg, len, "FS_ERROR_COUNT"), "0123456789"),
		  strlen(uevent_var(msg, len, "FS_ERROR_COUNT")));
	EXPECT_STREQ("0", uevent_var(msg, len, "FS_UEVENTS_SUPPRESSED"));
	ASSERT_NE(NULL, uevent_var(msg, len, "FS_FAULT_COUNT"));
	EXPECT_STREQ("1", uevent_var(msg, len, "FS_FAULT_COUNT"));
	ASSERT_EQ(0, volume_uuid(num, sizeof(num)));
	ASSERT_NE(NULL, uevent_var(msg, len, "FS_UUID"));
	EXPECT_STREQ(num, uevent_var(msg, len, "FS_UUID"));
}

/*
 * A storm is still one uevent; fanotify counts exactly what sysfs counts.
 * FSERR_STORM errors (10000 unless set); ext2 logs every error, which takes
 * minutes on the debug kernel, so scenarios give FAT the big storm.
 */
TEST_F_TIMEOUT(fs, storm_one_uevent_exact_counts, 1800)
{
	const int storm = getenv("FSERR_STORM") ? atoi(getenv("FSERR_STORM")) : 10000;
	long long errno_want = atoll(env("FSERR_ERRNO"));
	char buf[4096] __attribute__((aligned(8)));
	struct fanotify_event_metadata *ev;
	struct fanotify_event_info_error *info;
	long long fan_errors = 0;
	int fan, n, events = 0;

	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, fan);
	/*
	 * FAN_FS_ERROR needs FAN_REPORT_FID, which Linux 6.1 refuses on a
	 * filesystem without file handles (exFAT: no export operations): the
	 * storm is still one uevent with exact counts.
	 */
	if (fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR,
			  AT_FDCWD, MNT)) {
		ASSERT_EQ(EOPNOTSUPP, errno);
		ASSERT_STREQ("exfat", env("FSERR_FSTYPE"));
		TH_LOG("no fanotify mark on %s: %s", env("FSERR_FSTYPE"), strerror(errno));
		close(fan);
		fan = -1;
	}

	ASSERT_EQ(storm, trigger(storm));
	EXPECT_EQ(1, uevent_count(self->uevents, 1500, NULL, NULL));
	EXPECT_EQ(storm * per_access(), read_attr("error_count"));
	if (fan < 0)
		return;

	/* The worker forwards every report; drain until nothing more comes. */
	for (int idle = 0; idle < 10;) {
		n = read(fan, buf, sizeof(buf));
		if (n <= 0) {
			idle++;
			usleep(100000);
			continue;
		}
		for (ev = (void *)buf; FAN_EVENT_OK(ev, n); ev = FAN_EVENT_NEXT(ev, n)) {
			char *rec = (char *)(ev + 1);

			ASSERT_NE(0, ev->mask & FAN_FS_ERROR);
			events++;
			while (rec < (char *)ev + ev->event_len) {
				struct fanotify_event_info_header *h = (void *)rec;

				if (h->info_type == FAN_EVENT_INFO_TYPE_ERROR) {
					info = (void *)h;
					EXPECT_EQ(errno_want, info->error);
					fan_errors += info->error_count;
				}
				rec += h->len;
			}
		}
	}
	close(fan);
	TH_LOG("storm of %d errors: %d fanotify events carried %lld errors", storm, events, fan_errors);
	EXPECT_LE(1, events);
	EXPECT_EQ(read_attr("error_count"), fan_errors);
}

static bool mounted_ro(void);

/*
 * FAT's error in a file's cluster chain names the file: the fanotify event
 * carries its file handle (series v3 gave every event FILEID_INVALID), and
 * the handle opens the victim.  ext2 reports its errors for the superblock.
 */
TEST_F(fs, fanotify_names_the_file)
{
	char buf[4096] __attribute__((aligned(8)));
	struct fanotify_event_info_fid *fid = NULL;
	struct fanotify_event_metadata *ev;
	struct file_handle *fh;
	struct stat want, got;
	int fan, mfd, fd, n = 0, i;
	char path[PATH_MAX];

	if (strcmp(env("FSERR_FAMILY"), "fat"))
		SKIP(return, "%s reports its errors for the superblock", env("FSERR_FSTYPE"));
	snprintf(path, sizeof(path), MNT "/%s", env("FSERR_VICTIM"));
	ASSERT_EQ(0, stat(path, &want));
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, fan);
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_FS_ERROR, AT_FDCWD, MNT));
	ASSERT_EQ(1, trigger(1));
	for (i = 0; i < 30 && n <= 0; i++) {
		n = read(fan, buf, sizeof(buf));
		if (n <= 0)
			usleep(100000);
	}
	ASSERT_LT(0, n);
	ev = (void *)buf;
	ASSERT_TRUE(FAN_EVENT_OK(ev, n));
	for (char *rec = (char *)(ev + 1); rec < (char *)ev + ev->event_len;) {
		struct fanotify_event_info_header *h = (void *)rec;

		if (h->info_type == FAN_EVENT_INFO_TYPE_FID)
			fid = (void *)h;
		rec += h->len;
	}
	close(fan);
	ASSERT_NE(NULL, fid);
	fh = (struct file_handle *)fid->handle;
	TH_LOG("handle type %d, %u bytes", fh->handle_type, fh->handle_bytes);
	ASSERT_NE(0xff, fh->handle_type);	/* FILEID_INVALID */
	ASSERT_LT(0U, fh->handle_bytes);
	mfd = open(MNT, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, mfd);
	fd = open_by_handle_at(mfd, fh, O_PATH);
	ASSERT_LE(0, fd) {
		TH_LOG("open_by_handle_at: %s", strerror(errno));
	}
	ASSERT_EQ(0, fstat(fd, &got));
	EXPECT_EQ(want.st_ino, got.st_ino);
	close(fd);
	close(mfd);
}

/* The mount's line in mountinfo, or NULL (@buf holds the file). */
static char *mountinfo_line(char *buf, size_t size)
{
	char *line, *save = NULL;

	if (read_file("/proc/self/mountinfo", buf, size) <= 0)
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char root[PATH_MAX], point[PATH_MAX];

		if (sscanf(line, "%*d %*d %*s %4095s %4095s", root, point) == 2 &&
		    !strcmp(point, MNT))
			return line;
	}
	return NULL;
}

/*
 * While fs_fault is 1 every mount of the filesystem shows the optional
 * field fs_fault:<fault_count> in mountinfo, before the "-" separator; it
 * goes with a clear and comes back with the next count.
 */
TEST_F(fs, mountinfo_field)
{
	char buf[65536], *line;

	line = mountinfo_line(buf, sizeof(buf));
	ASSERT_NE(NULL, line);
	EXPECT_EQ(NULL, strstr(line, " fs_fault:"));
	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(1, read_attr("fs_fault"));
	line = mountinfo_line(buf, sizeof(buf));
	ASSERT_NE(NULL, line);
	TH_LOG("%s", line);
	ASSERT_NE(NULL, strstr(line, " fs_fault:1 "));
	EXPECT_LT(strstr(line, " fs_fault:1 "), strstr(line, " - "));
	ASSERT_EQ(0, write_attr("fs_fault", "0"));
	line = mountinfo_line(buf, sizeof(buf));
	ASSERT_NE(NULL, line);
	EXPECT_EQ(NULL, strstr(line, " fs_fault:"));
	ASSERT_EQ(1, trigger(1));
	line = mountinfo_line(buf, sizeof(buf));
	ASSERT_NE(NULL, line);
	EXPECT_NE(NULL, strstr(line, " fs_fault:2 "));
}

/*
 * notify is parsed by the VFS for every fserr family: a value is refused
 * with EINVAL and changes nothing; the filesystem never sees the option;
 * a remount without it keeps the setting, nonotify turns it off.
 */
TEST_F(fs, notify_option_generic)
{
	char buf[65536], want[PATH_MAX];

	/*
	 * The VFS shows it with the superblock's generic flags, right after
	 * rw or ro: before the filesystem's own options, where FAT and ext2
	 * showed it in series v3.
	 */
	snprintf(want, sizeof(want), " " MNT " %s rw,notify,", env("FSERR_FSTYPE"));
	ASSERT_LT(0, read_file("/proc/self/mounts", buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, want)) {
		TH_LOG("no '%s' in /proc/self/mounts", want);
	}
	EXPECT_EQ(-1, mount(NULL, MNT, NULL, MS_REMOUNT | (mounted_ro() ? MS_RDONLY : 0),
			    "notify=1"));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_LT(0, read_file("/proc/self/mounts", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, ",notify"));
	/* a remount that does not name it keeps it */
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT | (mounted_ro() ? MS_RDONLY : 0),
			   mount_opts(false)));
	ASSERT_LT(0, read_file("/proc/self/mounts", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, ",notify"));
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT | (mounted_ro() ? MS_RDONLY : 0),
			   "nonotify"));
	ASSERT_LT(0, read_file("/proc/self/mounts", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, ",notify"));
	ASSERT_EQ(1, trigger(1));
	EXPECT_EQ(0, uevent_count(self->uevents, 1500, NULL, NULL));
	/* the transition nobody announced is counted */
	EXPECT_EQ(1, read_attr("uevents_suppressed"));
}

/*
 * io_error_count: corruption counts none (every trigger here reports
 * EUCLEAN; media_error_walk in the scenarios checks a real EIO).
 */
TEST_F(fs, io_error_count)
{
	ASSERT_EQ(117, atoll(env("FSERR_ERRNO")));
	ASSERT_EQ(0, read_attr("io_error_count"));
	ASSERT_EQ(2, trigger(2));
	EXPECT_EQ(2 * per_access(), read_attr("error_count"));
	EXPECT_EQ(0, read_attr("io_error_count"));
}

/* Clear, then error again faster than the interval: one uevent, rest counted. */
TEST_F(fs, clear_cycles_are_rate_limited)
{
	char msg[8192];
	int i, len = 0;

	write_param("uevent_interval_ms", "60000");
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(1, trigger(1));
		ASSERT_EQ(1, read_attr("fs_fault"));
		ASSERT_EQ(0, write_attr("fs_fault", "0"));
		ASSERT_EQ(0, read_attr("fs_fault"));
	}
	/* Twenty transitions, one uevent. */
	EXPECT_EQ(1, uevent_count(self->uevents, 1500, msg, &len));
	EXPECT_EQ(19, read_attr("uevents_suppressed"));
	EXPECT_EQ(20 * per_access(), read_attr("error_count"));
	write_param("uevent_interval_ms", "1");
	usleep(20000);
	ASSERT_EQ(1, trigger(1));
	EXPECT_EQ(1, uevent_count(self->uevents, 1500, msg, &len));
	EXPECT_STREQ("19", uevent_var(msg, len, "FS_UEVENTS_SUPPRESSED"));
	write_param("uevent_interval_ms", "5000");
}

/*
 * A transition inside the window is not dropped: its uevent comes when the
 * window opens, one for all the transitions of the window, if fs_fault is
 * still 1 then.
 */
TEST_F(fs, fault_within_window_announced_when_it_opens)
{
	char msg[8192];
	int len = 0;

	write_param("uevent_interval_ms", "2000");
	ASSERT_EQ(1, trigger(1));
	EXPECT_EQ(1, uevent_count(self->uevents, 1000, NULL, NULL));
	ASSERT_EQ(0, write_attr("fs_fault", "0"));
	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(0, write_attr("fs_fault", "0"));
	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(1, read_attr("fs_fault"));
	/* the window ends 2 s after the first uevent; 1 s of margin */
	EXPECT_EQ(1, uevent_count(self->uevents, 2000, msg, &len));
	EXPECT_STREQ("1", uevent_var(msg, len, "FS_FAULT"));
	EXPECT_STREQ("2", uevent_var(msg, len, "FS_UEVENTS_SUPPRESSED"));
	EXPECT_EQ(2, read_attr("uevents_suppressed"));
	write_param("uevent_interval_ms", "5000");
}

/* Junk written to fs_fault is refused and changes nothing. */
TEST_F(fs, junk_writes_rejected)
{
	/* Only "0" and "0\n" clear it; kstrtouint() would take "00", "+0". */
	static const char *const junk[] = {
		"1", "2", "abc", "\n", "-1", " ", "0x", "99999999999999999999",
		"00", "+0", " 0", "0 ", "0\n\n",
	};
	char huge[8192];
	unsigned int i;

	ASSERT_EQ(1, trigger(1));
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		EXPECT_EQ(-EINVAL, write_attr("fs_fault", junk[i])) {
			TH_LOG("writing '%s'", junk[i]);
		}
		EXPECT_EQ(1, read_attr("fs_fault"));
	}
	memset(huge, '7', sizeof(huge));
	EXPECT_EQ(-EINVAL, write_attr_len("fs_fault", huge, sizeof(huge)));
	/* A zero-length write never reaches the attribute. */
	EXPECT_EQ(0, write_attr_len("fs_fault", "", 0));
	EXPECT_EQ(1, read_attr("fs_fault"));
	EXPECT_EQ(-EACCES, write_attr("error_count", "0"));
	EXPECT_EQ(per_access(), read_attr("error_count"));
}

/* Only root with CAP_SYS_ADMIN clears fs_fault. */
TEST_F(fs, unprivileged_clear_refused)
{
	int status;
	pid_t pid;

	ASSERT_EQ(1, trigger(1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		_exit(write_attr("fs_fault", "0") == -EACCES ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2] = {};

		if (syscall(SYS_capget, &hdr, data))
			_exit(10);
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &hdr, data))
			_exit(11);
		_exit(write_attr("fs_fault", "0") == -EPERM ? 0 : 12);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, read_attr("fs_fault"));
}

static bool mounted_ro(void)
{
	struct statvfs sv;

	return statvfs(MNT, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/*
 * No remount clears fs_fault, not even one from read-only to read-write
 * (series v3 cleared it there on FAT, so an error met while read-only was
 * lost when the boot remounted the root read-write; on ext2 v3 passed, as
 * ext2 reports its on-disk record again at that remount); the counters are
 * kept.  The
 * first remount changes nothing: read-write stays read-write, and where the
 * error made the filesystem read-only (errors=remount-ro) read-only stays
 * read-only.  Only root writing 0 clears it.
 */
TEST_F(fs, remount_keeps_fault)
{
	ASSERT_EQ(2, trigger(2));
	ASSERT_EQ(1, read_attr("fs_fault"));
	TH_LOG("after the errors the filesystem is %s", mounted_ro() ? "read-only" : "read-write");
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT | (mounted_ro() ? MS_RDONLY : 0),
			   mount_opts(true)));
	EXPECT_EQ(1, read_attr("fs_fault"));
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT | MS_RDONLY, mount_opts(true)));
	EXPECT_EQ(1, read_attr("fs_fault"));
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT | MS_RDONLY, mount_opts(true)));
	EXPECT_EQ(1, read_attr("fs_fault"));
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT, mount_opts(true)));
	EXPECT_FALSE(mounted_ro());
	EXPECT_EQ(1, read_attr("fs_fault"));
	/* ext2 reports its unrepaired record again when it goes rw */
	EXPECT_EQ(2 * per_access() + records_errors(), read_attr("error_count"));
	EXPECT_EQ(1, read_attr("fault_count"));
	ASSERT_EQ(0, write_attr("fs_fault", "0"));
	EXPECT_EQ(0, read_attr("fs_fault"));
}

/*
 * A volume whose on-disk state records an error that was not repaired
 * (ext2's EXT2_ERROR_FS, written by the error itself) mounts with fs_fault
 * 1, the error counted and announced, until the record is gone.  FAT keeps
 * no such record and mounts clean.
 */
TEST_F(fs, error_record_at_mount)
{
	long long errno_want = atoll(env("FSERR_ERRNO"));
	int records = records_errors();

	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(1, read_attr("fs_fault"));
	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, do_mount(true));
	EXPECT_EQ(records, read_attr("fs_fault"));
	EXPECT_EQ(records, read_attr("error_count"));
	EXPECT_EQ(records, read_attr("fault_count"));
	EXPECT_EQ(records ? errno_want : 0, read_attr("first_errno"));
	/* the error's uevent, then (a new superblock) the mount's */
	EXPECT_EQ(1 + records, uevent_count(self->uevents, 1500, NULL, NULL));

	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, forget_error_record());
	ASSERT_EQ(0, do_mount(true));
	EXPECT_EQ(0, read_attr("fs_fault"));
	EXPECT_EQ(0, read_attr("error_count"));
}

/* Unmounting removes the directory, also with a notification queued. */
TEST_F(fs, umount_removes_directory)
{
	char path[PATH_MAX];
	struct stat st;

	attr_path(path, sizeof(path), "");
	ASSERT_EQ(0, stat(path, &st));
	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(0, umount(MNT));
	EXPECT_EQ(-1, stat(path, &st));
	EXPECT_EQ(ENOENT, errno);
}

/* Without the notify option: the state works, no uevent is sent. */
TEST_F(fs, without_notify_no_uevent)
{
	ASSERT_EQ(0, umount(MNT));
	ASSERT_EQ(0, do_mount(false));
	ASSERT_EQ(0, read_attr("fs_fault"));
	ASSERT_EQ(3, trigger(3));
	EXPECT_EQ(1, read_attr("fs_fault"));
	EXPECT_EQ(3 * per_access(), read_attr("error_count"));
	EXPECT_EQ(0, uevent_count(self->uevents, 1500, NULL, NULL));
	/* notify on remount turns it on for the next transition. */
	ASSERT_EQ(0, mount(NULL, MNT, NULL, MS_REMOUNT | (mounted_ro() ? MS_RDONLY : 0),
			   mount_opts(true)));
	ASSERT_EQ(0, write_attr("fs_fault", "0"));
	ASSERT_EQ(1, trigger(1));
	EXPECT_EQ(1, uevent_count(self->uevents, 1500, NULL, NULL));
}

/* The notify option shows in /proc/mounts. */
TEST_F(fs, notify_option_shown)
{
	char buf[8192];

	ASSERT_LT(0, read_file("/proc/self/mounts", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, ",notify"));
}

/*
 * A child in a new mount namespace waits on its mountinfo: "keep" keeps
 * the copy of the mount, "drop" unmounts it first.  Reports 1 if woken.
 */
static pid_t mountinfo_waiter(bool keep, int ready, int result)
{
	pid_t pid = fork();
	struct pollfd pfd = { .events = POLLPRI };
	char woken;

	if (pid)
		return pid;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (!keep && umount(MNT)))
		_exit(10);
	pfd.fd = open("/proc/self/mountinfo", O_RDONLY);
	if (pfd.fd < 0 || write(ready, "r", 1) != 1)
		_exit(11);
	woken = poll(&pfd, 1, 3000) == 1 && (pfd.revents & POLLPRI) ? '1' : '0';
	if (write(result, &woken, 1) != 1)
		_exit(12);
	_exit(0);
}

/* The mountinfo wake-up reaches the namespaces that see the fs, no other. */
TEST_F(fs, mountinfo_wakes_only_namespaces_with_the_mount)
{
	int ready[2], keep_res[2], drop_res[2], status;
	char c, keep_woken, drop_woken;
	pid_t keep, drop;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(keep_res));
	ASSERT_EQ(0, pipe(drop_res));
	keep = mountinfo_waiter(true, ready[1], keep_res[1]);
	drop = mountinfo_waiter(false, ready[1], drop_res[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(1, read(ready[0], &c, 1));

	ASSERT_EQ(1, trigger(1));
	ASSERT_EQ(1, read(keep_res[0], &keep_woken, 1));
	ASSERT_EQ(1, read(drop_res[0], &drop_woken, 1));
	EXPECT_EQ('1', keep_woken);
	EXPECT_EQ('0', drop_woken);
	waitpid(keep, &status, 0);
	EXPECT_EQ(0, WEXITSTATUS(status));
	waitpid(drop, &status, 0);
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
