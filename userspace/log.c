// SPDX-License-Identifier: GPL-2.0
/* fserrd's log (a line on stderr, or a journal entry) and what it tells systemd. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "fserrd.h"
#include "lib/journal.h"
#include "lib/logline.h"

/*
 * One event: to the journal with its fields when standard error is the
 * journal (started by systemd) and fserrd has libsystemd, else (or if the
 * journal refuses it) as a line on standard error.
 */
void fserrd_log(const char *what, ...)
{
	static int journal = -1;
	char line[FSERR_LOGLINE_MAX], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap, fields;

	if (journal < 0)
		journal = fserr_have_systemd() && fserr_journal_stream();
	va_start(ap, what);
	if (journal) {
		va_copy(fields, ap);
		fserr_logline_format(line, sizeof(line), NULL, what, ap);
		va_end(ap);
		if (!fserr_journal_send(what, line, fields)) {
			va_end(fields);
			return;
		}
		va_end(fields);
		va_start(ap, what);
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fserr_logline_format(line, sizeof(line), stamp, what, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

/* What systemd is told of fserrd's state (Type=notify), printf-style. */
void fserrd_notify(const char *fmt, ...)
{
	char state[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	fserr_notify(state);
}
