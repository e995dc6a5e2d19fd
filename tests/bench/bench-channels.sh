# Benchmark (make bench): what only fserr has, on FAT: the uevents of an
# error storm, of a fixed sequence in one window and of fast clear/error
# cycles, and how fast each channel
# (fs_fault poll, mountinfo poll, netlink uevent, FAN_FS_ERROR) wakes a
# waiting thread, against ext4's own FAN_FS_ERROR in the same boot. Two
# CPUs, so that the waiting thread has one of its own, as on a board; the
# guest's clock is the host's (the windows of the rate limit are real time).
CARD=fat32
SMP=2
STREAMS=18	# storm, window, cycles, 3 rounds of 4 FAT channels and ext4

# (in the guest /tests/bench.sh, on the host tests/lib/bench.sh)
if [ -f /tests/bench.sh ]; then . /tests/bench.sh; else . "$top/tests/lib/bench.sh"; fi

prepare() {
	bench_prepare "$@"
}

guest() {
	mount -t vfat -o notify,errors=continue /dev/mmcblk0p1 /mnt ||
		echo "Bail out! mount /dev/mmcblk0p1"
	mount -t ext4 -o errors=continue /dev/mmcblk0p2 /mnt2 ||
		echo "Bail out! mount /dev/mmcblk0p2 as ext4"
	run_tap storm fserr_bench storm /mnt DATA.BIN 100000
	run_tap window fserr_bench window /mnt DATA.BIN 1000
	run_tap cycles fserr_bench cycles /mnt DATA.BIN 3 200
	# The channels take turns, 100 trials at a time, so that a slow
	# stretch of the emulator falls on all of them alike.
	for round in 1 2 3; do
		for ch in fault mountinfo uevent fanotify; do
			run_tap "latency fat $ch $round" fserr_bench latency $ch fat /mnt DATA.BIN 100
		done
		run_tap "latency ext4 fanotify $round" fserr_bench latency fanotify ext4 /mnt2 VICTIM 100
	done
	umount /mnt2
	umount /mnt
}
