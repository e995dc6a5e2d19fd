# A card whose p1 is FAT16: each kind of FAT corruption is found through
# FAT's own code paths and raises fs_fault, untouched files stay intact.
CARD=fat16

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
	fscorrupt --partition 1 "$1" fat-chain-past-end VICTIM2.BIN
	fscorrupt --partition 1 "$1" fat-free-in-chain FREE.BIN
	fscorrupt --partition 1 "$1" fat-size-past-chain DIR1/FILE1.TXT
}

guest() {
	fat_matrix fat16-corruptions mmcblk0p1
}
