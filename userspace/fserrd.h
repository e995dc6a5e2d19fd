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

struct fserrd {
	struct fserr_config cfg;
	struct fserr_state state;
	const char *state_path;
	const char *sysfs_fs;
	/* Testing aid: stop (SIGSTOP) before this repair step, once. */
	enum fserr_repair_step pause_before;
};

/* Stop here if the repair step in the state is the one to pause before. */
void fserrd_pause_point(struct fserrd *d);

/*
 * One structured log line on stderr: "TIME fserrd: WHAT key=value ...".
 * Values with spaces, quotes or control characters are quoted C-style.
 */
void fserrd_log(const char *what, ...) __attribute__((sentinel));

/* Save the state file; a failure is logged, the daemon goes on. */
void fserrd_save_state(struct fserrd *d);

/* Run the policy @a on @f. */
void fserrd_act(struct fserrd *d, const struct fserr_action *a,
		const struct fserrd_fault *f);

/* Finish or report a repair that an earlier run did not complete. */
void fserrd_resume(struct fserrd *d);

#endif
