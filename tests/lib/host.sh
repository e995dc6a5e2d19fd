# Helpers for the host half (prepare) of a scenario; tests/run.sh sources
# this before calling prepare CARD-IMAGE RUN-DIR, with fscorrupt on PATH.

# blkdebug_fail_first_sector CARD RUN-DIR PARTITION PATH: write
# RUN-DIR/blkdebug.conf so that every read of the first sector of PATH
# (a file or directory on a FAT partition) fails with EIO on the host.
blkdebug_fail_first_sector() {
	local sector
	sector=$(fscorrupt --partition "$3" "$1" locate "$4" | awk 'NR == 1 { print $5 }')
	[ -n "$sector" ] || return 1
	cat >"$2/blkdebug.conf" <<RULES
# EIO on every read of image sector $sector: the first block of /$4 on p$3
[inject-error]
event = "read_aio"
errno = "5"
sector = "$sector"
RULES
	cat "$2/blkdebug.conf"
}
