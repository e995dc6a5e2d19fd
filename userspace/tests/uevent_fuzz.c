// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the uevent parser must survive any datagram, and a
 * message it accepts must satisfy what the parser promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fserr_uevent ev;

	if (fserr_uevent_parse((const char *)data, size, &ev) == 0) {
		if (ev.fs_errno <= 0 || ev.fs_errno > 4095 || ev.major > 4095 ||
		    ev.minor > 1048575 || !ev.fs_type[0] ||
		    strnlen(ev.fs_id, sizeof(ev.fs_id)) == sizeof(ev.fs_id))
			abort();
	}
	return 0;
}
