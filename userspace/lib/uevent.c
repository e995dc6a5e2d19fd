// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uevent.h"

/* The variables fserr's uevent carries, and where each one goes. */
enum field { F_ACTION, F_DEVPATH, F_SUBSYSTEM, F_FS_FAULT, F_FS_TYPE, F_FS_ID,
	     F_FS_DEV, F_UUID, F_FS_UUID, F_FS_ERRNO, F_FS_ERROR_COUNT, F_FS_FAULT_COUNT,
	     F_FS_UEVENTS_SUPPRESSED, F_COUNT };

static const char *const field_names[F_COUNT] = {
	"ACTION", "DEVPATH", "SUBSYSTEM", "FS_FAULT", "FS_TYPE", "FS_ID",
	"FS_DEV", "UUID", "FS_UUID", "FS_ERRNO", "FS_ERROR_COUNT", "FS_FAULT_COUNT",
	"FS_UEVENTS_SUPPRESSED",
};

static bool valid_key(const char *key, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!isupper((unsigned char)key[i]) && !isdigit((unsigned char)key[i]) &&
		    key[i] != '_')
			return false;
	return true;
}

static int copy_value(char *dst, size_t size, const char *val)
{
	size_t len = strlen(val);

	if (!len || len >= size)
		return -EINVAL;
	memcpy(dst, val, len + 1);
	return 0;
}

static int parse_number(const char *val, unsigned long long max,
			unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)val[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(val, &end, 10);
	if (errno || *end || *out > max)
		return -EINVAL;
	return 0;
}

/* "MAJ:MIN", as in mountinfo; the kernel's limits (12 and 20 bits) */
static int parse_devnum(const char *val, unsigned int *major, unsigned int *minor)
{
	unsigned long long n;
	const char *colon = strchr(val, ':');
	char maj[8];

	if (!colon || colon == val || (size_t)(colon - val) >= sizeof(maj))
		return -EINVAL;
	memcpy(maj, val, colon - val);
	maj[colon - val] = '\0';
	if (parse_number(maj, 4095, &n))
		return -EINVAL;
	*major = n;
	if (parse_number(colon + 1, 1048575, &n))
		return -EINVAL;
	*minor = n;
	return 0;
}

int fserr_uevent_parse(const char *buf, size_t len, struct fserr_uevent *ev)
{
	const char *values[F_COUNT] = { NULL };
	const char *header, *at, *var;
	unsigned long long n;
	size_t pos, vlen;
	int f;

	memset(ev, 0, sizeof(*ev));
	if (!buf || len == 0 || len > FSERR_UEVENT_MAX || buf[len - 1] != '\0')
		return -EINVAL;
	header = buf;
	/* udevd's re-broadcasts start with "libudev"; not the kernel's. */
	if (!strcmp(header, "libudev"))
		return -ENOENT;
	at = strchr(header, '@');
	if (!at || at == header || at[1] != '/')
		return -EINVAL;

	for (pos = strlen(header) + 1; pos < len; pos += vlen + 1) {
		const char *eq;

		var = buf + pos;
		vlen = strlen(var);
		eq = strchr(var, '=');
		if (!eq || !valid_key(var, eq - var))
			return -EINVAL;
		for (f = 0; f < F_COUNT; f++) {
			if (strlen(field_names[f]) != (size_t)(eq - var) ||
			    strncmp(var, field_names[f], eq - var))
				continue;
			if (values[f])
				return -EINVAL;	/* a key twice: forged */
			values[f] = eq + 1;
		}
	}
	if (!values[F_ACTION] || !values[F_DEVPATH] || !values[F_SUBSYSTEM])
		return -EINVAL;
	/* The header repeats ACTION and DEVPATH; they must agree. */
	if (strncmp(header, values[F_ACTION], at - header) ||
	    values[F_ACTION][at - header] || strcmp(at + 1, values[F_DEVPATH]))
		return -EINVAL;
	if (strcmp(values[F_SUBSYSTEM], "fserr") || strcmp(values[F_ACTION], "change"))
		return -ENOENT;

	if (!values[F_FS_FAULT] || strcmp(values[F_FS_FAULT], "1") ||
	    !values[F_FS_TYPE] || !values[F_FS_ID] || !values[F_FS_DEV] ||
	    !values[F_FS_ERRNO])
		return -EINVAL;
	if (copy_value(ev->devpath, sizeof(ev->devpath), values[F_DEVPATH]) ||
	    copy_value(ev->fs_type, sizeof(ev->fs_type), values[F_FS_TYPE]) ||
	    copy_value(ev->fs_id, sizeof(ev->fs_id), values[F_FS_ID]) ||
	    (values[F_UUID] && copy_value(ev->uuid, sizeof(ev->uuid), values[F_UUID])) ||
	    /* (series v4 names it FS_UUID; v3's UUID= was never sent for FAT or ext2) */
	    (values[F_FS_UUID] && copy_value(ev->uuid, sizeof(ev->uuid), values[F_FS_UUID])))
		return -EINVAL;
	if (parse_devnum(values[F_FS_DEV], &ev->major, &ev->minor))
		return -EINVAL;
	if (parse_number(values[F_FS_ERRNO], 4095, &n) || n == 0)
		return -EINVAL;
	ev->fs_errno = n;
	if (values[F_FS_ERROR_COUNT] &&
	    parse_number(values[F_FS_ERROR_COUNT], ~0ULL, &ev->error_count))
		return -EINVAL;
	/* (since series v4) */
	if (values[F_FS_FAULT_COUNT] &&
	    parse_number(values[F_FS_FAULT_COUNT], ~0ULL, &ev->fault_count))
		return -EINVAL;
	if (values[F_FS_UEVENTS_SUPPRESSED] &&
	    parse_number(values[F_FS_UEVENTS_SUPPRESSED], ~0ULL, &ev->suppressed))
		return -EINVAL;
	return 0;
}

int fserr_uevent_parse_props(fserr_uevent_getter *get, void *data, struct fserr_uevent *ev)
{
	const char *action = get("ACTION", data), *devpath = get("DEVPATH", data);
	char buf[FSERR_UEVENT_MAX];
	size_t used;
	int f, n;

	memset(ev, 0, sizeof(*ev));
	if (!action || !devpath)
		return -EINVAL;
	n = snprintf(buf, sizeof(buf), "%s@%s", action, devpath);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	used = n + 1;
	for (f = 0; f < F_COUNT; f++) {
		const char *val = get(field_names[f], data);

		if (!val)
			continue;
		n = snprintf(buf + used, sizeof(buf) - used, "%s=%s", field_names[f], val);
		if (n < 0 || (size_t)n >= sizeof(buf) - used)
			return -EINVAL;
		used += n + 1;
	}
	return fserr_uevent_parse(buf, used, ev);
}
