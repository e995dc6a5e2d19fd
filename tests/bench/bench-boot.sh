# Benchmark (make bench): the boot whose time to the first test result
# tests/bench/devloop measures; here it also runs once as a scenario.
CARD=fat32
STREAMS=1

prepare() {
	:
}

guest() {
	tap_begin boot 1
	t "the guest booted and mounted the card's FAT partition" mount -t vfat /dev/mmcblk0p1 /mnt
	tap_end
	umount /mnt
}
