# The failing card the 2009 proposal was written for: every read of the
# first block of the WALK directory fails on the host (QEMU blkdebug on the
# SD card). QEMU 7.2's SD card model does not signal the failure; it hands
# the guest stale data, so FAT finds a corrupted directory. fserr must
# report that, and the rest of the volume must keep working.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	blkdebug_fail_first_block "$1" "$2" 1 WALK
}

guest() {
	media_error_walk mmcblk0p1 117
}
