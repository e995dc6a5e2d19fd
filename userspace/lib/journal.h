/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fserrd and systemd: each log event's priority and message ID, the
 * journal field of each of its keys, and, when fserrd is built with
 * libsystemd (HAVE_LIBSYSTEMD), the entry itself (sd_journal_sendv()) and
 * the service manager's notifications (sd_notify()). Without libsystemd
 * the two senders do nothing and say so.
 *
 * An event "fault" with the keys dev=179:1 and fault_count=1 becomes the
 * entry MESSAGE=<its log line without the time stamp>, PRIORITY=4,
 * MESSAGE_ID=<fault's>, SYSLOG_IDENTIFIER=fserrd, FSERR_EVENT=fault,
 * FSERR_DEV=179:1, FSERR_FAULT_COUNT=1, so that "journalctl -p warning"
 * and "journalctl FSERR_DEV=179:1" find it.
 */
#ifndef FSERR_JOURNAL_H
#define FSERR_JOURNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* The message IDs (journalctl MESSAGE_ID=...); fserrd.8 lists them. */
#define FSERR_MESSAGE_FAULT          "daa5799b20b1444cbf354762f3d587dd"
#define FSERR_MESSAGE_REPAIRED       "a5ac36e0039d48dcab8d1eee41b664ff"
#define FSERR_MESSAGE_REPAIR_FAILED  "aa5a181c2e344037a71b96d27ed2f09f"
#define FSERR_MESSAGE_REMOUNTED_RO   "adb5ba85713a4a118ad2c613ba393304"

/* The syslog priority of event @what (LOG_ERR ... LOG_DEBUG). */
int fserr_log_priority(const char *what);

/* The message ID of event @what, or NULL for one that has none. */
const char *fserr_log_message_id(const char *what);

/*
 * The journal field of log key @key into @buf: "FSERR_" and the key in
 * capitals, '-' as '_'. False if it does not make a valid field name
 * (another character, or longer than the journal's 64).
 */
bool fserr_journal_field(char *buf, size_t size, const char *key);

/* True when fserrd's standard error is the journal ($JOURNAL_STREAM). */
bool fserr_journal_stream(void);

/*
 * Send the event @what to the journal, with @message and the key/value
 * pairs of @ap (NULL-terminated, as fserr_logline_format() takes them).
 * 0, or a negative errno (-ENOSYS without libsystemd).
 */
int fserr_journal_send(const char *what, const char *message, va_list ap);

/* sd_notify(0, @state); nothing without libsystemd or $NOTIFY_SOCKET. */
void fserr_notify(const char *state);

/* Built with libsystemd? */
bool fserr_have_systemd(void);

#endif
