#!/bin/bash
# The guest half of the board scenario (tests/scenarios/board.sh). It runs
# on the Debian root of the board card (tests/mkboard.sh), under systemd,
# started by fserr-board-test.service once the boot has begun, and writes
# to the console what /init writes in the busybox guest: the markers, TAP,
# the kernel log; then it powers the board off.
#
# /data is the card's FAT32 partition (mmcblk0p1, mounted from /etc/fstab
# with notify); the root, ext2, is mmcblk0p2. fserrd runs from the shipped
# unit, udev has the shipped rule, and /etc/fserrd.conf is rewritten
# between the parts:
#   boot    the root is the card's, systemd runs the unit, fserrd is ready
#           (Type=notify) under the unit's seccomp filters;
#   storm   policy log: 10,000 errors give one uevent, which udevd passes
#           on with the rule's tag and wants and files under no device;
#           fserrd, listening on that uevent alone (a drop-in), hears it
#           through sd_device_monitor; the journal has the structured
#           fault entry;
#   rule    fserrd stopped, policy repair: one error, and the rule brings
#           fserrd up, which repairs the volume;
#   stop    systemctl stop while the repair's fsck.fat runs (held by a
#           wrapper): the repair finishes, the volume is back read-write
#           and intact, fserrd ends with status 0;
#   media   the kernel's MMC fault injection fails the card's requests:
#           one failure is retried away; a directory read that fails for
#           good raises fs_fault with EIO, and fserrd (policy repair)
#           remounts /data read-only instead of running fsck on it; so
#           does a FAT sector that cannot be read.
export PATH=/tests:/usr/sbin:/usr/bin:/sbin:/bin
# The power-cut trials boot the same card with their own guest half
case " $(cat /proc/cmdline) " in
*" fserr.scenario=board-powercut "*) exec /tests/powercut-test.sh ;;
esac
. /tests/guest.sh

DATA=mmcblk0p1
FAT=/sys/fs/fat/$DATA
P2_START=83968	# the root's first sector on the card (tests/mkboard.sh)
id_fault=daa5799b20b1444cbf354762f3d587dd
id_repaired=a5ac36e0039d48dcab8d1eee41b664ff

# io_count VAR PARTITION: VAR becomes the partition's completed reads
# and writes (/sys/block/.../stat), read with builtins only: a program
# run for it could itself page in from the card
io_count() {
	local _s
	read -r -a _s </sys/block/mmcblk0/$2/stat
	printf -v "$1" '%s %s' "${_s[0]}" "${_s[4]}"
}

# fserrd's journal entries, export format, by event or by message id, and
# how many there are (the sh -c checks take them with declare -f)
event_entries() { # EVENT
	journalctl -q -b -o export _SYSTEMD_UNIT=fserrd.service FSERR_EVENT="$1"
}

journal_events() { # EVENT
	event_entries "$1" | grep -c '^FSERR_EVENT='
}

unit_is() { # STATE: fserrd.service's ActiveState
	[ "$(systemctl show -p ActiveState --value fserrd.service)" = "$1" ]
}

# The lines of the wrapper around fsck.fat, from fserrd's journal (the
# programs fserrd runs write to its output), into /run/fsck.trace
fsck_trace() {
	journalctl -q -u fserrd.service -o cat | sed -n 's/^fsck-trace //p' >/run/fsck.trace
}

journal_entries() { # MESSAGE-ID
	journalctl -q -b -o export _SYSTEMD_UNIT=fserrd.service MESSAGE_ID="$1"
}

entry_count() { # MESSAGE-ID
	journal_entries "$1" | grep -c "^MESSAGE_ID=$1$"
}

# the storm's uevent, as udevadm monitor saw it: one block per event
monitor_block() { # KERNEL|UDEV
	awk -v src="$1" '/^(KERNEL|UDEV) *\[/ { inside = ($1 ~ "^" src) } inside' /tmp/monitor
}

has_vars() { # < block: every FS_* variable the ABI documents
	_b=$(cat)
	for _v in ACTION=change SUBSYSTEM=fserr FS_FAULT=1 FS_TYPE=vfat FS_ID=$DATA FS_DEV=179:1 \
		FS_ERRNO=117 'FS_ERROR_COUNT=[0-9]+' FS_UEVENTS_SUPPRESSED=0; do
		grep -qxE "$_v" <<<"$_b" || { echo "no $_v in:"; echo "$_b"; return 1; }
	done
	! grep -qE '^(MAJOR|MINOR)=' <<<"$_b" || { echo "MAJOR/MINOR in:"; echo "$_b"; return 1; }
}

policy() { # WORDS: /etc/fserrd.conf becomes "match fstype vfat WORDS"
	printf 'match fstype vfat %s\ndefault log\n' "$*" >/etc/fserrd.conf
}

data_ok() { # the volume is back: read-write, fs_fault 0, files intact
	mounted_rw /data && expect_eq 0 "$(cat $FAT/fs_fault)" &&
		untouched_files_intact /data 'DATA.BIN|VICTIM2.BIN'
}

guest() {
	tap_begin board 38

	# --- boot
	t "the root is the card's second partition, ext2" expect_eq "/dev/mmcblk0p2 ext2" \
		"$(findmnt -n -o SOURCE,FSTYPE /)"
	t "systemd is init and the boot finished with no failed unit" sh -c \
		'timeout 120 systemctl is-system-running --wait; systemctl --failed --no-legend | grep . && exit 1; [ "$(systemctl is-system-running)" = running ]'
	t "fserrd runs from its shipped unit, Type=notify, ready" expect_eq \
		"Type=notify ActiveState=active SubState=running" \
		"$(for p in Type ActiveState SubState; do
			printf '%s=%s ' $p "$(systemctl show -p $p --value fserrd.service)"; done | sed 's/ $//')"
	t "its status line says it watches" sh -c \
		'systemctl show -p StatusText --value fserrd.service | grep -E "watching|[0-9]+ filesystem"'
	# (SystemCallArchitectures= and RestrictRealtime= are seccomp filters)
	t "fserrd runs under a seccomp filter, as the unit asks" sh -c \
		"grep -x 'Seccomp:.2' /proc/\$(systemctl show -p MainPID --value fserrd.service)/status"
	t "/data (FAT32, notify) and the root (ext2) have fs_fault 0" sh -c \
		"[ \$(cat $FAT/fs_fault) = 0 ] && [ \$(cat /sys/fs/ext2/mmcblk0p2/fs_fault) = 0 ] &&
		 grep -q ' /data vfat rw,.*notify' /proc/mounts"

	t "the unit's fserrd hears uevents through libsystemd's device monitor (udev)" sh -c \
		"journalctl -q -b -o export _SYSTEMD_UNIT=fserrd.service FSERR_EVENT=listening |
		 grep -x FSERR_SOURCE=udev"

	# --- storm
	# (fserrd listens on the uevent channel alone, verbose: the fault can
	# reach it only through udevd and sd_device_monitor, under the unit's
	# sandbox)
	mkdir -p /run/systemd/system/fserrd.service.d
	printf '[Service]\nExecStart=\nExecStart=%s --channels uevent --verbose\n' \
		"$(command -v fserrd)" >/run/systemd/system/fserrd.service.d/uevent-only.conf
	systemctl daemon-reload
	systemctl restart fserrd.service
	policy log
	_reloads=$(journal_events reloaded)
	systemctl reload fserrd.service
	t "systemctl reload: fserrd reads the new policy" until_true 20 sh -c \
		"$(declare -f event_entries journal_events); [ \$(journal_events reloaded) -gt $_reloads ] &&
		 [ \$(journal_events reload-refused) = 0 ]"
	damage /dev/$DATA fat-dirent-bad-start DATA.BIN
	fserr_lift_global_cap
	udevadm monitor --kernel --udev --property --subsystem-match=fserr >/tmp/monitor 2>&1 &
	monitor=$!
	until_true 10 grep -q '^UDEV - ' /tmp/monitor
	sleep 1
	# (its TAP, one plan, is checked here: a second plan would end this
	# stream in the runner's eyes)
	fserr_bench storm /data DATA.BIN 10000 >/tmp/storm 2>&1
	t "fserr_bench storm: its 3 checks pass (one transition, one uevent)" sh -c \
		'sed "s/^/  /" /tmp/storm; [ "$(head -n 1 /tmp/storm)" = 1..3 ] &&
		 [ $(grep -c "^ok [1-3] " /tmp/storm) = 3 ] && ! grep -q "^not ok" /tmp/storm'
	# (udevd passes the event on after the kernel: wait for it, then stop)
	until_true 20 grep -qE '^UDEV +\[' /tmp/monitor
	sleep 0.5
	kill $monitor
	t "udevadm monitor: exactly one kernel change event" expect_eq 1 \
		"$(grep -cE '^KERNEL\[.*\] change +/fs/fat/'$DATA' \(fserr\)$' /tmp/monitor)"
	t "... and one udev event, and no other" expect_eq "1 2" \
		"$(grep -cE '^UDEV +\[.*\] change +/fs/fat/'$DATA' \(fserr\)$' /tmp/monitor) $(grep -cE '^(KERNEL|UDEV) *\[' /tmp/monitor)"
	t "the kernel's event has the documented variables" has_vars < <(monitor_block KERNEL)
	t "udevd's has them too, with the rule's systemd tag and wants" sh -c \
		"$(declare -f monitor_block); monitor_block UDEV | grep -x 'TAGS=.*:systemd:.*' &&
		 monitor_block UDEV | grep -x 'SYSTEMD_WANTS=fserrd.service'"
	# (what udevadm monitor saw, for the record: docs/board-bringup.md)
	sed 's/^/# monitor: /' /tmp/monitor
	# (udev files an event with no device number under +SUBSYSTEM:NAME)
	t "udev's database files it as +fserr:$DATA, under no block or character device" sh -c \
		"ls /run/udev/data/ | grep fserr; grep -q 'E:SYSTEMD_WANTS=fserrd.service' /run/udev/data/+fserr:$DATA &&
		 ! grep -l -e FS_FAULT -e fserr /run/udev/data/b* /run/udev/data/c* | grep ."
	t "fserrd logged the fault once, to the journal, with its fields" sh -c \
		"$(declare -f journal_entries entry_count); [ \$(entry_count $id_fault) = 1 ] &&
		 journal_entries $id_fault >/tmp/entry &&
		 grep -x PRIORITY=4 /tmp/entry && grep -x FSERR_EVENT=fault /tmp/entry &&
		 grep -x FSERR_DEVICE=/dev/$DATA /tmp/entry && grep -x FSERR_MOUNTPOINTS=/data /tmp/entry &&
		 grep -x FSERR_FIRST_ERROR=EUCLEAN /tmp/entry && grep -x FSERR_POLICY=log /tmp/entry"
	t "policy log: /data as FAT left it (errors=remount-ro: read-only), fs_fault 1" sh -c \
		"grep ' /data ' /proc/mounts; grep -q ' /data vfat ro,' /proc/mounts && [ \$(cat $FAT/fs_fault) = 1 ]"
	t "... heard on the uevent channel alone (fserrd --channels uevent, source udev)" sh -c \
		"$(declare -f event_entries); event_entries wake | grep -x FSERR_CHANNEL=uevent &&
		 event_entries channel-off | grep -c '^FSERR_CHANNEL=' | grep -qx 3 &&
		 [ \$(event_entries listening | grep -cx FSERR_SOURCE=udev) = 2 ] &&
		 ! event_entries listening | grep -x FSERR_SOURCE=kernel"
	rm /run/systemd/system/fserrd.service.d/uevent-only.conf
	systemctl daemon-reload

	# --- rule
	systemctl stop fserrd.service
	t "systemctl stop: fserrd ends with status 0" sh -c \
		'[ "$(systemctl show -p ActiveState --value fserrd.service)" = inactive ] &&
		 [ "$(systemctl show -p ExecMainStatus --value fserrd.service)" = 0 ]'
	policy repair
	echo 0 >$FAT/fs_fault
	echo 0 >/sys/module/fserr/parameters/uevent_interval_ms
	cat /data/DATA.BIN >/dev/null 2>&1
	t "one error with fserrd stopped: the shipped rule starts it" until_true 60 sh -c \
		'[ "$(systemctl show -p ActiveState --value fserrd.service)" = activating ] ||
		 [ "$(systemctl show -p ActiveState --value fserrd.service)" = active ]'
	t "... and it repairs /data" until_true 60 sh -c \
		"$(declare -f journal_entries entry_count); [ \$(entry_count $id_repaired) = 1 ]"
	t "/data is back read-write, fs_fault 0, untouched files intact" until_true 10 data_ok

	# --- stop while fsck.fat runs
	# (fsck sees every mount read-only: the wrapper writes its trace to its
	# output, which fserrd passes to the journal; fsck_trace reads it back)
	cp /usr/sbin/fsck.fat /run/fsck.fat.real
	cat >/run/fsck.fat.hold <<'HOLD'
#!/bin/sh
echo "fsck-trace start $$ $*"
while [ ! -e /run/fsck.go ]; do sleep 0.1; done
/run/fsck.fat.real "$@"
status=$?
echo "fsck-trace end $$ $status"
exit $status
HOLD
	chmod 755 /run/fsck.fat.hold
	mount --bind /run/fsck.fat.hold /usr/sbin/fsck.fat
	damage /dev/$DATA fat-chain-past-end VICTIM2.BIN
	cat /data/VICTIM2.BIN >/dev/null 2>&1
	t "a second fault: the repair's fsck.fat starts" until_true 60 \
		sh -c "$(declare -f fsck_trace); fsck_trace; test -s /run/fsck.trace"
	systemctl stop --no-block fserrd.service
	t "systemctl stop while fsck.fat runs: SIGTERM to fserrd alone, which waits" \
		until_true 20 sh -c "$(declare -f fsck_trace); fsck_trace"'
			[ "$(systemctl show -p SubState --value fserrd.service)" = stop-sigterm ] &&
			! grep -q "^end" /run/fsck.trace'
	touch /run/fsck.go
	t "the repair finishes, then fserrd ends with status 0" until_true 120 sh -c \
		'[ "$(systemctl show -p ActiveState --value fserrd.service)" = inactive ] &&
		 [ "$(systemctl show -p ExecMainStatus --value fserrd.service)" = 0 ] &&
		 [ "$(systemctl show -p Result --value fserrd.service)" = success ]'
	# (fsck.fat -a, then fsck-verify's fsck.fat -n when -a exits 1)
	fsck_trace
	t "fsck.fat's repair and check ran to their end, none killed" sh -c \
		'cat /run/fsck.trace; head -n 1 /run/fsck.trace | grep -q "^start [0-9]* -a " &&
		 awk "/^start/ { s[\$2] = 1 } /^end/ { if (!(\$2 in s) || \$3 >= 128) bad = 1; delete s[\$2] }
		      END { for (p in s) bad = 1; exit bad }" /run/fsck.trace'
	t "/data is back read-write, fs_fault 0, untouched files intact" data_ok
	t "the journal has the second repair" expect_eq 2 "$(entry_count $id_repaired)"
	umount /usr/sbin/fsck.fat

	# --- media: the card fails reads (the kernel's MMC fault injection)
	policy repair
	systemctl start fserrd.service
	t "fserrd started again, policy repair" until_true 60 unit_is active
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	fail=/sys/kernel/debug/mmc0/fail_mmc_request
	# In a failure window every request of the card fails, the root's too,
	# so nothing but the listing may need the card: no uevent (nonotify:
	# udevd and systemd would act on it) and fserrd stopped (SIGSTOP; it
	# sees the fault when it goes on). Seen before: with both running, the
	# window met reads of p2 and a write of its first block (ext2's
	# superblock).
	mount -o remount,nonotify /data
	_main=$(systemctl show -p MainPID --value fserrd.service)
	echo 0 >$fail/verbose
	echo 1 >$fail/interval
	_errors=$(cat $FAT/error_count)
	# one failed request: mmc_blk retries it, and nothing reaches FAT
	# (the root's programs are all read in by now: the listing's failure
	# window needs none of them)
	echo 1 >$fail/times
	sync
	blockdev --flushbufs /dev/$DATA
	io_count _p1 $DATA; io_count _p2 mmcblk0p2
	echo 100 >$fail/probability
	_listing=$(echo /data/WALK/*)
	echo 0 >$fail/probability
	io_count _p1b $DATA; io_count _p2b mmcblk0p2
	t "a request that fails once: mmc_blk's retry reads it, FAT sees no error" sh -c \
		"echo 'p1 I/O $_p1 -> $_p1b, p2 I/O $_p2 -> $_p2b';
		 [ \$(cat $fail/times) = 0 ] && [ '$_p2' = '$_p2b' ] && [ '$_p1' != '$_p1b' ] &&
		 [ \$(cat $FAT/error_count) = $_errors ] &&
		 [ \$(cat $FAT/fs_fault) = 0 ] && [ \$(echo '$_listing' | wc -w) = 40 ]"
	# every request fails while bash lists an uncached directory (a
	# builtin, so that nothing else need be read from the card then).
	# Only /data's cache is dropped (blockdev --flushbufs): with every
	# cache dropped, the root's programs page in from the card during the
	# failure too (seen: I/O errors on p2's sectors in such a run).
	_fsck=$(journal_events fsck-start)
	echo -1 >$fail/times
	sync
	blockdev --flushbufs /dev/$DATA
	io_count _p2 mmcblk0p2
	kill -STOP $_main
	echo 100 >$fail/probability
	_listing=$(echo /data/WALK/*)
	echo 0 >$fail/probability
	io_count _p2b mmcblk0p2
	kill -CONT $_main
	t "a directory the card cannot read: fs_fault 1, first_errno 5 (EIO)" sh -c \
		"echo '$_listing'; [ \$(cat $FAT/fs_fault) = 1 ] && [ \$(cat $FAT/first_errno) = 5 ]"
	# (fserrd's remount-ro says why it did it)
	t "fserrd: media-error, and it remounts /data read-only for the EIO" until_true 30 sh -c \
		"$(declare -f event_entries); event_entries media-error >/tmp/media &&
		 grep -qx FSERR_FIRST_ERROR=EIO /tmp/media && grep -qx PRIORITY=3 /tmp/media &&
		 event_entries remounted-ro >/tmp/remounted && grep -qx 'FSERR_MOUNTPOINT=/data' /tmp/remounted &&
		 grep -q '^FSERR_WHY=the device returned an I/O error (EIO)' /tmp/remounted &&
		 grep -q ' /data vfat ro,' /proc/mounts"
	t "... and no fsck ran on the failing card" expect_eq "$_fsck 2" \
		"$(journal_events fsck-start) $(entry_count $id_repaired)"
	# A FAT sector the card cannot read, on a fresh mount (fresh fserr
	# state, and the device's cache dropped when the unmount closed it):
	# FREE.BIN is opened first, so that the failure meets only the read
	# of its clusters, whose links FAT must read from the card.
	umount /data && mount -o nonotify /data
	_media=$(journal_events media-error)
	exec 3</data/FREE.BIN
	sync
	blockdev --flushbufs /dev/$DATA
	io_count _p2c mmcblk0p2
	kill -STOP $_main
	echo 100 >$fail/probability
	read -r -N 4096 -u 3 _x 2>/dev/null; _status=$?
	echo 0 >$fail/probability
	io_count _p2d mmcblk0p2
	kill -CONT $_main
	exec 3<&-
	t "a FAT sector the card cannot read: the read fails, FAT logs 'FAT read failed'" sh -c \
		"[ $_status != 0 ] && dmesg --notime | grep 'FAT-fs ($DATA): FAT read failed'"
	t "... fs_fault 1 with EIO on the fresh mount" sh -c \
		"cat $FAT/fs_fault $FAT/first_errno $FAT/last_errno; [ \$(cat $FAT/fs_fault) = 1 ] &&
		 [ \$(cat $FAT/first_errno) = 5 ]"
	t "fserrd: a second media-error, /data read-only again, still no fsck" until_true 30 sh -c \
		"$(declare -f event_entries journal_events); [ \$(journal_events media-error) = $((_media + 1)) ] &&
		 [ \$(journal_events fsck-start) = $_fsck ] && grep -q ' /data vfat ro,' /proc/mounts"
	echo 3 >/proc/sys/vm/drop_caches
	t "the card well again: every file the repairs left alone reads back as the host wrote it" \
		untouched_files_intact /data 'DATA.BIN|VICTIM2.BIN'
	# (every request of the host fails in the window, the root's too: it
	# must have made none, and no I/O error may name a sector of p2)
	t "the root, on the same card, did no I/O while the card failed, and met no error" sh -c \
		"echo 'p2 I/O $_p2 -> $_p2b, $_p2c -> $_p2d'; [ '$_p2' = '$_p2b' ] && [ '$_p2c' = '$_p2d' ] &&
		 [ \$(cat /sys/fs/ext2/mmcblk0p2/error_count) = 0 ] &&
		 ! dmesg --notime | awk '/I\/O error, dev mmcblk0, sector/ { s = \$6; sub(/,/, \"\", s); if (s + 0 >= $P2_START) print }' | grep ."
	systemctl stop fserrd.service
	echo 5000 >/sys/module/fserr/parameters/uevent_interval_ms
	t "no unit failed during the run" sh -c '! systemctl --failed --no-legend | grep .'
	tap_end
	# the unit's journal, for the record (docs/board-bringup.md quotes it)
	journalctl -q -u fserrd.service -o short-monotonic --no-pager | sed 's/^/# journal: /'
}

echo "@@FSERR-BEGIN board"
guest
# the kernel log and the end marker, as /init writes them (tests/lib/guest.sh)
guest_end
systemctl --no-block poweroff
