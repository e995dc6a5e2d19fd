// SPDX-License-Identifier: GPL-2.0
/*
 * fserrd_kill: SIGKILL fserrd at a moment the test chooses, not fserrd
 * (the daemon-kill scenario).
 *
 *   fserrd_kill plan SEED REPAIR_US
 *	Print what trial SEED does, from a seeded PRNG (splitmix64):
 *	"KIND MODE ANCHOR DELAY_US". KIND is the damage (fscorrupt), MODE
 *	"alone" (SIGKILL to fserrd only: the fsck it runs goes on as an
 *	orphan) or "group" (fserrd and its children, as systemd kills a
 *	crashed service's cgroup). ANCHOR is "trigger" (the delay counts
 *	from the read that raises the fault, uniform over 0 .. 1.2 x
 *	REPAIR_US) or a word of fserrd's log ("fault", "repair-start",
 *	"fsck-start", "fsck-verify" (the fsck.fat -n that follows a
 *	repair: the last action before the mount step is saved),
 *	"repaired": the delay counts from the
 *	moment that line appears, uniform over 0 .. REPAIR_US / 40, to land
 *	between an action and the next save of the state file).
 *
 *   fserrd_kill kill MODE ANCHOR DELAY_US PID LOG TRIGGER
 *	Read TRIGGER (a damaged file: the read raises the fault), wait for
 *	the anchor, sleep DELAY_US, kill (at real-time priority, so that on
 *	the guest's one CPU the kill is not late because fserrd runs). Prints one line: "killed after
 *	N us from ANCHOR children=LIST" (LIST: the comm of fserrd's children
 *	at the kill, "-" for none), or "anchor-not-seen ..." (then it kills
 *	anyway, 20 s after the trigger).
 *
 *   fserrd_kill measure LOG TRIGGER WORD
 *	Read TRIGGER, print the microseconds until WORD appears in LOG.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ANCHOR_TIMEOUT_US (20 * 1000000LL)

static const char *const kinds[] = {
	"fat-dirent-bad-start", "fat-chain-past-end", "fat-free-in-chain",
};
static const char *const anchors[] = {
	"fault", "repair-start", "fsck-start", "fsck-verify", "repaired",
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_until(long long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int plan(uint64_t seed, long long repair_us)
{
	uint64_t s = seed;
	const char *kind = kinds[splitmix64(&s) % 3];
	const char *mode = splitmix64(&s) & 1 ? "group" : "alone";
	uint64_t pick = splitmix64(&s) % 100;
	long long delay;

	if (pick < 60) {
		delay = splitmix64(&s) % (uint64_t)(repair_us * 12 / 10 + 1);
		printf("%s %s trigger %lld\n", kind, mode, delay);
	} else {
		const char *anchor = anchors[splitmix64(&s) % (sizeof(anchors) / sizeof(anchors[0]))];

		delay = splitmix64(&s) % (uint64_t)(repair_us / 40 + 1);
		printf("%s %s %s %lld\n", kind, mode, anchor, delay);
	}
	return 0;
}

/* Read the damaged file: the read raises the fault. */
static void trigger(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/*
 * Does a line of @log after @off contain " fserrd: WORD "? Lines are
 * read whole only (the rest waits for the next call).
 */
static bool log_has(int log, off_t *off, const char *word)
{
	static char pending[65536];
	static size_t used;
	char needle[128];
	ssize_t n;

	snprintf(needle, sizeof(needle), " fserrd: %s ", word);
	for (;;) {
		char *nl;

		n = pread(log, pending + used, sizeof(pending) - 1 - used, *off);
		if (n <= 0)
			return false;
		*off += n;
		used += n;
		pending[used] = '\0';
		while ((nl = strchr(pending, '\n'))) {
			*nl = '\0';
			if (strstr(pending, needle)) {
				used = 0;
				return true;
			}
			used -= nl + 1 - pending;
			memmove(pending, nl + 1, used + 1);
		}
		if (used == sizeof(pending) - 1)
			used = 0;	/* a line that long is no fserrd line */
	}
}

/* Wait until the log has a line with WORD; false after @deadline. */
static bool wait_word(const char *path, off_t off, const char *word, long long deadline)
{
	int log = open(path, O_RDONLY | O_CLOEXEC);
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	char ev[4096];
	bool hit = false;

	if (log < 0 || in < 0 || inotify_add_watch(in, path, IN_MODIFY) < 0) {
		perror("fserrd_kill: log");
		exit(1);
	}
	while (!(hit = log_has(log, &off, word))) {
		long long left = deadline - now_us();
		struct pollfd p = { .fd = in, .events = POLLIN };

		if (left <= 0)
			break;
		if (poll(&p, 1, left / 1000 + 1) > 0)
			while (read(in, ev, sizeof(ev)) > 0)
				;
	}
	close(in);
	close(log);
	return hit;
}

static off_t log_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size;
}

/* The children of @pid; kill them with SIGKILL if @kill_them. */
static void children(pid_t pid, bool kill_them, char *list, size_t size)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	size_t used = 0;

	snprintf(list, size, "-");
	while (proc && (e = readdir(proc))) {
		char path[64], buf[512], *close_paren, comm[64] = "?";
		int child, ppid, fd;
		ssize_t n;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		child = atoi(e->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", child);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "PID (COMM) STATE PPID ..." */
		close_paren = strrchr(buf, ')');
		if (!close_paren || sscanf(close_paren + 2, "%*c %d", &ppid) != 1 || ppid != pid)
			continue;
		if (strchr(buf, '('))
			snprintf(comm, sizeof(comm), "%.*s",
				 (int)(close_paren - strchr(buf, '(') - 1), strchr(buf, '(') + 1);
		if (kill_them) {
			kill(-child, SIGKILL);	/* its process group (fsck has its own) */
			kill(child, SIGKILL);
		}
		used += snprintf(list + used, size > used ? size - used : 0, "%s%s",
				 used ? "," : "", comm);
	}
	if (proc)
		closedir(proc);
}

/* Wait until @pid is stopped (SIGSTOP delivered), at most a second. */
static void wait_stopped(pid_t pid)
{
	char path[64], buf[512], *p;
	long long deadline = now_us() + 1000000;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	while (now_us() < deadline) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (!p || p[2] == 'T' || p[2] == 't' || p[2] == 'Z')
			return;
		usleep(200);
	}
}

static int do_kill(const char *mode, const char *anchor, long long delay, pid_t pid,
		   const char *log, const char *trig)
{
	bool group = !strcmp(mode, "group");
	off_t off = log_size(log);
	long long t0, deadline, at;
	char list[1024];
	bool seen = true;

	struct sched_param fifo = { .sched_priority = 50 };

	if (!group && strcmp(mode, "alone")) {
		fprintf(stderr, "fserrd_kill: MODE is alone or group\n");
		return 2;
	}
	/*
	 * Real-time: on the guest's one CPU, the kill comes when its time is
	 * up (or the anchor line is written), not when fserrd yields.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		perror("fserrd_kill: SCHED_FIFO");
	trigger(trig);
	t0 = now_us();
	deadline = t0 + ANCHOR_TIMEOUT_US;
	if (strcmp(anchor, "trigger")) {
		seen = wait_word(log, off, anchor, deadline);
		if (seen)
			t0 = now_us();
	}
	sleep_until(t0 + delay);
	at = now_us();
	if (group) {
		/* Stopped first, so that it cannot start a child meanwhile. */
		kill(pid, SIGSTOP);
		wait_stopped(pid);
		children(pid, true, list, sizeof(list));
	} else {
		children(pid, false, list, sizeof(list));
	}
	kill(pid, SIGKILL);
	printf("%s after %lld us from %s children=%s\n", seen ? "killed" : "anchor-not-seen",
	       at - t0, anchor, list);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "plan"))
		return plan(strtoull(argv[2], NULL, 0), atoll(argv[3]));
	if (argc == 8 && !strcmp(argv[1], "kill"))
		return do_kill(argv[2], argv[3], atoll(argv[4]), atoi(argv[5]), argv[6], argv[7]);
	if (argc == 5 && !strcmp(argv[1], "measure")) {
		off_t off = log_size(argv[2]);
		long long t0;

		trigger(argv[3]);
		t0 = now_us();
		if (!wait_word(argv[2], off, argv[4], t0 + ANCHOR_TIMEOUT_US)) {
			printf("0\n");
			return 1;
		}
		printf("%lld\n", now_us() - t0);
		return 0;
	}
	fprintf(stderr, "usage: fserrd_kill plan SEED REPAIR_US\n"
		"       fserrd_kill kill alone|group ANCHOR DELAY_US PID LOG TRIGGER\n"
		"       fserrd_kill measure LOG TRIGGER WORD\n");
	return 2;
}
