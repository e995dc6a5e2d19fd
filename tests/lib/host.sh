# Helpers for the host half (prepare) of a scenario; tests/run.sh sources
# this before calling prepare CARD-IMAGE RUN-DIR, with fscorrupt on PATH.

# blkdebug_fail_sector RUN-DIR SECTOR WHAT [once]: add a rule to
# RUN-DIR/blkdebug.conf so that every read of image sector SECTOR fails with
# EIO on the host, or only the first one with "once".
blkdebug_fail_sector() {
	local which="every" once=""
	[ -n "$2" ] || return 1
	if [ "${4:-}" = once ]; then
		which="the first"
		once='once = "on"'
	fi
	tee -a "$1/blkdebug.conf" <<RULES
# EIO on $which read of image sector $2: $3
[inject-error]
event = "read_aio"
errno = "5"
sector = "$2"
$once
RULES
}

# blkdebug_fail_first_block CARD RUN-DIR PARTITION PATH [once]: fail the
# first data block of PATH (a file or directory on a FAT partition).
blkdebug_fail_first_block() {
	blkdebug_fail_sector "$2" \
		"$(fscorrupt --partition "$3" "$1" locate "$4" | awk 'NR == 1 { print $5 }')" \
		"the first block of /$4 on p$3" ${5:+"$5"}
}

# blkdebug_fail_fat_entry CARD RUN-DIR PARTITION PATH [once]: fail the FAT
# sector that holds the entry of PATH's first cluster.
blkdebug_fail_fat_entry() {
	blkdebug_fail_sector "$2" \
		"$(fscorrupt --partition "$3" "$1" locate-fat "$4" | awk '{ print $5 }')" \
		"the FAT sector with the first link of /$4 on p$3" ${5:+"$5"}
}

# fat_matrix_damage CARD: the four FAT corruptions that fat_matrix (in
# lib/guest.sh) expects on p1, one per victim file.
fat_matrix_damage() {
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN &&
	fscorrupt --partition 1 "$1" fat-chain-past-end VICTIM2.BIN &&
	fscorrupt --partition 1 "$1" fat-free-in-chain FREE.BIN &&
	fscorrupt --partition 1 "$1" fat-size-past-chain DIR1/FILE1.TXT
}
