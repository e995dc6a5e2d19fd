// SPDX-License-Identifier: GPL-2.0
/*
 * fserrd's repair policy: take the filesystem down, check it with fsck,
 * mount it back as it was. A state machine of three steps (unmount, fsck,
 * mount), each written to the state file before it runs, so that a
 * fserrd killed in any of them finishes the repair when it starts again
 * (fserrd_repair_resume()); this file owns those saves, the pause points
 * the tests stop it at, and what a reboot means for a repair. See
 * fserrd.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fserrd.h"
#include "lib/fsck.h"
#include "lib/mountpoint.h"
#include "lib/volume.h"

#define MAJMIN(dev) major(dev), minor(dev)

/* Format a number for fserrd_log(); @buf must outlive the call. */
static const char *num(char *buf, size_t size, long long v)
{
	snprintf(buf, size, "%lld", v);
	return buf;
}

/* io_error_count for a log line: "-" where the kernel does not say */
static const char *io_errors(char *buf, size_t size, const struct fserr_fs *fs)
{
	return fs->io_error_count < 0 ? "-" : num(buf, size, fs->io_error_count);
}

/* Stop (SIGSTOP) here if the saved step is the one --pause-before named. */
static void pause_point(struct fserrd *d)
{
	if (d->pause_before == FSERR_STEP_NONE || d->state.step != d->pause_before)
		return;
	fserrd_log("paused", "before", fserr_step_name(d->state.step), NULL);
	d->pause_before = FSERR_STEP_NONE;
	raise(SIGSTOP);
}

int fserrd_repair_pause_before(struct fserrd *d, const char *step)
{
	int s;

	for (s = FSERR_STEP_UNMOUNT; s <= FSERR_STEP_MOUNT; s++)
		if (!strcmp(step, fserr_step_name(s))) {
			d->pause_before = s;
			return 0;
		}
	return -1;
}

/*
 * The fsck program @name in the system's directories, never through the
 * PATH fserrd was started with; NULL if it is not installed.
 */
static const char *find_program(const char *name, char *buf, size_t size)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, size, "%s/%s", dirs[i], name);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/*
 * Open @source, the device the repair unmounted, exclusively: as long as
 * this is open, nothing can mount it (and it is not mounted anywhere).
 * Its device number must still be @dev: a card pulled mid-repair and
 * another device that took its name must not be checked or mounted. The
 * descriptor, or a negative errno (-EBUSY: someone else claims it) with
 * the reason in @why.
 */
static int hold_device(const char *source, dev_t dev, char *why, size_t size)
{
	struct stat st;
	int fd = open(source, O_RDONLY | O_EXCL | O_CLOEXEC);
	int err = errno;

	if (fd < 0) {
		snprintf(why, size, "cannot open %s exclusively: %s", source,
			 err == EBUSY ? "it is in use (mounted again?)" : strerror(err));
		return -err;
	}
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != dev) {
		snprintf(why, size, "%s is now %s%u:%u, not %u:%u", source,
			 S_ISBLK(st.st_mode) ? "" : "not a block device, ",
			 MAJMIN(st.st_rdev), MAJMIN(dev));
		close(fd);
		return -ENODEV;
	}
	return fd;
}

static bool live_superblock(struct fserrd *d, dev_t dev, struct fserr_fs *out);

/*
 * Ask systemd for @secs more to start or stop (EXTEND_TIMEOUT_USEC): a
 * repair that runs while fserrd starts (the first scan comes before
 * READY=1) or stops (SIGTERM waits for the repair) may take longer than
 * the unit's timeouts. With no limit (fsck-timeout 0), a day at a time.
 */
static void extend_timeout(unsigned int secs)
{
	fserrd_notify("EXTEND_TIMEOUT_USEC=%llu",
		      (unsigned long long)(secs ? secs + 60 : 86400) * 1000000);
}

/*
 * hold_device() for a repair that resumes at fsck. The fsck of the fserrd
 * that was killed may still run: it holds the device exclusively (fsck.fat
 * through the descriptor fserrd gave it, e2fsck by itself), and a second
 * fsck on the same device at the same time would undo its work. Wait for
 * that claim to go, for up to fsck-timeout (forever with 0), then take it;
 * give up at once if the filesystem is mounted meanwhile (it is not an
 * fsck that holds it then).
 */
static int hold_device_after(struct fserrd *d, const char *source, dev_t dev,
			     char *why, size_t size)
{
	struct timespec start, now, nap = { 0, 100 * 1000 * 1000 };
	char secs[32];
	bool said = false;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		fd = hold_device(source, dev, why, size);
		if (fd != -EBUSY || live_superblock(d, dev, NULL))
			break;
		if (!said) {
			fserrd_log("fsck-wait", "device", source, "why",
				   "claimed by another program (the fsck of the fserrd before?)", NULL);
			fserrd_notify("STATUS=repairing %u:%u: waiting for the fsck that holds it",
				      MAJMIN(dev));
			extend_timeout(d->cfg.fsck_timeout);
		}
		said = true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (d->cfg.fsck_timeout &&
		    now.tv_sec - start.tv_sec >= (time_t)d->cfg.fsck_timeout) {
			snprintf(why, size, "%s is still claimed by another program after %s s",
				 source, num(secs, sizeof(secs), d->cfg.fsck_timeout));
			break;
		}
		nanosleep(&nap, NULL);
	}
	if (said && fd >= 0)
		fserrd_log("fsck-wait-done", "device", source, NULL);
	return fd;
}

/*
 * Is the volume on the open device @fd still the one the repair began with
 * (@st->volume, its UUID)? Device numbers are reused: another card in the
 * slot, a loop device set up anew. The reason in @why if not. True when
 * no UUID was recorded (a filesystem without one).
 */
static bool same_volume(const struct fserr_state *st, int fd, const char *source,
			char *why, size_t size)
{
	char now[64];

	if (!st->volume[0])
		return true;
	if (fserr_volume_uuid(fd, now, sizeof(now))) {
		snprintf(why, size, "no volume UUID can be read on %s (the repaired one's was %s)",
			 source, st->volume);
		return false;
	}
	if (strcmp(now, st->volume)) {
		snprintf(why, size, "the volume on %s is UUID %s, not the repaired one's %s "
			 "(another medium)", source, now, st->volume);
		return false;
	}
	return true;
}

/* Is @source still the block device @dev? The reason in @why if not. */
static bool same_device(const char *source, dev_t dev, char *why, size_t size)
{
	struct stat st;

	if (stat(source, &st)) {
		snprintf(why, size, "%s: %s", source, strerror(errno));
		return false;
	}
	if (!S_ISBLK(st.st_mode) || st.st_rdev != dev) {
		snprintf(why, size, "%s is now %s%u:%u, not %u:%u", source,
			 S_ISBLK(st.st_mode) ? "" : "not a block device, ",
			 MAJMIN(st.st_rdev), MAJMIN(dev));
		return false;
	}
	return true;
}

/*
 * Is @dev mounted at @target in this namespace, on top or covered by
 * another mount (which the repair never took down)?
 */
static bool mounted_at(dev_t dev, const char *target)
{
	struct libmnt_table *tb = fserr_mounts_load(NULL);
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	bool hit = false;

	while (tb && it && !hit && mnt_table_next_fs(tb, it, &fs) == 0)
		hit = mnt_fs_get_devno(fs) == dev && mnt_fs_get_target(fs) &&
		      !strcmp(mnt_fs_get_target(fs), target);
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return hit;
}

/* The fserr state of the superblock of @dev, if one is alive anywhere. */
static bool live_superblock(struct fserrd *d, dev_t dev, struct fserr_fs *out)
{
	struct fserr_fs fs;

	return fserr_fs_find(d->sysfs_fs, dev, out ? out : &fs) == 0;
}

/* The mount of the filesystem's root among the saved ones. */
static const struct fserr_saved_mount *saved_primary(const struct fserr_state *st)
{
	size_t i;

	for (i = 0; i < st->nr_mounts; i++)
		if (!strcmp(st->mounts[i].root, "/"))
			return &st->mounts[i];
	return NULL;
}

/*
 * A mount root as mountinfo shows it ends in "//deleted" when the
 * directory was removed (the kernel's dentry_path()); no real path has
 * "//", so this cannot be a name.
 */
static bool root_deleted(const char *root)
{
	size_t len = strlen(root);

	return len >= 9 && !strcmp(root + len - 9, "//deleted");
}

/* The mount_setattr() attributes for the VFS options in @vfs. */
static int bind_attributes(const char *vfs, struct mount_attr *attr)
{
	static const struct {
		unsigned long ms;
		__u64 attr;
	} map[] = {
		{ MS_RDONLY, MOUNT_ATTR_RDONLY },
		{ MS_NOSUID, MOUNT_ATTR_NOSUID },
		{ MS_NODEV, MOUNT_ATTR_NODEV },
		{ MS_NOEXEC, MOUNT_ATTR_NOEXEC },
		{ MS_NODIRATIME, MOUNT_ATTR_NODIRATIME },
		{ MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW },
	};
	unsigned long flags = 0;
	size_t i;

	if (mnt_optstr_get_flags(vfs, &flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)))
		return -1;
	memset(attr, 0, sizeof(*attr));
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (flags & map[i].ms)
			attr->attr_set |= map[i].attr;
		else
			attr->attr_clr |= map[i].attr;
	}
	/* mountinfo shows relatime or noatime; neither is strictatime */
	attr->attr_clr |= MOUNT_ATTR__ATIME;
	attr->attr_set |= flags & MS_NOATIME ? MOUNT_ATTR_NOATIME :
			  flags & MS_RELATIME ? MOUNT_ATTR_RELATIME : MOUNT_ATTR_STRICTATIME;
	return 0;
}

/*
 * Put back the bind mount @m of a directory (or file) of the filesystem
 * of @dev, whose root is mounted again at @primary. The source is
 * resolved beneath that new mount, never by a path: no symbolic link, no
 * "..", no other mount on the way (openat2() RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV), and it must be on @dev. The
 * filesystem's owner controls every name in it: a root that became a
 * link to /etc while the filesystem was down must not bring /etc back
 * here. The bind is made detached (open_tree()), given its own flags
 * (mount_setattr()) and only then attached at its mount point
 * (move_mount()), so it is never visible without nosuid, nodev, noexec,
 * ro as it had them. 0, or -1 with the reason in @msg.
 */
static int bind_beneath(const struct fserr_saved_mount *m,
			const struct fserr_saved_mount *primary, dev_t dev,
			char *msg, size_t size)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int root_fd = -1, src_fd = -1, tree_fd = -1, target_fd = -1, ret = -1;
	const char *rel = m->root + strspn(m->root, "/");
	struct mount_attr attr;
	char *vfs = NULL;
	struct stat st;

	if (root_deleted(m->root)) {
		snprintf(msg, size, "its source directory %s was deleted", m->root);
		return -1;
	}
	if (mnt_split_optstr(m->options, NULL, &vfs, NULL, 0, 0) ||
	    bind_attributes(vfs ? vfs : "", &attr)) {
		snprintf(msg, size, "cannot read the saved options");
		goto out;
	}
	root_fd = open(primary->target, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root_fd < 0 || fserr_stat_nosync(root_fd, &st) || st.st_dev != dev) {
		snprintf(msg, size, "%s is not the repaired filesystem any more", primary->target);
		goto out;
	}
	if (*rel) {
		src_fd = syscall(SYS_openat2, root_fd, rel, &how, sizeof(how));
		if (src_fd < 0) {
			snprintf(msg, size, "source %s beneath %s: %s%s", m->root, primary->target,
				 strerror(errno), errno == ELOOP || errno == EXDEV ?
				 " (a symbolic link or another mount on the way)" : "");
			goto out;
		}
	} else {
		src_fd = dup(root_fd);
	}
	if (src_fd < 0 || fserr_stat_nosync(src_fd, &st) || st.st_dev != dev) {
		snprintf(msg, size, "source %s is not on the repaired filesystem", m->root);
		goto out;
	}
	tree_fd = open_tree(src_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree_fd < 0) {
		snprintf(msg, size, "open_tree: %s", strerror(errno));
		goto out;
	}
	if (mount_setattr(tree_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr))) {
		snprintf(msg, size, "mount_setattr: %s", strerror(errno));
		goto out;
	}
	target_fd = open(m->target, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (target_fd < 0) {
		snprintf(msg, size, "%s: %s", m->target, strerror(errno));
		goto out;
	}
	if (move_mount(tree_fd, "", target_fd, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)) {
		snprintf(msg, size, "move_mount: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(vfs);
	if (target_fd >= 0)
		close(target_fd);
	if (tree_fd >= 0)
		close(tree_fd);
	if (src_fd >= 0)
		close(src_fd);
	if (root_fd >= 0)
		close(root_fd);
	return ret;
}

/* Put one saved mount back; bind mounts come from the primary one. */
static int mount_saved(const struct fserr_state *st, const struct fserr_saved_mount *m,
		       const struct fserr_saved_mount *primary, bool ro, dev_t dev)
{
	char options[4096], msg[PATH_MAX + 256] = "", why[1024];
	int ret;

	if (mounted_at(dev, m->target))
		return 0;
	/* checked before the unmount; again, in case it changed since */
	if (fserr_mountpoint_check(m->target, why, sizeof(why))) {
		fserrd_log("mount-refused", "mountpoint", m->target, "why", why, NULL);
		return -1;
	}
	if (m == primary) {
		/* The device, not whatever took its name since the unmount */
		if (!same_device(m->source, dev, why, sizeof(why))) {
			fserrd_log("mount-refused", "mountpoint", m->target, "why", why, NULL);
			return -1;
		}
		if (st->volume[0]) {
			int fd = open(m->source, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			bool same = fd >= 0 && same_volume(st, fd, m->source, why, sizeof(why));

			if (fd < 0)
				snprintf(why, sizeof(why), "%s: %s", m->source, strerror(errno));
			else
				close(fd);
			if (!same) {
				fserrd_log("mount-refused", "mountpoint", m->target, "why", why,
					   NULL);
				return -1;
			}
		}
		snprintf(options, sizeof(options), "%s%s", m->options, ro ? ",ro" : "");
		ret = fserrd_do_mount(m->source, m->target, m->fstype, options, MNT_OMODE_IGNORE,
			       msg, sizeof(msg));
		if (ret == -EBUSY && !ro) {
			/*
			 * The superblock lives on, read-only (errors=remount-ro),
			 * in another mount namespace, and the kernel does not
			 * change its read-only state for a new mount: mount it
			 * read-only rather than leave the mount point empty.
			 */
			snprintf(options, sizeof(options), "%s,ro", m->options);
			ret = fserrd_do_mount(m->source, m->target, m->fstype, options,
				       MNT_OMODE_IGNORE, msg, sizeof(msg));
			if (!ret)
				fserrd_log("mounted-ro", "mountpoint", m->target, "why",
					   "the filesystem is read-only in another mount namespace",
					   NULL);
		}
	} else {
		ret = bind_beneath(m, primary, dev, msg, sizeof(msg));
		if (ret) {
			fserrd_log("mount-refused", "mountpoint", m->target, "root", m->root,
				   "why", msg, NULL);
			return ret;
		}
	}
	if (ret)
		fserrd_log("mount-failed", "mountpoint", m->target, "source", m->source,
			   "error", msg, NULL);
	return ret;
}

/* Mount everything the repair took down; the number that failed. */
static int mount_all(struct fserr_state *st, dev_t dev)
{
	const struct fserr_saved_mount *primary = saved_primary(st);
	int failed = 0;
	size_t i;

	if (!primary)
		return st->nr_mounts;
	if (mount_saved(st, primary, primary, st->fsck_failed, dev))
		return st->nr_mounts;
	for (i = 0; i < st->nr_mounts; i++)
		if (&st->mounts[i] != primary &&
		    mount_saved(st, &st->mounts[i], primary, false, dev))
			failed++;
	return failed;
}

/*
 * fsck.fat exits 1 both when it fixed errors and when it gave up (its
 * die() on a read error, a geometry it does not handle, no memory): a
 * read-only check on the device @hold holds tells them apart. True if
 * that check finds the filesystem clean; logs fsck-verify.
 */
static bool verify_fsck_fat(struct fserrd *d, const char *program, int hold)
{
	char *argv[] = { (char *)program, "-n", "/proc/self/fd/3", NULL };
	char cmd[PATH_MAX + 32], how[64];
	const char *outcome = NULL;
	bool timed_out, clean;
	int status, err;

	snprintf(cmd, sizeof(cmd), "%s -n /proc/self/fd/3", program);
	/* (the claim goes with it, as with the repair's fsck.fat) */
	extend_timeout(d->cfg.fsck_timeout);
	err = fserrd_run(argv, NULL, hold, FSERRD_RUN_NO_CAPS, d->cfg.fsck_timeout, &status,
			 &timed_out);
	if (err) {
		fserrd_log("fsck-verify", "command", cmd, "error", strerror(-err),
			   "outcome", "not-clean", NULL);
		return false;
	}
	fserrd_describe_status(status, timed_out, how, sizeof(how));
	outcome = fserr_fsck_outcome(program, status, timed_out);
	clean = outcome && !strcmp(outcome, "clean");
	fserrd_log("fsck-verify", "command", cmd, "result", how,
		   "outcome", clean ? "clean" : "not-clean", NULL);
	return clean;
}

/*
 * Run fsck on the unmounted filesystem; records the outcome in the state.
 * The device is the one fserrd holds (d->held_fd, from the unmount on) or
 * opens now, checked by its number; fsck gets it as descriptor 3 and its
 * name as /proc/self/fd/3, so that it checks that device whatever the name
 * in /dev points to by then. fsck.fat gets fserrd's exclusive hold itself,
 * so that nothing can mount the device under it, not even after fserrd
 * was killed; e2fsck and fsck.exfat claim the device exclusively
 * themselves, so they get the device without the claim, and the hold is
 * taken again when it ends. The hold is kept (d->held_fd) until the mount
 * back (release_hold()).
 */
static void check_fs(struct fserrd *d, const struct fserr_saved_mount *primary, bool resumed)
{
	char *argv[5], how[64], cmd[PATH_MAX + 64], program[64], why[PATH_MAX + 128];
	dev_t dev = makedev(d->state.major, d->state.minor);
	const char *outcome;
	bool timed_out;
	int status, err, fd, hold;

	/* Whatever happens below, the hold is this function's now */
	hold = d->held_fd;
	d->held_fd = -1;
	if (!fserr_fsck_argv(primary->fstype, "/proc/self/fd/3", argv)) {
		fserrd_log("fsck-failed", "type", primary->fstype, "error",
			   "no fsck for this filesystem type", NULL);
		goto failed;
	}
	if (!find_program(argv[0], program, sizeof(program))) {
		fserrd_log("fsck-failed", "program", argv[0], "error",
			   "not installed in /usr/sbin, /sbin, /usr/bin or /bin", NULL);
		goto failed;
	}
	argv[0] = program;
	/* (only a resumed repair can find an fsck of its own still running) */
	if (hold < 0)
		hold = resumed ? hold_device_after(d, primary->source, dev, why, sizeof(why)) :
				 hold_device(primary->source, dev, why, sizeof(why));
	if (hold < 0) {
		fserrd_log("fsck-refused", "device", primary->source, "why", why, NULL);
		goto failed;
	}
	if (!same_volume(&d->state, hold, primary->source, why, sizeof(why))) {
		fserrd_log("fsck-refused", "device", primary->source, "why", why, NULL);
		goto failed;
	}
	if (fserr_fsck_opens_exclusively(program)) {
		/* The same device, without the claim, which e2fsck takes */
		snprintf(why, sizeof(why), "/proc/self/fd/%d", hold);
		fd = open(why, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fserrd_log("fsck-failed", "device", primary->source,
				   "error", strerror(errno), NULL);
			goto failed;
		}
		close(hold);
		hold = -1;
	} else {
		/*
		 * fsck.fat gets the claim itself: if fserrd is killed, the
		 * fsck.fat that goes on still holds it, and the next fserrd
		 * waits for it to end (hold_device_after()).
		 */
		fd = hold;
	}
	fserr_fsck_command(argv, cmd, sizeof(cmd));
	fserrd_log("fsck-start", "command", cmd, "device", primary->source, NULL);
	fserrd_notify("STATUS=repairing %u:%u: %s running", MAJMIN(dev), argv[0]);
	extend_timeout(d->cfg.fsck_timeout);
	err = fserrd_run(argv, NULL, fd, FSERRD_RUN_NO_CAPS, d->cfg.fsck_timeout, &status,
			 &timed_out);
	if (hold < 0) {
		/* e2fsck's claim is gone: fserrd's again, on the same device */
		snprintf(why, sizeof(why), "/proc/self/fd/%d", fd);
		hold = open(why, O_RDONLY | O_EXCL | O_CLOEXEC);
		close(fd);
	}
	if (err) {
		fserrd_log("fsck-failed", "command", cmd, "error", strerror(-err), NULL);
		goto failed;
	}
	fserrd_describe_status(status, timed_out, how, sizeof(how));
	outcome = fserr_fsck_outcome(argv[0], status, timed_out);
	if (outcome && hold < 0) {
		/* Mounted by someone while fsck ran: its work cannot be trusted */
		fserrd_log("fsck-done", "command", cmd, "result", how, "outcome", "void",
			   "why", "the device was claimed while fsck ran", NULL);
		goto failed;
	}
	fserrd_log("fsck-done", "command", cmd, "result", how,
		   "outcome", outcome ? outcome : "not-repaired", NULL);
	/*
	 * fsck.fat writes through the page cache and does not flush; its
	 * close is not the device's last (fserrd holds it), so nothing
	 * writes its work out before the step after it is saved. A power
	 * cut then would leave a state file that says fsck ran, on a card
	 * that never got the repair. (e2fsck flushes itself; once more is
	 * cheap.)
	 */
	if (hold >= 0 && fsync(hold) && outcome) {
		fserrd_log("fsck-failed", "command", cmd, "error", strerror(errno),
			   "why", "its writes could not be flushed to the device", NULL);
		goto failed;
	}
	if (outcome && !strcmp(outcome, "repaired") && !fserr_fsck_opens_exclusively(program) &&
	    !verify_fsck_fat(d, program, hold))
		goto failed;
	d->state.fsck_failed = !outcome;
	d->held_fd = hold;
	return;
failed:
	d->state.fsck_failed = true;
	d->held_fd = hold;
}

/* Let go of the device before it is mounted back (mount claims it). */
static void release_hold(struct fserrd *d)
{
	if (d->held_fd >= 0)
		close(d->held_fd);
	d->held_fd = -1;
}

/*
 * A filesystem that records its errors on disk (ext2) reports the record
 * again when it is mounted after an fsck that could not clear it: that
 * fault is the one the repair just gave up on, not a new one to repair
 * again (which would loop until the repair limit). It is marked handled,
 * and said so.
 */
static void accept_fault(struct fserrd *d, const struct fserr_fs *fresh)
{
	char ino[32], faults[32], devno[32];

	if (fserr_state_set_handled(&d->state, fresh->ino, fresh->fault_count))
		return;	/* out of memory: the rescan handles it as a new fault */
	snprintf(devno, sizeof(devno), "%u:%u", MAJMIN(fresh->dev));
	fserrd_log("fault-accepted", "dev", devno,
		   "ino", num(ino, sizeof(ino), fresh->ino),
		   "fault_count", num(faults, sizeof(faults), fresh->fault_count),
		   "why", "repair-incomplete", NULL);
}

/* After the mounts are back: log the result, end the repair. */
static void finish_repair(struct fserrd *d, dev_t dev, int failed, const char *how)
{
	struct fserr_fs fresh;
	char buf[32], devno[32];
	bool live = live_superblock(d, dev, &fresh);

	snprintf(devno, sizeof(devno), "%u:%u", MAJMIN(dev));
	if (failed) {
		char why[128];

		snprintf(why, sizeof(why), "%d of its %zu mounts could not be mounted again; "
			 "see the lines above", failed, d->state.nr_mounts);
		fserrd_log("repair-failed", "dev", devno, "how", how, "why", why, NULL);
	} else if (!live) {
		fserrd_log("repair-failed", "dev", devno, "how", how, "why",
			   "no fserr state after mounting again", NULL);
	} else {
		fserrd_log(d->state.fsck_failed ? "repair-incomplete" : "repaired",
			   "dev", devno, "how", how,
			   "mounted", d->state.fsck_failed ? "read-only" : "as-before",
			   "fs_fault", num(buf, sizeof(buf), fresh.fault), NULL);
	}
	fserrd_notify("STATUS=watching; the last repair, of %s: %s", devno,
		      failed || !live ? "failed" :
		      d->state.fsck_failed ? "incomplete" : "repaired");
	/* (also when only some mounts came back) */
	if (live && d->state.fsck_failed && fresh.fault)
		accept_fault(d, &fresh);
	fserr_state_end_repair(&d->state);
	fserrd_save_state(d);
}

/* Put back the mounts of an abandoned repair; the fault stays. */
static void abandon_repair(struct fserrd *d, dev_t dev)
{
	release_hold(d);
	mount_all(&d->state, dev);
	fserr_state_end_repair(&d->state);
	fserrd_save_state(d);
}

/*
 * The options to mount @m with again: its per-mount options (rw or ro as
 * the user mounted it, relatime, nosuid, ...) and the filesystem's own,
 * without the superblock's ro/rw. A superblock that is read-only while
 * the mount is not was made so by the filesystem's errors=remount-ro,
 * whose reason the repair removes. NULL when out of memory.
 */
static char *restore_options(struct libmnt_fs *m)
{
	char *fs_opts, *all = NULL;
	const char *vfs = mnt_fs_get_vfs_options(m), *fso = mnt_fs_get_fs_options(m);

	fs_opts = strdup(fso ? fso : "");
	if (!fs_opts)
		return NULL;
	mnt_optstr_remove_option(&fs_opts, "ro");
	mnt_optstr_remove_option(&fs_opts, "rw");
	if (asprintf(&all, "%s%s%s", vfs ? vfs : "rw", *fs_opts ? "," : "", fs_opts) < 0)
		all = NULL;
	free(fs_opts);
	return all;
}

/*
 * Is the mount @m (its ID, and the same device at the same mount point:
 * IDs are reused) still in this namespace's table?
 */
static bool mount_present(const struct fserr_saved_mount *m, dev_t dev)
{
	struct libmnt_table *tb = fserr_mounts_load(NULL);
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	bool found = false;

	if (!tb || !it) {
		found = true;	/* cannot tell: assume the worst */
	} else {
		while (!found && mnt_table_next_fs(tb, it, &fs) == 0)
			found = mnt_fs_get_id(fs) == m->mnt_id && mnt_fs_get_devno(fs) == dev &&
				mnt_fs_get_target(fs) && !strcmp(mnt_fs_get_target(fs), m->target);
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return found;
}

/*
 * Unmount the saved mount @m; 0, or -1 with the reason in @why. Only the
 * mount the repair recorded: if its mount point shows another mount (one
 * mounted over it), nothing is unmounted. umount2() takes a path, not a
 * descriptor, so the mount table is read again after it: if the recorded
 * mount is still there, what went was something mounted over it in the
 * meantime, and the repair stops. The process whose read met the error
 * often still has the file open for a moment when the fault is seen:
 * EBUSY is retried for up to a second before the repair falls back to
 * remount-ro.
 */
static int unmount_recorded(const struct fserr_saved_mount *m, dev_t dev, char *why,
			    size_t size)
{
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	int tries = 10, fd;

	for (;;) {
		fd = fserrd_open_mount(m->target, m->mnt_id, why, size);
		if (fd < 0)
			return -1;
		close(fd);
		if (!umount2(m->target, UMOUNT_NOFOLLOW))
			break;
		if (errno != EBUSY || !--tries) {
			snprintf(why, size, "cannot unmount %s: %s", m->target, strerror(errno));
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	if (mount_present(m, dev)) {
		snprintf(why, size, "something was mounted over %s while it was being "
			 "unmounted, and was unmounted instead", m->target);
		return -1;
	}
	return 0;
}

static void unpin(struct fserrd *d)
{
	if (d->pin_fd >= 0)
		close(d->pin_fd);
	d->pin_fd = -1;
}

/*
 * The UUID of the volume on @source (device @dev) into the state, and the
 * device pinned (d->pin_fd) until the repair ends. 0, or -1 when the
 * device cannot be opened or has no UUID: a repair could not tell another
 * medium at the same device number from this one.
 */
static int record_volume(struct fserrd *d, const char *source, dev_t dev)
{
	struct stat st;
	int fd = open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	d->state.volume[0] = '\0';
	unpin(d);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != dev ||
	    fserr_volume_uuid(fd, d->state.volume, sizeof(d->state.volume))) {
		close(fd);
		return -1;
	}
	d->pin_fd = fd;
	return 0;
}

/* Is fserrd's state file (its directory) on the filesystem of @dev? */
static bool holds_state_file(struct fserrd *d, dev_t dev)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	int fd;
	bool on_it;

	snprintf(dir, sizeof(dir), "%s", d->state_path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	on_it = !fserr_stat_nosync(fd, &st) && st.st_dev == dev;
	close(fd);
	return on_it;
}

/*
 * What plan_repair() would refuse @f for once it records the mounts (an
 * unsafe mount point, too many mounts, no volume UUID), checked without
 * touching the state: FSERRD_REPAIR_GO if nothing.
 */
static enum fserrd_repair_plan precheck(struct fserrd *d, struct libmnt_table *tb,
					const struct fserrd_fault *f)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	enum fserrd_repair_plan plan = FSERRD_REPAIR_GO;
	struct libmnt_fs *m;
	size_t n = 0;
	char uuid[64];
	struct stat st;
	int fd;

	if (!it)
		return FSERRD_REPAIR_NO_TABLE;
	while (plan == FSERRD_REPAIR_GO && fserr_mounts_next(tb, it, f->fs.dev, &m) == 0) {
		const char *target = mnt_fs_get_target(m);

		if (fserr_mountpoint_check(target, d->repair_why, sizeof(d->repair_why)))
			plan = FSERRD_REPAIR_UNSAFE_TARGET;
		else if (++n > FSERR_STATE_MAX_MOUNTS)
			plan = FSERRD_REPAIR_TOO_MANY_MOUNTS;
	}
	mnt_free_iter(it);
	if (plan != FSERRD_REPAIR_GO)
		return plan;
	fd = open(f->source, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != f->fs.dev ||
	    fserr_volume_uuid(fd, uuid, sizeof(uuid)))
		plan = FSERRD_REPAIR_NO_VOLUME_ID;
	if (fd >= 0)
		close(fd);
	return plan;
}

/*
 * Decide whether the repair of @f goes ahead and, if it does, record every
 * mount of the filesystem and the first step (unmount) in the state, for
 * the save that remembers the fault as handled: a fserrd killed after a
 * save that held the fault but not yet the repair would never repair it.
 */
static enum fserrd_repair_plan plan_repair(struct fserrd *d, const struct fserrd_fault *f)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it;
	struct libmnt_fs *m;
	char *argv[5];
	dev_t dev = f->fs.dev;

	/*
	 * An I/O error of the device (EIO) is not something fsck can mend:
	 * on a failing card it reads metadata that may come back wrong and
	 * writes over what is left. A directory block FAT could not read is
	 * also reported as a corrupted directory (EUCLEAN) after the EIO, so
	 * the EIO can be any of the errors: io_error_count counts them all.
	 */
	if (fserr_fs_io_failed(&f->fs))
		return FSERRD_REPAIR_MEDIA_ERROR;
	if (fserr_state_repairs_since(&d->state, MAJMIN(dev), time(NULL)) >= d->cfg.repair_limit)
		return FSERRD_REPAIR_OVER_LIMIT;
	if (!fserr_fsck_argv(f->fstype, f->source, argv))
		return FSERRD_REPAIR_NO_FSCK;
	/* Nothing is taken down for an fsck that is not there */
	if (!find_program(argv[0], d->repair_why, sizeof(d->repair_why))) {
		snprintf(d->repair_why, sizeof(d->repair_why), "%s", argv[0]);
		return FSERRD_REPAIR_NO_PROGRAM;
	}
	if (!*f->first_mount)
		return FSERRD_REPAIR_NO_ROOT;
	/*
	 * Each step is saved before it runs: with the state file on the
	 * filesystem taken down, the saves would go to the directory under
	 * it, and a fserrd killed meanwhile would lose the repair.
	 */
	if (holds_state_file(d, dev))
		return FSERRD_REPAIR_HOLDS_STATE;

	/* Record every mount of the filesystem before taking any down. */
	tb = fserr_mounts_load(NULL);
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!tb || !it) {
		mnt_free_iter(it);
		mnt_unref_table(tb);
		return FSERRD_REPAIR_NO_TABLE;
	}
	/*
	 * One repair at a time in the state file: a repair carried over a
	 * reboot whose volume is not mounted gives way, and says so, once
	 * this one is sure to go ahead.
	 */
	if (d->carried) {
		enum fserrd_repair_plan why = precheck(d, tb, f);

		if (why != FSERRD_REPAIR_GO) {
			mnt_free_iter(it);
			mnt_unref_table(tb);
			return why;
		}
		fserrd_repair_carried_drop(d, "another filesystem is repaired while its volume "
					   "is not mounted where it was");
		mnt_reset_iter(it, MNT_ITER_FORWARD);
	}
	fserr_state_end_repair(&d->state);
	while (fserr_mounts_next(tb, it, dev, &m) == 0) {
		char *options;
		int ret;

		/*
		 * Mounting back at a path someone else may change would let
		 * her choose where root mounts the medium: no repair then.
		 */
		if (fserr_mountpoint_check(mnt_fs_get_target(m), d->repair_why,
					   sizeof(d->repair_why))) {
			fserr_state_end_repair(&d->state);
			mnt_free_iter(it);
			mnt_unref_table(tb);
			return FSERRD_REPAIR_UNSAFE_TARGET;
		}
		options = restore_options(m);
		ret = options ? fserr_state_add_mount(&d->state, mnt_fs_get_target(m),
						      f->source, f->fstype,
						      mnt_fs_get_root(m) ?: "/", options) : -1;
		free(options);
		if (!ret)
			d->state.mounts[d->state.nr_mounts - 1].mnt_id = mnt_fs_get_id(m);
		if (ret) {
			fserr_state_end_repair(&d->state);
			mnt_free_iter(it);
			mnt_unref_table(tb);
			return FSERRD_REPAIR_TOO_MANY_MOUNTS;
		}
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	if (record_volume(d, f->source, dev)) {
		fserr_state_end_repair(&d->state);
		return FSERRD_REPAIR_NO_VOLUME_ID;
	}
	d->state.step = FSERR_STEP_UNMOUNT;
	/* (saved with it: a file that lost the line is not taken for this boot's) */
	snprintf(d->state.repair_boot, sizeof(d->state.repair_boot), "%s", d->state.boot_id);
	d->state.major = major(dev);
	d->state.minor = minor(dev);
	return FSERRD_REPAIR_GO;
}

void fserrd_repair_prepare(struct fserrd *d, const struct fserr_action *a,
			   const struct fserrd_fault *f)
{
	d->repair_plan = a->policy == FSERR_REPAIR ? plan_repair(d, f) : FSERRD_REPAIR_GO;
}

void fserrd_repair_not_saved(struct fserrd *d)
{
	if (d->repair_plan != FSERRD_REPAIR_GO)
		return;
	unpin(d);
	fserr_state_end_repair(&d->state);
	d->repair_plan = FSERRD_REPAIR_NOT_SAVED;
}

/*
 * Step unmount of a new repair: flush, unmount every mount (the last
 * first), and hold the device from then on. 1 to go on; else the repair
 * cannot go on (busy here or in another namespace, an I/O error): the
 * mounts are back, the repair ended, and the filesystem remounted
 * read-only (0) or not even that (-1).
 */
static int take_down(struct fserrd *d, const struct fserrd_fault *f)
{
	dev_t dev = f->fs.dev;
	char devno[32], msg[PATH_MAX + 1200], why[PATH_MAX + 1024], buf[32];
	struct fserr_fs now;
	int fd, sync_fd;
	ssize_t i;

	snprintf(devno, sizeof(devno), "%u:%u", MAJMIN(dev));
	fserrd_log("repair-start", "dev", devno, "device", f->source,
		   "mountpoints", f->mountpoints, NULL);
	fserrd_notify("STATUS=repairing %s: unmounting", devno);

	/* Flush (through the recorded mount), then unmount, the last mount first. */
	fd = fserrd_open_mount(f->first_mount, f->first_mount_id, why, sizeof(why));
	if (fd >= 0) {
		snprintf(msg, sizeof(msg), "/proc/self/fd/%d", fd);
		sync_fd = open(msg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sync_fd >= 0) {
			syncfs(sync_fd);
			close(sync_fd);
		}
		close(fd);
	}
	/*
	 * The flush may have met a failing device: the media-error rule holds
	 * for what fserr says now, not only for what it said at the fault.
	 */
	if (live_superblock(d, dev, &now) && fserr_fs_io_failed(&now)) {
		fserrd_log("media-error", "dev", devno, "device", f->source,
			   "first_error", fserr_errno_name(now.first_errno),
			   "last_error", fserr_errno_name(now.last_errno),
			   "io_errors", io_errors(buf, sizeof(buf), &now),
			   "when", "flushing before the unmount", "policy", "remount-ro", NULL);
		abandon_repair(d, dev);
		return fserrd_remount_ro(f, "the device returned an I/O error (EIO) while flushing: "
			       "not checked, fsck on a failing medium can make it worse") < 0 ? -1 : 0;
	}
	for (i = d->state.nr_mounts - 1; i >= 0; i--) {
		if (!unmount_recorded(&d->state.mounts[i], dev, why, sizeof(why)))
			continue;
		snprintf(msg, sizeof(msg), "busy: %s; fell back to remount-ro", why);
		fserrd_log("repair-busy", "dev", devno, "mountpoint", d->state.mounts[i].target,
			   "error", why, "policy", "remount-ro", NULL);
		abandon_repair(d, dev);
		return fserrd_remount_ro(f, msg) < 0 ? -1 : 0;
	}
	if (live_superblock(d, dev, NULL)) {
		fserrd_log("repair-busy", "dev", devno, "why",
			   "still mounted elsewhere (another mount namespace)",
			   "policy", "remount-ro", NULL);
		abandon_repair(d, dev);
		return fserrd_remount_ro(f, "busy: still mounted in another mount namespace; "
			       "fell back to remount-ro") < 0 ? -1 : 0;
	}
	/* From here until fsck starts, nobody else can mount it. */
	d->held_fd = hold_device(saved_primary(&d->state)->source, dev, msg, sizeof(msg));
	if (d->held_fd < 0)
		d->held_fd = -1;	/* (check_fs() takes it then) */
	return 1;
}

/*
 * The steps, from the one in the state file: each is saved before it runs
 * and, in a new repair, may be paused at (--pause-before). @f is the fault of a new repair;
 * NULL when fserrd resumes one that an earlier run began, whose filesystem
 * is then not mounted anywhere (fserrd_repair_resume() saw to that).
 */
static int run_steps(struct fserrd *d, const struct fserrd_fault *f)
{
	struct fserr_state *st = &d->state;
	dev_t dev = makedev(st->major, st->minor);
	time_t started = time(NULL);
	int ret;

	for (;;) {
		/* (the tests stop a new repair; the next fserrd resumes it) */
		if (f)
			pause_point(d);
		switch (st->step) {
		case FSERR_STEP_UNMOUNT:
			/* (resumed: nothing of it is mounted any more) */
			if (f && (ret = take_down(d, f)) <= 0)
				return ret;
			st->step = FSERR_STEP_FSCK;
			fserr_state_add_repair(st, MAJMIN(dev), started);
			break;
		case FSERR_STEP_FSCK:
			check_fs(d, saved_primary(st), !f);
			st->step = FSERR_STEP_MOUNT;
			break;
		case FSERR_STEP_MOUNT:
			release_hold(d);
			finish_repair(d, dev, mount_all(st, dev), f ? "repair" : "resumed-repair");
			return 0;
		default:
			return 0;
		}
		fserrd_save_state(d);
	}
}

static int repair(struct fserrd *d, const struct fserrd_fault *f);

int fserrd_repair(struct fserrd *d, const struct fserrd_fault *f)
{
	int ret = repair(d, f);

	unpin(d);
	return ret;
}

static int repair(struct fserrd *d, const struct fserrd_fault *f)
{
	char buf[32], limit[32], devno[32], msg[1100];
	dev_t dev = f->fs.dev;
	unsigned int done;
	time_t now = time(NULL);

	snprintf(devno, sizeof(devno), "%u:%u", MAJMIN(dev));
	switch (d->repair_plan) {
	case FSERRD_REPAIR_GO:
		break;
	case FSERRD_REPAIR_OVER_LIMIT:
		done = fserr_state_repairs_since(&d->state, MAJMIN(dev), now);
		snprintf(msg, sizeof(msg), "repair limit reached: %u repairs of %s in the last hour",
			 done, devno);
		fserrd_log("escalate", "dev", devno, "repairs", num(buf, sizeof(buf), done),
			   "limit", num(limit, sizeof(limit), d->cfg.repair_limit),
			   "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, msg) < 0 ? -1 : 0;
	case FSERRD_REPAIR_MEDIA_ERROR:
		fserrd_log("media-error", "dev", devno, "device", f->source,
			   "first_error", fserr_errno_name(f->fs.first_errno),
			   "last_error", fserr_errno_name(f->fs.last_errno),
			   "io_errors", io_errors(buf, sizeof(buf), &f->fs),
			   "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, "the device returned an I/O error (EIO): "
			       "not checked, fsck on a failing medium can make it worse") < 0 ? -1 : 0;
	case FSERRD_REPAIR_NOT_SAVED:
		fserrd_log("repair-refused", "dev", devno, "why", "the state file could not be saved",
			   "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, "the state file could not be saved") < 0 ? -1 : 0;
	case FSERRD_REPAIR_NO_PROGRAM:
		snprintf(msg, sizeof(msg), "%s is not installed in /usr/sbin, /sbin, /usr/bin or /bin",
			 d->repair_why);
		fserrd_log("repair-unsupported", "type", f->fstype, "why", msg,
			   "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, msg) < 0 ? -1 : 0;
	case FSERRD_REPAIR_HOLDS_STATE:
		fserrd_log("repair-unsupported", "dev", devno, "why",
			   "it holds fserrd's state file", "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, "it holds fserrd's state file") < 0 ? -1 : 0;
	case FSERRD_REPAIR_NO_VOLUME_ID:
		fserrd_log("repair-unsupported", "dev", devno, "device", f->source, "why",
			   "no volume UUID can be read: another medium at the same device number "
			   "could not be told apart", "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, "no volume UUID to tell the medium by") < 0 ? -1 : 0;
	case FSERRD_REPAIR_NO_FSCK:
		fserrd_log("repair-unsupported", "type", f->fstype, "policy", "remount-ro", NULL);
		return fserrd_remount_ro(f, "no fsck for this filesystem type") < 0 ? -1 : 0;
	case FSERRD_REPAIR_NO_ROOT:
		return fserrd_remount_ro(f, "the filesystem root is not mounted in this namespace") < 0 ? -1 : 0;
	case FSERRD_REPAIR_NO_TABLE:
		fserrd_log("repair-failed", "dev", devno, "why", "cannot read the mount table", NULL);
		return -1;
	case FSERRD_REPAIR_TOO_MANY_MOUNTS:
		return fserrd_remount_ro(f, "too many mounts to record for a repair") < 0 ? -1 : 0;
	case FSERRD_REPAIR_UNSAFE_TARGET:
		fserrd_log("repair-unsafe", "dev", devno, "why", d->repair_why,
			   "policy", "remount-ro", NULL);
		snprintf(msg, sizeof(msg), "unsafe mount point: %s", d->repair_why);
		return fserrd_remount_ro(f, msg) < 0 ? -1 : 0;
	}
	/* The state file holds the first step since the fault was saved. */
	return run_steps(d, f);
}

static bool other_ino(unsigned long long ino, void *data)
{
	return ino != (unsigned long long)*(ino_t *)data;
}

void fserrd_repair_resume(struct fserrd *d)
{
	struct fserr_state *st = &d->state;
	const struct fserr_saved_mount *primary = saved_primary(st);
	dev_t dev = makedev(st->major, st->minor);
	char devno[32];
	struct fserr_fs live;

	/* (a repair of another boot: fserrd_repair_carried()) */
	if (st->step == FSERR_STEP_NONE || d->carried)
		return;
	snprintf(devno, sizeof(devno), "%u:%u", st->major, st->minor);
	if (!primary) {
		fserrd_log("repair-dropped", "dev", devno, "step", fserr_step_name(st->step),
			   "why", "the state file names no mount of the filesystem root", NULL);
		fserr_state_end_repair(st);
		fserrd_save_state(d);
		return;
	}
	fserrd_log("repair-resume", "dev", devno, "step", fserr_step_name(st->step),
		   "device", primary->source, "mountpoint", primary->target, NULL);
	if (st->step == FSERR_STEP_MOUNT && live_superblock(d, dev, &live)) {
		/*
		 * fsck ran and the filesystem is mounted again: killed while
		 * the mounts came back. Mount the rest and finish.
		 */
		release_hold(d);
		finish_repair(d, dev, mount_all(st, dev), "resumed-repair");
		return;
	}
	if (live_superblock(d, dev, &live)) {
		/*
		 * Not every mount came down (or it was mounted again): mount
		 * the rest and forget that the fault was handled, so that
		 * the rescan repairs it from the start.
		 */
		fserr_state_keep_handled(st, other_ino, &live.ino);
		abandon_repair(d, dev);
		fserrd_log("repair-restart", "dev", devno, "why",
			   "the filesystem was still mounted; the fault is handled again", NULL);
		return;
	}
	/* Nothing of it is mounted: the steps from the saved one */
	run_steps(d, NULL);
}

void fserrd_repair_after_reboot(struct fserrd *d, bool expired)
{
	const struct fserr_saved_mount *primary = saved_primary(&d->state);
	char devno[32];

	if (d->state.step == FSERR_STEP_NONE)
		return;
	snprintf(devno, sizeof(devno), "%u:%u", d->state.major, d->state.minor);
	fserrd_log("repair-interrupted-by-reboot", "dev", devno,
		   "step", fserr_step_name(d->state.step),
		   "volume", d->state.volume[0] ? d->state.volume : "-",
		   "device", primary ? primary->source : "-",
		   "mountpoint", primary ? primary->target : "-", NULL);
	d->carried = true;
	d->carried_waiting = false;
	d->carried_step = d->state.step;
	/*
	 * Without the volume's UUID (a state file of fserrd before 0.5)
	 * nothing tells which medium it was: the device number or name may
	 * be another's after a reboot.
	 */
	if (!d->state.volume[0] || !primary)
		fserrd_repair_carried_drop(d, "no volume UUID saved: the medium cannot be told "
					   "after a reboot");
	else if (expired)
		fserrd_repair_carried_drop(d, "its volume was not mounted where it was, during "
					   "the whole boot after the one the repair began in");
	else
		/* (this boot's file now: a reboot before the repair ends expires it) */
		fserrd_save_state(d);
}

void fserrd_repair_carried_drop(struct fserrd *d, const char *why)
{
	char devno[32];

	snprintf(devno, sizeof(devno), "%u:%u", d->state.major, d->state.minor);
	fserrd_log("repair-dropped", "dev", devno, "step", fserr_step_name(d->carried_step),
		   "volume", d->state.volume[0] ? d->state.volume : "-", "why", why,
		   "advice", "check the filesystem and its mount", NULL);
	d->carried = false;
	fserr_state_end_repair(&d->state);
	fserrd_save_state(d);
}

bool fserrd_repair_carried_done(struct fserrd *d)
{
	const struct fserr_saved_mount *primary = saved_primary(&d->state);
	char devno[32];

	if (!d->carried || d->carried_step != FSERR_STEP_MOUNT || d->state.fsck_failed)
		return false;
	/*
	 * fsck ended and repaired it before the reboot, and its work was
	 * flushed to the device before this step was saved: the volume is as
	 * fsck left it, and this boot mounts it as it mounts it. The mounts
	 * of the boot before are not made again.
	 */
	snprintf(devno, sizeof(devno), "%u:%u", d->state.major, d->state.minor);
	fserrd_log("repaired", "dev", devno, "how", "after-reboot",
		   "volume", d->state.volume, "device", primary ? primary->source : "-",
		   "mounted", "as-this-boot-mounts-it", NULL);
	d->carried = false;
	fserr_state_end_repair(&d->state);
	fserrd_save_state(d);
	return true;
}

bool fserrd_repair_carried_match(struct fserrd *d, struct libmnt_table *tb,
				 const struct fserrd_fault *f)
{
	const struct fserr_saved_mount *primary = saved_primary(&d->state);
	struct libmnt_iter *it;
	struct libmnt_fs *m;
	bool there = false, same;
	char uuid[64];
	struct stat st;
	int fd;

	if (!d->carried || !primary || !*f->first_mount || strcmp(f->fstype, primary->fstype))
		return false;
	/*
	 * Where the repaired volume's root was mounted: a place root chose
	 * (fstab, a unit), which a user who gives a medium of hers the
	 * same UUID cannot mount on.
	 */
	it = mnt_new_iter(MNT_ITER_FORWARD);
	while (it && !there && fserr_mounts_next(tb, it, f->fs.dev, &m) == 0)
		there = mnt_fs_get_root(m) && !strcmp(mnt_fs_get_root(m), "/") &&
			mnt_fs_get_target(m) && !strcmp(mnt_fs_get_target(m), primary->target);
	mnt_free_iter(it);
	if (!there)
		return false;
	fd = open(f->source, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	same = !fstat(fd, &st) && S_ISBLK(st.st_mode) && st.st_rdev == f->fs.dev &&
	       !fserr_volume_uuid(fd, uuid, sizeof(uuid)) && !strcmp(uuid, d->state.volume);
	close(fd);
	return same;
}

int fserrd_repair_carried(struct fserrd *d, const struct fserr_action *a,
			  const struct fserrd_fault *f)
{
	const struct fserr_action repair_it = { .policy = FSERR_REPAIR };
	char devno[32], was[32], why[160];

	snprintf(devno, sizeof(devno), "%u:%u", MAJMIN(f->fs.dev));
	snprintf(was, sizeof(was), "%u:%u", d->state.major, d->state.minor);
	if (d->carried_step == FSERR_STEP_MOUNT && d->state.fsck_failed) {
		/* (what the repair would have ended with: mounted read-only) */
		fserrd_log("repair-incomplete", "dev", devno, "how", "after-reboot",
			   "volume", d->state.volume, "was-dev", was, "device", f->source,
			   "mountpoints", f->mountpoints,
			   "why", "fsck could not repair it before the reboot", NULL);
		d->carried = false;
		fserr_state_end_repair(&d->state);
		fserrd_save_state(d);
		return fserrd_remount_ro(f, "fsck could not repair it before the reboot") < 0 ? -1 : 0;
	}
	if (a->policy != FSERR_REPAIR && a->policy != FSERR_REMOUNT_RO) {
		snprintf(why, sizeof(why), "the policy for its mounts is now %s",
			 fserr_policy_name(a->policy));
		fserrd_repair_carried_drop(d, why);
		return 1;
	}
	fserrd_log("repair-resume", "dev", devno, "step", fserr_step_name(d->carried_step),
		   "after", "reboot", "volume", d->state.volume, "was-dev", was,
		   "device", f->source, "mountpoints", f->mountpoints,
		   "policy", fserr_policy_name(a->policy),
		   "why", "fsck had not ended before the reboot", NULL);
	d->carried = false;
	fserr_state_end_repair(&d->state);
	if (a->policy == FSERR_REMOUNT_RO) {
		fserrd_save_state(d);
		return fserrd_remount_ro(f, "a repair cut by a reboot, under policy remount-ro now") < 0 ?
		       -1 : 0;
	}
	fserrd_repair_prepare(d, &repair_it, f);
	/* (a plan that does not go ahead saves the carried repair as ended) */
	if (fserrd_save_state(d))
		fserrd_repair_not_saved(d);
	return fserrd_repair(d, f);
}
