// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define MAX_LINE 1024

static const char *const policy_names[] = {
	[FSERR_LOG] = "log",
	[FSERR_EXEC] = "exec",
	[FSERR_REMOUNT_RO] = "remount-ro",
	[FSERR_REPAIR] = "repair",
};

const char *fserr_policy_name(enum fserr_policy policy)
{
	return policy_names[policy];
}

void fserr_config_init(struct fserr_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fallback.policy = FSERR_LOG;
	cfg->repair_limit = 3;
	cfg->exec_timeout = 30;
	cfg->fsck_timeout = 600;
}

static void free_action(struct fserr_action *a)
{
	char **arg;

	for (arg = a->argv; *arg; arg++)
		free(*arg);
	memset(a, 0, sizeof(*a));
}

void fserr_config_free(struct fserr_config *cfg)
{
	size_t i;

	free_action(&cfg->fallback);
	for (i = 0; i < cfg->nr_rules; i++) {
		free(cfg->rules[i].value);
		free_action(&cfg->rules[i].action);
	}
	fserr_config_init(cfg);
}

struct parser {
	const char *name;
	unsigned int line;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%u: ", p->name, p->line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse "POLICY [ARGS...]" from the words @w[0..n). */
static int parse_action(struct parser *p, char **w, size_t n,
			struct fserr_action *a)
{
	size_t i;

	if (!n)
		return fail(p, "a policy is missing (log, exec, remount-ro or repair)");
	for (i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++)
		if (!strcmp(w[0], policy_names[i]))
			break;
	if (i == sizeof(policy_names) / sizeof(policy_names[0]))
		return fail(p, "unknown policy '%s' (log, exec, remount-ro or repair)", w[0]);
	a->policy = i;
	if (a->policy != FSERR_EXEC) {
		if (n > 1)
			return fail(p, "policy '%s' takes no arguments", w[0]);
		return 0;
	}
	if (n < 2)
		return fail(p, "exec needs a program");
	if (w[1][0] != '/')
		return fail(p, "exec needs an absolute program path, not '%s'", w[1]);
	if (n - 1 > FSERR_MAX_ARGS)
		return fail(p, "exec takes at most %d words", FSERR_MAX_ARGS);
	for (i = 1; i < n; i++) {
		a->argv[i - 1] = strdup(w[i]);
		if (!a->argv[i - 1])
			return fail(p, "out of memory");
	}
	return 0;
}

static int parse_uint(struct parser *p, char **w, size_t n, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (n != 2)
		return fail(p, "'%s' takes one number", w[0]);
	errno = 0;
	v = strtoul(w[1], &end, 10);
	if (errno || end == w[1] || *end || w[1][0] == '-' || v < min || v > max)
		return fail(p, "'%s' must be a number from %u to %u, not '%s'",
			    w[0], min, max, w[1]);
	*out = v;
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * Split @line into words, in place, into @w (at most @max; their number
 * in @nr). Blanks separate words; '#' outside quotes starts a comment.
 * '...' holds any characters but '; "..." any, with \" and \\ standing
 * for " and \. A quoted part and what is next to it make one word.
 */
static int split_words(struct parser *p, char *line, char **w, size_t max, size_t *nr)
{
	char *r = line, *o = line, *end, c;

	*nr = 0;
	for (;;) {
		while (blank(*r))
			r++;
		if (!*r || *r == '#')
			return 0;
		if (*nr == max)
			return fail(p, "too many words");
		w[(*nr)++] = o;
		while (*r && !blank(*r) && *r != '#') {
			if (*r == '\'') {
				end = strchr(r + 1, '\'');
				if (!end)
					return fail(p, "a ' is not closed");
				memmove(o, r + 1, end - r - 1);
				o += end - r - 1;
				r = end + 1;
				continue;
			}
			if (*r != '"') {
				*o++ = *r++;
				continue;
			}
			for (r++; *r != '"'; r++) {
				if (*r == '\\') {
					r++;
					if (*r && *r != '"' && *r != '\\')
						return fail(p, "\\%c in double quotes: only \\\" and \\\\ are escapes",
							    *r);
				}
				if (!*r)
					return fail(p, "a \" is not closed");
				*o++ = *r;
			}
			r++;
		}
		/* (the word may end where its separator is: keep that) */
		c = *r;
		*o++ = '\0';
		if (!c || c == '#')
			return 0;
		r++;
	}
}

static int parse_line(struct parser *p, char *line, struct fserr_config *cfg)
{
	char *w[FSERR_MAX_ARGS + 8];
	size_t n;

	if (split_words(p, line, w, sizeof(w) / sizeof(w[0]), &n))
		return -1;
	if (!n)
		return 0;
	if (!strcmp(w[0], "default")) {
		free_action(&cfg->fallback);
		return parse_action(p, w + 1, n - 1, &cfg->fallback);
	}
	if (!strcmp(w[0], "match")) {
		struct fserr_rule *r;

		if (n < 3)
			return fail(p, "match needs 'fstype TYPE' or 'mountpoint PATH' and a policy");
		if (cfg->nr_rules == FSERR_MAX_RULES)
			return fail(p, "more than %d match lines", FSERR_MAX_RULES);
		r = &cfg->rules[cfg->nr_rules];
		if (!strcmp(w[1], "fstype"))
			r->kind = MATCH_FSTYPE;
		else if (!strcmp(w[1], "mountpoint"))
			r->kind = MATCH_MOUNTPOINT;
		else
			return fail(p, "match takes fstype or mountpoint, not '%s'", w[1]);
		if (r->kind == MATCH_MOUNTPOINT && w[2][0] != '/')
			return fail(p, "mount point '%s' is not an absolute path", w[2]);
		r->value = strdup(w[2]);
		if (!r->value)
			return fail(p, "out of memory");
		cfg->nr_rules++;
		return parse_action(p, w + 3, n - 3, &r->action);
	}
	if (!strcmp(w[0], "repair-limit"))
		return parse_uint(p, w, n, 0, 1000, &cfg->repair_limit);
	if (!strcmp(w[0], "exec-timeout"))
		return parse_uint(p, w, n, 1, 3600, &cfg->exec_timeout);
	if (!strcmp(w[0], "fsck-timeout"))
		return parse_uint(p, w, n, 0, 86400, &cfg->fsck_timeout);
	return fail(p, "unknown keyword '%s'", w[0]);
}

int fserr_config_parse(const char *name, const char *text,
		       struct fserr_config *cfg, char *err, size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen };
	struct fserr_config next;
	char line[MAX_LINE + 1];
	const char *pos = text, *nl;
	size_t len;

	fserr_config_init(&next);
	while (*pos) {
		p.line++;
		nl = strchr(pos, '\n');
		len = nl ? (size_t)(nl - pos) : strlen(pos);
		if (len > MAX_LINE) {
			fail(&p, "line longer than %d characters", MAX_LINE);
			goto refuse;
		}
		memcpy(line, pos, len);
		line[len] = '\0';
		if (parse_line(&p, line, &next))
			goto refuse;
		pos += len + (nl ? 1 : 0);
	}
	fserr_config_free(cfg);
	*cfg = next;
	return 0;
refuse:
	fserr_config_free(&next);
	return -1;
}

char *fserr_config_read(const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f, *mem;
	int c;

	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	mem = open_memstream(&text, &size);
	if (!mem) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	while ((c = fgetc(f)) != EOF) {
		if (c == '\0') {
			fclose(f);
			fclose(mem);
			free(text);
			snprintf(err, errlen, "%s: a NUL byte: not a text file", path);
			return NULL;
		}
		fputc(c, mem);
	}
	fclose(f);
	fclose(mem);
	return text;
}

int fserr_config_load(const char *path, struct fserr_config *cfg,
		      char *err, size_t errlen)
{
	char *text = fserr_config_read(path, err, errlen);
	int ret;

	if (!text)
		return -1;
	ret = fserr_config_parse(path, text, cfg, err, errlen);
	free(text);
	return ret;
}

const struct fserr_action *fserr_config_choose(const struct fserr_config *cfg,
					       const char *fstype,
					       const char *const *mountpoints,
					       size_t nr_mountpoints)
{
	size_t i, j;

	/* The first rule in the file that names any mount point wins */
	for (i = 0; i < cfg->nr_rules; i++) {
		if (cfg->rules[i].kind != MATCH_MOUNTPOINT)
			continue;
		for (j = 0; j < nr_mountpoints; j++)
			if (mountpoints[j] && !strcmp(cfg->rules[i].value, mountpoints[j]))
				return &cfg->rules[i].action;
	}
	for (i = 0; i < cfg->nr_rules; i++)
		if (cfg->rules[i].kind == MATCH_FSTYPE && fstype &&
		    !strcmp(cfg->rules[i].value, fstype))
			return &cfg->rules[i].action;
	return &cfg->fallback;
}

const struct fserr_action *fserr_config_action(const struct fserr_config *cfg,
					       const char *fstype,
					       const char *mountpoint)
{
	return fserr_config_choose(cfg, fstype, &mountpoint, mountpoint ? 1 : 0);
}
