# The failing card the 2009 proposal was written for: every read of the
# first block of the WALK directory fails on the host (QEMU blkdebug on the
# SD card). QEMU 7.2's SD card model does not signal the failure; it hands
# the guest stale data, so FAT finds a corrupted directory. fserr must
# report that, and the rest of the volume must keep working.
# Then the card fails for real, through the kernel's MMC fault injection,
# while the volume is unmounted: the EIO that FAT reports during the
# unmount's last sync must still reach a fanotify listener, and a boot
# sector FAT cannot read to mark the volume clean at the unmount is logged
# by FAT and not reported after fserr's teardown
# (tests/guest/unmount_error.c).
STREAMS=2	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	blkdebug_fail_first_block "$1" "$2" 1 WALK
}

guest() {
	media_error_walk mmcblk0p1 117
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	run_tap unmount-error unmount_error /dev/mmcblk0p1 /mnt \
		/sys/kernel/debug/mmc0/fail_mmc_request
}
