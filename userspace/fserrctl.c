// SPDX-License-Identifier: GPL-2.0
/*
 * fserrctl: show and clear the fserr state of mounted filesystems, and
 * watch for changes. See fserrctl.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/fsstate.h"
#include "lib/uevent.h"

/* Exit codes, as in fserrctl.8 */
enum { EXIT_USAGE = 2, EXIT_NOT_FOUND = 3, EXIT_DENIED = 4 };

static const char *sysfs_fs = "/sys/fs";
static const char *mountinfo;	/* NULL: /proc/self/mountinfo */

static void usage(FILE *to)
{
	fprintf(to,
"usage: fserrctl [--sysfs DIR] [--mountinfo FILE] COMMAND\n"
"\n"
"Commands:\n"
"  status [--json]          the fserr state of every filesystem that has one\n"
"  clear MOUNTPOINT|DEVICE  set fs_fault back to 0 after a repair (root)\n"
"  watch                    print fserr uevents and state changes until stopped\n"
"\n"
"Options:\n"
"  --sysfs DIR       where the fserr directories are (default /sys/fs)\n"
"  --mountinfo FILE  the mount table to map devices to mount points\n"
"                    (default /proc/self/mountinfo)\n"
"  -V, --version     the version, and exit\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 done, 1 failure, 2 bad usage, 3 no such fserr filesystem,\n"
"4 permission denied.\n");
}

static void format_time(long long t, char *buf, size_t size)
{
	time_t tt = t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm))
		snprintf(buf, size, "-");
	else
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* JSON string with the characters that need it escaped. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

struct status_ctx {
	struct libmnt_table *tb;
	bool json;
	int count;
};

static int status_one(const struct fserr_fs *fs, void *data)
{
	struct status_ctx *ctx = data;
	struct libmnt_fs *m = fserr_mounts_first(ctx->tb, fs->dev);
	const char *type = m && mnt_fs_get_fstype(m) ? mnt_fs_get_fstype(m) : fs->family;
	const char *source = m && mnt_fs_get_source(m) ? mnt_fs_get_source(m) : fs->id;
	char mounts[4096], first[32], last[32], devno[32];

	fserr_mounts_of(ctx->tb, fs->dev, ",", mounts, sizeof(mounts));
	format_time(fs->first_error_time, first, sizeof(first));
	format_time(fs->last_error_time, last, sizeof(last));
	snprintf(devno, sizeof(devno), "%u:%u", major(fs->dev), minor(fs->dev));
	if (ctx->json) {
		struct libmnt_iter *it;
		struct libmnt_fs *mm;
		int n = 0;

		printf("%s\n  {\"mountpoints\": [", ctx->count ? "," : "");
		/* each mount point as it is: JSON escapes what needs it */
		it = mnt_new_iter(MNT_ITER_FORWARD);
		while (it && mnt_table_next_fs(ctx->tb, it, &mm) == 0) {
			if (mnt_fs_get_devno(mm) != fs->dev || !mnt_fs_get_target(mm))
				continue;
			printf("%s", n++ ? "," : "");
			json_string(mnt_fs_get_target(mm));
		}
		if (it)
			mnt_free_iter(it);
		printf("], \"type\": ");
		json_string(type);
		printf(", \"device\": ");
		json_string(source);
		printf(", \"dev\": \"%s\", \"sysfs\": ", devno);
		json_string(fs->dir);
		printf(", \"fs_fault\": %d, \"error_count\": %llu, \"fault_count\": %llu, "
		       "\"first_error_time\": %lld, \"last_error_time\": %lld, "
		       "\"first_errno\": %d, \"last_errno\": %d, "
		       "\"uevents_suppressed\": %llu}",
		       fs->fault, fs->error_count, fs->fault_count, fs->first_error_time,
		       fs->last_error_time, fs->first_errno, fs->last_errno,
		       fs->uevents_suppressed);
	} else {
		if (!ctx->count)
			printf("%-20s %-6s %-16s %-8s %5s %8s %-20s %-8s %-20s %s\n",
			       "MOUNTPOINTS", "TYPE", "DEVICE", "DEV", "FAULT",
			       "ERRORS", "FIRST", "ERRNO", "LAST", "ERRNO");
		printf("%-20s %-6s %-16s %-8s %5d %8llu %-20s %-8s %-20s %s\n",
		       *mounts ? mounts : "(not mounted here)", type, source, devno,
		       fs->fault, fs->error_count, first, fserr_errno_name(fs->first_errno),
		       last, fserr_errno_name(fs->last_errno));
	}
	ctx->count++;
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	struct status_ctx ctx = { .json = false };
	int err;

	if (argc == 2 && !strcmp(argv[1], "--json"))
		ctx.json = true;
	else if (argc != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ctx.tb = fserr_mounts_load(mountinfo);
	if (!ctx.tb) {
		fprintf(stderr, "fserrctl: cannot read the mount table %s: %m\n",
			mountinfo ? mountinfo : "/proc/self/mountinfo");
		return EXIT_FAILURE;
	}
	if (ctx.json)
		printf("[");
	err = fserr_fs_scan(sysfs_fs, status_one, &ctx);
	if (ctx.json)
		printf("%s]\n", ctx.count ? "\n" : "");
	else if (!ctx.count && !err)
		printf("no filesystem with fserr state under %s\n", sysfs_fs);
	mnt_unref_table(ctx.tb);
	if (err) {
		fprintf(stderr, "fserrctl: %s: not every fserr directory could be read (%s)%s\n",
			sysfs_fs, strerror(-err), ctx.count ? "; the list above is incomplete" : "");
		return EXIT_FAILURE;
	}
	return 0;
}

/*
 * A block device names its filesystem; otherwise the argument must be a
 * mount point or a mount source in this namespace's mount table.
 */
static int resolve(const char *arg, dev_t *dev)
{
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	struct stat st;

	if (!stat(arg, &st) && S_ISBLK(st.st_mode)) {
		*dev = st.st_rdev;
		return 0;
	}
	tb = fserr_mounts_load(mountinfo);
	if (!tb) {
		fprintf(stderr, "fserrctl: cannot read the mount table: %m\n");
		return EXIT_FAILURE;
	}
	fs = mnt_table_find_target(tb, arg, MNT_ITER_BACKWARD);
	if (!fs)
		fs = mnt_table_find_source(tb, arg, MNT_ITER_BACKWARD);
	if (!fs) {
		fprintf(stderr, "fserrctl: %s is neither a block device nor mounted\n", arg);
		mnt_unref_table(tb);
		return EXIT_NOT_FOUND;
	}
	*dev = mnt_fs_get_devno(fs);
	mnt_unref_table(tb);
	return 0;
}

static int cmd_clear(int argc, char **argv)
{
	struct fserr_fs found;
	dev_t dev;
	int ret, err;

	if (argc != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = resolve(argv[1], &dev);
	if (ret)
		return ret;
	if (fserr_fs_find(sysfs_fs, dev, &found)) {
		fprintf(stderr, "fserrctl: %s (%u:%u) has no fserr state under %s\n",
			argv[1], major(dev), minor(dev), sysfs_fs);
		return EXIT_NOT_FOUND;
	}
	err = fserr_fs_clear(&found);
	if (err == -EACCES || err == -EPERM) {
		fprintf(stderr, "fserrctl: clearing %s needs root (CAP_SYS_ADMIN): %s\n",
			found.dir, strerror(-err));
		return EXIT_DENIED;
	}
	if (err) {
		fprintf(stderr, "fserrctl: cannot clear %s: %s\n", found.dir, strerror(-err));
		return EXIT_FAILURE;
	}
	printf("cleared %s (was %d)\n", found.dir, found.fault);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int print_change(const struct fserr_fs *fs, void *data)
{
	(void)data;
	printf("state: %s fs_fault=%d error_count=%llu last_errno=%s\n",
	       fs->dir, fs->fault, fs->error_count, fserr_errno_name(fs->last_errno));
	return 0;
}

/*
 * Print every fserr uevent, and the state of all filesystems whenever this
 * namespace's mountinfo wakes (fserr wakes it on every fs_fault change).
 */
static int cmd_watch(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd[2];
	char buf[FSERR_UEVENT_MAX + 1];
	struct fserr_uevent ev;
	int size = 2 * 1024 * 1024;
	ssize_t n;

	(void)argv;
	if (argc != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pfd[0].fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (pfd[0].fd < 0 || setsockopt(pfd[0].fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) ||
	    bind(pfd[0].fd, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "fserrctl: cannot listen to uevents: %m\n");
		return EXIT_FAILURE;
	}
	pfd[0].events = POLLIN;
	pfd[1].fd = open(mountinfo ? mountinfo : "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (pfd[1].fd < 0) {
		fprintf(stderr, "fserrctl: cannot open the mount table: %m\n");
		return EXIT_FAILURE;
	}
	pfd[1].events = POLLPRI;
	fserr_fs_scan(sysfs_fs, print_change, NULL);
	while (!stop) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "fserrctl: poll: %m\n");
			return EXIT_FAILURE;
		}
		if (pfd[0].revents & POLLIN) {
			n = recv(pfd[0].fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
			if (n < 0 && errno == ENOBUFS) {
				printf("uevents were lost; current state:\n");
				fserr_fs_scan(sysfs_fs, print_change, NULL);
			} else if (n > 0 && fserr_uevent_parse(buf, n, &ev) == 0) {
				printf("uevent: %s type=%s id=%s dev=%u:%u errno=%s errors=%llu suppressed=%llu\n",
				       ev.devpath, ev.fs_type, ev.fs_id, ev.major, ev.minor,
				       fserr_errno_name(ev.fs_errno), ev.error_count, ev.suppressed);
			}
		}
		if (pfd[1].revents & (POLLPRI | POLLERR))
			fserr_fs_scan(sysfs_fs, print_change, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "mountinfo", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sysfs_fs = optarg;
			break;
		case 'm':
			mountinfo = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("fserrctl %s\n", FSERR_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (!strcmp(argv[0], "status"))
		return cmd_status(argc, argv);
	if (!strcmp(argv[0], "clear"))
		return cmd_clear(argc, argv);
	if (!strcmp(argv[0], "watch"))
		return cmd_watch(argc, argv);
	fprintf(stderr, "fserrctl: unknown command '%s'\n", argv[0]);
	usage(stderr);
	return EXIT_USAGE;
}
