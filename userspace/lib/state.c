// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libmount.h>

#include "state.h"

#define HOUR 3600

static const char *const step_names[] = {
	[FSERR_STEP_NONE] = "none",
	[FSERR_STEP_UNMOUNT] = "unmount",
	[FSERR_STEP_FSCK] = "fsck",
	[FSERR_STEP_MOUNT] = "mount",
};

const char *fserr_step_name(enum fserr_repair_step step)
{
	return step_names[step];
}

void fserr_state_init(struct fserr_state *st, const char *boot_id)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->boot_id, sizeof(st->boot_id), "%s", boot_id);
}

static void free_mount(struct fserr_saved_mount *m)
{
	free(m->target);
	free(m->source);
	free(m->fstype);
	free(m->root);
	free(m->options);
	memset(m, 0, sizeof(*m));
}

void fserr_state_end_repair(struct fserr_state *st)
{
	size_t i;

	for (i = 0; i < st->nr_mounts; i++)
		free_mount(&st->mounts[i]);
	st->nr_mounts = 0;
	st->step = FSERR_STEP_NONE;
	st->major = st->minor = 0;
	st->fsck_failed = false;
	st->volume[0] = '\0';
	st->repair_boot[0] = '\0';
}

void fserr_state_free(struct fserr_state *st)
{
	fserr_state_end_repair(st);
	free(st->handled);
	st->handled = NULL;
	st->nr_handled = st->cap_handled = 0;
	free(st->repairs);
	st->repairs = NULL;
	st->nr_repairs = st->cap_repairs = 0;
}

/* libmount's own escaping, the one mountinfo and fstab use */
char *fserr_escape(const char *in)
{
	return mnt_mangle(in);
}

/*
 * Not mnt_unmangle(): it copies a backslash that starts no octal escape
 * as it is, where a state file that has one is damaged (and \000 would
 * cut a path short).
 */
char *fserr_unescape(const char *in)
{
	char *out = malloc(strlen(in) + 1), *p = out;

	if (!out)
		return NULL;
	while (*in) {
		if (*in != '\\') {
			*p++ = *in++;
			continue;
		}
		if (in[1] < '0' || in[1] > '3' || in[2] < '0' || in[2] > '7' ||
		    in[3] < '0' || in[3] > '7') {
			free(out);
			return NULL;
		}
		*p++ = (in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0');
		in += 4;
	}
	*p = '\0';
	if (memchr(out, '\0', p - out)) {	/* \000 would cut the path */
		free(out);
		return NULL;
	}
	return out;
}

bool fserr_state_is_handled(const struct fserr_state *st,
			    unsigned long long ino, unsigned long long fault_count)
{
	size_t i;

	for (i = 0; i < st->nr_handled; i++)
		if (st->handled[i].ino == ino)
			return st->handled[i].fault_count >= fault_count;
	return false;
}

int fserr_state_set_handled(struct fserr_state *st, unsigned long long ino,
			    unsigned long long fault_count)
{
	size_t i;

	for (i = 0; i < st->nr_handled; i++)
		if (st->handled[i].ino == ino)
			break;
	if (i == st->cap_handled) {
		size_t cap = st->cap_handled ? st->cap_handled * 2 : 16;
		struct fserr_handled *bigger = realloc(st->handled, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		st->handled = bigger;
		st->cap_handled = cap;
	}
	if (i == st->nr_handled)
		st->nr_handled++;
	st->handled[i].ino = ino;
	st->handled[i].fault_count = fault_count;
	return 0;
}

void fserr_state_keep_handled(struct fserr_state *st,
			      bool (*alive)(unsigned long long ino, void *data),
			      void *data)
{
	size_t i, kept = 0;

	for (i = 0; i < st->nr_handled; i++)
		if (alive(st->handled[i].ino, data))
			st->handled[kept++] = st->handled[i];
	st->nr_handled = kept;
}

unsigned int fserr_state_repairs_since(const struct fserr_state *st,
				       unsigned int major, unsigned int minor,
				       time_t now)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < st->nr_repairs; i++)
		if (st->repairs[i].major == major && st->repairs[i].minor == minor &&
		    st->repairs[i].when > now - HOUR && st->repairs[i].when <= now)
			n++;
	return n;
}

/* Append a repair record; -ENOMEM if the table cannot grow. */
static int push_repair(struct fserr_state *st, unsigned int major, unsigned int minor,
		       time_t when)
{
	if (st->nr_repairs == st->cap_repairs) {
		size_t cap = st->cap_repairs ? 2 * st->cap_repairs : 16;
		struct fserr_repair_time *more = realloc(st->repairs, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		st->repairs = more;
		st->cap_repairs = cap;
	}
	st->repairs[st->nr_repairs].major = major;
	st->repairs[st->nr_repairs].minor = minor;
	st->repairs[st->nr_repairs].when = when;
	st->nr_repairs++;
	return 0;
}

void fserr_state_add_repair(struct fserr_state *st, unsigned int major,
			    unsigned int minor, time_t now)
{
	size_t i, kept = 0;

	for (i = 0; i < st->nr_repairs; i++)
		if (st->repairs[i].when > now - HOUR)
			st->repairs[kept++] = st->repairs[i];
	st->nr_repairs = kept;
	if (push_repair(st, major, minor, now) && st->nr_repairs) {
		memmove(&st->repairs[0], &st->repairs[1],
			sizeof(st->repairs[0]) * (st->nr_repairs - 1));
		st->repairs[st->nr_repairs - 1] =
			(struct fserr_repair_time){ .major = major, .minor = minor, .when = now };
	}
}

int fserr_state_add_mount(struct fserr_state *st, const char *target,
			  const char *source, const char *fstype,
			  const char *root, const char *options)
{
	struct fserr_saved_mount *m;

	if (st->nr_mounts == FSERR_STATE_MAX_MOUNTS)
		return -1;
	m = &st->mounts[st->nr_mounts];
	m->target = strdup(target);
	m->source = strdup(source);
	m->fstype = strdup(fstype);
	m->root = strdup(root);
	m->options = strdup(options);
	if (!m->target || !m->source || !m->fstype || !m->root || !m->options) {
		free_mount(m);
		return -1;
	}
	st->nr_mounts++;
	return 0;
}

/* One line of the state file, in place; "LINE: what" into @err. */
static int parse_line(char *line, unsigned int lineno, struct fserr_state *st,
		      char *err, size_t errlen)
{
	char *word[7], *save = NULL, *p;
	unsigned long long a, b;
	unsigned int maj, min;
	long long when;
	int n = 0, i;
	char extra;

	for (p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		if (n == 7)
			goto bad;
		word[n++] = p;
	}
	if (!n)
		goto bad;
	if (!strcmp(word[0], "boot") && n == 2 && strlen(word[1]) < sizeof(st->boot_id)) {
		snprintf(st->boot_id, sizeof(st->boot_id), "%s", word[1]);
	} else if (!strcmp(word[0], "handled") && n == 3 &&
		   sscanf(word[1], "%llu%c", &a, &extra) == 1 &&
		   sscanf(word[2], "%llu%c", &b, &extra) == 1) {
		if (fserr_state_set_handled(st, a, b))
			goto bad;
	} else if (!strcmp(word[0], "repair") && n == 3 &&
		   sscanf(word[1], "%u:%u%c", &maj, &min, &extra) == 2 &&
		   sscanf(word[2], "%lld%c", &when, &extra) == 1 && when > 0) {
		if (push_repair(st, maj, min, when))
			goto bad;
	} else if (!strcmp(word[0], "step") && n == 4 && st->step == FSERR_STEP_NONE &&
		   sscanf(word[2], "%u:%u%c", &maj, &min, &extra) == 2 &&
		   (!strcmp(word[3], "fsck-ok") || !strcmp(word[3], "fsck-failed"))) {
		for (i = FSERR_STEP_UNMOUNT; i <= FSERR_STEP_MOUNT; i++)
			if (!strcmp(word[1], step_names[i]))
				st->step = i;
		if (st->step == FSERR_STEP_NONE)
			goto bad;
		st->major = maj;
		st->minor = min;
		st->fsck_failed = !strcmp(word[3], "fsck-failed");
	} else if (!strcmp(word[0], "volume") && n == 2 && st->step != FSERR_STEP_NONE &&
		   !st->volume[0] && strlen(word[1]) < sizeof(st->volume) &&
		   !strpbrk(word[1], "\\")) {
		snprintf(st->volume, sizeof(st->volume), "%s", word[1]);
	} else if (!strcmp(word[0], "repair-boot") && n == 2 && st->step != FSERR_STEP_NONE &&
		   !st->repair_boot[0] && strlen(word[1]) < sizeof(st->repair_boot) &&
		   !strpbrk(word[1], "\\")) {
		snprintf(st->repair_boot, sizeof(st->repair_boot), "%s", word[1]);
	} else if (!strcmp(word[0], "mount") && n == 6 && st->step != FSERR_STEP_NONE) {
		char *f[5];
		int ret;

		for (i = 0; i < 5; i++)
			f[i] = fserr_unescape(word[i + 1]);
		ret = f[0] && f[1] && f[2] && f[3] && f[4] && f[0][0] == '/' &&
		      f[3][0] == '/' ? fserr_state_add_mount(st, f[0], f[1], f[2], f[3], f[4]) : -1;
		for (i = 0; i < 5; i++)
			free(f[i]);
		if (ret)
			goto bad;
	} else {
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "%u: not a state record", lineno);
	return -1;
}

/*
 * Parse @text into @st. Strict (@dropped NULL): the first bad line fails
 * the whole text. Salvaging: a bad line is skipped and counted in
 * *@dropped (the first one's reason in @err); a mount line needs the step
 * line before it, and a step without any mount is dropped too.
 */
static int parse_text(const char *text, struct fserr_state *st, char *err, size_t errlen,
		      unsigned int *dropped,
		      void (*lost)(unsigned int lineno, const char *line, const char *why,
				   void *data),
		      void *data)
{
	char *copy = strdup(text), *line, *next, why[128];
	struct fserr_state parsed;
	unsigned int lineno = 1;
	int ret = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fserr_state_init(&parsed, "");
	if (strncmp(copy, "fserrd-state 1\n", 15)) {
		snprintf(err, errlen, "1: not an fserrd state file (version 1)");
		free(copy);
		return -1;
	}
	for (line = copy + 15; !ret && *line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (!next) {
			snprintf(why, sizeof(why), "%u: the last line is cut off", lineno + 1);
		} else {
			char *copy_line;

			*next++ = '\0';
			/* (parse_line() cuts the line into words) */
			copy_line = lost ? strdup(line) : NULL;
			if (!parse_line(line, lineno + 1, &parsed, why, sizeof(why))) {
				free(copy_line);
				continue;
			}
			if (lost)
				lost(lineno + 1, copy_line ? copy_line : "", why, data);
			free(copy_line);
		}
		if (!next && lost)
			lost(lineno + 1, line, why, data);
		if (!dropped || !*dropped)
			snprintf(err, errlen, "%s", why);
		if (!dropped)
			ret = -1;
		else
			++*dropped;
		if (!next)
			break;
	}
	if (!ret && parsed.step != FSERR_STEP_NONE && !parsed.nr_mounts) {
		if (!dropped || !*dropped)
			snprintf(err, errlen, "%u: a repair step without its mounts", lineno);
		if (dropped) {
			++*dropped;
			fserr_state_end_repair(&parsed);
		} else {
			ret = -1;
		}
	}
	free(copy);
	if (ret) {
		fserr_state_free(&parsed);
		return ret;
	}
	fserr_state_free(st);
	*st = parsed;
	return 0;
}

int fserr_state_parse(const char *text, struct fserr_state *st,
		      char *err, size_t errlen)
{
	return parse_text(text, st, err, errlen, NULL, NULL, NULL);
}

int fserr_state_salvage(const char *text, struct fserr_state *st,
			char *err, size_t errlen,
			void (*lost)(unsigned int lineno, const char *line, const char *why,
				     void *data),
			void *data)
{
	unsigned int dropped = 0;

	if (parse_text(text, st, err, errlen, &dropped, lost, data))
		return -1;
	return dropped;
}

/* Append to a growing buffer; false when out of memory. */
static bool append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return false;
		if ((size_t)n < *cap - *len) {
			*len += n;
			return true;
		}
		char *bigger = realloc(*buf, *cap * 2 + n);

		if (!bigger)
			return false;
		*buf = bigger;
		*cap = *cap * 2 + n;
	}
}

char *fserr_state_format(const struct fserr_state *st)
{
	size_t len = 0, cap = 1024, i, j;
	char *buf = malloc(cap);
	bool ok;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	ok = append(&buf, &len, &cap, "fserrd-state 1\nboot %s\n",
		    st->boot_id[0] ? st->boot_id : "-");
	for (i = 0; ok && i < st->nr_handled; i++)
		ok = append(&buf, &len, &cap, "handled %llu %llu\n",
			    st->handled[i].ino, st->handled[i].fault_count);
	for (i = 0; ok && i < st->nr_repairs; i++)
		ok = append(&buf, &len, &cap, "repair %u:%u %lld\n", st->repairs[i].major,
			    st->repairs[i].minor, (long long)st->repairs[i].when);
	if (ok && st->step != FSERR_STEP_NONE)
		ok = append(&buf, &len, &cap, "step %s %u:%u %s\n", step_names[st->step],
			    st->major, st->minor, st->fsck_failed ? "fsck-failed" : "fsck-ok");
	/* (a UUID has no blank or backslash: blkid's are hex digits and dashes) */
	if (ok && st->step != FSERR_STEP_NONE && st->volume[0] &&
	    !strpbrk(st->volume, " \t\n\\"))
		ok = append(&buf, &len, &cap, "volume %s\n", st->volume);
	/* (a boot ID is what /proc/sys/kernel/random/boot_id says: a UUID) */
	if (ok && st->step != FSERR_STEP_NONE && st->repair_boot[0] &&
	    !strpbrk(st->repair_boot, " \t\n\\"))
		ok = append(&buf, &len, &cap, "repair-boot %s\n", st->repair_boot);
	for (i = 0; ok && st->step != FSERR_STEP_NONE && i < st->nr_mounts; i++) {
		const struct fserr_saved_mount *m = &st->mounts[i];
		const char *f[5] = { m->target, m->source, m->fstype, m->root, m->options };
		char *e[5];

		for (j = 0; j < 5; j++)
			e[j] = fserr_escape(f[j][0] ? f[j] : "-");
		ok = e[0] && e[1] && e[2] && e[3] && e[4] &&
		     append(&buf, &len, &cap, "mount %s %s %s %s %s\n",
			    e[0], e[1], e[2], e[3], e[4]);
		for (j = 0; j < 5; j++)
			free(e[j]);
	}
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *fserr_state_read(const char *path, int *error, char *err, size_t errlen)
{
	char *text = NULL, chunk[4096];
	size_t size = 0;
	struct stat st;
	FILE *f, *mem;
	ssize_t n;
	int fd;

	*error = 0;
	/*
	 * Only a file fserrd wrote: its own, a regular file that nobody else
	 * may write, never through a symbolic link planted in its place.
	 */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*error = -errno;
		if (errno == ELOOP)
			snprintf(err, errlen, "a symbolic link, not fserrd's state file");
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		snprintf(err, errlen, "not a regular file of this user's that only it may write");
		*error = -EPERM;
		close(fd);
		return NULL;
	}
	mem = open_memstream(&text, &size);
	if (!mem) {
		close(fd);
		*error = -ENOMEM;
		return NULL;
	}
	f = mem;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, n, f);
	if (n < 0)
		*error = -errno;
	close(fd);
	if (fclose(mem) && !*error)
		*error = -ENOMEM;
	if (!*error && strlen(text) != size) {
		snprintf(err, errlen, "NUL byte in the file");
		*error = -EINVAL;
	}
	if (*error) {
		free(text);
		return NULL;
	}
	return text;
}

int fserr_state_load(const char *path, struct fserr_state *st,
		     char *err, size_t errlen)
{
	int ret;
	char *text = fserr_state_read(path, &ret, err, errlen);

	if (!text)
		return ret;
	if (fserr_state_parse(text, st, err, errlen))
		ret = -EINVAL;
	free(text);
	return ret;
}

/* fsync() the directory that holds @path; 0 or -errno. */
static int sync_dir(const char *path)
{
	char dir[4096];
	char *slash;
	int fd, err = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int fserr_state_save(const char *path, const struct fserr_state *st)
{
	char tmp[4096];
	char *text = fserr_state_format(st);
	size_t len;
	int fd, err = 0;

	if (!text)
		return -ENOMEM;
	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp)) {
		free(text);
		return -ENAMETOOLONG;
	}
	/*
	 * A fresh file, never through a link: whatever is at STATE.new (left
	 * by a crash, or planted) is removed, and O_EXCL | O_NOFOLLOW fail
	 * if anything takes its place before the open.
	 */
	if (unlink(tmp) && errno != ENOENT) {
		err = -errno;
		free(text);
		return err;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		free(text);
		return err;
	}
	len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || fsync(fd))
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	/*
	 * The rename reaches the disk only with its directory: without this,
	 * a power cut can bring back the old file (or none) after fsync()
	 * of the new one returned.
	 */
	if (err)
		unlink(tmp);
	else
		sync_dir(path);	/* (the new file is in place; a failure only weakens durability) */
	free(text);
	return err;
}
