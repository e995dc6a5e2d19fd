/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which volume is on a device, through libblkid: a repair records it
 * before it takes the filesystem down and checks it again on the device
 * it holds before fsck and before mounting back, so that another medium
 * that came to the same device number (another card in the slot, a loop
 * device set up anew) is never checked or mounted in its place.
 */
#ifndef FSERR_VOLUME_H
#define FSERR_VOLUME_H

#include <stddef.h>

/*
 * The UUID of the filesystem on the open device @fd as blkid and fstab
 * know it (ext2's UUID, FAT's volume serial "1234-ABCD"), into @uuid:
 * 0, or -1 when there is none or it cannot be read (@uuid is then "").
 */
int fserr_volume_uuid(int fd, char *uuid, size_t size);

#endif
