// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "fsck.h"

bool fserr_fsck_argv(const char *fstype, const char *device, char *argv[5])
{
	int n = 0;

	if (!strcmp(fstype, "vfat") || !strcmp(fstype, "msdos")) {
		argv[n++] = "fsck.fat";
		argv[n++] = "-a";
		argv[n++] = "-w";
	} else if (!strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") ||
		   !strcmp(fstype, "ext4")) {
		/* -f: the kernel saw an error, check even if the fs says clean */
		argv[n++] = "e2fsck";
		argv[n++] = "-p";
		argv[n++] = "-f";
	} else if (!strcmp(fstype, "exfat")) {
		/* exfatprogs: -p repairs what is safe without asking */
		argv[n++] = "fsck.exfat";
		argv[n++] = "-p";
	} else {
		return false;
	}
	argv[n++] = (char *)device;
	argv[n] = NULL;
	return true;
}

void fserr_fsck_command(char *const argv[], char *buf, size_t size)
{
	size_t used = 0;
	int i, n;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; argv[i] && used < size; i++) {
		n = snprintf(buf + used, size - used, "%s%s", i ? " " : "", argv[i]);
		if (n < 0)
			break;
		used += n;
	}
}

bool fserr_fsck_opens_exclusively(const char *program)
{
	const char *name = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;

	return !strcmp(name, "e2fsck") || !strcmp(name, "fsck.exfat");
}

/*
 * fsck.fat: 0 nothing found, 1 errors found (and, with -a, fixed), 2 and up
 * a usage or operational error. e2fsck's status is a bit mask: 1 errors
 * corrected, 2 corrected and the system should be rebooted (3 is both), 4
 * errors left uncorrected, 8 operational error, 16 usage, 32 cancelled,
 * 128 shared library error. fsck.exfat uses e2fsck's values.
 */
const char *fserr_fsck_outcome(const char *program, int status, bool timed_out)
{
	const char *name = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
	int code;

	if (timed_out || !WIFEXITED(status))
		return NULL;
	code = WEXITSTATUS(status);
	if (code == 0)
		return "clean";
	if (!strcmp(name, "fsck.fat"))
		return code == 1 ? "repaired" : NULL;
	return (code & ~3) == 0 ? "repaired" : NULL;
}
