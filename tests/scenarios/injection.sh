# Injection: nothing a user controls forges a uevent variable, a log line
# or a policy match. p1 (FAT32) has a volume label with a newline, '=' and
# a NUL; p2 (ext2) a label with a newline and "FS_FAULT=0". The FAT volume
# is mounted on a directory whose name holds a newline followed by
# "/mnt2", the ext2 one on a directory with a comma; fserrd has a policy
# rule for the mount point /mnt2. After an error on each: each uevent has
# exactly the kernel's variables, fserrd writes one line per fault with the
# mount point escaped and does not take the /mnt2 rule, fserrctl prints
# one row per filesystem and JSON with the real path.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	local p1=$((2048 * 512)) p2=$(((2048 + 40 * 2048) * 512))
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN &&
	fscorrupt --partition 2 "$1" ext2-dirent-bad-inode WALK/F1.TXT &&
	# FAT32 BS_VolLab (11 bytes at 0x47); ext2 s_volume_name (16 bytes at
	# 1024 + 0x78)
	printf 'A\nB=C\0D=E\n' | dd of="$1" bs=1 seek=$((p1 + 0x47)) conv=notrunc status=none &&
	printf 'L\nFS_FAULT=0\0A=B\n' | dd of="$1" bs=1 seek=$((p2 + 1024 + 0x78)) conv=notrunc status=none
}

# uevent_keys: the variable names of each uevent line from uevent_listen
uevent_keys() {
	sed 's/^uevent://; s/=[^ ]*//g'
}

guest() {
	fserr_lift_global_cap
	tap_begin injection 10
	fat_mnt="/tmp/inj
/mnt2"
	ext2_mnt=/tmp/a,b
	mkdir -p "$fat_mnt" "$ext2_mnt"
	printf 'default log\nmatch mountpoint /mnt2 exec /bin/touch /tmp/forged\n' >/tmp/fserrd.conf
	fserrd_start --config /tmp/fserrd.conf
	: >/tmp/uevents
	uevent_listener /tmp/uevents
	mount -t vfat -o notify /dev/mmcblk0p1 "$fat_mnt"
	mount -t ext2 -o notify /dev/mmcblk0p2 "$ext2_mnt"
	cat "$fat_mnt/DATA.BIN" >/dev/null 2>&1
	stat "$ext2_mnt/WALK/F1.TXT" >/dev/null 2>&1
	wait_log ' fserrd: fault ' 2
	settle 1
	kill $listener
	want=" ACTION DEVPATH SUBSYSTEM FS_FAULT FS_TYPE FS_ID FS_DEV FS_UUID FS_ERRNO FS_ERROR_COUNT FS_FAULT_COUNT FS_UEVENTS_SUPPRESSED"
	t "two uevents, one line each" expect_eq 2 "$(wc -l </tmp/uevents)"
	t "vfat uevent: the kernel's variables only" \
		expect_eq "$want" "$(grep ' FS_TYPE=vfat ' /tmp/uevents | uevent_keys)"
	t "ext2 uevent: the kernel's variables only" \
		expect_eq "$want" "$(grep ' FS_TYPE=ext2 ' /tmp/uevents | uevent_keys)"
	t "no label bytes in any uevent" sh -c "[ -s /tmp/uevents ] && ! grep -E 'B=C|D=E|A=B|FS_FAULT=0' /tmp/uevents"
	t "fserrd: every log line is one whole line" sh -c \
		"[ -s /tmp/fserrd.log ] && ! grep -v -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z fserrd: ' /tmp/fserrd.log"
	t "fserrd: the newline in the mount point is escaped" \
		grep -q -F 'mountpoints="/tmp/inj\\012/mnt2"' /tmp/fserrd.log
	t "fserrd: the comma in the mount point is escaped" \
		grep -q -F 'mountpoints="/tmp/a\\054b"' /tmp/fserrd.log
	t "fserrd: the rule for /mnt2 did not match /tmp/inj<newline>/mnt2" sh -c \
		"[ ! -e /tmp/forged ] && [ \$(grep -c ' fserrd: fault .* policy=log' /tmp/fserrd.log) -eq 2 ]"
	fserrctl status >/tmp/status
	t "fserrctl status: a header and one row per filesystem" expect_eq 3 "$(wc -l </tmp/status)"
	fserrctl status --json >/tmp/json
	# (libsmartcols spreads the document over lines: compare without them)
	tr -d '\n' </tmp/json | sed 's/  *//g' >/tmp/json.flat
	t "fserrctl status --json: the real path, JSON-escaped" \
		grep -q -F '"mountpoints":["/tmp/inj\n/mnt2"]' /tmp/json.flat
	fserrd_stop
	umount "$fat_mnt"
	umount "$ext2_mnt"
	tap_end
}
