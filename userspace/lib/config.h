/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy configuration of fserrd: which action a faulted filesystem
 * gets, chosen by mount point, then by filesystem type, then the default.
 *
 *   # comment
 *   default log
 *   match fstype vfat repair
 *   match mountpoint /media/sd exec /usr/local/bin/tell-admin --urgent
 *   repair-limit 3          # repairs per device per hour, then remount-ro
 *   exec-timeout 30         # seconds an exec policy may run
 *   fsck-timeout 600        # seconds fsck may run (0: no limit)
 *
 * Words are separated by blanks; '#' outside quotes starts a comment.
 * '...' and "..." quote (in "...", \" and \\ stand for " and \).
 *
 * A configuration with any error is refused whole, with the file name and
 * line number of the first error; nothing of it is applied.
 */
#ifndef FSERR_CONFIG_H
#define FSERR_CONFIG_H

#include <stddef.h>

enum fserr_policy { FSERR_LOG, FSERR_EXEC, FSERR_REMOUNT_RO, FSERR_REPAIR };

#define FSERR_MAX_RULES 64
#define FSERR_MAX_ARGS 16

struct fserr_action {
	enum fserr_policy policy;
	char *argv[FSERR_MAX_ARGS + 1];	/* exec: program and arguments */
};

struct fserr_rule {
	enum { MATCH_FSTYPE, MATCH_MOUNTPOINT } kind;
	char *value;
	struct fserr_action action;
};

struct fserr_config {
	struct fserr_action fallback;	/* "default" */
	struct fserr_rule rules[FSERR_MAX_RULES];
	size_t nr_rules;
	unsigned int repair_limit;	/* per device per hour */
	unsigned int exec_timeout;	/* seconds */
	unsigned int fsck_timeout;	/* seconds, 0 for none */
};

/* The built-in configuration: log everything, 3 repairs/hour, exec 30 s, fsck 600 s. */
void fserr_config_init(struct fserr_config *cfg);

/*
 * Parse @text (the contents of @name) into @cfg. On error returns -1, fills
 * @err with "NAME:LINE: what is wrong" and leaves @cfg as it was.
 */
int fserr_config_parse(const char *name, const char *text,
		       struct fserr_config *cfg, char *err, size_t errlen);

/*
 * The text of the file @path, malloc()ed; NULL with "PATH: why" in @err
 * if it cannot be read or is not text (a NUL byte).
 */
char *fserr_config_read(const char *path, char *err, size_t errlen);

/* Read and parse the file @path, as fserr_config_parse(). */
int fserr_config_load(const char *path, struct fserr_config *cfg,
		      char *err, size_t errlen);

/*
 * The action for a filesystem of type @fstype mounted at @mountpoints: that
 * of the first "match mountpoint" rule in the file that names one of them,
 * else that of the first "match fstype" rule for @fstype, else the default.
 * The order of @mountpoints does not matter.
 */
const struct fserr_action *fserr_config_choose(const struct fserr_config *cfg,
					       const char *fstype,
					       const char *const *mountpoints,
					       size_t nr_mountpoints);

/* As fserr_config_choose(), for one mount point (or none: NULL). */
const struct fserr_action *fserr_config_action(const struct fserr_config *cfg,
					       const char *fstype,
					       const char *mountpoint);

const char *fserr_policy_name(enum fserr_policy policy);

void fserr_config_free(struct fserr_config *cfg);

#endif
