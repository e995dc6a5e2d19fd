// SPDX-License-Identifier: GPL-2.0
/*
 * fserr_bench: the benchmarks of make bench that run in the guest.
 *
 *   fserr_bench cost DEV FSTYPE OPTIONS MNT FILE BATCHES OPS LISTENER
 *   fserr_bench storm MNT FILE ERRORS
 *   fserr_bench cycles MNT FILE SECONDS INTERVAL-MS
 *   fserr_bench window MNT FILE INTERVAL-MS
 *   fserr_bench latency CHANNEL LABEL MNT FILE TRIALS
 *   fserr_bench memory IMAGE MOUNTS PASSES
 *   fserr_bench multi IMAGE FILE SUPERBLOCKS OPS
 *
 * MNT is a mounted filesystem on which opening and reading FILE (a path
 * below MNT) fails on corruption, every time: FAT with a directory entry
 * whose first cluster is past the end, or ext4 with an inode whose size is
 * negative. One such open and read is an "operation". fserr's directory
 * and parameters are found from MNT's device number; where it has none
 * (fserr.enable=0, or ext4), what needs it is left out and said.
 *
 * cost       BATCHES batches of OPS operations, each batch timed on a mount
 *            of its own (DEV mounted at MNT with OPTIONS): the error
 *            path's cost, compared between a boot with fserr on and one
 *            with fserr.enable=0 (the same kernel). LISTENER "none", or
 *            "fanotify": a thread holds a FAN_FS_ERROR mark on the
 *            filesystem and reads its events, as fserrd does. With FSTYPE
 *            ext4 (FILE an inode ext4 refuses), the kernel's own path as
 *            a yardstick: ext4 reports each failed open to fanotify
 *            itself, and in each batch the listener must hear as many
 *            errors as there were operations (# bench error-cost-ext4 ...).
 * storm      ERRORS errors from clean: with notify on, exactly one uevent
 *            (and one clean->error transition).
 * cycles     clear and raise fs_fault for SECONDS with uevent_interval_ms
 *            set to INTERVAL-MS: at most one uevent per window, and none
 *            lost: every transition is announced or counted in
 *            uevents_suppressed, and the last is announced, at the latest
 *            when its window opens.
 * window     one fixed sequence with uevent_interval_ms set to INTERVAL-MS,
 *            each step's uevents counted exactly: a transition from a
 *            closed window is announced at once; two more within the
 *            window are held and announced by one uevent when it opens; a
 *            held transition cleared before its window opens is counted in
 *            uevents_suppressed and not announced.
 * latency    TRIALS times, each from clean: from the return of the call that
 *            fails (a read() on FAT, open() on ext4) to the wake-up of a
 *            thread waiting on CHANNEL: fault (poll on fs_fault),
 *            mountinfo (poll on /proc/self/mountinfo), uevent (netlink,
 *            with uevent_interval_ms 0) or fanotify (FAN_FS_ERROR). The
 *            wake-up is the time at which the waiter's blocking call
 *            returned; it is negative when that was before the failing
 *            call returned.
 * memory     Slab (/proc/meminfo) before and after mounting MOUNTS copies
 *            of IMAGE through loop devices set up beforehand, PASSES times
 *            after one pass that is not counted (caches filled the first
 *            time: in a run of 2026-12-06 the first pass showed 3.6 kB per
 *            mount more than the next, in both boots). In each pass also
 *            the change of active objects of every slab cache whose count
 *            changed (/proc/slabinfo; a kernel without it fails the
 *            benchmark), with its objects per slab and how many names
 *            share it (aliases): where the bytes go.
 * multi      SUPERBLOCKS copies of IMAGE mounted, OPS operations on FILE
 *            of each in turn, timed.
 *
 * Prints TAP (plan first), and for the report one line per figure:
 *   # bench NAME key=N ...
 * with integers only (negative only where said), except the slab cache's
 * name in memory-slab's cache=NAME. Exits non-zero when a
 * check failed.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define WAKE_TIMEOUT_MS	3000
/*
 * cycles, window: a window is counted in jiffies, so in real time it may be
 * one jiffy (4 ms at HZ=250, the guest's) shorter. A uevent's time is when
 * a thread received it, which may be late: under TCG, 18 and 35 ms late
 * were seen (cycles with a 200 ms window, two gaps of 218.2 and 182.4 ms,
 * 2026-12-06). So no single gap is judged in cycles; the count over the
 * whole span is.
 */
#define JIFFY_MS	4
#define PARAMS		"/sys/module/fserr/parameters/"

static int tap_n, tap_failed;

static void plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --- the filesystem under test ---------------------------------------------- */

static char fserr_dir[256];	/* /sys/fs/<family>/<id>, "" if none */
static char fs_dev[32];		/* MAJ:MIN */
static char fail_path[512];	/* MNT/FILE */

/*
 * The fserr directory of the filesystem mounted at @mnt: /sys/fs/<family>/
 * <device name>, if its dev file names @mnt's device.
 */
static void find_fs(const char *mnt, const char *file)
{
	static const char *const families[] = { "fat", "ext2" };
	char path[300], line[128], name[64] = "";
	struct stat st;
	unsigned int i;
	FILE *f;

	if (stat(mnt, &st))
		err(2, "%s", mnt);
	snprintf(fs_dev, sizeof(fs_dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	snprintf(fail_path, sizeof(fail_path), "%s/%s", mnt, file);
	fserr_dir[0] = 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%s/uevent", fs_dev);
	f = fopen(path, "r");
	if (!f)
		err(2, "%s", path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8))
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
	fclose(f);
	for (i = 0; name[0] && i < sizeof(families) / sizeof(families[0]); i++) {
		char dev[32] = "";

		snprintf(path, sizeof(path), "/sys/fs/%s/%s/dev", families[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(dev, sizeof(dev), f) && !strncmp(dev, fs_dev, strlen(fs_dev)) &&
		    dev[strlen(fs_dev)] == '\n')
			snprintf(fserr_dir, sizeof(fserr_dir), "/sys/fs/%s/%s", families[i], name);
		fclose(f);
		if (fserr_dir[0])
			return;
	}
}

/* Whether fserr is on: its enable parameter reads Y */
static bool fserr_enabled(void)
{
	char c = 0;
	int fd = open(PARAMS "enable", O_RDONLY);

	if (fd < 0)
		err(2, PARAMS "enable");
	if (read(fd, &c, 1) != 1)
		err(2, PARAMS "enable");
	close(fd);
	return c == 'Y';
}

static long long read_num(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		err(2, "%s", path);
	fclose(f);
	return strtoll(buf, NULL, 10);
}

static long long attr(const char *name)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%s", fserr_dir, name);
	return read_num(path);
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err(2, "write %s to %s", s, path);
	close(fd);
}

static void clear_fault(void)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/fs_fault", fserr_dir);
	write_str(path, "0");
}

/*
 * One operation: opening and reading the damaged file; 1 if it failed.
 * With @call and @ret, the times at which the call that failed (open() on
 * ext4, a read() on FAT) was made and returned.
 */
static int fail_op_timed(const char *path, uint64_t *call, uint64_t *ret)
{
	uint64_t t = call ? now_ns() : 0;
	char buf[4096];
	ssize_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		if (call) {
			*ret = now_ns();
			*call = t;
		}
		return 1;
	}
	for (;;) {
		if (call)
			t = now_ns();
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
	}
	if (call && n < 0) {
		*ret = now_ns();
		*call = t;
	}
	close(fd);
	return n < 0;
}

static int fail_op(const char *path)
{
	return fail_op_timed(path, NULL, NULL);
}

/* --- uevents ------------------------------------------------------------------- */

struct uevent {
	long long error_count, suppressed;
	uint64_t at_ns;
};

static int uevent_socket(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	int size = 4 << 20;

	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
		err(2, "netlink uevent socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		err(2, "SO_RCVBUFFORCE");
	return fd;
}

/*
 * The next fserr uevent of our filesystem on @fd within @timeout_ms; 1 if
 * one came (in *@ev), 0 if none. Only the kernel's messages count.
 */
static int next_uevent(int fd, int timeout_ms, struct uevent *ev)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		char buf[4096], want[48];
		struct sockaddr_nl from;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
				      .msg_iov = &iov, .msg_iovlen = 1 };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		bool fserr = false, ours = false;
		uint64_t t = now_ns();
		ssize_t n;
		char *p;

		int left = timeout_ms < 0 ? -1 : t >= end ? 0 : (int)((end - t) / 1000000) + 1;
		int ready = poll(&pfd, 1, left);

		if (ready < 0 && errno != EINTR)
			err(2, "poll netlink");
		if (ready == 0 && timeout_ms >= 0)
			return 0;
		if (ready <= 0)
			continue;
		n = recvmsg(fd, &msg, 0);
		if (n < 0 && errno == ENOBUFS)	/* the counts would be wrong */
			errx(2, "uevents were lost: the socket's buffer overflowed");
		if (n <= 0 || from.nl_pid != 0)
			continue;
		ev->at_ns = now_ns();
		buf[n] = 0;
		snprintf(want, sizeof(want), "FS_DEV=%s", fs_dev);
		ev->error_count = ev->suppressed = -1;
		for (p = buf; p < buf + n; p += strlen(p) + 1) {
			if (!strcmp(p, "SUBSYSTEM=fserr"))
				fserr = true;
			else if (!strcmp(p, want))
				ours = true;
			else if (!strncmp(p, "FS_ERROR_COUNT=", 15))
				ev->error_count = atoll(p + 15);
			else if (!strncmp(p, "FS_UEVENTS_SUPPRESSED=", 22))
				ev->suppressed = atoll(p + 22);
		}
		if (fserr && ours)
			return 1;
	}
}

static unsigned int get_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	return read_num(path);
}

static void set_param(const char *name, unsigned int value)
{
	char path[128], buf[16];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(buf, sizeof(buf), "%u", value);
	write_str(path, buf);
}

/* --- cost, storm, cycles ------------------------------------------------------ */

/* The cost's FAN_FS_ERROR listener: events read, their errors summed */
static atomic_llong fan_events, fan_errors;

static void *fan_reader(void *arg)
{
	int fd = *(int *)arg;
	char buf[8192] __attribute__((aligned(8)));

	for (;;) {
		struct fanotify_event_metadata *m = (void *)buf;
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err(2, "read fanotify");
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			char *p = (char *)m + m->metadata_len, *end = (char *)m + m->event_len;

			if (!(m->mask & FAN_FS_ERROR))
				continue;
			atomic_fetch_add(&fan_events, 1);
			while (p + sizeof(struct fanotify_event_info_header) <= end) {
				struct fanotify_event_info_header *h = (void *)p;

				if (h->len < sizeof(*h) || p + h->len > end)
					break;
				if (h->info_type == FAN_EVENT_INFO_TYPE_ERROR &&
				    h->len >= sizeof(struct fanotify_event_info_error))
					atomic_fetch_add(&fan_errors,
							 ((struct fanotify_event_info_error *)p)->error_count);
				p += h->len;
			}
		}
	}
	return NULL;
}

static void fan_mark(int fd, unsigned int how, const char *mnt)
{
	if (fanotify_mark(fd, how | FAN_MARK_FILESYSTEM, FAN_FS_ERROR, AT_FDCWD, mnt))
		err(2, "fanotify_mark %s", mnt);
}

/*
 * Each batch on a mount of its own, so that no single placement of the
 * filesystem's objects decides the figure: under QEMU's TCG with the
 * host's clock the same loop took 19.5 us per operation on eight mounts of
 * one boot and 26 to 30 us on two others. (make bench runs this with a
 * clock that counts instructions, which such placement does not change.)
 */
static int bench_cost(const char *dev, const char *fstype, const char *opts,
		      const char *mnt, const char *file, int batches, int ops,
		      const char *listener)
{
	/* ext4 reports to fanotify itself, once per failed open: the yardstick */
	bool native = !strcmp(fstype, "ext4");
	int b, i, failed = 0, done = 0, on = !native && fserr_enabled(), fan = -1;
	bool all_reported = true, all_faulted = true, listened = true;
	long long reports = 0;
	pthread_t thr;

	if (!strcmp(listener, "fanotify")) {
		fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
		if (fan < 0 || pthread_create(&thr, NULL, fan_reader, &fan))
			err(2, "the FAN_FS_ERROR listener");
	} else if (strcmp(listener, "none")) {
		errx(2, "cost: no listener '%s'", listener);
	}
	plan(1 + on + (fan >= 0));
	for (b = 0; b < batches; b++) {
		long long before, events0 = atomic_load(&fan_events), got, heard = 0;
		long long errors0 = atomic_load(&fan_errors);
		uint64_t t0, t;

		if (mount(dev, mnt, fstype, 0, opts))
			err(2, "mount %s on %s", dev, mnt);
		find_fs(mnt, file);
		if (on != !!fserr_dir[0])
			errx(2, "cost: fserr is %s but %s %s a directory", on ? "on" : "off",
			     mnt, fserr_dir[0] ? "has" : "has no");
		if (fan >= 0)
			fan_mark(fan, FAN_MARK_ADD, mnt);
		before = on ? attr("error_count") : 0;
		for (i = 0; i < ops / 10; i++)	/* warm-up, untimed */
			failed += !fail_op(fail_path);
		t0 = now_ns();
		for (i = 0; i < ops; i++)
			failed += !fail_op(fail_path);
		/*
		 * With a listener and fserr on, the batch ends when the listener
		 * has read every report of the batch (fserr's worker forwards
		 * them after the calls): yielding, so that the clock counts only
		 * the work of the worker and the listener.
		 */
		if (fan >= 0 && (on || native)) {
			/* the reports are counted when made: read the target once */
			long long target = native ? ops + ops / 10 : attr("error_count") - before;

			while (now_ns() - t0 < 60000000000ULL &&
			       atomic_load(&fan_errors) - errors0 < target)
				sched_yield();
		}
		t = now_ns() - t0;
		done += ops + ops / 10;
		printf("# bench error-cost%s fserr=%d listener=%d batch=%d ops=%d ns_per_op=%llu\n",
		       native ? "-ext4" : "", fserr_enabled(), fan >= 0, b, ops,
		       (unsigned long long)(t / ops));
		if (on) {
			/* every operation reports at least once; the fault stays */
			long long r = attr("error_count") - before;

			all_reported &= r >= ops + ops / 10;
			all_faulted &= attr("fs_fault") == 1;
			reports += r;
		}
		if (fan >= 0) {
			/* fserr's worker forwards the reports: give it a second */
			for (i = 0; i < 100 && atomic_load(&fan_events) == events0; i++)
				usleep(10000);
			got = atomic_load(&fan_events) - events0;
			heard = atomic_load(&fan_errors) - errors0;
			/*
			 * every report reached the listener; none with fserr off;
			 * ext4: as many as operations
			 */
			listened &= native ? got > 0 && heard == ops + ops / 10 :
				     on ? got > 0 && heard == attr("error_count") - before :
					  got == 0;
			reports += native ? heard : 0;
			fan_mark(fan, FAN_MARK_REMOVE, mnt);
		}
		if (umount(mnt))
			err(2, "umount %s", mnt);
	}
	printf("# bench error-cost%s-reports fserr=%d listener=%d ops=%d reports=%lld "
	       "fanotify_events=%lld fanotify_errors=%lld\n", native ? "-ext4" : "",
	       fserr_enabled(), fan >= 0, done, reports,
	       (long long)atomic_load(&fan_events), (long long)atomic_load(&fan_errors));
	result(!failed, "%d of %d operations on %s failed, as they must", done - failed, done,
	       fail_path);
	if (on)
		result(all_reported && all_faulted, "every operation was reported (%lld reports "
		       "for %d operations) and fs_fault read 1 after each batch", reports, done);
	if (fan >= 0)
		result(listened, native ? "ext4: the FAN_FS_ERROR listener heard one error per "
		       "operation (%lld events, %lld errors)" :
		       on ? "the FAN_FS_ERROR listener heard every report of every batch "
		       "(%lld events, %lld errors)" :
		       "the FAN_FS_ERROR listener heard nothing with fserr off (%lld events, %lld errors)",
		       (long long)atomic_load(&fan_events), (long long)atomic_load(&fan_errors));
	return 0;
}

static int bench_storm(long long errors)
{
	long long count0, faults0, done = 0, ops = 0;
	struct uevent ev;
	int fd, uevents = 0;
	uint64_t t0;

	plan(3);
	if (!fserr_dir[0])
		errx(2, "storm: %s has no fserr directory", fail_path);
	fd = uevent_socket();
	clear_fault();
	usleep(100000);
	while (next_uevent(fd, 0, &ev))
		;
	count0 = attr("error_count");
	faults0 = attr("fault_count");
	t0 = now_ns();
	/* each operation reports at least once: stop if the errors stop */
	while (done < errors && ops < 4 * errors) {
		fail_op(fail_path);
		ops++;
		if (!(ops % 1000))
			done = attr("error_count") - count0;
	}
	done = attr("error_count") - count0;
	/*
	 * The uevent waits for the worker, and for the superblock's window if
	 * a uevent opened it before the storm: wait that long for it, and as
	 * long again for a second one that must not come.
	 */
	while (next_uevent(fd, get_param("uevent_interval_ms") + 1000, &ev))
		uevents++;
	printf("# bench storm errors=%lld ops=%lld seconds_x1000=%llu uevents=%d transitions=%lld\n",
	       done, ops, (unsigned long long)((now_ns() - t0) / 1000000), uevents,
	       attr("fault_count") - faults0);
	result(done >= errors, "%lld errors reported in %lld operations (asked for %lld)",
	       done, ops, errors);
	result(attr("fault_count") - faults0 == 1, "one clean->error transition");
	result(uevents == 1, "exactly one uevent for the storm (got %d)", uevents);
	return 0;
}

/* cycles: a thread receives the uevents, each timed as it arrives */
#define CYCLES_MAX_UEVENTS	4096
static struct uevent cycles_ev[CYCLES_MAX_UEVENTS];
static atomic_int cycles_n;

static void *cycles_receiver(void *arg)
{
	int fd = *(int *)arg;
	struct uevent ev;

	for (;;) {
		int n;

		if (!next_uevent(fd, -1, &ev))
			continue;
		n = atomic_load(&cycles_n);
		if (n < CYCLES_MAX_UEVENTS)
			cycles_ev[n] = ev;
		atomic_store(&cycles_n, n + 1);
	}
	return NULL;
}

static int bench_cycles(int seconds, unsigned int interval_ms)
{
	unsigned int old_interval = get_param("uevent_interval_ms");
	long long faults0, supp0, count_end, count_last = 0, transitions, supp;
	uint64_t t0, end_ns, ended, min_gap = UINT64_MAX;
	struct uevent ev, first, last;
	bool bounded, last_in_time, all_counted;
	int fd, uevents, cycles = 0, i, seen;
	pthread_t thr;

	plan(3);
	if (!fserr_dir[0])
		errx(2, "cycles: %s has no fserr directory", fail_path);
	set_param("uevent_interval_ms", interval_ms);
	fd = uevent_socket();
	clear_fault();
	/* a window opened earlier has closed */
	usleep((interval_ms + 200) * 1000);
	while (next_uevent(fd, 0, &ev))
		;
	if (pthread_create(&thr, NULL, cycles_receiver, &fd))
		err(2, "pthread_create");
	faults0 = attr("fault_count");
	supp0 = attr("uevents_suppressed");
	t0 = now_ns();
	end_ns = t0 + (uint64_t)seconds * 1000000000;
	while (now_ns() < end_ns) {
		clear_fault();
		count_last = attr("error_count");
		fail_op(fail_path);
		cycles++;
		usleep(2000);
	}
	ended = now_ns();
	count_end = attr("error_count");
	/* the held transitions: announced when the window opens */
	seen = atomic_load(&cycles_n);
	for (i = 0; i < (int)(interval_ms + 1000) / 10; i++) {
		usleep(10000);
		if (atomic_load(&cycles_n) != seen) {	/* wait as long again after each */
			seen = atomic_load(&cycles_n);
			i = 0;
		}
	}
	uevents = atomic_load(&cycles_n);
	if (uevents > CYCLES_MAX_UEVENTS)
		errx(2, "cycles: %d uevents, more than the %d it can keep", uevents,
		     CYCLES_MAX_UEVENTS);
	transitions = attr("fault_count") - faults0;
	supp = attr("uevents_suppressed") - supp0;
	set_param("uevent_interval_ms", old_interval);
	printf("# gaps between the uevents received, ms:");
	for (i = 1; i < uevents; i++) {
		if (cycles_ev[i].at_ns - cycles_ev[i - 1].at_ns < min_gap)
			min_gap = cycles_ev[i].at_ns - cycles_ev[i - 1].at_ns;
		printf(" %.1f", (cycles_ev[i].at_ns - cycles_ev[i - 1].at_ns) / 1e6);
	}
	printf("\n");
	first = uevents ? cycles_ev[0] : (struct uevent){ 0 };
	last = uevents ? cycles_ev[uevents - 1] : (struct uevent){ 0 };
	/*
	 * Two uevents of a superblock are at least a window (less a jiffy)
	 * apart when sent. Between the first and the last received, n - 1
	 * gaps fit in the span, and in as much again as a late first one
	 * took from it (less than a window): n <= span / window + 2.
	 */
	bounded = uevents >= 2 &&
		  (uint64_t)uevents <= (last.at_ns - first.at_ns) /
				       ((uint64_t)(interval_ms - JIFFY_MS) * 1000000) + 2;
	/*
	 * The last transition is announced at the latest when its window
	 * opens, a window after the uevent before it (two allow for a late
	 * receipt); the last uevent says how many transitions were held. Sent
	 * at once, it may be built while the last operation still reports:
	 * its count is then between the one before that operation and the end.
	 */
	last_in_time = last.error_count > count_last && last.error_count <= count_end &&
		       last.suppressed == supp0 + supp &&
		       (last.at_ns <= ended ||
			(uevents >= 2 && last.at_ns - cycles_ev[uevents - 2].at_ns <=
			 (uint64_t)interval_ms * 2 * 1000000));
	/*
	 * Every transition is either announced by a uevent sent for it at
	 * once, or counted in uevents_suppressed (and announced with the
	 * others held, when the window opens, if fs_fault is still 1 then):
	 * the transitions not counted are at most the uevents, and the
	 * uevents beyond them (announcing held ones) at most one per window.
	 */
	all_counted = supp <= transitions && transitions - supp <= uevents &&
		      transitions - supp >= 1;
	printf("# bench cycles seconds=%d interval_ms=%u cycles=%d transitions=%lld uevents=%d "
	       "suppressed=%lld span_ms=%llu min_gap_us=%llu last_after_end_ms=%llu "
	       "jiffy_ms=%d bound=%llu\n",
	       seconds, interval_ms, cycles, transitions, uevents, supp,
	       (unsigned long long)((last.at_ns - first.at_ns) / 1000000),
	       (unsigned long long)(uevents >= 2 ? min_gap / 1000 : 0),
	       (unsigned long long)(last.at_ns > ended ? (last.at_ns - ended) / 1000000 : 0),
	       JIFFY_MS, uevents >= 2 ? (unsigned long long)((last.at_ns - first.at_ns) /
		((uint64_t)(interval_ms - JIFFY_MS) * 1000000) + 2) : 0ULL);
	result(bounded, "%d uevents in %llu ms: at most one per %u ms window (the closest two "
	       "received %llu us apart)", uevents,
	       (unsigned long long)((last.at_ns - first.at_ns) / 1000000), interval_ms,
	       (unsigned long long)(uevents >= 2 ? min_gap / 1000 : 0));
	result(all_counted, "%lld transitions, each announced or counted: %d uevents + "
	       "%lld counted in uevents_suppressed", transitions, uevents, supp);
	result(last_in_time, "the last uevent carries the final error_count (%lld, or at least "
	       "more than %lld before the last operation; it says %lld) "
	       "and uevents_suppressed (%lld, it says %lld), and came within two windows of the one "
	       "before (one, and a late receipt's delay)", count_end, count_last, last.error_count,
	       supp0 + supp, last.suppressed);
	return 0;
}

/* One transition to fs_fault 1: cleared, then an operation fails */
static void raise_fault(void)
{
	clear_fault();
	fail_op(fail_path);
}

static int bench_window(unsigned int interval_ms)
{
	unsigned int old_interval = get_param("uevent_interval_ms");
	long long supp0, faults0, count_b;
	struct uevent a = { 0 }, b = { 0 }, ev;
	uint64_t t_raise, t_held, a_delay = 0, gap = 0;
	bool got_a, got_b, quiet, fast;
	int fd;

	plan(4);
	if (!fserr_dir[0])
		errx(2, "window: %s has no fserr directory", fail_path);
	set_param("uevent_interval_ms", interval_ms);
	fd = uevent_socket();
	clear_fault();
	usleep((interval_ms + 300) * 1000);	/* no window is open */
	while (next_uevent(fd, 0, &ev))
		;
	supp0 = attr("uevents_suppressed");
	faults0 = attr("fault_count");

	/* 1: from a closed window, announced at once */
	t_raise = now_ns();
	fail_op(fail_path);
	got_a = next_uevent(fd, interval_ms / 2, &a);
	if (got_a)
		a_delay = a.at_ns - t_raise;
	/* 2: two more within the window: held, then one uevent */
	raise_fault();
	raise_fault();
	t_held = now_ns();
	count_b = attr("error_count");
	fast = got_a && t_held - a.at_ns < (uint64_t)interval_ms * 1000000 / 2;
	got_b = next_uevent(fd, interval_ms + 1000, &b);
	if (got_b)
		gap = b.at_ns - a.at_ns;
	/* 3: one more in the new window, cleared before the window opens */
	raise_fault();
	clear_fault();
	quiet = !next_uevent(fd, interval_ms + 1000, &ev);
	set_param("uevent_interval_ms", old_interval);

	printf("# bench window interval_ms=%u uevents=%d first_delay_us=%llu held_gap_us=%llu "
	       "held_suppressed=%lld transitions=%lld suppressed=%lld\n", interval_ms,
	       got_a + got_b + !quiet,
	       (unsigned long long)(a_delay / 1000), (unsigned long long)(gap / 1000),
	       got_b ? b.suppressed - supp0 : -1, attr("fault_count") - faults0,
	       attr("uevents_suppressed") - supp0);
	result(got_a && a.suppressed == supp0, "a transition from a closed window: one uevent "
	       "at once (after %llu us), FS_UEVENTS_SUPPRESSED unchanged (%lld, it says %lld)",
	       (unsigned long long)(a_delay / 1000), supp0, a.suppressed);
	/*
	 * Held until the window opened, and sent then: the gap is a window,
	 * give or take a tenth for a late receipt (up to 35 ms was seen).
	 */
	if (!fast)
		printf("# the two transitions took more than half the window: too slow to test\n");
	result(fast && got_b && b.suppressed == supp0 + 2 && b.error_count == count_b &&
	       gap >= (uint64_t)interval_ms * 1000000 / 10 * 9 &&
	       gap <= (uint64_t)interval_ms * 1000000 / 10 * 11,
	       "two transitions within the window: held, then one uevent %llu us after the first "
	       "(window %u ms) saying 2 more suppressed (it says %lld) and the error count (%lld, "
	       "it says %lld)", (unsigned long long)(gap / 1000), interval_ms,
	       got_b ? b.suppressed - supp0 : -1, count_b, b.error_count);
	result(quiet && attr("uevents_suppressed") - supp0 == 3,
	       "a held transition cleared before its window opened: no uevent, counted "
	       "(uevents_suppressed +%lld, 3 expected)", attr("uevents_suppressed") - supp0);
	result(attr("fault_count") - faults0 == 4, "4 transitions (fault_count +%lld)",
	       attr("fault_count") - faults0);
	return 0;
}

/* --- latency ------------------------------------------------------------------ */

enum channel { CH_FAULT, CH_MOUNTINFO, CH_UEVENT, CH_FANOTIFY };

static enum channel channel;
static int channel_fd, wake_fd;
static atomic_int armed;		/* 1: the next wake-up is measured */
static atomic_ullong woke_ns;
static atomic_ullong last_event_ns;	/* the waiter's last return, armed or not */
/*
 * Before a trial is armed, the channel has been quiet this long: a FAT
 * operation makes about 8 reports, forwarded one by one, and a late one of
 * the previous trial must not be taken for this trial's wake-up (uevents
 * received 18 and 35 ms late were seen in cycles).
 */
#define QUIET_MS	50

/* A wake-up of the waiter at @at, if one was armed */
static void wake(uint64_t at)
{
	uint64_t one = 1;
	int expect = 1;

	atomic_store(&last_event_ns, at);
	if (!atomic_compare_exchange_strong(&armed, &expect, 0))
		return;
	atomic_store(&woke_ns, at);
	if (write(wake_fd, &one, sizeof(one)) != sizeof(one))
		err(2, "eventfd");
}

static void *waiter(void *arg)
{
	char buf[8192] __attribute__((aligned(8)));
	struct uevent ev;
	uint64_t t;

	(void)arg;
	for (;;) {
		struct pollfd pfd = { .fd = channel_fd, .events = POLLPRI | POLLIN };
		ssize_t n;

		switch (channel) {
		case CH_FAULT:
		case CH_MOUNTINFO:
			pfd.events = POLLPRI;
			if (poll(&pfd, 1, -1) < 0)
				err(2, "poll");
			t = now_ns();
			if (!(pfd.revents & (POLLPRI | POLLERR)))
				break;
			/*
			 * Read fs_fault before telling the main thread: a
			 * change it makes once told must find the poll armed
			 * again (mountinfo's poll re-arms itself).
			 */
			if (channel == CH_FAULT &&
			    pread(channel_fd, buf, sizeof(buf), 0) < 0)
				err(2, "read fs_fault");
			wake(t);
			break;
		case CH_UEVENT:
			if (next_uevent(channel_fd, -1, &ev))
				wake(ev.at_ns);
			break;
		case CH_FANOTIFY:
			n = read(channel_fd, buf, sizeof(buf));
			t = now_ns();
			if (n < 0)
				err(2, "read fanotify");
			if (n >= (ssize_t)sizeof(struct fanotify_event_metadata) &&
			    (((struct fanotify_event_metadata *)buf)->mask & FAN_FS_ERROR))
				wake(t);
			break;
		}
	}
	return NULL;
}

/* The time of the wake-up armed before, or 0 if none came */
static uint64_t wait_wake(void)
{
	struct pollfd pfd = { .fd = wake_fd, .events = POLLIN };
	uint64_t n;

	if (poll(&pfd, 1, WAKE_TIMEOUT_MS) != 1) {
		atomic_store(&armed, 0);
		return 0;
	}
	if (read(wake_fd, &n, sizeof(n)) != sizeof(n))
		err(2, "eventfd");
	return atomic_load(&woke_ns);
}

static int bench_latency(const char *name, const char *label, int trials)
{
	unsigned int old_interval = 0;
	int i, missed = 0, warm = trials / 10;
	pthread_attr_t attr;
	cpu_set_t cpus;
	pthread_t thr;
	char path[sizeof(fail_path)];

	plan(1);
	if (!strcmp(name, "fault"))
		channel = CH_FAULT;
	else if (!strcmp(name, "mountinfo"))
		channel = CH_MOUNTINFO;
	else if (!strcmp(name, "uevent"))
		channel = CH_UEVENT;
	else if (!strcmp(name, "fanotify"))
		channel = CH_FANOTIFY;
	else
		errx(2, "latency: no channel '%s'", name);
	if (channel != CH_FANOTIFY && !fserr_dir[0])
		errx(2, "latency %s: %s has no fserr directory", name, fail_path);

	switch (channel) {
	case CH_FAULT:
		snprintf(path, sizeof(path), "%s/fs_fault", fserr_dir);
		channel_fd = open(path, O_RDONLY);
		if (channel_fd < 0 || pread(channel_fd, path, 8, 0) < 0)
			err(2, "fs_fault");
		break;
	case CH_MOUNTINFO:
		channel_fd = open("/proc/self/mountinfo", O_RDONLY);
		break;
	case CH_UEVENT:
		old_interval = get_param("uevent_interval_ms");
		set_param("uevent_interval_ms", 0);
		channel_fd = uevent_socket();
		break;
	case CH_FANOTIFY:
		channel_fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
		if (channel_fd >= 0) {
			snprintf(path, sizeof(path), "%s", fail_path);
			*strrchr(path, '/') = 0;
			if (fanotify_mark(channel_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
					  FAN_FS_ERROR, AT_FDCWD, path))
				err(2, "fanotify_mark %s", path);
		}
		break;
	}
	if (channel_fd < 0)
		err(2, "channel %s", name);
	/*
	 * The failing calls on CPU 0, the waiter on CPU 1, in every round:
	 * left to the scheduler, each process (a round) placed its two
	 * threads anew, and one channel's rounds differed by hundreds of
	 * microseconds (make bench at 5356a0f).
	 */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		errx(2, "latency: needs two CPUs");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		err(2, "sched_setaffinity");
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	wake_fd = eventfd(0, EFD_NONBLOCK);
	if (wake_fd < 0 || pthread_attr_init(&attr) ||
	    pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus) ||
	    pthread_create(&thr, &attr, waiter, NULL))
		err(2, "waiter");
	usleep(100000);

	for (i = -warm; i < trials; i++) {
		uint64_t t_call, t_ret, t_wake, junk;

		/*
		 * From clean, on FAT: the clear wakes fs_fault and mountinfo
		 * pollers too (that wake-up is waited for, and not measured).
		 */
		if (fserr_dir[0]) {
			bool wakes = channel == CH_FAULT || channel == CH_MOUNTINFO;

			atomic_store(&armed, wakes);
			clear_fault();
			if (wakes && !wait_wake()) {
				printf("# trial %d: the clear woke no one\n", i);
				missed++;
			}
		}
		/* the clear's work, and the previous trial's, is done */
		do
			usleep(10000);
		while (now_ns() - atomic_load(&last_event_ns) < QUIET_MS * 1000000ULL);
		while (read(wake_fd, &junk, sizeof(junk)) > 0)
			;
		atomic_store(&armed, 1);
		if (!fail_op_timed(fail_path, &t_call, &t_ret))
			errx(2, "latency: %s did not fail", fail_path);
		t_wake = wait_wake();
		if (!t_wake) {
			printf("# trial %d: no wake-up within %d ms\n", i, WAKE_TIMEOUT_MS);
			missed++;
			continue;
		}
		if (i >= 0)	/* return_to_wake_ns may be negative */
			printf("# bench latency-%s-%s trial=%d return_to_wake_ns=%lld syscall_ns=%llu\n",
			       label, name, i, (long long)((int64_t)t_wake - (int64_t)t_ret),
			       (unsigned long long)(t_ret - t_call));
	}
	if (channel == CH_UEVENT)
		set_param("uevent_interval_ms", old_interval);
	result(!missed, "%s %s: %d trials, every error woke the waiter", label, name, trials + warm);
	return 0;
}

/* --- memory, multi --------------------------------------------------------------- */

/* A copy of @src at @dst, holes where @src has zero blocks */
static void sparse_copy(const char *src, const char *dst)
{
	static const char zero[4096];
	char buf[4096];
	int in = open(src, O_RDONLY), out;
	off_t size;
	ssize_t n;

	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0)
		err(2, "copy %s to %s", src, dst);
	size = lseek(in, 0, SEEK_END);
	lseek(in, 0, SEEK_SET);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (memcmp(buf, zero, n) ? write(out, buf, n) != n : lseek(out, n, SEEK_CUR) < 0)
			err(2, "write %s", dst);
	}
	if (n < 0 || ftruncate(out, size))
		err(2, "copy %s", src);
	close(in);
	close(out);
}

/* A loop device for @file; its path in @dev */
static void loop_attach(const char *file, char *dev, size_t len)
{
	int ctl = open("/dev/loop-control", O_RDWR), n, fd, lfd;

	if (ctl < 0 || (n = ioctl(ctl, LOOP_CTL_GET_FREE)) < 0)
		err(2, "loop-control");
	close(ctl);
	snprintf(dev, len, "/dev/loop%d", n);
	for (int i = 0; (lfd = open(dev, O_RDWR)) < 0 && i < 100; i++)
		usleep(10000);	/* devtmpfs makes the node */
	fd = open(file, O_RDWR);
	if (lfd < 0 || fd < 0 || ioctl(lfd, LOOP_SET_FD, fd))
		err(2, "attach %s to %s", file, dev);
	close(fd);
	close(lfd);
}

/* Slab in kB after the caches were dropped and RCU callbacks ran */
static long long slab_kb(void)
{
	char line[128];
	long long kb = -1;
	FILE *f;

	sync();
	usleep(300000);
	write_str("/proc/sys/vm/drop_caches", "3");
	usleep(300000);
	f = fopen("/proc/meminfo", "r");
	if (!f)
		err(2, "/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The active objects of each slab cache, from /proc/slabinfo */
struct slab_count {
	char name[64];
	long long active;
	long long objsize;
	long long objperslab;
};

#define MAX_SLABS 512

/* Fills @c (MAX_SLABS entries); returns the number of caches, -1 without /proc/slabinfo */
static int slab_counts(struct slab_count *c)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (n == MAX_SLABS)
			errx(2, "/proc/slabinfo has more than %d caches", MAX_SLABS);
		if (sscanf(line, "%63s %lld %*d %lld %lld", c[n].name, &c[n].active, &c[n].objsize,
			   &c[n].objperslab) != 4)
			errx(2, "/proc/slabinfo: cannot read: %s", line);
		n++;
	}
	fclose(f);
	return n;
}

/*
 * How many other names share @name's cache (SLUB's
 * /sys/kernel/slab/NAME/aliases), -1 if the kernel does not say
 */
static long long slab_aliases(const char *name)
{
	char path[128];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/aliases", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/*
 * One line per cache whose active objects changed from @b to @a (a cache
 * found in only one of the two readings counts as 0 objects in the other).
 * SLUB counts the free slots of a CPU's current slab as active, so a
 * cache's change is exact only to objperslab objects.
 */
static void print_slab_changes(int fserr_on, int pass, int mounts,
			       const struct slab_count *b, int nb,
			       const struct slab_count *a, int na)
{
	for (int i = 0; i < na + nb; i++) {
		const struct slab_count *c = i < na ? &a[i] : &b[i - na];
		long long before = 0, after = 0;
		bool in_a = false;

		for (int j = 0; j < nb; j++)
			if (!strcmp(b[j].name, c->name))
				before = b[j].active;
		for (int j = 0; j < na; j++)
			if (!strcmp(a[j].name, c->name)) {
				after = a[j].active;
				in_a = true;
			}
		/* (each cache once: those of @a first, then those only in @b) */
		if ((i >= na && in_a) || after == before)
			continue;
		printf("# bench memory-slab fserr=%d pass=%d mounts=%d cache=%s objsize=%lld "
		       "objperslab=%lld aliases=%lld objects=%lld\n", fserr_on, pass, mounts,
		       c->name, c->objsize, c->objperslab, slab_aliases(c->name), after - before);
	}
}

static char (*loops)[32];

static void setup_copies(const char *image, int n, const char *dir)
{
	char path[128];

	loops = calloc(n, sizeof(*loops));
	if (!loops)
		err(2, "calloc");
	mkdir(dir, 0755);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d.img", dir, i);
		sparse_copy(image, path);
		loop_attach(path, loops[i], sizeof(loops[i]));
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		mkdir(path, 0755);
	}
}

static int mount_copies(int n, const char *dir, const char *opts)
{
	char path[128];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		if (mount(loops[i], path, "vfat", 0, opts))
			return i;
	}
	return n;
}

static void umount_copies(int n, const char *dir)
{
	char path[128];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d", dir, i);
		if (umount(path))
			err(2, "umount %s", path);
	}
}

static int bench_memory(const char *image, int n, int passes)
{
	int p, fserr_on = fserr_enabled();
	bool all = true;

	static struct slab_count sb[MAX_SLABS], sa[MAX_SLABS];

	plan(1);
	setup_copies(image, n, "/tmp/mem");
	/* pass -1 warms the caches up and is not printed */
	for (p = -1; p < passes; p++) {
		long long before = slab_kb(), after;
		int nb = slab_counts(sb), na, m;

		m = mount_copies(n, "/tmp/mem", "");
		after = slab_kb();
		na = slab_counts(sa);
		if (m < n) {
			warn("mount %d of %d", m, n);
			umount_copies(m, "/tmp/mem");
			all = false;
			break;
		}
		if (p >= 0)
			printf("# bench memory fserr=%d pass=%d mounts=%d slab_before_kb=%lld "
			       "slab_after_kb=%lld\n", fserr_on, p, n, before, after);
		if (nb < 0 || na < 0) {
			warn("/proc/slabinfo: the breakdown by cache needs it");
			umount_copies(n, "/tmp/mem");
			all = false;
			break;
		}
		if (p >= 0)
			print_slab_changes(fserr_on, p, n, sb, nb, sa, na);
		umount_copies(n, "/tmp/mem");
	}
	result(all, "%d passes of %d mounts (fserr %s)", passes, n, fserr_on ? "on" : "off");
	return 0;
}

static int bench_multi(const char *image, const char *file, int n, int ops)
{
	char path[300];
	uint64_t t0, t;
	int i, failed = 0, m, fserr_on;

	plan(1);
	fserr_on = fserr_enabled();
	setup_copies(image, n, "/tmp/multi");
	m = mount_copies(n, "/tmp/multi", "errors=continue");
	if (m < n)
		err(2, "mount %d of %d", m, n);
	for (i = 0; i < n; i++) {	/* each goes faulty first, untimed */
		snprintf(path, sizeof(path), "/tmp/multi/%d/%s", i, file);
		failed += !fail_op(path);
	}
	t0 = now_ns();
	for (i = 0; i < ops; i++) {
		snprintf(path, sizeof(path), "/tmp/multi/%d/%s", i % n, file);
		failed += !fail_op(path);
	}
	t = now_ns() - t0;
	printf("# bench multi-sb fserr=%d superblocks=%d ops=%d ns_per_op=%llu\n",
	       fserr_on, n, ops, (unsigned long long)(t / ops));
	result(!failed, "%d superblocks, %d operations: every one failed", n, ops + n);
	umount_copies(n, "/tmp/multi");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 10 && !strcmp(argv[1], "cost")) {
		bench_cost(argv[2], argv[3], argv[4], argv[5], argv[6], atoi(argv[7]),
			   atoi(argv[8]), argv[9]);
	} else if (argc == 5 && !strcmp(argv[1], "storm")) {
		find_fs(argv[2], argv[3]);
		bench_storm(atoll(argv[4]));
	} else if (argc == 6 && !strcmp(argv[1], "cycles")) {
		find_fs(argv[2], argv[3]);
		bench_cycles(atoi(argv[4]), atoi(argv[5]));
	} else if (argc == 5 && !strcmp(argv[1], "window")) {
		find_fs(argv[2], argv[3]);
		bench_window(atoi(argv[4]));
	} else if (argc == 7 && !strcmp(argv[1], "latency")) {
		find_fs(argv[4], argv[5]);
		bench_latency(argv[2], argv[3], atoi(argv[6]));
	} else if (argc == 5 && !strcmp(argv[1], "memory")) {
		bench_memory(argv[2], atoi(argv[3]), atoi(argv[4]));
	} else if (argc == 6 && !strcmp(argv[1], "multi")) {
		bench_multi(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	} else {
		errx(2, "usage: see the comment at the top of fserr_bench.c");
	}
	return tap_failed;
}
