// SPDX-License-Identifier: GPL-2.0
/*
 * fserrctl: show and clear the fserr state of mounted filesystems, and
 * watch for changes. See fserrctl.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <libsmartcols/libsmartcols.h>

#include "lib/fsstate.h"
#include "lib/monitor.h"

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
"  watch [--uevents SOURCE] print fserr uevents and state changes until stopped;\n"
"                           SOURCE: udev, kernel or auto (udev when built with\n"
"                           libsystemd and udevd runs, else kernel)\n"
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

/*
 * The columns of "status": the table's, then --json's, whose names are its
 * keys (libsmartcols writes them in lower case).
 */
enum { C_MOUNTS, C_TYPE, C_DEVICE, C_DEV, C_FAULT, C_ERRORS, C_FIRST, C_FIRST_ERRNO,
       C_LAST, C_LAST_ERRNO, NR_TABLE_COLUMNS };
enum { J_MOUNTS, J_TYPE, J_DEVICE, J_DEV, J_SYSFS, J_FAULT, J_ERRORS, J_FAULTS,
       J_FIRST_TIME, J_LAST_TIME, J_FIRST_ERRNO, J_LAST_ERRNO, J_IO_ERRORS,
       J_SUPPRESSED, NR_JSON_COLUMNS };

static const struct column {
	const char *name;
	int flags;
	int json_type;
} table_columns[NR_TABLE_COLUMNS] = {
	[C_MOUNTS] = { "MOUNTPOINTS", 0, 0 },
	[C_TYPE] = { "TYPE", 0, 0 },
	[C_DEVICE] = { "DEVICE", 0, 0 },
	[C_DEV] = { "DEV", 0, 0 },
	[C_FAULT] = { "FAULT", SCOLS_FL_RIGHT, 0 },
	[C_ERRORS] = { "ERRORS", SCOLS_FL_RIGHT, 0 },
	[C_FIRST] = { "FIRST", 0, 0 },
	[C_FIRST_ERRNO] = { "ERRNO", 0, 0 },
	[C_LAST] = { "LAST", 0, 0 },
	[C_LAST_ERRNO] = { "ERRNO", 0, 0 },
}, json_columns[NR_JSON_COLUMNS] = {
	[J_MOUNTS] = { "mountpoints", SCOLS_FL_WRAP, SCOLS_JSON_ARRAY_STRING },
	[J_TYPE] = { "type", 0, SCOLS_JSON_STRING },
	[J_DEVICE] = { "device", 0, SCOLS_JSON_STRING },
	[J_DEV] = { "dev", 0, SCOLS_JSON_STRING },
	[J_SYSFS] = { "sysfs", 0, SCOLS_JSON_STRING },
	[J_FAULT] = { "fs_fault", 0, SCOLS_JSON_NUMBER },
	[J_ERRORS] = { "error_count", 0, SCOLS_JSON_NUMBER },
	[J_FAULTS] = { "fault_count", 0, SCOLS_JSON_NUMBER },
	[J_FIRST_TIME] = { "first_error_time", 0, SCOLS_JSON_NUMBER },
	[J_LAST_TIME] = { "last_error_time", 0, SCOLS_JSON_NUMBER },
	[J_FIRST_ERRNO] = { "first_errno", 0, SCOLS_JSON_NUMBER },
	[J_LAST_ERRNO] = { "last_errno", 0, SCOLS_JSON_NUMBER },
	[J_IO_ERRORS] = { "io_error_count", 0, SCOLS_JSON_NUMBER },
	[J_SUPPRESSED] = { "uevents_suppressed", 0, SCOLS_JSON_NUMBER },
};

struct status_ctx {
	struct libmnt_table *tb;
	struct libscols_table *out;
	bool json;
	int count;
	int failed;	/* -errno of the first cell that could not be set */
};

static void set(struct status_ctx *ctx, struct libscols_line *ln, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct status_ctx *ctx, struct libscols_line *ln, int col, const char *fmt, ...)
{
	char *data;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vasprintf(&data, fmt, ap);
	va_end(ap);
	if (err < 0) {
		ctx->failed = -ENOMEM;
		return;
	}
	/* (the line owns the string from here) */
	err = scols_line_refer_data(ln, col, data);
	if (err) {
		free(data);
		if (!ctx->failed)
			ctx->failed = err;
	}
}

/*
 * --json's mount points: the cell holds every path with '\' and newline
 * escaped (\\, \n), one per line; libsmartcols asks next_mountpoint()
 * for each element of the JSON array, which ends it at its newline and
 * gives it back its own characters, so that a path with a newline stays
 * one element. next_mountpoint() works in place: it is given the cell's
 * copy, and its result is never longer.
 */
static char *next_mountpoint(const struct libscols_column *cl, char *data, void *userdata)
{
	char *r = data, *w = data;

	(void)cl, (void)userdata;
	if (!data)
		return NULL;
	for (; *r && *r != '\n'; r++) {
		if (*r == '\\' && r[1]) {
			r++;
			*w++ = *r == 'n' ? '\n' : *r;
		} else {
			*w++ = *r;
		}
	}
	if (!*r) {
		*w = '\0';
		return NULL;
	}
	*w = '\0';
	return r + 1;
}

static size_t mountpoint_chunksize(const struct libscols_column *cl, const char *data,
				   void *userdata)
{
	(void)cl, (void)userdata;
	return data ? strlen(data) : 0;
}

/* The mount points of @dev, for next_mountpoint() (--json's array). */
static void set_mountpoint_lines(struct status_ctx *ctx, struct libscols_line *ln, int col,
				 dev_t dev)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *m;
	char *all = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&all, &size);
	const char *p;
	int n = 0;


	while (f && it && fserr_mounts_next(ctx->tb, it, dev, &m) == 0) {
		if (!mnt_fs_get_target(m))
			continue;
		if (n++)
			fputc('\n', f);
		for (p = mnt_fs_get_target(m); *p; p++) {
			if (*p == '\\' || *p == '\n')
				fputc('\\', f);
			fputc(*p == '\n' ? 'n' : *p, f);
		}
	}
	if (it)
		mnt_free_iter(it);
	if (!f || fclose(f) || !it) {
		free(all);
		ctx->failed = -ENOMEM;
		return;
	}
	/* (none: libsmartcols writes [null] before util-linux 2.41, [] since) */
	if (!n || scols_line_refer_data(ln, col, all)) {
		free(all);
		if (n)
			ctx->failed = -ENOMEM;
	}
}

static int status_one(const struct fserr_fs *fs, void *data)
{
	struct status_ctx *ctx = data;
	struct libmnt_fs *m = fserr_mounts_first(ctx->tb, fs->dev);
	const char *type = m && mnt_fs_get_fstype(m) ? mnt_fs_get_fstype(m) : fs->family;
	const char *source = m && mnt_fs_get_source(m) ? mnt_fs_get_source(m) : fs->id;
	struct libscols_line *ln = scols_table_new_line(ctx->out, NULL);
	char mounts[4096], first[32], last[32];

	if (!ln) {
		ctx->failed = -ENOMEM;
		return -1;
	}
	if (ctx->json) {
		set_mountpoint_lines(ctx, ln, J_MOUNTS, fs->dev);
		set(ctx, ln, J_TYPE, "%s", type);
		set(ctx, ln, J_DEVICE, "%s", source);
		set(ctx, ln, J_DEV, "%u:%u", major(fs->dev), minor(fs->dev));
		set(ctx, ln, J_SYSFS, "%s", fs->dir);
		set(ctx, ln, J_FAULT, "%d", fs->fault);
		set(ctx, ln, J_ERRORS, "%llu", fs->error_count);
		set(ctx, ln, J_FAULTS, "%llu", fs->fault_count);
		set(ctx, ln, J_FIRST_TIME, "%lld", fs->first_error_time);
		set(ctx, ln, J_LAST_TIME, "%lld", fs->last_error_time);
		set(ctx, ln, J_FIRST_ERRNO, "%d", fs->first_errno);
		set(ctx, ln, J_LAST_ERRNO, "%d", fs->last_errno);
		/* (null where the kernel does not say: series v3) */
		if (fs->io_error_count >= 0)
			set(ctx, ln, J_IO_ERRORS, "%lld", fs->io_error_count);
		set(ctx, ln, J_SUPPRESSED, "%llu", fs->uevents_suppressed);
	} else {
		fserr_mounts_of(ctx->tb, fs->dev, ",", mounts, sizeof(mounts));
		format_time(fs->first_error_time, first, sizeof(first));
		format_time(fs->last_error_time, last, sizeof(last));
		set(ctx, ln, C_MOUNTS, "%s", *mounts ? mounts : "(not mounted here)");
		set(ctx, ln, C_TYPE, "%s", type);
		set(ctx, ln, C_DEVICE, "%s", source);
		set(ctx, ln, C_DEV, "%u:%u", major(fs->dev), minor(fs->dev));
		set(ctx, ln, C_FAULT, "%d", fs->fault);
		set(ctx, ln, C_ERRORS, "%llu", fs->error_count);
		set(ctx, ln, C_FIRST, "%s", first);
		set(ctx, ln, C_FIRST_ERRNO, "%s", fserr_errno_name(fs->first_errno));
		set(ctx, ln, C_LAST, "%s", last);
		set(ctx, ln, C_LAST_ERRNO, "%s", fserr_errno_name(fs->last_errno));
	}
	ctx->count++;
	return ctx->failed ? -1 : 0;
}

/* The table (or JSON document) of "status", with its columns. */
static struct libscols_table *status_table(bool json)
{
	const struct column *cols = json ? json_columns : table_columns;
	size_t i, n = json ? NR_JSON_COLUMNS : NR_TABLE_COLUMNS;
	struct libscols_table *tb = scols_new_table();
	struct libscols_column *cl;

	if (!tb)
		return NULL;
	if (json) {
		scols_table_enable_json(tb, 1);
		scols_table_set_name(tb, "filesystems");
	}
	for (i = 0; i < n; i++) {
		cl = scols_table_new_column(tb, cols[i].name, 0, cols[i].flags);
		if (!cl || (json && scols_column_set_json_type(cl, cols[i].json_type)) ||
		    (json && i == J_MOUNTS &&
		     scols_column_set_wrapfunc(cl, mountpoint_chunksize, next_mountpoint, NULL))) {
			scols_unref_table(tb);
			return NULL;
		}
	}
	return tb;
}

static int cmd_status(int argc, char **argv)
{
	struct status_ctx ctx = { .json = false };
	int err, printed = 0;

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
	ctx.out = status_table(ctx.json);
	if (!ctx.out) {
		mnt_unref_table(ctx.tb);
		fprintf(stderr, "fserrctl: out of memory\n");
		return EXIT_FAILURE;
	}
	err = fserr_fs_scan(sysfs_fs, status_one, &ctx);
	mnt_unref_table(ctx.tb);
	if (ctx.failed) {
		scols_unref_table(ctx.out);
		fprintf(stderr, "fserrctl: cannot make the table: %s\n", strerror(-ctx.failed));
		return EXIT_FAILURE;
	}
	if (ctx.count || ctx.json)
		printed = scols_print_table(ctx.out);
	else if (!err)
		printf("no filesystem with fserr state under %s\n", sysfs_fs);
	scols_unref_table(ctx.out);
	if (printed || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "fserrctl: cannot write the table: %s\n",
			strerror(printed < 0 ? -printed : errno));
		return EXIT_FAILURE;
	}
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

/*
 * @s for a terminal: a control character, DEL, a backslash or a byte
 * above 0x7e as \ooo (as mountinfo escapes), so that a name cannot move
 * the cursor, change colours or pose as another line. Into @buf.
 */
static const char *escaped(const char *s, char *buf, size_t size)
{
	size_t used = 0;

	for (; *s && used + 5 < size; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			used += snprintf(buf + used, size - used, "\\%03o", c);
		else
			buf[used++] = c;
	}
	buf[used] = '\0';
	return buf;
}

static int print_change(const struct fserr_fs *fs, void *data)
{
	char dir[4 * PATH_MAX + 1];

	(void)data;
	printf("state: %s fs_fault=%d error_count=%llu last_errno=%s\n",
	       escaped(fs->dir, dir, sizeof(dir)), fs->fault, fs->error_count,
	       fserr_errno_name(fs->last_errno));
	return 0;
}

static void print_uevent(const struct fserr_uevent *ev, void *data)
{
	char e1[4 * 256], e2[4 * 32], e3[4 * 32];

	(void)data;
	printf("uevent: %s type=%s id=%s dev=%u:%u errno=%s errors=%llu suppressed=%llu\n",
	       escaped(ev->devpath, e1, sizeof(e1)), escaped(ev->fs_type, e2, sizeof(e2)),
	       escaped(ev->fs_id, e3, sizeof(e3)), ev->major, ev->minor,
	       fserr_errno_name(ev->fs_errno), ev->error_count, ev->suppressed);
}

/*
 * Print every fserr uevent, and the state of all filesystems whenever this
 * namespace's mountinfo wakes (fserr wakes it on every fs_fault change).
 */
static int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uevents", required_argument, NULL, 'U' },
		{}
	};
	enum fserr_monitor_source src = FSERR_MONITOR_AUTO;
	struct sigaction sa = { .sa_handler = on_signal };
	struct fserr_monitor_result res;
	struct fserr_monitor *mon;
	unsigned long forged = 0;
	struct pollfd pfd[2];
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c != 'U' || fserr_monitor_source_parse(optarg, &src)) {
			if (c == 'U')
				fprintf(stderr, "fserrctl: --uevents takes auto, kernel or udev\n");
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = fserr_monitor_open(src, &mon);
	if (err) {
		fprintf(stderr, "fserrctl: cannot listen to uevents%s: %s\n",
			src == FSERR_MONITOR_UDEV ? " from udev" : "",
			err == -EOPNOTSUPP ? "built without libsystemd" :
			err == -ENOENT && src == FSERR_MONITOR_UDEV ? "udevd does not run" :
			strerror(-err));
		return EXIT_FAILURE;
	}
	fprintf(stderr, "fserrctl: uevents from %s\n", fserr_monitor_source_name(mon));
	pfd[0].fd = fserr_monitor_fd(mon);
	pfd[0].events = POLLIN;
	pfd[1].fd = open(mountinfo ? mountinfo : "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (pfd[1].fd < 0) {
		fprintf(stderr, "fserrctl: cannot open the mount table: %m\n");
		fserr_monitor_close(mon);
		return EXIT_FAILURE;
	}
	pfd[1].events = POLLPRI;
	fserr_fs_scan(sysfs_fs, print_change, NULL);
	while (!stop) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "fserrctl: poll: %m\n");
			fserr_monitor_close(mon);
			return EXIT_FAILURE;
		}
		if (pfd[0].revents & (POLLIN | POLLERR)) {
			fserr_monitor_read(mon, print_uevent, NULL, &res);
			if (res.error) {
				fprintf(stderr, "fserrctl: cannot read uevents any more: %s\n",
					strerror(res.error));
				fserr_monitor_close(mon);
				return EXIT_FAILURE;
			}
			/* Only the kernel's (port id 0): a process's is forged */
			if (res.ignored && !forged)
				fprintf(stderr, "fserrctl: ignoring uevents that do not "
					"come from the kernel (the first from port %u)\n",
					res.ignored_port);
			forged += res.ignored;
			if (res.lost) {
				printf("uevents were lost; current state:\n");
				fserr_fs_scan(sysfs_fs, print_change, NULL);
			}
		}
		if (pfd[1].revents & (POLLPRI | POLLERR))
			fserr_fs_scan(sysfs_fs, print_change, NULL);
	}
	fserr_monitor_close(mon);
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
#ifdef HAVE_LIBSYSTEMD
			printf("fserrctl %s +systemd\n", FSERR_VERSION);
#else
			printf("fserrctl %s -systemd\n", FSERR_VERSION);
#endif
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
