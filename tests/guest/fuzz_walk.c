// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_walk: mount many mutated copies of one small volume and check what
 * fserr says about each against what the filesystem logged.
 *
 *   fuzz_walk LABEL FSTYPE FAMILY BASE-IMAGE FIRST-SEED COUNT [-v]
 *
 * For each seed S in FIRST-SEED .. FIRST-SEED+COUNT-1: a fresh copy of
 * BASE-IMAGE in /tmp, `fscorrupt IMAGE random S N` (N = 1 + S % 8 bytes of
 * metadata flipped), a loop device on it, a mount with "notify", a walk
 * (list every directory, stat every entry, read every regular file, down
 * to a depth and an entry limit, as corrupted trees can loop), one file
 * written and fsync'ed, fs_fault and fault_count read, unmount.
 *
 * The oracle: fs_fault is 1 if and only if the filesystem logged an error
 * for the loop device between mount and unmount (FAT: "error," or one of
 * the failed-read messages that report -EIO; ext2: ext2_error()'s
 * "error: FUNCTION:"), fault_count equals fs_fault (nothing cleared it),
 * and the sysfs directory is gone after the unmount or a refused mount.
 * Independently of the log: a metadata operation of the walk (opendir,
 * readdir, lstat, open; not a read of file data) that failed with EUCLEAN
 * or EIO implies fs_fault 1; a silent seed fails the run (ext2 and FAT
 * used to miss some, issue 11). A run of two or more images must meet
 * some metadata error, or the test checked nothing: that fails the
 * scenario's choice of seeds (the seeds that met one are printed, to
 * choose from). A replay of one seed that meets none is a SKIP.
 * Before each image a line "fserr-fuzz: LABEL seed S" goes to the kernel
 * log, so that tests/run.sh can name the seed of any splat it finds there.
 *
 * Prints TAP, the plan first: one line per property over all images, with
 * counts (guest.sh's run_tap prefixes the label); each failing seed is
 * printed with the lines the kernel logged for it and how to replay it.
 * -v prints every image.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "volumes.h"

#define IMAGE		"/tmp/fuzz.img"
#define FLIPS		"/tmp/fuzz.flips"
#define MNT		"/mnt"
#define MAX_DEPTH	8
#define MAX_ENTRIES	4000
#define MAX_READ	(1 << 20)
#define IMAGE_SECONDS	120	/* one image; SIGALRM ends the run */

extern char **environ;

static const char *label, *fstype, *family;
static bool verbose;
static char loopname[16];
static int loopnr;
static int kmsg = -1;

/* What the kernel logged for the current image, one message per line. */
static char logbuf[64 << 10];
static size_t loglen;

struct result {
	bool mounted;
	int mount_errno;
	unsigned long entries, read_errors;
	int read_errno;			/* of the first read error */
	/* opendir, readdir, lstat, open that failed with EUCLEAN or EIO */
	unsigned long meta_errors;
	int meta_errno;			/* of the first of them */
	bool write_ok;
	int fs_fault, fault_count;	/* -1: could not be read */
	bool sysfs_gone;
	bool logged_error;
	bool umount_ok;
};

static void kmsg_mark(unsigned long seed)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "fserr-fuzz: %s seed %lu\n", label, seed);

	if (write(kmsg, line, n) != n)
		bail("write /dev/kmsg");
}

/* Append every new record's message text to logbuf (or just skip them). */
static void kmsg_drain(bool keep)
{
	char rec[8192], *msg, *end;
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on with the next */
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			bail("read /dev/kmsg");
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!keep || !msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (loglen + strlen(msg) + 2 < sizeof(logbuf))
			loglen += sprintf(logbuf + loglen, "%s\n", msg);
	}
}

/* Did the filesystem report an error for our loop device? */
static bool log_has_error(void)
{
	static const char *const fat[] = {
		"error, ", "Directory bread(block ", "FAT read failed (blocknr ",
		"unable to read inode block ", NULL,
	};
	char prefix[64];
	const char *line, *p, *const *m;
	size_t plen;

	snprintf(prefix, sizeof(prefix), "%s (%s): ",
		 strcmp(family, "fat") ? "EXT2-fs" : "FAT-fs", loopname);
	plen = strlen(prefix);
	for (line = logbuf; *line; line = strchr(line, '\n') + 1) {
		if (strncmp(line, prefix, plen))
			continue;
		p = line + plen;
		if (!strcmp(family, "fat")) {
			for (m = fat; *m; m++)
				if (!strncmp(p, *m, strlen(*m)))
					return true;
			continue;
		}
		/*
		 * ext2_error() prints "error: FUNCTION: ..."; ext2_msg() lines
		 * that start with "error: " are refusals at mount time, with
		 * prose after it.
		 */
		if (strncmp(p, "error: ", 7))
			continue;
		p += 7;
		p += strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (p > line + plen + 7 && *p == ':')
			return true;
	}
	return false;
}

static int run_fscorrupt(unsigned long seed)
{
	char seed_s[32], count_s[8];
	char *argv[] = { "fscorrupt", IMAGE, "random", seed_s, count_s, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;

	snprintf(seed_s, sizeof(seed_s), "%lu", seed);
	snprintf(count_s, sizeof(count_s), "%lu", 1 + seed % 8);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, FLIPS, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (posix_spawnp(&pid, "fscorrupt", &fa, NULL, argv, environ))
		bail("spawn fscorrupt");
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) != pid)
		bail("wait for fscorrupt");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void read_error(struct result *r)
{
	if (!r->read_errors++)
		r->read_errno = errno;
}

/*
 * A failed metadata operation of the walk (not a read of file data): one
 * that failed with EUCLEAN or EIO means the filesystem met damage or a
 * failed metadata read, which it must report.
 */
static void meta_error(struct result *r)
{
	int err = errno;

	if ((err == EUCLEAN || err == EIO) && !r->meta_errors++)
		r->meta_errno = err;
	errno = err;
	read_error(r);
}

static void read_file(const char *path, struct result *r)
{
	static char buf[64 << 10];
	ssize_t n;
	size_t total = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		meta_error(r);
		return;
	}
	while (total < MAX_READ && (n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0)
		read_error(r);
	close(fd);
}

static void walk(const char *dir, int depth, struct result *r)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		meta_error(r);
		return;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				meta_error(r);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++r->entries > MAX_ENTRIES)
			break;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st)) {
			meta_error(r);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
			walk(path, depth + 1, r);
		else if (S_ISREG(st.st_mode))
			read_file(path, r);
	}
	closedir(d);
}

static bool write_one(void)
{
	static char buf[16 << 10];
	int fd = open(MNT "/FUZZ.NEW", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool ok;

	if (fd < 0)
		return false;
	memset(buf, 'f', sizeof(buf));
	ok = write(fd, buf, sizeof(buf)) == sizeof(buf) && !fsync(fd);
	return !close(fd) && ok;
}

static bool sysfs_gone(void)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/fs/%s/%s", family, loopname);
	return stat(path, &st) && errno == ENOENT;
}

static void one_image(const char *base, unsigned long seed, struct result *r)
{
	char loopdev[32];
	int status;

	memset(r, 0, sizeof(*r));
	r->fs_fault = r->fault_count = -1;
	copy_image(base, IMAGE);
	status = run_fscorrupt(seed);
	if (status) {
		errno = 0;
		bail("fscorrupt random %lu failed with status %d (see %s)", seed, status, FLIPS);
	}
	loop_attach(IMAGE, &loopnr);
	snprintf(loopname, sizeof(loopname), "loop%d", loopnr);
	snprintf(loopdev, sizeof(loopdev), "/dev/%s", loopname);
	kmsg_drain(false);
	kmsg_mark(seed);
	loglen = 0;
	logbuf[0] = '\0';
	if (mount(loopdev, MNT, fstype, 0, "notify")) {
		r->mount_errno = errno;
	} else {
		r->mounted = true;
		walk(MNT, 0, r);
		r->write_ok = write_one();
		r->fs_fault = sysfs_attr(family, loopname, "fs_fault");
		r->fault_count = sysfs_attr(family, loopname, "fault_count");
		r->umount_ok = !umount(MNT);
		if (!r->umount_ok)
			umount2(MNT, MNT_DETACH);	/* so that the next image can go on */
	}
	r->sysfs_gone = sysfs_gone();
	if (loop_detach(loopnr))
		bail("LOOP_CLR_FD loop%d", loopnr);
	kmsg_drain(true);
	r->logged_error = log_has_error();
}

/* Append " SEED" to a list of seeds (the end is cut if it is full). */
static void add_seed(char *list, size_t size, size_t *len, unsigned long seed)
{
	if (*len < size - 32)
		*len += snprintf(list + *len, size - *len, " %lu", seed);
}

static void print_log(void)
{
	const char *line, *end;

	for (line = logbuf; *line; line = end + 1) {
		end = strchr(line, '\n');
		printf("#   | %.*s\n", (int)(end - line), line);
	}
}

int main(int argc, char **argv)
{
	unsigned long first, count, seed, refused = 0, faulted = 0, clean = 0;
	unsigned long mismatch = 0, counts_wrong = 0, left = 0, umount_failed = 0;
	unsigned long writes_ok = 0, entries = 0, read_errors = 0, silent = 0;
	unsigned long meta_images = 0, meta_silent = 0;
	static char silent_seeds[8192], meta_seeds[8192];
	size_t silent_len = 0, meta_len = 0;
	const char *result6, *why6;
	struct result r;
	const char *base;
	int n;

	if (argc < 7 || argc > 8 || (argc == 8 && strcmp(argv[7], "-v"))) {
		fprintf(stderr, "usage: fuzz_walk LABEL FSTYPE FAMILY BASE-IMAGE FIRST-SEED COUNT [-v]\n");
		return 2;
	}
	label = argv[1];
	fstype = argv[2];
	family = argv[3];
	base = argv[4];
	first = strtoul(argv[5], NULL, 0);
	count = strtoul(argv[6], NULL, 0);
	verbose = argc == 8;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The plan first: a run that dies halfway leaves its results short. */
	printf("1..6\n");

	kmsg = open("/dev/kmsg", O_RDWR | O_NONBLOCK);
	if (kmsg < 0)
		bail("open /dev/kmsg");
	lseek(kmsg, 0, SEEK_END);
	/* the per-image lines in the kernel log must not be rate-limited */
	n = open("/proc/sys/kernel/printk_devkmsg", O_WRONLY);
	if (n < 0 || write(n, "on\n", 3) != 3)
		bail("printk_devkmsg on");
	close(n);
	for (seed = first; seed < first + count; seed++) {
		bool bad = false;

		alarm(IMAGE_SECONDS);
		one_image(base, seed, &r);
		alarm(0);
		entries += r.entries;
		read_errors += r.read_errors;
		writes_ok += r.write_ok;
		if (!r.mounted) {
			refused++;
		} else {
			if (r.fs_fault == 1) {
				faulted++;
			} else {
				clean++;
				if (r.read_errors && !silent++)
					printf("# %s: errors returned to the walk with nothing logged (fserr cannot know of them):\n",
					       label);
				if (r.read_errors)
					printf("#   seed %lu: %lu read errors, the first %s\n",
					       seed, r.read_errors, strerror(r.read_errno));
			}
			if (r.fs_fault != (int)r.logged_error) {
				mismatch++;
				bad = true;
				printf("# %s seed %lu: fs_fault %d, but the log %s an error for %s\n",
				       label, seed, r.fs_fault,
				       r.logged_error ? "has" : "has no", loopname);
			}
			if (r.meta_errors) {
				meta_images++;
				add_seed(meta_seeds, sizeof(meta_seeds), &meta_len, seed);
				if (r.fs_fault != 1) {
					meta_silent++;
					bad = true;
					printf("# %s seed %lu: %lu metadata operations failed (the first with %s), fs_fault %d\n",
					       label, seed, r.meta_errors, strerror(r.meta_errno), r.fs_fault);
					add_seed(silent_seeds, sizeof(silent_seeds), &silent_len, seed);
				}
			}
			if (r.fault_count != r.fs_fault) {
				counts_wrong++;
				bad = true;
				printf("# %s seed %lu: fault_count %d with fs_fault %d\n",
				       label, seed, r.fault_count, r.fs_fault);
			}
			if (!r.umount_ok) {
				umount_failed++;
				bad = true;
				printf("# %s seed %lu: umount failed\n", label, seed);
			}
		}
		if (!r.sysfs_gone) {
			left++;
			bad = true;
			printf("# %s seed %lu: /sys/fs/%s/%s is still there after %s\n", label,
			       seed, family, loopname, r.mounted ? "the umount" : "a refused mount");
		}
		if (verbose || bad) {
			printf("# %s seed %lu: %s, fs_fault %d, error logged %d, %lu entries, %lu read errors (the first: %s), write %s\n",
			       label, seed, r.mounted ? "mounted" : strerror(r.mount_errno),
			       r.fs_fault, r.logged_error, r.entries, r.read_errors,
			       r.read_errors ? strerror(r.read_errno) : "none",
			       r.write_ok ? "ok" : "failed");
			print_log();
		}
		if (bad)
			printf("# replay: make check SCENARIOS=%s FSERR_FUZZ=%s:%lu\n",
			       strcmp(family, "fat") ? "fuzz-ext2" : "fuzz-fat", label, seed);
	}

	/*
	 * A fuzz run that never (or always) meets the damage proves little;
	 * a replay of one seed cannot say.
	 */
	printf("%s 1 the damage was met: %lu images (seeds %lu-%lu), %lu mounted (%lu faulted, %lu clean), %lu refused; walk: %lu entries, %lu read errors, %lu writes ok%s\n",
	       (faulted && clean) || count < 2 ? "ok" : "not ok", count, first,
	       first + count - 1, faulted + clean, faulted, clean, refused, entries,
	       read_errors, writes_ok, count < 2 ? " # SKIP one image replayed" : "");
	printf("%s 2 fs_fault is 1 if and only if the filesystem logged an error (%lu mismatches)\n",
	       mismatch ? "not ok" : "ok", mismatch);
	printf("%s 3 fault_count equals fs_fault after one mount (%lu wrong)\n",
	       counts_wrong ? "not ok" : "ok", counts_wrong);
	printf("%s 4 every mounted image unmounts (%lu failed)\n",
	       umount_failed ? "not ok" : "ok", umount_failed);
	printf("%s 5 the sysfs directory is gone after every umount and refused mount (%lu left)\n",
	       left ? "not ok" : "ok", left);
	/*
	 * The independent side of the oracle: what the walk itself met. A run
	 * that met no metadata error checked nothing: the scenario's seeds
	 * are then the failure (the seeds that met one are printed, so that
	 * a scenario can choose them); a replay of one seed cannot say.
	 */
	if (meta_len)
		printf("# %s: seeds whose walk met EUCLEAN or EIO in a metadata operation:%s\n",
		       label, meta_seeds);
	why6 = "";
	if (meta_silent) {
		result6 = "not ok";
		printf("# %s: seeds whose walk met EUCLEAN or EIO with fs_fault 0:%s\n", label,
		       silent_seeds);
	} else if (!meta_images && count >= 2) {
		result6 = "not ok";
		printf("# %s: the walk met no metadata error in %lu images (seeds %lu-%lu): these seeds check nothing\n",
		       label, count, first, first + count - 1);
	} else if (!meta_images) {
		result6 = "ok";
		why6 = " # SKIP one image replayed, and its walk met no metadata error";
	} else {
		result6 = "ok";
	}
	printf("%s 6 a metadata operation of the walk (opendir, readdir, lstat, open) that failed with EUCLEAN or EIO implies fs_fault 1 (%lu images with such a failure, %lu with fs_fault 0)%s\n",
	       result6, meta_images, meta_silent, why6);
	return 0;
}
