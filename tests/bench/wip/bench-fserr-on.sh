# Benchmark (make bench), fserr on: the work that bench-fserr-off.sh
# repeats with fserr.enable=0 (lib-bench.sh), then what only fserr has:
# the uevents of an error storm and of fast clear/error cycles, and the
# latency of each channel against ext4's own FAN_FS_ERROR.
CARD=fat32
SMP=2		# the waiting thread has a CPU of its own, as on a board
STREAMS=13	# memory, 3 multi, cost, storm, cycles, 4 FAT channels, ext4

. "${FSERR_SCENARIO_LIB:-/scenarios}/lib-bench.sh"

prepare() {
	bench_prepare "$@"
}

guest() {
	bench_both
	run_tap storm fserr_bench storm /mnt DATA.BIN 100000
	run_tap cycles fserr_bench cycles /mnt DATA.BIN 3 200
	for ch in fault mountinfo uevent fanotify; do
		run_tap "latency fat $ch" fserr_bench latency $ch fat /mnt DATA.BIN 300
	done
	umount /mnt
	mount -t ext4 -o errors=continue /dev/mmcblk0p2 /mnt2 ||
		echo "Bail out! mount /dev/mmcblk0p2 as ext4"
	run_tap "latency ext4 fanotify" fserr_bench latency fanotify ext4 /mnt2 VICTIM 300
	umount /mnt2
}
