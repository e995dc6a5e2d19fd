// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif

#include "journal.h"

static const struct {
	const char *what;
	int priority;
	const char *id;
} events[] = {
	/* a fault, and what became of it */
	{ "fault", LOG_WARNING, FSERR_MESSAGE_FAULT },
	{ "repaired", LOG_NOTICE, FSERR_MESSAGE_REPAIRED },
	{ "repair-incomplete", LOG_ERR, FSERR_MESSAGE_REPAIR_FAILED },
	{ "repair-failed", LOG_ERR, FSERR_MESSAGE_REPAIR_FAILED },
	{ "remounted-ro", LOG_WARNING, FSERR_MESSAGE_REMOUNTED_RO },
	{ "mounted-ro", LOG_WARNING, FSERR_MESSAGE_REMOUNTED_RO },
	/* a repair that cannot go on, or its policy cannot act */
	{ "escalate", LOG_WARNING, NULL },
	{ "media-error", LOG_ERR, NULL },
	{ "repair-busy", LOG_WARNING, NULL },
	{ "repair-unsupported", LOG_WARNING, NULL },
	{ "repair-unsafe", LOG_ERR, NULL },
	{ "repair-refused", LOG_ERR, NULL },
	{ "repair-dropped", LOG_ERR, NULL },
	{ "repair-interrupted-by-reboot", LOG_ERR, NULL },
	{ "fsck-failed", LOG_ERR, NULL },
	{ "fsck-refused", LOG_ERR, NULL },
	{ "mount-failed", LOG_ERR, NULL },
	{ "mount-refused", LOG_ERR, NULL },
	{ "remount-ro-failed", LOG_ERR, NULL },
	{ "remount-ro-impossible", LOG_ERR, NULL },
	{ "exec-failed", LOG_ERR, NULL },
	/* fserrd itself */
	{ "state-damaged", LOG_ERR, NULL },
	{ "state-not-saved", LOG_ERR, NULL },
	{ "reload-refused", LOG_ERR, NULL },
	{ "out-of-memory", LOG_ERR, NULL },
	{ "poll-failed", LOG_ERR, NULL },
	{ "mount-table-unreadable", LOG_ERR, NULL },
	{ "sysfs-unreadable", LOG_ERR, NULL },
	{ "channel-unavailable", LOG_WARNING, NULL },
	{ "fanotify-mark-failed", LOG_WARNING, NULL },
	{ "fault-deferred", LOG_WARNING, NULL },
	{ "uevent-ignored", LOG_WARNING, NULL },
	{ "listening", LOG_INFO, NULL },
	/* what --verbose adds */
	{ "rescan", LOG_DEBUG, NULL },
	{ "wake", LOG_DEBUG, NULL },
	{ "uevent", LOG_DEBUG, NULL },
	{ "paused", LOG_DEBUG, NULL },
};

static int find(const char *what)
{
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(events[i].what, what))
			return i;
	return -1;
}

int fserr_log_priority(const char *what)
{
	int i = find(what);

	return i < 0 ? LOG_INFO : events[i].priority;
}

const char *fserr_log_message_id(const char *what)
{
	int i = find(what);

	return i < 0 ? NULL : events[i].id;
}

bool fserr_journal_field(char *buf, size_t size, const char *key)
{
	size_t n = strlen("FSERR_"), i;

	if (!*key || n + strlen(key) > 64 || n + strlen(key) >= size)
		return false;
	memcpy(buf, "FSERR_", n);
	for (i = 0; key[i]; i++) {
		char c = key[i];

		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		else if (c == '-')
			c = '_';
		else if (!(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_')
			return false;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return true;
}

/*
 * As systemd documents it: $JOURNAL_STREAM is "DEVICE:INODE" of the
 * stream the service's output goes to; it counts only if standard error
 * is still that stream (not redirected by whoever started fserrd).
 */
bool fserr_journal_stream(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!env || sscanf(env, "%llu:%llu%c", &dev, &ino, &end) != 2)
		return false;
	return !fstat(2, &st) && st.st_dev == dev && st.st_ino == ino;
}

#ifdef HAVE_LIBSYSTEMD
#define MAX_FIELDS 48

int fserr_journal_send(const char *what, const char *message, va_list ap)
{
	char *fields[MAX_FIELDS], name[80];
	struct iovec iov[MAX_FIELDS];
	const char *key, *val, *id = fserr_log_message_id(what);
	int n = 0, i, err;

#define FIELD(...) (n < MAX_FIELDS && asprintf(&fields[n], __VA_ARGS__) >= 0 ? ++n : -1)
	if (FIELD("MESSAGE=%s", message) < 0 ||
	    FIELD("PRIORITY=%d", fserr_log_priority(what)) < 0 ||
	    FIELD("SYSLOG_IDENTIFIER=fserrd") < 0 ||
	    FIELD("FSERR_EVENT=%s", what) < 0 ||
	    (id && FIELD("MESSAGE_ID=%s", id) < 0)) {
		err = -ENOMEM;
		goto out;
	}
	while ((key = va_arg(ap, const char *))) {
		val = va_arg(ap, const char *);
		if (!fserr_journal_field(name, sizeof(name), key))
			continue;	/* callers pass literals: none is skipped */
		if (FIELD("%s=%s", name, val ? val : "") < 0) {
			err = -ENOMEM;
			goto out;
		}
	}
#undef FIELD
	for (i = 0; i < n; i++)
		iov[i] = (struct iovec){ .iov_base = fields[i], .iov_len = strlen(fields[i]) };
	err = sd_journal_sendv(iov, n);
out:
	for (i = 0; i < n; i++)
		free(fields[i]);
	return err;
}

void fserr_notify(const char *state)
{
	sd_notify(0, state);
}

bool fserr_have_systemd(void)
{
	return true;
}
#else
int fserr_journal_send(const char *what, const char *message, va_list ap)
{
	(void)what, (void)message, (void)ap;
	return -ENOSYS;
}

void fserr_notify(const char *state)
{
	(void)state;
}

bool fserr_have_systemd(void)
{
	return false;
}
#endif
