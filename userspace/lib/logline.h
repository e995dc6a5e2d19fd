/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fserrd's log line: "STAMP fserrd: WHAT key=value key="quoted value" ...",
 * one line per event, values quoted and escaped when they hold a space, a
 * quote, a backslash, '=', a control character or a byte from 0x7f up, so
 * that a mount point or a label can never start a new line or a new key.
 * WHAT and the keys are not escaped: callers pass literals.
 */
#ifndef FSERR_LOGLINE_H
#define FSERR_LOGLINE_H

#include <stdarg.h>
#include <stddef.h>

/* The size of the buffer fserrd formats its lines in. */
#define FSERR_LOGLINE_MAX 8192

/*
 * Format into @buf (@size bytes) from @ap, a NULL-terminated list of key,
 * value pairs (a NULL value is written as ""). Returns the length. A NULL
 * @stamp leaves out "STAMP fserrd: " (the journal has its own).
 */
size_t fserr_logline_format(char *buf, size_t size, const char *stamp,
			    const char *what, va_list ap);

#endif
