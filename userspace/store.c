// SPDX-License-Identifier: GPL-2.0
/*
 * fserrd's state file: the faults it handled and the repair in progress
 * (lib/state.c reads and writes it), loaded at start and saved by the
 * scans and by every step of a repair.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fserrd.h"

int fserrd_save_state(struct fserrd *d)
{
	int err = fserr_state_save(d->state_path, &d->state);

	if (err)
		fserrd_log("state-not-saved", "file", d->state_path, "error", strerror(-err), NULL);
	return err;
}

static void say_lost(unsigned int lineno, const char *line, const char *why, void *data)
{
	char num[16];

	(void)data;
	snprintf(num, sizeof(num), "%u", lineno);
	fserrd_log("state-line-dropped", "line", num, "text", line, "why", why, NULL);
}

/*
 * The loaded state made this boot's (@boot_id); what its repair in
 * progress is: 0 this boot's (or none), 1 another boot's, 2 another
 * boot's that was already carried through a whole boot after it.
 */
static int this_boot(struct fserr_state *st, const char *boot_id)
{
	bool file_other = strcmp(st->boot_id, boot_id);
	int ret = 0;

	/*
	 * Every repair is saved with the boot it began in. Without that line
	 * (a damaged file) it is taken for the file's boot if that is
	 * another, else for an unknown one: never for this boot's, whose
	 * resume would mount at the mount points the file names.
	 */
	if (st->step != FSERR_STEP_NONE && !st->repair_boot[0])
		snprintf(st->repair_boot, sizeof(st->repair_boot), "%s",
			 file_other && st->boot_id[0] ? st->boot_id : "unknown");
	if (st->step != FSERR_STEP_NONE && strcmp(st->repair_boot, boot_id))
		/* (saved in a boot after the one it began in: waited a whole boot) */
		ret = file_other && strcmp(st->boot_id, st->repair_boot) ? 2 : 1;
	/* Another boot: its directories and mounts are gone. */
	if (file_other)
		st->nr_handled = 0;
	snprintf(st->boot_id, sizeof(st->boot_id), "%s", boot_id);
	return ret;
}

int fserrd_load_state(struct fserrd *d, const char *boot_id)
{
	char err[256] = "", damaged[PATH_MAX + 16], what[64];
	int ret, dropped;
	char *text = fserr_state_read(d->state_path, &ret, err, sizeof(err));

	if (!text && ret == -ENOENT)
		return 0;
	if (!text) {
		/* Not trusted, not touched: the next save replaces it */
		fserrd_log("state-refused", "file", d->state_path,
			   "error", *err ? err : strerror(-ret), NULL);
		fserr_state_init(&d->state, boot_id);
		return 0;
	}
	if (fserr_state_parse(text, &d->state, err, sizeof(err))) {
		/*
		 * Keep what can be read: the faults handled, the repair
		 * limit's history, the repair in progress (which is
		 * finished or undone). What was lost is said; the file is
		 * kept beside for a human.
		 */
		dropped = fserr_state_salvage(text, &d->state, err, sizeof(err), say_lost, NULL);
		snprintf(damaged, sizeof(damaged), "%s.damaged", d->state_path);
		rename(d->state_path, damaged);
		if (dropped < 0) {
			fserr_state_init(&d->state, boot_id);
			snprintf(what, sizeof(what), "everything");
		} else {
			snprintf(what, sizeof(what), "%d line%s", dropped, dropped == 1 ? "" : "s");
		}
		fserrd_log("state-damaged", "file", d->state_path, "error", err,
			   "dropped", what, "kept", dropped < 0 ? "nothing" :
			   d->state.step != FSERR_STEP_NONE ? "the rest, with the repair in progress" :
			   "the rest", "moved-to", damaged, NULL);
		if (dropped >= 0)
			fserrd_save_state(d);
	}
	free(text);
	return this_boot(&d->state, boot_id);
}
