# The same failing block as card-media-error, on a virtio disk, whose QEMU
# model passes the read error to the guest: FAT's directory read fails,
# FAT logs it and goes on, and fserr reports it with EIO.
STREAMS=2	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32
DEVICE=virtio

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	blkdebug_fail_first_block "$1" "$2" 1 WALK
}

guest() {
	media_error_walk vda1 5
	tap_begin media-error-log 1
	t "FAT logged the failed directory read" \
		sh -c "dmesg | grep -q 'Directory bread(block .*) failed'"
	tap_end
}
