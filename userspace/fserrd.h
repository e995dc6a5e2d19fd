/* SPDX-License-Identifier: GPL-2.0 */
/* fserrd's parts: the main loop (fserrd.c) and the policies (policy.c). */
#ifndef FSERRD_H
#define FSERRD_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/config.h"
#include "lib/fsstate.h"
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
	char any_mount[PATH_MAX];	/* the first mount, "" if none */
};

/* What fserrd_prepare() decided for a repair */
enum fserrd_repair_plan {
	FSERRD_REPAIR_GO,
	FSERRD_REPAIR_OVER_LIMIT,	/* escalated to remount-ro */
	FSERRD_REPAIR_NO_FSCK,		/* remount-ro */
	FSERRD_REPAIR_NO_PROGRAM,	/* remount-ro: repair_why names the fsck */
	FSERRD_REPAIR_NO_ROOT,		/* remount-ro */
	FSERRD_REPAIR_NO_TABLE,		/* nothing done */
	FSERRD_REPAIR_TOO_MANY_MOUNTS,	/* remount-ro */
	FSERRD_REPAIR_UNSAFE_TARGET,	/* remount-ro: repair_why says why */
	FSERRD_REPAIR_NOT_SAVED,	/* remount-ro: the state file cannot be written */
};

struct fserrd {
	struct fserr_config cfg;
	struct fserr_state state;
	const char *state_path;
	const char *sysfs_fs;
	/* Testing aid: stop (SIGSTOP) before this repair step, once. */
	enum fserr_repair_step pause_before;
	enum fserrd_repair_plan repair_plan;
	char repair_why[1024];		/* FSERRD_REPAIR_UNSAFE_TARGET, _NO_PROGRAM */
	/* The device of the repair, held exclusively from unmount to fsck, or -1 */
	int held_fd;
};

/* Stop here if the repair step in the state is the one to pause before. */
void fserrd_pause_point(struct fserrd *d);

/*
 * One structured log line on stderr: "TIME fserrd: WHAT key=value ...".
 * Values with spaces, quotes or control characters are quoted C-style.
 * Started by systemd with libsystemd, a journal entry with fields instead
 * (lib/journal.h).
 */
void fserrd_log(const char *what, ...) __attribute__((sentinel));

/* Tell systemd (sd_notify()) "READY=1", "STATUS=...": nothing without it. */
void fserrd_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Save the state file; a failure is logged and returned (-errno). */
int fserrd_save_state(struct fserrd *d);

/*
 * Before the save that remembers @f as handled: a repair that goes ahead
 * records its mounts and first step in the state, so that the same save
 * holds them. Then fserrd_act() runs the policy.
 */
void fserrd_prepare(struct fserrd *d, const struct fserr_action *a,
		    const struct fserrd_fault *f);

/* Run the policy @a on @f (after fserrd_prepare() and a save). */
void fserrd_act(struct fserrd *d, const struct fserr_action *a,
		const struct fserrd_fault *f);

/* Finish or report a repair that an earlier run did not complete. */
void fserrd_resume(struct fserrd *d);

#endif
