# Helpers for the host half (prepare) of a scenario; tests/run.sh sources
# this before calling prepare CARD-IMAGE RUN-DIR, with fscorrupt on PATH.

# blkdebug_fail_sector RUN-DIR SECTOR WHAT: write RUN-DIR/blkdebug.conf so
# that every read of image sector SECTOR fails with EIO on the host.
blkdebug_fail_sector() {
	[ -n "$2" ] || return 1
	cat >"$1/blkdebug.conf" <<RULES
# EIO on every read of image sector $2: $3
[inject-error]
event = "read_aio"
errno = "5"
sector = "$2"
RULES
	cat "$1/blkdebug.conf"
}

# blkdebug_fail_first_block CARD RUN-DIR PARTITION PATH: fail the first
# data block of PATH (a file or directory on a FAT partition).
blkdebug_fail_first_block() {
	blkdebug_fail_sector "$2" \
		"$(fscorrupt --partition "$3" "$1" locate "$4" | awk 'NR == 1 { print $5 }')" \
		"the first block of /$4 on p$3"
}

# blkdebug_fail_fat_entry CARD RUN-DIR PARTITION PATH: fail the FAT sector
# that holds the entry of PATH's first cluster.
blkdebug_fail_fat_entry() {
	blkdebug_fail_sector "$2" \
		"$(fscorrupt --partition "$3" "$1" locate-fat "$4" | awk '{ print $5 }')" \
		"the FAT sector with the first link of /$4 on p$3"
}

# fat_matrix_damage CARD: the four FAT corruptions that fat_matrix (in
# lib/guest.sh) expects on p1, one per victim file.
fat_matrix_damage() {
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN &&
	fscorrupt --partition 1 "$1" fat-chain-past-end VICTIM2.BIN &&
	fscorrupt --partition 1 "$1" fat-free-in-chain FREE.BIN &&
	fscorrupt --partition 1 "$1" fat-size-past-chain DIR1/FILE1.TXT
}
