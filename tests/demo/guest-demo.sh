# The guest half of `make demo` (busybox ash); installed as
# /scenarios/demo.sh. Walks through a clean mount, damage to the card,
# what userspace is told, and fserrd repairing the volume.
say() { printf '\n==> %s\n' "$*"; sleep 0.2; }
show() { printf '    $ %s\n' "$*"; sh -c "$*" 2>&1 | sed 's/^/    /'; }

attrs() { # DIR
	for a in fs_fault error_count first_errno last_errno first_error_time uevents_suppressed dev; do
		printf '    %-20s %s\n' "$a" "$(cat "$1/$a")"
	done
}

guest() {
	fat=/sys/fs/fat/mmcblk0p1
	say "In the background, 'fserrctl watch' prints fserr uevents and, whenever this namespace's mountinfo wakes, the state (lines 'watch: ...')."
	fserrctl watch 2>&1 | while IFS= read -r line; do echo "    watch: $line"; done &
	sleep 0.5

	say "The SD card: partition 1 is FAT32, partition 2 is ext2."
	show "cat /proc/partitions | grep mmcblk"

	say "Mount the FAT volume with the 'notify' option."
	show "mount -t vfat -o notify /dev/mmcblk0p1 /mnt"
	show "grep mmcblk0p1 /proc/mounts"
	say "fserr gave it a directory in sysfs; a clean volume reads fs_fault 0:"
	attrs $fat

	say "Unmount, and damage the card: DATA.BIN's first cluster now links past the end of the FAT."
	show "umount /mnt"
	show "fscorrupt --partition 1 /dev/mmcblk0 fat-chain-past-end DATA.BIN"
	show "mount -t vfat -o notify /dev/mmcblk0p1 /mnt"

	say "A poller waits on fs_fault (poll() for POLLPRI, as fserrd will)."
	( poll_attr $fat/fs_fault 10000 | sed 's/^/    poller: /' ) &
	poller=$!
	sleep 0.5

	say "An application reads the damaged file; FAT finds the bad link."
	show "cat /mnt/DATA.BIN >/dev/null"
	wait $poller
	say "FAT logged the error and went read-only, as before; now userspace knows too:"
	show "dmesg | grep 'FAT-fs (mmcblk0p1)' | tail -n 3"
	attrs $fat
	say "fserrctl maps the faulted filesystem to its mount points (libmount):"
	show "fserrctl status"
	say "Reading it 100 more times: error_count grows, but there is still only one uevent."
	i=0
	while [ $i -lt 100 ]; do cat /mnt/DATA.BIN >/dev/null 2>&1; i=$((i + 1)); done
	sleep 0.5
	printf '    error_count          %s\n' "$(cat $fat/error_count)"

	say "After a repair, root clears the state (junk is refused):"
	show "echo 2 > $fat/fs_fault"
	show "fserrctl clear /mnt; cat $fat/fs_fault"
	show "umount /mnt"

	say "ext2 uses the same helper: a directory entry now names a reserved inode."
	show "fscorrupt --partition 2 /dev/mmcblk0 ext2-dirent-bad-inode WALK/F1.TXT"
	show "mount -t ext2 -o notify /dev/mmcblk0p2 /mnt"
	show "stat /mnt/WALK/F1.TXT"
	sleep 0.5
	attrs /sys/fs/ext2/mmcblk0p2
	show "umount /mnt"
	sleep 0.3

	say "fserrd, the daemon, with a policy that repairs FAT volumes:"
	mkdir -p /tmp/fserrd
	printf 'match fstype vfat repair\n' >/tmp/fserrd.conf
	show "cat /tmp/fserrd.conf"
	say "DATA.BIN is still damaged (the fault was only cleared). Mount the volume again, start fserrd (its log and fsck.fat's output are the 'fserrd:' lines):"
	show "mount -t vfat -o notify /dev/mmcblk0p1 /mnt"
	: >/tmp/fserrd.log
	fserrd --state /tmp/fserrd/state -c /tmp/fserrd.conf 2>>/tmp/fserrd.log &
	daemon=$!
	tail -f /tmp/fserrd.log | while IFS= read -r line; do echo "    fserrd: $line"; done &
	shower=$!
	sleep 1
	say "An application reads the damaged file; fserrd finds the fault, unmounts, runs fsck.fat, mounts again:"
	show "cat /mnt/DATA.BIN >/dev/null"
	i=0
	while ! grep -q -E ' (repaired|repair-incomplete|repair-failed|repair-busy) ' /tmp/fserrd.log && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep 0.5
	say "The volume is back, with the same options, and clean:"
	show "grep mmcblk0p1 /proc/mounts"
	attrs $fat
	say "Every file the damage did not touch reads back with its checksum:"
	printf '    %s\n' "$(cd /mnt && grep -v DATA.BIN /tests/card.sha256 | sha256sum -c - 2>&1 | grep -c ': OK$') files OK, $(cd /mnt && grep -v DATA.BIN /tests/card.sha256 | sha256sum -c - 2>&1 | grep -c -v ': OK$') not OK"
	kill $daemon
	wait $daemon 2>/dev/null
	kill $shower 2>/dev/null
	show "umount /mnt"
	sleep 0.3
	say "That is fserr: the kernel reports, fserrctl shows, fserrd repairs."
}
