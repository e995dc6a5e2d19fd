# Shared by make bench's scenarios (tests/bench/bench-*.sh). The two cost
# boots, bench-cost-on.sh and bench-cost-off.sh, are the same kernel, once
# as built and once with fserr.enable=0 on its command line, running the
# same work, so that what fserr costs is the difference. Sourced on the
# host (prepare) and in the guest (mkinitramfs.sh copies it to
# /tests/bench.sh).

# The card: p1 FAT32 whose DATA.BIN starts past the last cluster (reading
# it fails in FAT's cluster walk, every time); p2 an ext4 volume with a
# journal whose file VICTIM has a negative size (ext4_iget() refuses it
# with EFSCORRUPTED on every lookup: ext4's own error path, which reports
# to fanotify itself).
bench_prepare() { # CARD-IMAGE RUN-DIR
	local start size
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
	read -r start size < <(sfdisk -d "$1" |
		sed -n 's/.*2 : start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p')
	[ -n "$size" ] || { echo "no partition 2 on $1"; return 1; }
	rm -f "$2/p2.img"
	truncate -s $((size * 512)) "$2/p2.img"
	E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -t ext4 -L fserrbench "$2/p2.img"
	echo "a file whose inode says its size is negative" >"$2/victim"
	debugfs -w -R "write $2/victim VICTIM" "$2/p2.img"
	debugfs -w -R "sif VICTIM size 0x8000000000000000" "$2/p2.img"
	debugfs -R "stat VICTIM" "$2/p2.img" | grep -q "Size: 9223372036854775808" ||
		{ echo "debugfs did not give VICTIM a negative size"; return 1; }
	dd if="$2/p2.img" of="$1" bs=512 seek="$start" conv=notrunc status=none
	rm -f "$2/p2.img" "$2/victim"
}

# A small FAT12 volume whose DATA.BIN starts past the last cluster, for the
# benchmarks that mount many superblocks.
bench_bad_image() {
	cp /fuzz/fat12.img /tmp/bad.img
	mount -t vfat -o loop /tmp/bad.img /mnt && echo data >/mnt/DATA.BIN && umount /mnt &&
		fscorrupt /tmp/bad.img fat-dirent-bad-start DATA.BIN >/dev/null
}

# The work of both cost boots (bench-cost-on.sh, bench-cost-off.sh): the
# error path's cost on the card, without a listener and with a
# FAN_FS_ERROR listener on the filesystem (as fserrd keeps one), the same
# for ext4's own path on p2 (fserr plays no part there), memory
# per superblock, the report path with 1, 10 and 100 faulting superblocks.
bench_cost_boot() {
	run_tap cost fserr_bench cost /dev/mmcblk0p1 vfat notify,errors=continue \
		/mnt DATA.BIN 10 20000 none
	run_tap "cost, listened" fserr_bench cost /dev/mmcblk0p1 vfat notify,errors=continue \
		/mnt DATA.BIN 10 20000 fanotify
	# the yardstick: ext4's own FAN_FS_ERROR path, with and without a listener
	run_tap "cost ext4" fserr_bench cost /dev/mmcblk0p2 ext4 errors=continue \
		/mnt VICTIM 5 5000 none
	run_tap "cost ext4, listened" fserr_bench cost /dev/mmcblk0p2 ext4 errors=continue \
		/mnt VICTIM 5 5000 fanotify
	run_tap memory fserr_bench memory /fuzz/fat12.img 200 5
	bench_bad_image || echo "Bail out! could not make the damaged FAT12 image"
	for n in 1 10 100; do
		run_tap "multi $n" fserr_bench multi /tmp/bad.img DATA.BIN "$n" 10000
	done
}
