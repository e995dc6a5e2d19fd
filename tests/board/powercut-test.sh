#!/bin/bash
# The guest half of the power-cut trials (tests/scenarios/board-powercut.sh),
# run at each boot of the board card by fserr-board-test.service (through
# board-test.sh, which hands over when the command line names this
# scenario). The host boots the card again and again, and kills QEMU
# (SIGKILL: nothing the guest has not written to the card survives) at a
# random moment of each repair; fserr.cut=K on the command line says which
# boot this is, fserr.cuts=N how many cuts there are, fserr.cutpause=STEP
# that this boot's cut comes while fserrd is stopped before STEP.
#   boot 0      checks the board came up, sets the policy (repair, and a
#               repair limit the trials do not reach), then arms cut 1;
#   boot K      checks what cut K left: the repair the state file held is
#               finished, the victim file raises a fault only if its
#               repair had not begun, /data is read-write and intact,
#               fsck.fat -n finds nothing, fsck ran no more often than the
#               cut calls for; then arms cut K+1, or (K = N) ends the run.
# Arming: a fresh victim file (CUT.BIN), its directory entry damaged on
# the card, fserrd's events streamed to the console, the marker
# "@@FSERR-CUT-ARMED K", and the read that raises the fault. Each boot's
# TAP is between @@CUT-TAP-BEGIN and @@CUT-TAP-END, its kernel log so far
# between @@CUT-DMESG-BEGIN and @@CUT-DMESG-END; the host puts the run's
# console together from them.
export PATH=/tests:/usr/sbin:/usr/bin:/sbin:/bin
. /tests/guest.sh

DATA=mmcblk0p1
FAT=/sys/fs/fat/$DATA
VICTIM=CUT.BIN

cut=$(sed -n 's/.*fserr\.cut=\([0-9]*\).*/\1/p' /proc/cmdline)
cuts=$(sed -n 's/.*fserr\.cuts=\([0-9]*\).*/\1/p' /proc/cmdline)

events() { # EVENT: how many fserrd logged in this boot
	journalctl -b -q -o export _SYSTEMD_UNIT=fserrd.service FSERR_EVENT="$1" | grep -c '^FSERR_EVENT='
}

event_field() { # EVENT FIELD: FIELD of the first such event of this boot
	journalctl -b -q -o export _SYSTEMD_UNIT=fserrd.service FSERR_EVENT="$1" |
		sed -n "s/^FSERR_$2=//p" | head -n 1
}

unit_is() { # STATE
	[ "$(systemctl show -p ActiveState --value fserrd.service)" = "$1" ]
}

booted() {
	timeout 180 systemctl is-system-running --wait
	! systemctl --failed --no-legend | grep . && [ "$(systemctl is-system-running)" = running ]
}

data_ok() { # read-write, fs_fault 0, every file the host wrote intact
	mounted_rw /data && expect_eq 0 "$(cat $FAT/fs_fault)" &&
		untouched_files_intact /data "$VICTIM"
}

# fsck.fat -n on the unmounted volume, then mounted again: nothing to
# report but what a cut while it was mounted read-write leaves, FAT's
# dirty bit (byte 65 of the boot sector, which the backup lacks): FAT
# warns at the mount ("Volume was not properly unmounted ... Please run
# fsck") and never clears the bit itself, so it stays until an fsck.
fsck_clean() {
	umount /data || return 1
	fsck.fat -n /dev/$DATA >/tmp/fsck.out 2>&1
	_s=$?
	mount /data || return 1
	cat /tmp/fsck.out
	[ "$_s" = 0 ] && return 0
	! grep -v -x -E 'fsck\.fat [0-9.]+ \(.*\)|There are differences between boot sector and its backup\.|This is mostly harmless\. Differences: \(offset:original/backup\)|  65:01/00|  Not automatically fixing this\.|Dirty bit is set\. Fs was not properly unmounted and some data may be corrupt\.| Automatically removing dirty bit\.|Leaving filesystem unchanged\.|/dev/[a-z0-9]+: [0-9]+ files, [0-9]+/[0-9]+ clusters|' /tmp/fsck.out
}

setup() {
	tap_begin powercut-boot0 4
	t "the root is the card's second partition, ext2" expect_eq "/dev/mmcblk0p2 ext2" \
		"$(findmnt -n -o SOURCE,FSTYPE /)"
	t "systemd is init and the boot finished with no failed unit" booted
	t "fserrd runs from its unit" until_true 60 unit_is active
	# (the trials repair one volume up to 50 times in an hour)
	printf 'match fstype vfat repair\nrepair-limit 1000\ndefault log\n' >/etc/fserrd.conf
	sync
	systemctl reload fserrd.service
	t "fserrd reads the trials' policy (repair, repair-limit 1000)" until_true 30 sh -c \
		"journalctl -b -q -u fserrd.service -o cat | grep -q '^reloaded .*repair-limit=1000'"
	tap_end
}

verify() {
	local carried step reread expect runs
	tap_begin powercut-boot$cut 9
	t "systemd is init and the boot finished with no failed unit" booted
	t "fserrd runs from its unit" until_true 60 unit_is active
	# The repair the state file held when the power went, if any
	carried=$(events repair-interrupted-by-reboot)
	step=none
	[ "$carried" = 0 ] || step=$(event_field repair-interrupted-by-reboot STEP)
	echo "@@CUT-STATE $cut $step"
	if [ "$carried" = 0 ]; then
		t "the state file held no repair" true
	else
		t "the repair the state file held ($step) ends repaired" until_true 120 sh -c \
			"$(declare -f events); [ \$(events repaired) -ge 1 ]"
	fi
	# The victim's damage is still on the card only if its repair had
	# not begun: reading it raises the fault again, and fserrd repairs it.
	# (fserrd may repair it within half a second: the read's failure
	# says it, not fs_fault afterwards; a victim fsck removed is no fault)
	_before=$(events repaired)
	reread=clean
	if [ -e /data/$VICTIM ] && ! cat /data/$VICTIM >/dev/null 2>/tmp/reread; then
		reread=fault
		sed 's/^/# /' /tmp/reread
		until_true 120 sh -c "$(declare -f events); [ \$(events repaired) -gt $_before ]"
	fi
	echo "@@CUT-REREAD $cut $reread"
	t "a repair that fsck had ended before the cut is on the card (state $step, victim $reread)" \
		sh -c "[ '$step' != mount ] || [ '$reread' = clean ]"
	t "/data is read-write, fs_fault 0, every file the host wrote intact" until_true 60 data_ok
	t "fsck.fat -n finds the volume clean, but for the dirty bit a cut leaves" fsck_clean
	# fsck runs once for a repair the cut left unfinished, once for a
	# fault raised again; never for a repair that was done
	expect=0
	case $step in unmount|fsck) expect=1 ;; esac
	[ "$reread" = clean ] || expect=$((expect + 1))
	runs=$(events fsck-start)
	t "no fault handled twice: fsck ran $runs times, the cut and the victim call for $expect" \
		expect_eq "$expect" "$runs"
	t "fserrd read its state file whole (no state-damaged, state-refused)" expect_eq "0 0" \
		"$(events state-damaged) $(events state-refused)"
	t "fserrd logged no failed repair" expect_eq "0 0" \
		"$(events repair-failed) $(events repair-incomplete)"
	tap_end
}

arm() {
	# fserr.cutpause=STEP: this cut comes while fserrd stands still before
	# STEP (--pause-before, through a drop-in in /run, which the cut
	# takes away with it): the host cuts when it sees "paused"
	_pause=$(sed -n 's/.*fserr\.cutpause=\([a-z]*\).*/\1/p' /proc/cmdline)
	if [ -n "$_pause" ]; then
		mkdir -p /run/systemd/system/fserrd.service.d
		printf '[Service]\nExecStart=\nExecStart=/usr/sbin/fserrd --pause-before %s\n' "$_pause" \
			>/run/systemd/system/fserrd.service.d/cutpause.conf
		systemctl daemon-reload
		systemctl restart fserrd.service
		until_true 60 unit_is active
	fi
	rm -f /data/$VICTIM
	head -c 65536 /dev/urandom >/data/$VICTIM
	sync
	# fserrd's events as they come, for the host to see where the cut landed
	journalctl -f -q -n 0 -o cat --output-fields=FSERR_EVENT _SYSTEMD_UNIT=fserrd.service |
		sed -u 's/^/@@CUT-EVENT /' &
	sleep 1
	damage /dev/$DATA fat-dirent-bad-start $VICTIM
	echo "@@FSERR-CUT-ARMED $cut"
	cat /data/$VICTIM >/dev/null 2>&1
	# the host cuts the power within a few seconds
	sleep 300
	echo "Bail out! no power cut came in 300 s"
}

echo "@@CUT-TAP-BEGIN $cut"
if [ "$cut" = 0 ]; then
	setup
else
	verify
fi
echo "@@CUT-TAP-END $cut"
if [ "$cut" -lt "$cuts" ]; then
	echo "@@CUT-DMESG-BEGIN $cut"
	dmesg --notime
	echo "@@CUT-DMESG-END $cut"
	arm
else
	guest_end
	systemctl --no-block poweroff
fi
