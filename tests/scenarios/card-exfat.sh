# An SDXC card's volume: exFAT, as cards over 32 GB come formatted. p1 of
# the card is formatted exFAT in the guest (mkfs.exfat) and filled through
# the kernel, FRAG.BIN written fragmented (GAP.BIN's cluster between two
# of its own, so that exFAT links its clusters in the FAT), and fscorrupt
# breaks that link on the card. Every channel is tested on it
# (fserr_channels, each error read past FRAG.BIN's first cluster), the
# other corruption is found too, and fserrd repairs the volume with
# fsck.exfat.
STREAMS=3	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	: # nothing: the volume is made in the guest, through the kernel
}

# exfat_volume: p1 becomes an exFAT volume with FRAG.BIN (fragmented,
# 4 clusters of 4 KiB), GAP.BIN and KEEP.BIN; their checksums in
# /tmp/exfat.sha256. 0, or 1 with the reason on stdout.
exfat_volume() {
	mkfs.exfat -L EXFATTEST /dev/mmcblk0p1 >/tmp/mkfs.out 2>&1 ||
		{ cat /tmp/mkfs.out; return 1; }
	mount -t exfat /dev/mmcblk0p1 /mnt || return 1
	# 4 KiB clusters: FRAG.BIN's first, GAP.BIN's, then FRAG.BIN's others
	dd if=/dev/urandom of=/mnt/FRAG.BIN bs=4096 count=1 2>/dev/null && sync &&
	dd if=/dev/urandom of=/mnt/GAP.BIN bs=4096 count=1 2>/dev/null && sync &&
	dd if=/dev/urandom of=/mnt/FRAG.BIN bs=4096 count=3 seek=1 conv=notrunc 2>/dev/null &&
	dd if=/dev/urandom of=/mnt/KEEP.BIN bs=1000 count=40 2>/dev/null && sync || return 1
	(cd /mnt && sha256sum FRAG.BIN GAP.BIN KEEP.BIN >/tmp/exfat.sha256)
	umount /mnt
	# (fscorrupt refuses a contiguous file: this says it is fragmented)
	fscorrupt --dry-run /dev/mmcblk0p1 exfat-free-in-chain FRAG.BIN
}

exfat_corruptions() {
	tap_begin exfat-volume 6
	t "mkfs.exfat and the kernel made the volume, FRAG.BIN fragmented" exfat_volume
	t "fsck.exfat finds the fresh volume clean" fsck.exfat -n /dev/mmcblk0p1
	damage /dev/mmcblk0p1 exfat-chain-past-end FRAG.BIN
	mount -t exfat -o notify /dev/mmcblk0p1 /mnt
	t "clean mount, fs_fault 0" expect_eq 0 "$(attr exfat mmcblk0p1 fs_fault)"
	t "FRAG.BIN reads wrong past its first cluster (a link past the end)" sh -c \
		"! cat /mnt/FRAG.BIN >/dev/null"
	t "fs_fault 1, first_errno EUCLEAN" expect_eq "1 117" \
		"$(attr exfat mmcblk0p1 fs_fault) $(attr exfat mmcblk0p1 first_errno)"
	t "the untouched files read back intact" sh -c \
		"cd /mnt && grep -v FRAG.BIN /tmp/exfat.sha256 | sha256sum -c -"
	umount /mnt
	tap_end
}

# fserrd's repair on exFAT: fsck.exfat -p mends the broken chain (it
# truncates FRAG.BIN where the chain breaks), the volume comes back.
exfat_repair() {
	tap_begin exfat-repair 5
	damage /dev/mmcblk0p1 exfat-free-in-chain FRAG.BIN
	mount -t exfat -o notify /dev/mmcblk0p1 /mnt
	printf 'match fstype exfat repair\n' >/tmp/fserrd.conf
	fserrd_start -c /tmp/fserrd.conf
	cat /mnt/FRAG.BIN >/dev/null 2>&1
	t "the fault is logged" wait_log \
		' fault type=exfat device=/dev/mmcblk0p1 dev=179:1 mountpoints=/mnt first_errno=117 .* policy=repair$'
	t "fsck.exfat ran and repaired the volume" wait_log \
		'fsck-done command="/[^"]*/fsck\.exfat -p /proc/self/fd/3" result="exit 1" outcome=repaired'
	t "repaired; the fresh mount has fs_fault 0" wait_log \
		' repaired dev=179:1 how=repair mounted=as-before fs_fault=0$'
	t "/mnt is back, read-write" mounted_rw /mnt
	t "the untouched files read back intact" sh -c \
		"cd /mnt && grep -v FRAG.BIN /tmp/exfat.sha256 | sha256sum -c -"
	fserrd_stop
	umount /mnt
	tap_end
}

guest() {
	fserr_lift_global_cap
	exfat_corruptions
	# a fresh volume, its link from FRAG.BIN's first cluster marked free
	exfat_volume >/dev/null && damage /dev/mmcblk0p1 exfat-free-in-chain FRAG.BIN ||
		echo "Bail out! card-exfat: the volume for the channel tests could not be made"
	# (exFAT reports a bad chain where it finds it, and again as "failed
	# to bmap": two reports per failed read)
	FSERR_READ_AT=8192 FSERR_REPORTS=2 \
		run_channels exfat /dev/mmcblk0p1 exfat exfat FRAG.BIN read 117
	exfat_volume >/dev/null ||
		echo "Bail out! card-exfat: the volume for the repair could not be made"
	exfat_repair
}
