/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fserrd must remember across a restart (its state file):
 *
 *  - the faults it has handled, so it never handles one twice: a fault is
 *    the fserr directory's inode number (new for every mount) and the
 *    fault_count it read (new for every 0->1 raise), in one boot;
 *  - when it repaired which device, for the repair limit;
 *  - the repair in progress, written before each step, so that a daemon
 *    killed mid-repair finishes it (or says why not) when it starts again.
 *
 * The file is text, one record per line, and is replaced atomically
 * (written to a temporary file, synced, renamed). Paths are escaped as in
 * mountinfo (\040 for a space), so a record never spans lines.
 */
#ifndef FSERR_STATE_H
#define FSERR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define FSERR_STATE_MAX_MOUNTS 16

struct fserr_handled {
	unsigned long long ino;
	unsigned long long fault_count;
};

struct fserr_repair_time {
	unsigned int major, minor;
	time_t when;
};

/* A mount the repair took down and must put back. */
struct fserr_saved_mount {
	char *target;
	char *source;
	char *fstype;
	char *root;		/* "/" for the filesystem's root, else a bind mount */
	char *options;		/* as mountinfo shows them, VFS and fs options */
	int mnt_id;		/* its mount ID when recorded; not saved (0 after a load) */
};

enum fserr_repair_step {
	FSERR_STEP_NONE,
	FSERR_STEP_UNMOUNT,	/* about to unmount */
	FSERR_STEP_FSCK,	/* unmounted, about to check */
	FSERR_STEP_MOUNT,	/* checked, about to mount again */
};

struct fserr_state {
	char boot_id[40];
	/*
	 * Grows with what is mounted: an entry is dropped only when a
	 * complete scan no longer finds its directory, never to make room.
	 */
	struct fserr_handled *handled;
	size_t nr_handled, cap_handled;
	/*
	 * The repairs of the last hour, of every device: as many as the
	 * repair limits let happen (repair-limit goes up to 1000 per device).
	 */
	struct fserr_repair_time *repairs;
	size_t nr_repairs, cap_repairs;
	/* The repair in progress, if step != FSERR_STEP_NONE */
	enum fserr_repair_step step;
	unsigned int major, minor;
	bool fsck_failed;	/* FSERR_STEP_MOUNT: mount read-only */
	char volume[64];	/* the volume's UUID when the repair began, "" if none */
	/*
	 * The boot the repair began in, when that is not the file's own:
	 * a repair carried over a reboot (fserrd's repair-boot line), "" else
	 */
	char repair_boot[40];
	struct fserr_saved_mount mounts[FSERR_STATE_MAX_MOUNTS];
	size_t nr_mounts;
};

void fserr_state_init(struct fserr_state *st, const char *boot_id);
void fserr_state_free(struct fserr_state *st);

/*
 * Parse @text. Returns 0, or -1 with "LINE: what is wrong" in @err and @st
 * as fserr_state_init() left it: a damaged state file is reported and
 * dropped whole, never half applied.
 */
int fserr_state_parse(const char *text, struct fserr_state *st,
		      char *err, size_t errlen);

/* The text of @st, malloc()ed; NULL when out of memory. */
char *fserr_state_format(const struct fserr_state *st);

/*
 * Parse @text keeping every record that can be read: the number of lines
 * dropped (the first one's "LINE: what" in @err), or -1 when @text is not
 * a state file at all (then @st is unchanged). A mount line counts only
 * after its step line; a step whose mounts were all lost is dropped too.
 * @lost (if not NULL) is called with each dropped line, its number and
 * why, so that what was lost can be said.
 */
int fserr_state_salvage(const char *text, struct fserr_state *st,
			char *err, size_t errlen,
			void (*lost)(unsigned int lineno, const char *line, const char *why,
				     void *data),
			void *data);

/*
 * The text of the state file @path, malloc()ed; NULL with -errno in
 * @error: -ENOENT when there is none, -ELOOP for a symbolic link, -EPERM
 * when it is not a regular file owned by this user and writable by no one
 * else, -EINVAL for a NUL byte (the reason in @err where there is one).
 */
char *fserr_state_read(const char *path, int *error, char *err, size_t errlen);

/*
 * Read @path into @st (fserr_state_read(), then strictly): 0, or
 * fserr_state_read()'s errors, or -EINVAL when damaged.
 */
int fserr_state_load(const char *path, struct fserr_state *st,
		     char *err, size_t errlen);

/* Write @st to @path atomically. Returns 0 or -errno. */
int fserr_state_save(const char *path, const struct fserr_state *st);

/* Was the fault (@ino, @fault_count) handled already? */
bool fserr_state_is_handled(const struct fserr_state *st,
			    unsigned long long ino, unsigned long long fault_count);

/*
 * Remember it; a newer fault of the same directory replaces the older one.
 * Returns 0, or -ENOMEM with @st unchanged.
 */
int fserr_state_set_handled(struct fserr_state *st, unsigned long long ino,
			     unsigned long long fault_count);

/* Forget the handled faults of directories that are gone. */
void fserr_state_keep_handled(struct fserr_state *st,
			      bool (*alive)(unsigned long long ino, void *data),
			      void *data);

/* Repairs of MAJ:MIN in the hour before @now. */
unsigned int fserr_state_repairs_since(const struct fserr_state *st,
				       unsigned int major, unsigned int minor,
				       time_t now);

/*
 * Count a repair; repairs older than an hour are dropped. Without memory
 * for one more, the oldest record makes room.
 */
void fserr_state_add_repair(struct fserr_state *st, unsigned int major,
			    unsigned int minor, time_t now);

/* Add a mount to the repair in progress; -1 when the table is full. */
int fserr_state_add_mount(struct fserr_state *st, const char *target,
			  const char *source, const char *fstype,
			  const char *root, const char *options);

/* Forget the repair in progress. */
void fserr_state_end_repair(struct fserr_state *st);

const char *fserr_step_name(enum fserr_repair_step step);

/* Escape @in as mountinfo does (mnt_mangle(): \040 space, \011 tab, \012 newline, \134 \). */
char *fserr_escape(const char *in);
/* The reverse; NULL if @in has a bad escape. */
char *fserr_unescape(const char *in);

#endif
