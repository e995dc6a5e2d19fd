// SPDX-License-Identifier: GPL-2.0
/*
 * fserrd: act on filesystem faults that the kernel reports through fserr.
 * See fserrd.8.
 *
 * Every channel only says "look again": the uevent, poll() on each
 * fs_fault, the mountinfo wake-up and FAN_FS_ERROR. What fserrd acts on is
 * always the state it reads from sysfs, so a lost or merged event costs
 * nothing, and a fault that happened while fserrd was not running is
 * found at start. The state file remembers which faults were handled
 * (inode of the fserr directory + fault_count), so none is handled twice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "fserrd.h"
#include "lib/journal.h"
#include "lib/monitor.h"

#define DEFAULT_CONFIG "/etc/fserrd.conf"
#define DEFAULT_STATE "/var/lib/fserrd/state"
/* Descriptors left for scans, fsck and the programs fserrd starts. */
#define FD_RESERVE 64

enum { EXIT_USAGE = 2, EXIT_CONFIG = 3 };

static volatile sig_atomic_t stop_signal, reload;
/* fs_fault descriptors held at most: the open-file limit less FD_RESERVE */
static size_t max_watches = 1024 - FD_RESERVE;
static bool verbose;

static void usage(FILE *to)
{
	fprintf(to,
"usage: fserrd [OPTIONS]\n"
"\n"
"Watch every filesystem with fserr state and act on faults.\n"
"\n"
"Options:\n"
"  -c, --config FILE        policy file (default " DEFAULT_CONFIG ";\n"
"                           built-in policy 'log' when that file is absent)\n"
"  -p, --policy POLICY      default policy: log, remount-ro, repair or\n"
"                           'exec /PROGRAM [ARGS]' (overrides 'default')\n"
"  -l, --repair-limit N     repairs per device per hour (overrides the file)\n"
"  -s, --state FILE         state file (default " DEFAULT_STATE ")\n"
"      --sysfs DIR          where the fserr directories are (default /sys/fs)\n"
"      --check-config       check the policy file and exit\n"
"      --uevents SOURCE     where uevents come from: udev (libsystemd's\n"
"                           device monitor, after udevd), kernel (the\n"
"                           kernel's group), or auto (default: udev when\n"
"                           built with libsystemd and udevd runs)\n"
"  -v, --verbose            also log each fserr uevent and which channel\n"
"                           woke fserrd\n"
"      --pause-before STEP  testing: stop (SIGSTOP) before repair step\n"
"                           unmount, fsck or mount, or before remount-ro, once\n"
"      --channels LIST      testing: listen only on these channels (comma-\n"
"                           separated: uevent, fs_fault, mountinfo, fanotify)\n"
"  -V, --version            the version, and exit\n"
"  -h, --help               this text\n"
"\n"
"SIGTERM and SIGINT stop fserrd after the action in progress; SIGHUP\n"
"reloads the policy file (a broken file is refused, the old policy stays).\n"
"Exit status: 0 stopped by a signal, 1 failure, 2 bad usage, 3 bad policy.\n");
}

/* --- configuration ------------------------------------------------------ */

struct options {
	const char *config;
	bool config_given;
	const char *policy;
	const char *repair_limit;
};

/*
 * The file (if any) and then the command line, parsed as one policy so that
 * the command line wins; the command line is first checked alone, so that
 * its errors name it.
 */
/*
 * @path made absolute against the directory fserrd was started in (it
 * moves to / before it runs), as a string that lives as long as fserrd;
 * NULL only without memory or working directory.
 */
static const char *absolute(const char *path)
{
	char cwd[PATH_MAX], *abs;

	if (path[0] == '/')
		return path;
	if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, path) < 0)
		return NULL;
	return abs;
}

static int load_config(const struct options *o, struct fserr_config *cfg)
{
	char err[512], *cmd = NULL, *file = NULL, *all = NULL;
	struct fserr_config next;
	size_t size = 0;
	FILE *mem;
	int ret = -1;

	mem = open_memstream(&cmd, &size);
	if (!mem)
		return -1;
	if (o->policy)
		fprintf(mem, "default %s\n", o->policy);
	if (o->repair_limit)
		fprintf(mem, "repair-limit %s\n", o->repair_limit);
	fclose(mem);
	fserr_config_init(&next);
	if (fserr_config_parse("command line", cmd, &next, err, sizeof(err)))
		goto bad;
	fserr_config_free(&next);
	if (o->config_given || !access(o->config, F_OK)) {
		file = fserr_config_read(o->config, err, sizeof(err));
		if (!file)
			goto bad;
	}
	if (asprintf(&all, "%s\n%s", file ? file : "", cmd) < 0) {
		all = NULL;
		goto out;
	}
	if (fserr_config_parse(o->config, all, &next, err, sizeof(err)))
		goto bad;
	fserr_config_free(cfg);
	*cfg = next;
	ret = 0;
	goto out;
bad:
	fprintf(stderr, "fserrd: %s\n", err);
out:
	free(cmd);
	free(file);
	free(all);
	return ret;
}

static void log_config(const struct fserr_config *cfg, const char *what)
{
	char limit[16], timeout[16], fsck[16], rules[16];

	snprintf(limit, sizeof(limit), "%u", cfg->repair_limit);
	snprintf(timeout, sizeof(timeout), "%u", cfg->exec_timeout);
	snprintf(fsck, sizeof(fsck), "%u", cfg->fsck_timeout);
	snprintf(rules, sizeof(rules), "%zu", cfg->nr_rules);
	fserrd_log(what, "default", fserr_policy_name(cfg->fallback.policy),
		   "rules", rules, "repair-limit", limit, "exec-timeout", timeout,
		   "fsck-timeout", fsck, NULL);
}

/* --- the state of the filesystems ---------------------------------------- */

struct watch {
	ino_t ino;
	int fd;			/* fs_fault, for poll() */
	bool marked;		/* FAN_FS_ERROR mark added */
};

/* The channels, for --channels */
enum {
	CH_UEVENT = 1 << 0,
	CH_FS_FAULT = 1 << 1,
	CH_MOUNTINFO = 1 << 2,
	CH_FANOTIFY = 1 << 3,
	CH_ALL = (1 << 4) - 1,
};
static const char *const channel_names[] = { "uevent", "fs_fault", "mountinfo", "fanotify" };

/* A comma-separated list of channel names as a mask; -1 if one is unknown. */
static int parse_channels(const char *list)
{
	int mask = 0;
	size_t i, len;

	for (;;) {
		len = strcspn(list, ",");
		for (i = 0; i < 4; i++)
			if (len == strlen(channel_names[i]) && !strncmp(list, channel_names[i], len))
				break;
		if (i == 4)
			return -1;
		mask |= 1 << i;
		if (!list[len])
			return mask;
		list += len + 1;
	}
}

struct scan {
	struct fserr_fs *fs;
	size_t nr, cap;
};

static int collect(const struct fserr_fs *fs, void *data)
{
	struct scan *s = data;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct fserr_fs *bigger = realloc(s->fs, cap * sizeof(*bigger));

		if (!bigger)
			return -1;
		s->fs = bigger;
		s->cap = cap;
	}
	s->fs[s->nr++] = *fs;
	return 0;
}

/* Fill the parts of @f that come from the mount table. */
static void describe(struct libmnt_table *tb, struct fserrd_fault *f)
{
	struct libmnt_iter *it = tb ? mnt_new_iter(MNT_ITER_FORWARD) : NULL;
	struct libmnt_fs *m, *first = NULL;

	snprintf(f->fstype, sizeof(f->fstype), "%s", f->fs.family);
	snprintf(f->source, sizeof(f->source), "%s", f->fs.id);
	f->first_mount[0] = '\0';
	f->first_mount_id = 0;
	f->mountpoints[0] = f->mountpoints_nl[0] = '\0';
	if (!it)
		return;
	/* Two walks: each list escapes its own separator. */
	fserr_mounts_of(tb, f->fs.dev, "\n", f->mountpoints_nl, sizeof(f->mountpoints_nl));
	fserr_mounts_of(tb, f->fs.dev, ",", f->mountpoints, sizeof(f->mountpoints));
	while (fserr_mounts_next(tb, it, f->fs.dev, &m) == 0) {
		if (!first)
			first = m;
		if (!*f->first_mount && mnt_fs_get_root(m) && !strcmp(mnt_fs_get_root(m), "/") &&
		    mnt_fs_get_target(m)) {
			snprintf(f->first_mount, sizeof(f->first_mount), "%s", mnt_fs_get_target(m));
			f->first_mount_id = mnt_fs_get_id(m);
		}
	}
	if (first && mnt_fs_get_fstype(first))
		snprintf(f->fstype, sizeof(f->fstype), "%s", mnt_fs_get_fstype(first));
	if (first && mnt_fs_get_source(first))
		snprintf(f->source, sizeof(f->source), "%s", mnt_fs_get_source(first));
	mnt_free_iter(it);
}

/*
 * The first rule in the file that names any of the mount points, else the
 * type's, else the default (fserr_config_choose()). The mount points come
 * from libmount, not from the joined list, so that a directory name with a
 * newline cannot pose as another mount.
 */
static const struct fserr_action *choose(const struct fserr_config *cfg,
					 struct libmnt_table *tb,
					 const struct fserrd_fault *f)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	const struct fserr_action *a;
	const char **targets = NULL, **more;
	size_t n = 0, cap = 0;
	struct libmnt_fs *m;

	while (it && fserr_mounts_next(tb, it, f->fs.dev, &m) == 0) {
		if (!mnt_fs_get_target(m))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			more = realloc(targets, cap * sizeof(*targets));
			if (!more)
				break;	/* the mount points so far decide */
			targets = more;
		}
		targets[n++] = mnt_fs_get_target(m);
	}
	if (it)
		mnt_free_iter(it);
	a = fserr_config_choose(cfg, f->fstype, targets, n);
	free(targets);
	return a;
}

static void log_fault(const struct fserrd_fault *f, const char *devno, const char *when,
		      const struct fserr_action *a)
{
	char first_errno[16], errors[32], faults[32], ino[32];

	snprintf(first_errno, sizeof(first_errno), "%d", f->fs.first_errno);
	snprintf(errors, sizeof(errors), "%llu", f->fs.error_count);
	snprintf(faults, sizeof(faults), "%llu", f->fs.fault_count);
	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)f->fs.ino);
	fserrd_log("fault", "type", f->fstype, "device", f->source, "dev", devno,
		   "mountpoints", *f->mountpoints ? f->mountpoints : "-",
		   "first_errno", first_errno, "first_error", fserr_errno_name(f->fs.first_errno),
		   "first_error_time", when, "error_count", errors, "fault_count", faults,
		   "sysfs", f->fs.dir, "ino", ino, "policy", fserr_policy_name(a->policy), NULL);
}

/* -1 if the fault could not be acted on and is to be tried again */
static int act(struct fserrd *d, const struct fserr_action *a, struct fserrd_fault *f)
{
	if (a->policy == FSERR_REPAIR)
		return fserrd_repair(d, f);
	return fserrd_act(d, a, f);
}

static bool not_this_ino(unsigned long long ino, void *data)
{
	return ino != *(unsigned long long *)data;
}

/*
 * Handle a new fault; the policy it got (FSERR_LOG when nothing was done,
 * also when it was deferred: then d->retry is set and it stays new).
 */
static enum fserr_policy handle(struct fserrd *d, struct libmnt_table *tb,
				const struct fserr_fs *fs)
{
	const struct fserr_action *a;
	bool act_first;
	struct fserrd_fault f = { .fs = *fs };
	char devno[32], when[32], ino[32];
	time_t t = fs->first_error_time;
	struct tm tm;

	describe(tb, &f);
	a = choose(&d->cfg, tb, &f);
	snprintf(devno, sizeof(devno), "%u:%u", major(fs->dev), minor(fs->dev));
	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)fs->ino);
	if (t && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(when, sizeof(when), "-");
	/*
	 * No action is decided without the mount table: the rule that
	 * matches a mount point would be missed, and the fault used up under
	 * the default. It stays new, and is tried again (d->retry).
	 */
	if (!tb) {
		fserrd_log("fault-deferred", "dev", devno, "ino", ino, "why",
			   "the mount table could not be read", NULL);
		d->retry = true;
		return FSERR_LOG;
	}
	fserrd_repair_prepare(d, a, &f);
	if (d->repair_plan == FSERRD_REPAIR_NO_TABLE) {
		fserrd_log("fault-deferred", "dev", devno, "ino", ino, "why",
			   "the mount table could not be read for the repair", NULL);
		d->retry = true;
		return FSERR_LOG;
	}
	/*
	 * remount-ro (the policy, or what a repair that does not go ahead
	 * falls back to) can be done twice without harm: it runs before the
	 * fault is remembered, so that a fserrd killed in between does it
	 * when it starts again. Every other action is remembered first, so
	 * that it never runs twice for one fault; a repair's first step is
	 * saved with it (fserrd_repair_prepare), so that a fserrd killed
	 * right after this save still finishes the repair.
	 */
	act_first = a->policy == FSERR_REMOUNT_RO ||
		    (a->policy == FSERR_REPAIR && d->repair_plan != FSERRD_REPAIR_GO);
	if (act_first) {
		/* (a kill before the save below: logged, and done, again) */
		log_fault(&f, devno, when, a);
		if (d->pause_remount) {
			fserrd_log("paused", "before", "remount-ro", NULL);
			d->pause_remount = false;
			raise(SIGSTOP);
		}
		if (act(d, a, &f) < 0) {
			/* Not done (remount-ro refused or failed): not remembered */
			fserrd_log("fault-deferred", "dev", devno, "ino", ino, "why",
				   "the action could not be done; tried again", NULL);
			d->retry = true;
			return FSERR_LOG;
		}
	}
	if (fserr_state_set_handled(&d->state, fs->ino, fs->fault_count)) {
		/* Not remembered, so not acted on: the next scan tries again. */
		fserrd_repair_not_saved(d);
		fserr_state_end_repair(&d->state);
		fserrd_log("fault-deferred", "dev", devno, "ino", ino, "why", "out of memory", NULL);
		d->retry = true;
		return FSERR_LOG;
	}
	if (fserrd_save_state(d) && a->policy == FSERR_REPAIR)
		fserrd_repair_not_saved(d);
	/*
	 * (logged once it is remembered: a kill before the save leaves it to
	 * the next fserrd, which logs it once; a kill between the save and
	 * this line loses the line, not the action; for policy log the line
	 * is all there is)
	 */
	if (!act_first)
		log_fault(&f, devno, when, a);
	if (!act_first && act(d, a, &f) < 0) {
		/*
		 * A repair that gave up and could not even remount read-only
		 * (something mounted over every mount of it): the fault is
		 * forgotten, and tried again.
		 */
		unsigned long long key = fs->ino;

		fserr_state_keep_handled(&d->state, not_this_ino, &key);
		fserrd_save_state(d);
		fserrd_log("fault-deferred", "dev", devno, "ino", ino, "why",
			   "the action could not be done; tried again", NULL);
		d->retry = true;
		return FSERR_LOG;
	}
	return a->policy;
}

static struct watch *find_watch(struct fserrd *d, ino_t ino)
{
	size_t i;

	for (i = 0; i < d->nr_watches; i++)
		if (d->watches[i].ino == ino)
			return &d->watches[i];
	return NULL;
}

/* Read fs_fault to arm poll(); the content does not matter here. */
static void rearm(int fd)
{
	char buf[16];

	if (lseek(fd, 0, SEEK_SET) == 0)
		(void)!read(fd, buf, sizeof(buf));
}

/* Watch exactly the filesystems of @s: fs_fault fds and fanotify marks. */
static void update_watches(struct fserrd *d, const struct scan *s,
			   struct libmnt_table *tb)
{
	struct watch *next = calloc(s->nr ? s->nr : 1, sizeof(*next));
	size_t i, n = 0;

	if (!next)
		return;
	for (i = 0; i < s->nr && n < max_watches; i++) {
		struct watch *old = find_watch(d, s->fs[i].ino);
		char path[PATH_MAX + 16];

		if (old) {
			next[n++] = *old;
			old->fd = -1;
			continue;
		}
		snprintf(path, sizeof(path), "%s/fs_fault", s->fs[i].dir);
		next[n].ino = s->fs[i].ino;
		next[n].fd = open(path, O_RDONLY | O_CLOEXEC);
		if (next[n].fd < 0)
			continue;
		rearm(next[n].fd);
		n++;
	}
	for (i = 0; i < d->nr_watches; i++)
		if (d->watches[i].fd >= 0)
			close(d->watches[i].fd);
	free(d->watches);
	d->watches = next;
	d->nr_watches = n;

	/* FAN_FS_ERROR marks, through a mount point of each filesystem. */
	if (d->fanotify_fd < 0)
		return;
	for (i = 0; i < s->nr; i++) {
		struct watch *w = find_watch(d, s->fs[i].ino);
		struct libmnt_fs *m = tb ? fserr_mounts_first(tb, s->fs[i].dev) : NULL;

		if (!w || w->marked || !m || !mnt_fs_get_target(m))
			continue;
		if (fanotify_mark(d->fanotify_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				  FAN_FS_ERROR, AT_FDCWD, mnt_fs_get_target(m))) {
			fserrd_log("fanotify-mark-failed", "mountpoint", mnt_fs_get_target(m),
				   "error", strerror(errno), NULL);
			continue;
		}
		w->marked = true;
	}
}

/*
 * One descriptor per watched filesystem: take the hard open-file limit (as
 * systemd advises a service that needs many), and watch at most that less
 * FD_RESERVE, so that a scan never runs out of descriptors and skips a
 * directory because of the watches. The programs fserrd starts inherit
 * the raised soft limit; fsck.fat, e2fsck and a policy's program do not
 * use select().
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)1 << 20)
		rl.rlim_cur = (rlim_t)1 << 20;
	max_watches = rl.rlim_cur > 2 * FD_RESERVE ? rl.rlim_cur - FD_RESERVE : FD_RESERVE;
}

static bool in_scan(unsigned long long ino, void *data)
{
	const struct scan *s = data;
	size_t i;

	for (i = 0; i < s->nr; i++)
		if ((unsigned long long)s->fs[i].ino == ino)
			return true;
	return false;
}

/*
 * An action ran since the scan read @fs (a repair may take minutes): read
 * its state and the mount table again before acting on it. False, and
 * said, if the fault is no longer there to act on: cleared, or its
 * directory gone or another one (unmounted, mounted again), which a scan
 * then finds as what it is.
 */
static bool refresh(struct fserr_fs *fs, struct libmnt_table **tb)
{
	struct libmnt_table *now;
	struct fserr_fs fresh;
	const char *why = NULL;
	char ino[32];
	int err;

	err = fserr_fs_read(fs->dir, &fresh);
	if (err == -ENOENT)
		why = "its directory is gone";
	else if (err)
		return true;	/* unreadable now: act on what the scan read */
	else if (fresh.ino != fs->ino)
		why = "it was mounted again";
	else if (!fresh.fault)
		why = "cleared";
	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)fs->ino);
	if (why) {
		fserrd_log("fault-stale", "sysfs", fs->dir, "ino", ino, "why", why, NULL);
		return false;
	}
	*fs = fresh;
	now = fserr_mounts_load(NULL);
	if (now) {
		mnt_unref_table(*tb);
		*tb = now;
	}
	return true;
}

/*
 * A repair a reboot cut short (fserrd_repair_after_reboot()): finished if
 * its fsck had ended; else its volume is acted on as soon as it is found
 * mounted where it was, by its UUID (the device's name and number may be
 * another's now), with the mounts this boot made of it, under the policy
 * for them now. A volume that is not mounted there is waited for (each
 * mount table change scans again), not checked under a boot that may be
 * mounting it. Two volumes that both fit: dropped, neither is touched.
 * True when it was acted on.
 */
static bool carried_repair(struct fserrd *d, struct libmnt_table *tb, const struct scan *s)
{
	struct fserrd_fault f, found;
	size_t i, matches = 0;

	if (!d->carried || fserrd_repair_carried_done(d) || !tb)
		return false;
	for (i = 0; i < s->nr; i++) {
		f = (struct fserrd_fault){ .fs = s->fs[i] };
		describe(tb, &f);
		if (fserrd_repair_carried_match(d, tb, &f) && !matches++)
			found = f;
	}
	if (matches > 1) {
		fserrd_repair_carried_drop(d, "more than one mounted volume has its UUID and "
					   "type: it cannot be told which");
		return false;
	}
	if (matches == 1) {
		int ret = fserrd_repair_carried(d, choose(&d->cfg, tb, &found), &found);

		/* (dropped under policy log or exec: its fault is the loop's) */
		if (ret > 0)
			return false;
		/*
		 * A fault it already had is the one the repair or remount-ro
		 * took on; one they could not do stays new for the loop.
		 */
		if (!ret && found.fs.fault &&
		    !fserr_state_set_handled(&d->state, found.fs.ino, found.fs.fault_count))
			fserrd_save_state(d);
		return true;
	}
	if (!d->carried_waiting) {
		fserrd_log("repair-waiting", "volume", d->state.volume,
			   "step", fserr_step_name(d->carried_step),
			   "why", "the volume is not mounted where it was since the reboot; "
			   "it is acted on when it is", NULL);
		d->carried_waiting = true;
	}
	return false;
}

/* Read the state of every fserr filesystem and handle the new faults. */
static void rescan(struct fserrd *d, const char *why)
{
	struct libmnt_table *tb = fserr_mounts_load(NULL);
	struct scan s = { 0 };
	size_t i, before = d->state.nr_handled;
	bool acted = false;
	int err;

	if (verbose)
		fserrd_log("rescan", "why", why, NULL);
	if (!tb)
		fserrd_log("mount-table-unreadable", "error", strerror(errno), NULL);
	d->retry = false;
	err = fserr_fs_scan(d->sysfs_fs, collect, &s);
	if (err < 0 && err != -1)
		fserrd_log("sysfs-unreadable", "dir", d->sysfs_fs, "error", strerror(-err), NULL);
	/*
	 * Forget the faults of directories that are gone, from a scan that
	 * saw every directory (a skipped one is not gone: forgetting its fault
	 * would handle it again at the next scan), and before acting: the snapshot describes the system
	 * now, and an action may unmount, mount again and mark the fault of
	 * the new directory as handled (a repair fsck could not finish),
	 * which a prune after it would forget at once.
	 */
	if (!err)
		fserr_state_keep_handled(&d->state, in_scan, &s);
	acted = carried_repair(d, tb, &s);
	for (i = 0; i < s.nr; i++) {
		if (!s.fs[i].fault ||
		    fserr_state_is_handled(&d->state, s.fs[i].ino, s.fs[i].fault_count))
			continue;
		if (acted && !refresh(&s.fs[i], &tb))
			continue;
		if (handle(d, tb, &s.fs[i]) != FSERR_LOG)
			acted = true;
	}
	if (d->state.nr_handled != before)
		fserrd_save_state(d);
	/* A deferred fault: again in 1 s, then 2, 4 ... up to a minute */
	if (d->retry)
		d->retry_secs = d->retry_secs ? (d->retry_secs >= 32 ? 60 : d->retry_secs * 2) : 1;
	else
		d->retry_secs = 0;
	update_watches(d, &s, tb);
	free(s.fs);
	mnt_unref_table(tb);
}

/* --- channels ------------------------------------------------------------ */

static void log_uevent(const struct fserr_uevent *ev, void *data)
{
	char dev[32];

	(void)data;
	snprintf(dev, sizeof(dev), "%u:%u", ev->major, ev->minor);
	fserrd_log("uevent", "devpath", ev->devpath, "type", ev->fs_type, "dev", dev, NULL);
}

/* Take what the uevent channel has; true if a rescan is due. */
static bool read_uevents(struct fserrd *d, const char **why)
{
	static unsigned long ignored;
	struct fserr_monitor_result res;
	char num[32], port[16];

	fserr_monitor_read(d->uevents, verbose ? log_uevent : NULL, NULL, &res);
	if (res.error) {
		/* (the other channels go on; a rescan finds what it missed) */
		fserrd_log("channel-unavailable", "channel", "uevent", "error",
			   strerror(res.error), NULL);
		fserr_monitor_close(d->uevents);
		d->uevents = NULL;
		*why = "uevents-lost";
		return true;
	}
	/* Said once, then every 1000th time */
	if ((ignored + res.ignored + 999) / 1000 != (ignored + 999) / 1000) {
		snprintf(port, sizeof(port), "%u", res.ignored_port);
		snprintf(num, sizeof(num), "%lu", ignored + res.ignored);
		fserrd_log("uevent-ignored", "sender", port,
			   "why", "not from the kernel", "count", num, NULL);
	}
	ignored += res.ignored;
	/*
	 * A uevent only asks for a rescan: the state fserrd acts on is read
	 * from sysfs. After a loss, only a full rescan can be trusted.
	 */
	if (res.lost)
		*why = "uevents-lost";
	else if (res.faults)
		*why = "uevent";
	return res.lost || res.faults;
}

static bool read_fanotify(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	bool any = false;

	while (read(fd, buf, sizeof(buf)) > 0)
		any = true;
	return any;
}

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_hup(int sig)
{
	(void)sig;
	reload = 1;
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	snprintf(buf, size, "-");
	if (f) {
		if (fgets(buf, size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/*
 * The command line, the paths made absolute, the policy loaded: -1 to go
 * on, else the exit status (--help, --version, --check-config, an error).
 */
static int parse_options(int argc, char **argv, struct options *o, struct fserrd *d)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "policy", required_argument, NULL, 'p' },
		{ "repair-limit", required_argument, NULL, 'l' },
		{ "state", required_argument, NULL, 's' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "pause-before", required_argument, NULL, 'P' },
		{ "channels", required_argument, NULL, 'L' },
		{ "uevents", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	bool check_only = false;
	int c;

	while ((c = getopt_long(argc, argv, "c:p:l:s:vVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			o->config_given = true;
			break;
		case 'p':
			o->policy = optarg;
			break;
		case 'l':
			o->repair_limit = optarg;
			break;
		case 's':
			d->state_path = optarg;
			break;
		case 'S':
			d->sysfs_fs = optarg;
			break;
		case 'C':
			check_only = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'V':
			printf("fserrd %s %csystemd\n", FSERR_VERSION,
			       fserr_have_systemd() ? '+' : '-');
			return 0;
		case 'P':
			if (!strcmp(optarg, "remount-ro"))
				d->pause_remount = true;
			else if (fserrd_repair_pause_before(d, optarg)) {
				fprintf(stderr, "fserrd: --pause-before takes unmount, fsck, mount "
					"or remount-ro\n");
				return EXIT_USAGE;
			}
			break;
		case 'L':
			d->channels = parse_channels(optarg);
			if (d->channels <= 0) {
				fprintf(stderr, "fserrd: --channels takes a comma-separated list of "
					"uevent, fs_fault, mountinfo and fanotify\n");
				return EXIT_USAGE;
			}
			break;
		case 'U':
			if (fserr_monitor_source_parse(optarg, &d->uevent_source)) {
				fprintf(stderr, "fserrd: --uevents takes auto, kernel or udev\n");
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "fserrd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	/* Relative paths keep naming the same files after chdir("/") */
	o->config = absolute(o->config);
	d->state_path = absolute(d->state_path);
	d->sysfs_fs = absolute(d->sysfs_fs);
	if (!o->config || !d->state_path || !d->sysfs_fs) {
		fprintf(stderr, "fserrd: cannot make the paths absolute: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	fserr_config_init(&d->cfg);
	if (load_config(o, &d->cfg))
		return EXIT_CONFIG;
	if (check_only) {
		printf("fserrd: %s: the policy is valid\n", o->config);
		return 0;
	}
	return -1;
}

/*
 * Everything before the first scan: the working directory, the open-file
 * limit, the state file, the signals (blocked but inside ppoll(), whose
 * mask goes to @waiting), the channels.
 */
static int start(struct fserrd *d, sigset_t *waiting)
{
	struct sigaction stop = { .sa_handler = on_stop }, hup = { .sa_handler = on_hup };
	char boot_id[40], *slash, dir[PATH_MAX];
	sigset_t blocked;
	int c;

	if (chdir("/"))
		return -1;
	/*
	 * Descriptors 0 to 2 open: else the device a repair holds could be
	 * given one of them, and the program fserrd runs would get it as its
	 * output (fsck.fat writing its report over the card).
	 */
	for (c = open("/dev/null", O_RDWR | O_CLOEXEC); c >= 0 && c <= 2;
	     c = open("/dev/null", O_RDWR | O_CLOEXEC))
		fcntl(c, F_SETFD, 0);
	if (c > 2)
		close(c);
	raise_fd_limit();
	/* The state file's directory, e.g. /var/lib/fserrd, and those above it */
	snprintf(dir, sizeof(dir), "%s", d->state_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		for (slash = strchr(dir + 1, '/'); ; slash = strchr(slash + 1, '/')) {
			if (slash)
				*slash = '\0';
			mkdir(dir, slash ? 0755 : 0700);
			if (!slash)
				break;
			*slash = '/';
		}
	}
	read_boot_id(boot_id, sizeof(boot_id));
	fserr_state_init(&d->state, boot_id);
	c = fserrd_load_state(d, boot_id);
	if (c > 0)
		fserrd_repair_after_reboot(d, c == 2);

	/*
	 * The signals are blocked except inside ppoll(): one that comes
	 * while a rescan runs is seen at the next ppoll(), never lost
	 * between the check of the flag and the wait.
	 */
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGHUP);
	sigprocmask(SIG_BLOCK, &blocked, waiting);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGHUP, &hup, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (c = 0; c < 4; c++)
		if (!(d->channels & (1 << c)))
			fserrd_log("channel-off", "channel", channel_names[c], "why", "--channels", NULL);
	if (d->channels & CH_UEVENT) {
		c = fserr_monitor_open(d->uevent_source, &d->uevents);
		if (c < 0)
			fserrd_log("channel-unavailable", "channel", "uevent", "error",
				   strerror(-c), NULL);
		else
			fserrd_log("listening", "channel", "uevent",
				   "source", fserr_monitor_source_name(d->uevents), NULL);
	}
	if (d->channels & CH_MOUNTINFO) {
		d->mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (d->mountinfo_fd < 0)
			fserrd_log("channel-unavailable", "channel", "mountinfo", "error",
				   strerror(errno), NULL);
	}
	if (d->channels & CH_FANOTIFY) {
		d->fanotify_fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
					       FAN_REPORT_FID, O_RDONLY | O_CLOEXEC);
		if (d->fanotify_fd < 0)
			fserrd_log("channel-unavailable", "channel", "fanotify", "error",
				   strerror(errno), NULL);
	}
	log_config(&d->cfg, "start");

	return 0;
}

/* Wait for a channel, scan, act, until SIGTERM or SIGINT; SIGHUP reloads. */
static void serve(struct fserrd *d, const struct options *o, const sigset_t *waiting)
{
	struct pollfd *pfd = NULL;

	while (!stop_signal) {
		const char *why = NULL;
		size_t i, n = 0;
		struct pollfd *bigger = realloc(pfd, (d->nr_watches + 3) * sizeof(*pfd));

		if (!bigger) {
			fserrd_log("out-of-memory", NULL);
			break;
		}
		pfd = bigger;
		if (reload) {
			struct timespec t;

			reload = 0;
			clock_gettime(CLOCK_MONOTONIC, &t);
			fserrd_notify("RELOADING=1\nMONOTONIC_USEC=%llu",
				      (unsigned long long)t.tv_sec * 1000000 + t.tv_nsec / 1000);
			if (load_config(o, &d->cfg))
				fserrd_log("reload-refused", "file", o->config,
					   "why", "see the message above; the old policy stays", NULL);
			else
				log_config(&d->cfg, "reloaded");
			/* (reloaded: the scan after it may repair for minutes) */
			fserrd_notify("READY=1\nSTATUS=watching %zu filesystems", d->nr_watches);
			rescan(d, "reload");
			continue;
		}
		pfd[n++] = (struct pollfd){ .fd = fserr_monitor_fd(d->uevents), .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = d->mountinfo_fd, .events = POLLPRI };
		pfd[n++] = (struct pollfd){ .fd = d->fanotify_fd, .events = POLLIN };
		for (i = 0; i < d->nr_watches && (d->channels & CH_FS_FAULT); i++)
			pfd[n++] = (struct pollfd){ .fd = d->watches[i].fd, .events = POLLPRI };
		struct timespec retry = { .tv_sec = d->retry_secs };
		int ready = ppoll(pfd, n, d->retry ? &retry : NULL, waiting);

		if (ready < 0) {
			if (errno == EINTR)
				continue;
			fserrd_log("poll-failed", "error", strerror(errno), NULL);
			break;
		}
		if (ready == 0) {
			rescan(d, "retry");
			continue;
		}
		if ((pfd[0].revents & (POLLIN | POLLERR)) && read_uevents(d, &why) && verbose)
			fserrd_log("wake", "channel", why, NULL);
		if (pfd[1].revents & (POLLPRI | POLLERR)) {
			why = "mountinfo";
			if (verbose)
				fserrd_log("wake", "channel", why, NULL);
		}
		if ((pfd[2].revents & POLLIN) && read_fanotify(d->fanotify_fd)) {
			why = "fanotify";
			if (verbose)
				fserrd_log("wake", "channel", why, NULL);
		}
		for (i = 3; i < n; i++) {
			if (!(pfd[i].revents & (POLLPRI | POLLERR)))
				continue;
			rearm(pfd[i].fd);
			why = "fs_fault";
			if (verbose)
				fserrd_log("wake", "channel", why, NULL);
		}
		if (why)
			rescan(d, why);
	}
	free(pfd);
}

int main(int argc, char **argv)
{
	struct options o = { .config = DEFAULT_CONFIG };
	struct fserrd self = { .state_path = DEFAULT_STATE, .sysfs_fs = "/sys/fs",
			       .channels = CH_ALL, .mountinfo_fd = -1,
			       .fanotify_fd = -1, .held_fd = -1, .pin_fd = -1 };
	struct fserrd *d = &self;
	sigset_t waiting;
	int ret = parse_options(argc, argv, &o, d);

	if (ret >= 0)
		return ret;
	if (start(d, &waiting))
		return EXIT_FAILURE;
	fserrd_repair_resume(d);
	rescan(d, "start");
	fserrd_notify("READY=1\nSTATUS=watching %zu filesystems", d->nr_watches);
	serve(d, &o, &waiting);
	fserrd_notify("STOPPING=1");
	fserrd_log("stop", "signal", stop_signal ? strsignal(stop_signal) : "none", NULL);
	fserr_monitor_close(d->uevents);
	fserr_config_free(&d->cfg);
	fserr_state_free(&d->state);
	return stop_signal ? 0 : EXIT_FAILURE;
}
