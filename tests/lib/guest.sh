# Shell helpers for the guest half of a scenario (busybox ash).
# Sourced by /init before the scenario's guest().

# --- TAP from shell --------------------------------------------------------

# tap_begin LABEL; t NAME COMMAND...; tap_end
tap_begin() {
	_tap_n=0
	_tap_label=$1
}

t() {
	_tap_name=$1
	shift
	_tap_n=$((_tap_n + 1))
	if "$@" >/tmp/t.out 2>&1; then
		echo "ok $_tap_n $_tap_label: $_tap_name"
	else
		echo "not ok $_tap_n $_tap_label: $_tap_name"
		sed 's/^/# /' /tmp/t.out
	fi
}

tap_end() {
	echo "1..$_tap_n"
}

# expect_eq WANT GOT
expect_eq() {
	[ "$1" = "$2" ] && return 0
	echo "expected '$1', got '$2'"
	return 1
}

# --- fserr state -------------------------------------------------------------

# attr FAMILY DEV NAME: one fserr attribute of /dev/DEV's filesystem
attr() {
	cat "/sys/fs/$1/$2/$3" 2>&1
}

# Wait until the worker has run: a listener needs a moment after an error.
settle() {
	sleep "${1:-0.3}"
}

# Lift the global uevent cap for a test run: tests that follow each other
# quickly must not suppress each other's uevents. Tests of the cap set it.
fserr_lift_global_cap() {
	echo 100000 >/sys/module/fserr/parameters/uevent_burst
}

fserr_default_limits() {
	echo 5000 >/sys/module/fserr/parameters/uevent_interval_ms
	echo 10 >/sys/module/fserr/parameters/uevent_burst
}

# Check that the files no corruption touched read back as the host made them.
# untouched_files_intact DIR EXCLUDED-REGEX
untouched_files_intact() {
	(cd "$1" && grep -v -E "$2" /tests/card.sha256 | sha256sum -c -)
}

# files_intact DIR INCLUDED-REGEX: the same for the files that match
files_intact() {
	(cd "$1" && grep -E "$2" /tests/card.sha256 | sha256sum -c -)
}

# --- test programs ------------------------------------------------------------

# run_channels LABEL DEV FSTYPE FAMILY VICTIM TRIGGER ERRNO [OPTS]
# Runs the channel tests against one filesystem of the card; the storm test
# causes $FSERR_STORM errors (default 10000).
run_channels() {
	echo "# fserr_channels on $1"
	FSERR_DEV=$2 FSERR_FSTYPE=$3 FSERR_FAMILY=$4 FSERR_VICTIM=$5 \
	FSERR_TRIGGER=$6 FSERR_ERRNO=$7 FSERR_OPTS=${8:-} FSERR_STORM=${FSERR_STORM:-10000} \
		/tests/fserr_channels 2>&1 | sed -E "s/^(not ok|ok) ([0-9]+) /\\1 \\2 $1: /"
}

# fat_matrix LABEL DEV: each kind of FAT corruption that prepare() made on
# the card is found through FAT's own code paths and raises fs_fault.
# Expects fat-dirent-bad-start on DATA.BIN, fat-chain-past-end on
# VICTIM2.BIN, fat-free-in-chain on FREE.BIN, fat-size-past-chain on
# DIR1/FILE1.TXT.
fat_matrix() {
	tap_begin "$1"
	for f in DATA.BIN VICTIM2.BIN FREE.BIN DIR1/FILE1.TXT; do
		mount -t vfat -o notify "/dev/$2" /mnt || echo "# mount /dev/$2 failed"
		t "$f: clean mount, fs_fault 0" expect_eq 0 "$(attr fat "$2" fs_fault)"
		t "$f: reading it fails" sh -c "! cat /mnt/$f >/dev/null"
		t "$f: fs_fault 1" expect_eq 1 "$(attr fat "$2" fs_fault)"
		t "$f: first_errno EUCLEAN" expect_eq 117 "$(attr fat "$2" first_errno)"
		t "$f: errors counted" test "$(attr fat "$2" error_count)" -ge 1
		umount /mnt
	done
	mount -t vfat -o ro "/dev/$2" /mnt
	t "untouched files read back intact" untouched_files_intact /mnt \
		'DATA.BIN|VICTIM2.BIN|FREE.BIN|FILE1.TXT'
	t "reading them reported nothing" expect_eq 0 "$(attr fat "$2" error_count)"
	umount /mnt
	tap_end
}

# media_error_walk DEV ERRNO: list /WALK on DEV, whose first block cannot
# be read, and check what fserr reports.
media_error_walk() {
	tap_begin "media-error-$1"
	mount -t vfat -o notify "/dev/$1" /mnt
	t "clean mount, fs_fault 0" expect_eq 0 "$(attr fat "$1" fs_fault)"
	ls /mnt/WALK >/tmp/walk 2>&1
	t "the walk did not list the unreadable block" \
		test "$(grep -c 'F[0-9]*\.TXT' /tmp/walk)" -lt 40
	t "fs_fault 1" expect_eq 1 "$(attr fat "$1" fs_fault)"
	t "first_errno $2" expect_eq "$2" "$(attr fat "$1" first_errno)"
	t "other files still read back intact" untouched_files_intact /mnt 'WALK/'
	umount /mnt
	tap_end
}

# --- fserrd -------------------------------------------------------------------

# wait_log PATTERN [COUNT [SECONDS]]: until fserrd's log (/tmp/fserrd.log)
# has COUNT lines matching the extended regex PATTERN (default 1, 20 s).
wait_log() {
	_n=0
	# (a log that does not exist yet has no matching line: keep waiting)
	while _c=$(grep -c -E -- "$1" /tmp/fserrd.log 2>/dev/null); [ "${_c:-0}" -lt "${2:-1}" ]; do
		_n=$((_n + 1))
		if [ $_n -gt $((${3:-20} * 10)) ]; then
			echo "no line '$1' in fserrd's log:"
			cat /tmp/fserrd.log
			return 1
		fi
		sleep 0.1
	done
}

# fserrd_start ARGS...: fserrd in the background, logging to
# /tmp/fserrd.log (appended), state in /tmp/fserrd/state; waits until it
# has read the state once.
fserrd_start() {
	_starts=$(grep -c ' fserrd: start ' /tmp/fserrd.log 2>/dev/null)
	fserrd --state /tmp/fserrd/state --verbose "$@" 2>>/tmp/fserrd.log &
	fserrd_pid=$!
	wait_log 'fserrd: rescan why=start' $((${_starts:-0} + 1)) >/dev/null
}

# fserrd_stop: SIGTERM; returns fserrd's exit status.
fserrd_stop() {
	kill -TERM "$fserrd_pid"
	wait "$fserrd_pid"
}

# mounted_rw MOUNTPOINT / mounted_ro MOUNTPOINT: as /proc/mounts says
mounted_rw() {
	grep -q " $1 [^ ]* rw," /proc/mounts
}

mounted_ro() {
	grep -q " $1 [^ ]* ro," /proc/mounts
}

# damage DEV KIND PATH: fscorrupt on a live block device, then drop the
# caches, so that a file read before is read from the card again.
damage() {
	fscorrupt "$1" "$2" "$3" >/dev/null || return 1
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# --- fuzzed images --------------------------------------------------------------

# fuzz_volume NAME FSTYPE: /tmp/fuzz-NAME.img, the empty fuzz volume NAME
# (fat12, fat16, fat32, ext2) with /fuzz/stage copied on through the kernel.
fuzz_volume() {
	cp "/fuzz/$1.img" "/tmp/fuzz-$1.img"
	if ! { mount -t "$2" -o loop "/tmp/fuzz-$1.img" /mnt &&
	       cp -r /fuzz/stage/. /mnt/ && umount /mnt; }; then
		echo "Bail out! could not fill the $1 fuzz volume"
		return 1
	fi
}

# fuzz NAME FSTYPE FAMILY FIRST-SEED COUNT: fuzz_walk over COUNT mutated
# copies of the fuzz volume NAME. With fserr.fuzz=NAME:SEED on the kernel
# command line (make check FSERR_FUZZ=NAME:SEED) only that seed runs,
# printed in full; the other volumes are skipped.
fuzz() {
	_replay=$(sed -n 's/.*fserr\.fuzz=\([^ ]*\).*/\1/p' /proc/cmdline)
	_v=
	if [ -n "$_replay" ]; then
		[ "${_replay%%:*}" = "$1" ] || return 0
		set -- "$1" "$2" "$3" "${_replay#*:}" 1
		_v=-v
	fi
	fuzz_volume "$1" "$2" || return 1
	fuzz_walk "$1" "$2" "$3" "/tmp/fuzz-$1.img" "$4" "$5" $_v
}
