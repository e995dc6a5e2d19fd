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
#include <string.h>

#include "fserrd.h"

int fserrd_save_state(struct fserrd *d)
{
	int err = fserr_state_save(d->state_path, &d->state);

	if (err)
		fserrd_log("state-not-saved", "file", d->state_path, "error", strerror(-err), NULL);
	return err;
}

int fserrd_load_state(struct fserrd *d, const char *boot_id)
{
	char err[256] = "", damaged[PATH_MAX + 16];
	int ret = fserr_state_load(d->state_path, &d->state, err, sizeof(err));

	if (ret == -ENOENT)
		return 0;
	if (ret) {
		snprintf(damaged, sizeof(damaged), "%s.damaged", d->state_path);
		rename(d->state_path, damaged);
		fserrd_log("state-damaged", "file", d->state_path,
			   "error", *err ? err : strerror(-ret), "moved-to", damaged, NULL);
		fserr_state_init(&d->state, boot_id);
		return 0;
	}
	if (!strcmp(d->state.boot_id, boot_id))
		return 0;
	/* Another boot: its directories and mounts are gone. */
	d->state.nr_handled = 0;
	snprintf(d->state.boot_id, sizeof(d->state.boot_id), "%s", boot_id);
	return 1;
}
