# Nothing lost: fserrd is killed with SIGKILL at each step of a repair
# (before unmounting, before fsck, before mounting again; --pause-before
# stops it right after the state file records the step) and started again.
# Each time the volume ends mounted read-write with its bind mount, fs_fault
# is 0, every untouched file verifies by checksum, and after the last round
# fsck.fat -n finds nothing left to repair.
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	: # the damage is done in the guest, one file per round
}

# kill_round STEP KIND FILE
kill_round() {
	_resumed=$(grep -c ' how=resumed-repair ' /tmp/fserrd.log)
	fserrd_start -c /tmp/fserrd.conf --pause-before "$1"
	damage /dev/mmcblk0p1 "$2" "$3"
	cat "/mnt/$3" >/dev/null 2>&1
	t "$1: fserrd stopped before the step" wait_log " paused before=$1\$"
	kill -KILL "$fserrd_pid"
	wait "$fserrd_pid" 2>/dev/null
	t "$1: the state file records the step" grep -q "^step $1 179:1 " /tmp/fserrd/state
	fserrd_start -c /tmp/fserrd.conf
	t "$1: the next fserrd resumes the repair" wait_log " repair-resume dev=179:1 step=$1 "
	if [ "$1" = unmount ]; then
		# Nothing was unmounted yet: the fault is handled again, whole.
		t "$1: ... restarts it, since nothing was unmounted" wait_log ' repair-restart dev=179:1 '
		t "$1: ... and repairs" wait_log ' repaired dev=179:1 how=repair mounted=as-before fs_fault=0$'
	else
		t "$1: ... and finishes it" wait_log \
			' repaired dev=179:1 how=resumed-repair mounted=as-before fs_fault=0$' $((_resumed + 1))
	fi
	t "$1: /mnt is mounted read-write" mounted_rw /mnt
	t "$1: the bind mount is back" test -f /mnt2/FILE2.TXT
	t "$1: fs_fault 0" expect_eq 0 "$(attr fat mmcblk0p1 fs_fault)"
	t "$1: the untouched files verify" untouched_files_intact /mnt "$4"
	t "$1: no repair step is left in the state file" sh -c '! grep -q "^step " /tmp/fserrd/state'
	fserrd_stop
}

guest() {
	fserr_lift_global_cap
	printf 'match fstype vfat repair\nrepair-limit 100\n' >/tmp/fserrd.conf
	: >/tmp/fserrd.log
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	mount --bind /mnt/DIR1 /mnt2
	tap_begin daemon-kill
	kill_round unmount fat-dirent-bad-start DATA.BIN 'DATA.BIN'
	kill_round fsck fat-chain-past-end VICTIM2.BIN 'DATA.BIN|VICTIM2.BIN'
	kill_round mount fat-free-in-chain FREE.BIN 'DATA.BIN|VICTIM2.BIN|FREE.BIN'
	umount /mnt2
	umount /mnt
	t "fsck.fat -n finds nothing left to repair" fsck.fat -n /dev/mmcblk0p1
	tap_end
	echo "# fserrd log:"
	sed 's/^/# /' /tmp/fserrd.log
}
