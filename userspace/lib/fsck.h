/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which fsck checks a filesystem type, and what its exit status means.
 */
#ifndef FSERR_FSCK_H
#define FSERR_FSCK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The fsck command for @fstype on @device, to run unattended: fsck.fat
 * -a -w for vfat and msdos, e2fsck -p -f for ext2, ext3 and ext4,
 * fsck.exfat -p for exfat. argv[0] is the program's name, not its path.
 * false for any other type.
 */
bool fserr_fsck_argv(const char *fstype, const char *device, char *argv[5]);

/*
 * The command line of @argv (as fserr_fsck_argv() made it, NULL-terminated)
 * for a log line: its words joined by spaces, cut to fit @size.
 */
void fserr_fsck_command(char *const argv[], char *buf, size_t size);

/*
 * Does @program (a name or a path) open the device exclusively itself?
 * e2fsck and fsck.exfat do (O_EXCL), fsck.fat does not: fserrd keeps its
 * own exclusive hold on the device while fsck.fat runs, and must let go of
 * it for the others.
 */
bool fserr_fsck_opens_exclusively(const char *program);

/*
 * What @program's wait status @status means: "clean", "repaired", or NULL
 * when it could not repair the filesystem (or was killed, or timed out).
 * @program may be a path; its last component is compared.
 */
const char *fserr_fsck_outcome(const char *program, int status, bool timed_out);

#endif
