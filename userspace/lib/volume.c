// SPDX-License-Identifier: GPL-2.0
#include <blkid/blkid.h>
#include <stdio.h>

#include "volume.h"

int fserr_volume_uuid(int fd, char *uuid, size_t size)
{
	blkid_probe pr = blkid_new_probe();
	const char *value = NULL;
	int ret = -1;

	if (size)
		uuid[0] = '\0';
	if (!pr)
		return -1;
	/* (the whole device: offset 0, size 0 = to its end) */
	if (!blkid_probe_set_device(pr, fd, 0, 0) &&
	    !blkid_probe_enable_superblocks(pr, 1) &&
	    !blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID) &&
	    blkid_do_safeprobe(pr) == 0 &&
	    !blkid_probe_lookup_value(pr, "UUID", &value, NULL) && value && *value &&
	    (size_t)snprintf(uuid, size, "%s", value) < size)
		ret = 0;
	if (ret && size)
		uuid[0] = '\0';
	blkid_free_probe(pr);
	return ret;
}
