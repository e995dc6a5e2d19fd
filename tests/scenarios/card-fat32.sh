# The handheld's card: p1 FAT32 with a file whose directory entry points past
# the last cluster, p2 ext2 with a directory entry naming a reserved inode.
# Every channel is tested on both filesystems.
CARD=fat32

prepare() { # CARD-IMAGE (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
	fscorrupt --partition 2 "$1" ext2-dirent-bad-inode WALK/F1.TXT
}

guest() {
	fserr_lift_global_cap
	run_channels fat32 /dev/mmcblk0p1 vfat fat DATA.BIN read 117
	run_channels ext2 /dev/mmcblk0p2 ext2 ext2 WALK/F1.TXT stat 117 errors=remount-ro
}
