// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "logline.h"

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (*s == ' ' || *s == '"' || *s == '\\' || *s == '=' ||
		    (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return true;
	return false;
}

/* The line under construction; pieces that do not fit are not written. */
struct line {
	char *buf;
	size_t size, used;
	bool full;
};

/* Room kept at the end for a closing quote and the cut mark, and a NUL. */
#define CUT_MARK " truncated=yes"
#define RESERVE (sizeof(CUT_MARK) + 1)

static bool put(struct line *l, const char *s, size_t n)
{
	if (l->full || n > l->size - RESERVE - l->used) {
		l->full = true;
		return false;
	}
	memcpy(l->buf + l->used, s, n);
	l->used += n;
	return true;
}

static bool puts_(struct line *l, const char *s)
{
	return put(l, s, strlen(s));
}

/* " KEY=", whole or not at all */
static bool put_key(struct line *l, const char *key)
{
	size_t n = strlen(key);

	if (l->full || n + 2 > l->size - RESERVE - l->used) {
		l->full = true;
		return false;
	}
	return put(l, " ", 1) && put(l, key, n) && put(l, "=", 1);
}

/*
 * One character of a quoted value, escaped: quote, backslash, newline,
 * other control characters and every byte from 0x7f up (so that no
 * invalid UTF-8, C1 control or bidi override reaches the journal raw).
 */
static bool put_escaped(struct line *l, unsigned char c)
{
	char esc[8];

	if (c == '"' || c == '\\')
		snprintf(esc, sizeof(esc), "\\%c", c);
	else if (c == '\n')
		snprintf(esc, sizeof(esc), "\\n");
	else if (c < 0x20 || c >= 0x7f)
		snprintf(esc, sizeof(esc), "\\x%02x", c);
	else
		snprintf(esc, sizeof(esc), "%c", c);
	return puts_(l, esc);
}

/*
 * Each piece is written whole or not at all, inside @size - RESERVE; a line
 * that does not fit is cut there, its open quote closed, and it ends with
 * " truncated=yes". A @size below 17 gets an empty line.
 */
size_t fserr_logline_format(char *buf, size_t size, const char *stamp,
			    const char *what, va_list ap)
{
	struct line l = { .buf = buf, .size = size };
	const char *key, *val;

	if (size < RESERVE + 1) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	if (!stamp || (puts_(&l, stamp) && puts_(&l, " fserrd: ")))
		puts_(&l, what);
	while (!l.full && (key = va_arg(ap, const char *))) {
		val = va_arg(ap, const char *);
		if (!val)
			val = "";
		if (!put_key(&l, key))
			break;
		if (!needs_quotes(val)) {
			for (; *val && put(&l, val, 1); val++)
				;
			continue;
		}
		if (!puts_(&l, "\""))
			break;
		for (; *val && put_escaped(&l, *val); val++)
			;
		if (!puts_(&l, "\"")) {
			/* cut inside the value: close it in the reserve */
			l.buf[l.used++] = '"';
			break;
		}
	}
	if (l.full) {
		memcpy(l.buf + l.used, CUT_MARK, sizeof(CUT_MARK) - 1);
		l.used += sizeof(CUT_MARK) - 1;
	}
	l.buf[l.used] = '\0';
	return l.used;
}
