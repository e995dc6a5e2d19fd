// SPDX-License-Identifier: GPL-2.0
/*
 * mount_scale DEV FSTYPE OPTIONS FAULT-ATTR FILE ROUNDS BINDS NAMESPACES
 *
 * What one fs_fault change costs as the filesystem's mounts grow: DEV is
 * mounted once and bound BINDS-1 more times, NAMESPACES-1 children each
 * hold a copy of the mount tree in a mount namespace of their own, and a
 * thread polls /proc/self/mountinfo. Each round raises fs_fault (reading
 * FILE fails on corruption) and clears it (writing 0 to FAULT-ATTR); each
 * change wakes the poller from fserr's worker, after the worker has walked
 * every mount of the superblock. The time from the call that caused the
 * change to the poller's wake-up is measured: the walk is part of it, so
 * its growth with the mounts shows in the medians. make bench runs it on
 * one CPU with a clock that counts instructions (tests/bench/mount-scale.sh,
 * ICOUNT=1: 1 ns is one instruction), so a time is the work done for the
 * change, the worker's included, not the host's speed that minute. A
 * quarter as many rounds again come first, untimed, to warm the caches.
 *
 * Prints TAP, one result (every change woke the poller, and fs_fault
 * followed), and one line per run for the bench's report:
 *   # bench mount-scale binds=N namespaces=N rounds=N raise_median_ns=N
 *     raise_p90_ns=N clear_median_ns=N clear_p90_ns=N   (on one line)
 * Exits non-zero when a change did not wake the poller.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAKE_TIMEOUT_MS	5000
#define TOP		"/tmp/mount-scale"

static int wake_fd;			/* eventfd: the poller woke */
static _Atomic uint64_t woke_ns;	/* when it first woke after arm() */
static atomic_bool armed;		/* a change is under way */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *poller(void *arg)
{
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLPRI };
	uint64_t one = 1;

	for (;;) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			err(2, "poll mountinfo");
		}
		if (pfd.revents & (POLLERR | POLLPRI)) {
			if (atomic_exchange(&armed, false))
				woke_ns = now_ns();
			if (write(wake_fd, &one, sizeof(one)) != sizeof(one))
				err(2, "eventfd");
		}
	}
	return NULL;
}

/* A change begins: the time of the poller's next wake-up is taken */
static uint64_t arm(void)
{
	atomic_store(&armed, true);
	return now_ns();
}

/*
 * Latency in ns of the change started at @start (arm()), or -1 if the
 * poller slept on; -2 if it woke more than once for the change, or before it.
 */
static long wait_wake(uint64_t start)
{
	struct pollfd pfd = { .fd = wake_fd, .events = POLLIN };
	uint64_t n, woke;

	if (poll(&pfd, 1, WAKE_TIMEOUT_MS) != 1)
		return -1;
	if (read(wake_fd, &n, sizeof(n)) != sizeof(n))
		err(2, "eventfd");
	woke = atomic_load(&woke_ns);
	if (n != 1 || woke < start)
		return -2;
	/* (a second wake-up for the same change would come within a few ms) */
	usleep(2000);
	if (poll(&pfd, 1, 0) == 1)
		return -2;
	return (long)(woke - start);
}

static int fault_is(const char *attr, char want)
{
	char c = 0;
	int fd = open(attr, O_RDONLY);

	if (fd < 0 || read(fd, &c, 1) != 1)
		err(2, "%s", attr);
	close(fd);
	return c == want;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static long pct(long *v, int n, int p)
{
	qsort(v, n, sizeof(*v), cmp_long);
	return v[(n - 1) * p / 100];
}

int main(int argc, char **argv)
{
	const char *dev, *fstype, *opts, *attr, *file;
	int rounds, binds, nss, i, mfd, ready[2], hold[2], bad = 0;
	long *raise, *clear, warm_up, warm_down;
	pthread_t thr;
	char path[256], c;
	pid_t *kids;

	if (argc != 9)
		errx(2, "usage: mount_scale DEV FSTYPE OPTIONS FAULT-ATTR FILE ROUNDS BINDS NAMESPACES");
	dev = argv[1], fstype = argv[2], opts = argv[3], attr = argv[4], file = argv[5];
	rounds = atoi(argv[6]), binds = atoi(argv[7]), nss = atoi(argv[8]);
	if (rounds < 1 || binds < 1 || nss < 1)
		errx(2, "ROUNDS, BINDS and NAMESPACES are at least 1");
	raise = calloc(rounds, sizeof(*raise));
	clear = calloc(rounds, sizeof(*clear));
	kids = calloc(nss, sizeof(*kids));
	if (!raise || !clear || !kids)
		err(2, "calloc");

	printf("1..1\n");
	fflush(stdout);
	mkdir(TOP, 0755);
	snprintf(path, sizeof(path), TOP "/0");
	mkdir(path, 0755);
	if (mount(dev, path, fstype, 0, opts))
		err(2, "mount %s", dev);
	for (i = 1; i < binds; i++) {
		snprintf(path, sizeof(path), TOP "/%d", i);
		mkdir(path, 0755);
		if (mount(TOP "/0", path, NULL, MS_BIND, NULL))
			err(2, "bind mount %d", i);
	}
	/* children hold namespaces until hold[] is closed */
	if (pipe(ready) || pipe(hold))
		err(2, "pipe");
	for (i = 1; i < nss; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			err(2, "fork");
		if (!kids[i]) {
			close(hold[1]);
			if (unshare(CLONE_NEWNS))
				err(2, "unshare");
			if (write(ready[1], "r", 1) != 1)
				_exit(2);
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(hold[0]);
	for (i = 1; i < nss; i++)
		if (read(ready[0], &c, 1) != 1)
			errx(2, "a namespace holder died");

	wake_fd = eventfd(0, 0);
	mfd = open("/proc/self/mountinfo", O_RDONLY);
	if (wake_fd < 0 || mfd < 0)
		err(2, "eventfd/mountinfo");
	if (pthread_create(&thr, NULL, poller, &mfd))
		errx(2, "pthread_create");
	usleep(100000);	/* the poller is asleep in poll() */

	for (i = -(rounds / 4); i < rounds; i++) {
		long *up = i < 0 ? &warm_up : &raise[i], *down = i < 0 ? &warm_down : &clear[i];
		uint64_t t0;
		char buf[512];
		int fd, wfd;

		t0 = arm();
		fd = open(file, O_RDONLY);
		if (fd >= 0) {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		*up = wait_wake(t0);
		if (*up < 0 || !fault_is(attr, '1')) {
			printf("# round %d: reading %s: %s\n", i, file,
			       *up == -1 ? "no wake-up" : *up == -2 ?
			       "more than one wake-up, or one before the change" : "fs_fault not 1");
			bad = 1;
			break;
		}
		t0 = arm();
		wfd = open(attr, O_WRONLY);
		if (wfd < 0 || write(wfd, "0", 1) != 1)
			err(2, "clear %s", attr);
		close(wfd);
		*down = wait_wake(t0);
		if (*down < 0 || !fault_is(attr, '0')) {
			printf("# round %d: clearing: %s\n", i,
			       *down == -1 ? "no wake-up" : *down == -2 ?
			       "more than one wake-up, or one before the change" : "fs_fault not 0");
			bad = 1;
			break;
		}
	}
	if (!bad)
		printf("# bench mount-scale binds=%d namespaces=%d rounds=%d "
		       "raise_median_ns=%ld raise_p90_ns=%ld clear_median_ns=%ld clear_p90_ns=%ld\n",
		       binds, nss, rounds, pct(raise, rounds, 50), pct(raise, rounds, 90),
		       pct(clear, rounds, 50), pct(clear, rounds, 90));
	printf("%sok 1 - binds=%d namespaces=%d: each of %d raises and clears woke the poller once\n",
	       bad ? "not " : "", binds, nss, rounds);
	fflush(stdout);

	close(hold[1]);
	for (i = 1; i < nss; i++)
		waitpid(kids[i], NULL, 0);
	for (i = binds - 1; i >= 0; i--) {
		snprintf(path, sizeof(path), TOP "/%d", i);
		if (umount(path))
			warn("umount %s", path);
	}
	return bad;
}
