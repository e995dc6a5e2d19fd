# Benchmark (make bench): what one fs_fault change costs as the mounts of
# the superblock grow. The change wakes mountinfo pollers from fserr's
# worker, which walks every mount of the superblock and touches each mount
# namespace that holds one (sb_wake_mount_namespaces(), patch 0002).
# tests/guest/mount_scale.c times, over ROUNDS raises and clears each, the
# wake-up of a poller on /proc/self/mountinfo: with 1, 10, 100, 300 and
# 1000 mounts of the superblock in one namespace, and with one mount in each
# of 1, 3, 10, 30 and 100 namespaces (five points a series, so that the
# shape of its growth can be told). One CPU and a clock that counts instructions
# (ICOUNT=1), as in the cost boots: a time is the work done, the worker's
# included. With the host's clock instead, the one-mount row's median was
# 33 us in one make bench and 73 us in the next (9087b51 and cb2de87), and
# the rows' ratios moved with it; with ICOUNT=1 two runs in a row (on the
# bench kernel of cb2de87, with the tree that became a62824e) gave the same
# medians to the microsecond.
STREAMS=9	# one per row
CARD=fat32
ICOUNT=1

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
}

guest() {
	rounds=${FSERR_BENCH_ROUNDS:-1000}
	for row in "1 1" "10 1" "100 1" "300 1" "1000 1" "1 3" "1 10" "1 30" "1 100"; do
		# shellcheck disable=SC2086
		set -- $row
		mount_scale /dev/mmcblk0p1 vfat errors=continue \
			/sys/fs/fat/mmcblk0p1/fs_fault /tmp/mount-scale/0/DATA.BIN \
			"$rounds" "$1" "$2"
	done
}
