/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fserrd's parts: the event loop and the scans (fserrd.c), the policies
 * exec and remount-ro with what they share with the repair (policy.c), the
 * repair's state machine (repair.c), the state file (store.c) and the log
 * (log.c). The calls go one way: fserrd.c calls the others, repair.c
 * calls policy.c, store.c and log.c, policy.c and store.c call log.c.
 */
#ifndef FSERRD_H
#define FSERRD_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/config.h"
#include "lib/fsstate.h"
#include "lib/monitor.h"
#include "lib/state.h"

/* A fault, as the policies see it. */
struct fserrd_fault {
	struct fserr_fs fs;
	char fstype[32];	/* from the mount table, else the fserr family */
	char source[PATH_MAX];	/* the device, from the mount table */
	/* "" when not mounted here; escaped as fserr_mounts_of() says */
	char mountpoints[4096];	/* comma-separated */
	char mountpoints_nl[4096];	/* the same, one per line */
	char first_mount[PATH_MAX];	/* the mount of the fs root, "" if none */
	/* the first one's mount ID (mountinfo's first field, statx's stx_mnt_id) */
	int first_mount_id;
};

/* What fserrd_repair_prepare() decided for a repair */
enum fserrd_repair_plan {
	FSERRD_REPAIR_GO,
	FSERRD_REPAIR_MEDIA_ERROR,	/* remount-ro: the device failed I/O */
	FSERRD_REPAIR_OVER_LIMIT,	/* escalated to remount-ro */
	FSERRD_REPAIR_NO_FSCK,		/* remount-ro */
	FSERRD_REPAIR_NO_PROGRAM,	/* remount-ro: repair_why names the fsck */
	FSERRD_REPAIR_NO_ROOT,		/* remount-ro */
	FSERRD_REPAIR_NO_TABLE,		/* nothing done */
	FSERRD_REPAIR_TOO_MANY_MOUNTS,	/* remount-ro */
	FSERRD_REPAIR_UNSAFE_TARGET,	/* remount-ro: repair_why says why */
	FSERRD_REPAIR_NOT_SAVED,	/* remount-ro: the state file cannot be written */
	FSERRD_REPAIR_HOLDS_STATE,	/* remount-ro: the state file is on it */
	FSERRD_REPAIR_NO_VOLUME_ID,	/* remount-ro: no UUID to tell the medium by */
};

struct watch;

/* The daemon: its policy, its state file, its channels, the repair. */
struct fserrd {
	struct fserr_config cfg;
	struct fserr_state state;
	const char *state_path;
	const char *sysfs_fs;
	/* the channels (fserrd.c) */
	int channels;		/* CH_*: the ones to listen on */
	enum fserr_monitor_source uevent_source;	/* --uevents */
	struct fserr_monitor *uevents;	/* or NULL */
	int mountinfo_fd, fanotify_fd;
	struct watch *watches;	/* fs_fault of each filesystem, and its mark */
	size_t nr_watches;
	/* the repair (repair.c) */
	enum fserrd_repair_plan repair_plan;
	char repair_why[1024];		/* FSERRD_REPAIR_UNSAFE_TARGET, _NO_PROGRAM */
	/* The device of the repair, held exclusively from the unmount to the mount back, or -1 */
	int held_fd;
	/*
	 * The device again, open (not exclusively) from the plan to the end
	 * of the repair, or -1: a loop device stays bound to its file while
	 * it is open (no autoclear, LOOP_CLR_FD deferred), so no other medium
	 * can take the device number in between.
	 */
	int pin_fd;
	/* Testing aid: stop (SIGSTOP) before this repair step, once. */
	enum fserr_repair_step pause_before;
	/* Testing aid: stop before the next remount-ro of a new fault, once. */
	bool pause_remount;
	/*
	 * The state file's repair is of another boot (fserrd_repair_after_reboot()):
	 * carried until its volume is found mounted; its step before the reboot,
	 * and whether fserrd said that it waits for the volume.
	 */
	bool carried, carried_waiting;
	enum fserr_repair_step carried_step;
	/* a fault was deferred (no mount table, no memory): scan again after retry_secs */
	bool retry;
	unsigned int retry_secs;
};

/* --- log.c ---------------------------------------------------------------- */

/*
 * One structured log line on stderr: "TIME fserrd: WHAT key=value ...".
 * Values with spaces, quotes or control characters are quoted C-style.
 * Started by systemd with libsystemd, a journal entry with fields instead
 * (lib/journal.h).
 */
void fserrd_log(const char *what, ...) __attribute__((sentinel));

/* Tell systemd (sd_notify()) "READY=1", "STATUS=...": nothing without it. */
void fserrd_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- store.c -------------------------------------------------------------- */

/* Save the state file; a failure is logged and returned (-errno). */
int fserrd_save_state(struct fserrd *d);

/*
 * Load the state file: a damaged one is moved aside (and said so); one of
 * another boot keeps only the repair limit's history and the repair it
 * was in. 1 when the repair in progress began in another boot (for
 * fserrd_repair_after_reboot(); the file says so with a repair-boot line
 * once it is saved in this boot), 2 when it has waited through a whole
 * boot after that one already; else 0.
 */
int fserrd_load_state(struct fserrd *d, const char *boot_id);

/* --- policy.c ------------------------------------------------------------- */

/*
 * Run the policy exec or remount-ro on @f (log: nothing; repair: repair.c).
 * -1 if remount-ro could not be done (the fault is then tried again), else 0.
 */
int fserrd_act(struct fserrd *d, const struct fserr_action *a,
	       const struct fserrd_fault *f);

/*
 * Make @f's filesystem read-only, saying @why: through one of its mounts
 * in the mount table as it is now (the root's first), its ID checked at
 * its mount point, never through whatever was mounted over it. 0; 1 if it
 * is not mounted in this namespace; -1 if it could not be done (logged).
 */
int fserrd_remount_ro(const struct fserrd_fault *f, const char *why);

/*
 * An O_PATH descriptor of @target if it shows the mount @mnt_id (statx's
 * STATX_MNT_ID), opened without following a symbolic link; -1 with the
 * reason in @why if it shows another mount (one mounted over it) or none.
 */
int fserrd_open_mount(const char *target, int mnt_id, char *why, size_t size);

/* fserrd_run(): the program gets no capability and sees every mount read-only (fsck) */
#define FSERRD_RUN_NO_CAPS 0x1

/*
 * Run @argv (an absolute path) with @env added to a minimal environment
 * (PATH only), stdin from /dev/null, stdout to stderr, @keep_fd (if >= 0)
 * as descriptor 3 and no other, in a process group of its own, with no
 * new privileges (and no capability with FSERRD_RUN_NO_CAPS in @flags);
 * killed with its group after @timeout seconds (0: never). 0 with @status
 * (and @timed_out), or -errno if it did not start.
 */
int fserrd_run(char *const argv[], char *const env[], int keep_fd, unsigned int flags,
	       unsigned int timeout, int *status, bool *timed_out);

/* Why a program ended, as text ("exit 1", "killed after the timeout"). */
void fserrd_describe_status(int status, bool timed_out, char *buf, size_t size);

/* mount(8)'s work through libmount; the error, as text, in @msg. */
int fserrd_do_mount(const char *source, const char *target, const char *fstype,
		    const char *options, int optmode, char *msg, size_t size);

/* --- repair.c ------------------------------------------------------------- */

/*
 * Before the save that remembers @f as handled: a repair that goes ahead
 * records its mounts and first step in the state, so that the same save
 * holds them. If that save fails, fserrd_repair_not_saved(): a repair a
 * killed fserrd could not finish does not start (remount-ro instead).
 */
void fserrd_repair_prepare(struct fserrd *d, const struct fserr_action *a,
			   const struct fserrd_fault *f);
void fserrd_repair_not_saved(struct fserrd *d);

/*
 * Repair @f, as fserrd_repair_prepare() planned it. -1 when the repair
 * did not go ahead and its fallback, remount-ro, could not be done either
 * (the fault is then tried again), else 0.
 */
int fserrd_repair(struct fserrd *d, const struct fserrd_fault *f);

/* Finish or report a repair that an earlier run of this boot did not complete. */
void fserrd_repair_resume(struct fserrd *d);

/*
 * The repair in progress began in another boot, cut (a power loss, a
 * crash) in the middle of it: it is carried over (d->carried) until
 * fserrd_repair_carried() finishes it, for the rest of the first boot
 * after the cut; @expired (it waited through that boot already): dropped.
 */
void fserrd_repair_after_reboot(struct fserrd *d, bool expired);

/*
 * The carried repair, if its fsck had already ended and repaired the
 * volume before the reboot: finished (logged, the state saved), nothing
 * to check again; true then.
 */
bool fserrd_repair_carried_done(struct fserrd *d);

/*
 * Is @f, a filesystem mounted now (@tb), the volume of the carried
 * repair: the same type and UUID, and its root mounted where the repaired
 * one's was?
 */
bool fserrd_repair_carried_match(struct fserrd *d, struct libmnt_table *tb,
				 const struct fserrd_fault *f);

/* Drop the carried repair, said with @why. */
void fserrd_repair_carried_drop(struct fserrd *d, const char *why);

/*
 * Act on @f, the carried repair's volume as this boot mounted it, under
 * @a, the policy for its mounts now: repair, a new repair of its mounts
 * of now (the boot's), from the unmount (the mounts of the boot before
 * are gone with it); remount-ro, or an fsck that could not repair it
 * before the reboot, remount-ro whatever the policy; any other policy
 * drops the repair and returns 1 (nothing done: a fault of @f is the
 * policy's to handle). Else as fserrd_repair() returns.
 */
int fserrd_repair_carried(struct fserrd *d, const struct fserr_action *a,
			  const struct fserrd_fault *f);

/* --pause-before STEP (unmount, fsck or mount): 0, or -1 for another word. */
int fserrd_repair_pause_before(struct fserrd *d, const char *step);

#endif
