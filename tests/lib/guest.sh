# Shell helpers for the guest half of a scenario (busybox ash).
# Sourced by /init before the scenario's guest().

# --- TAP from shell --------------------------------------------------------

# tap_begin LABEL N; t NAME COMMAND...; tap_end
# The plan comes first (kselftest's ksft_set_plan): a scenario that dies
# halfway leaves a plan that its results do not reach, and the runner
# says so. N is the exact number of t calls that follow; where a loop
# repeats tests, compute it with $((...)).
tap_begin() {
	_tap_n=0
	_tap_label=$1
	_tap_plan=${2:-}
	case $_tap_plan in
	'' | *[!0-9]*) echo "Bail out! $_tap_label: tap_begin without a count" ;;
	*) echo "1..$_tap_plan" ;;
	esac
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

# t_skip NAME REASON: a test that cannot be judged here, and why
t_skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n $_tap_label: $1 # SKIP $2"
}

# tap_end: a comment if the count was not the plan's (the runner fails
# the stream anyway).
tap_end() {
	[ "$_tap_n" = "$_tap_plan" ] || echo "# $_tap_label: planned $_tap_plan, ran $_tap_n"
}

# sized FULL QUICK: the size of a heavy test. QUICK when the runner asked
# for the quick tier on the debug kernel (fserr.tier=quick and
# fserr.kernel=debug on the kernel command line), FULL otherwise (also
# when the words are absent, e.g. make boot). FSERR_CMDLINE names another
# file to read, for a test of sized itself.
sized() {
	_sz_tier=full _sz_kernel=plain
	for _sz_w in $(cat "${FSERR_CMDLINE:-/proc/cmdline}"); do
		case $_sz_w in
		fserr.tier=*) _sz_tier=${_sz_w#fserr.tier=} ;;
		fserr.kernel=*) _sz_kernel=${_sz_w#fserr.kernel=} ;;
		esac
	done
	if [ "$_sz_tier" = quick ] && [ "$_sz_kernel" = debug ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

# until_true SECONDS COMMAND...: COMMAND until it succeeds, every 0.2 s,
# for at most SECONDS (the board card's scripts)
until_true() {
	_u_end=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_u_end" ] || return 1
		sleep 0.2
	done
}

# expect_eq WANT GOT
expect_eq() {
	[ "$1" = "$2" ] && return 0
	echo "expected '$1', got '$2'"
	return 1
}

# expect_between MIN MAX GOT: GOT is a number from MIN to MAX; empty or
# other text (an attribute that could not be read) fails.
expect_between() {
	case $3 in
	'' | *[!0-9]*) echo "expected a number from $1 to $2, got '$3'"; return 1 ;;
	esac
	[ "$3" -ge "$1" ] && [ "$3" -le "$2" ] && return 0
	echo "expected a number from $1 to $2, got $3"
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

# run_tap LABEL COMMAND [ARGS...]: run a program that prints TAP, with its
# output as it comes, each test name prefixed with "LABEL: ". A program
# that exits non-zero gets a "Bail out!" line (a kselftest_harness program
# exits 1 when one of its tests failed: one more failure, on purpose). A
# "TAP version" header becomes a comment: the runner splits the console
# into streams at their plans, and the header would end the one before.
run_tap() {
	_rt_label=$1
	shift
	# the program's name for the Bail out line (past env and VAR=value)
	for _rt_cmd in "$@"; do
		case $_rt_cmd in env | *=*) ;; *) break ;; esac
	done
	rm -f /tmp/run_tap.status
	{ "$@" 2>&1; echo $? >/tmp/run_tap.status; } |
		sed -E -e "s/^(not ok|ok) ([0-9]+) /\\1 \\2 $(printf '%s' "$_rt_label" | sed 's/[\\/&]/\\&/g'): /" \
			-e 's/^TAP version/# TAP version/'
	_rt_status=$(cat /tmp/run_tap.status 2>/dev/null)
	case $_rt_status in
	0) return 0 ;;
	'') echo "Bail out! $_rt_label: $_rt_cmd left no exit status" ;;
	*)
		if [ "$_rt_status" -gt 128 ]; then
			echo "Bail out! $_rt_label: $_rt_cmd killed by signal $((_rt_status - 128))"
		else
			echo "Bail out! $_rt_label: $_rt_cmd exited with status $_rt_status"
		fi ;;
	esac
	return 1
}

# run_channels LABEL DEV FSTYPE FAMILY VICTIM TRIGGER ERRNO [OPTS]
# Runs the channel tests against one filesystem of the card; the storm test
# causes $FSERR_STORM errors (default 10000). $FSERR_READ_AT: where the
# "read" trigger reads (default 0); $FSERR_REPORTS: the reports the
# filesystem makes per failed access (default 1).
# uevent_listener FILE: uevent_listen in the background, appending to FILE;
# returns once its socket is bound (a uevent sent before is never seen),
# with its pid in $listener.
uevent_listener() {
	rm -f /tmp/uevent_listen.ready
	uevent_listen --ready /tmp/uevent_listen.ready >>"$1" &
	listener=$!
	local i=0
	while [ ! -e /tmp/uevent_listen.ready ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -e /tmp/uevent_listen.ready ] || echo "# uevent_listen did not start within 5 s"
}

# ext2_forget_errors DEV: remove ext2's on-disk record of an error
# (EXT2_ERROR_FS, bit 2 of s_state, byte 1082 of the volume) as e2fsck
# does after a repair, but keep the damage: the next mount starts with
# fs_fault 0 instead of reporting the record.
ext2_forget_errors() {
	local state
	state=$(dd if="$1" bs=1 skip=1082 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	[ -n "$state" ] || { echo "# ext2_forget_errors: cannot read $1"; return 1; }
	# shellcheck disable=SC2059 # (the format is the byte)
	printf "\\$(printf %03o $((state & ~2)))" |
		dd of="$1" bs=1 seek=1082 count=1 conv=notrunc 2>/dev/null && sync
}

run_channels() {
	run_tap "$1" env FSERR_DEV="$2" FSERR_FSTYPE="$3" FSERR_FAMILY="$4" FSERR_VICTIM="$5" \
		FSERR_TRIGGER="$6" FSERR_ERRNO="$7" FSERR_OPTS="${8:-}" FSERR_READ_AT="${FSERR_READ_AT:-0}" \
		FSERR_REPORTS="${FSERR_REPORTS:-1}" \
		FSERR_STORM="${FSERR_STORM:-10000}" KSFT_TAP_LEVEL=1 /tests/fserr_channels
}

# fat_matrix LABEL DEV: each kind of FAT corruption that prepare() made on
# the card is found through FAT's own code paths and raises fs_fault.
# Expects fat-dirent-bad-start on DATA.BIN, fat-chain-past-end on
# VICTIM2.BIN, fat-free-in-chain on FREE.BIN, fat-size-past-chain on
# DIR1/FILE1.TXT.
fat_matrix() {
	tap_begin "$1" $((4 * 5 + 2))
	for f in DATA.BIN VICTIM2.BIN FREE.BIN DIR1/FILE1.TXT; do
		mount -t vfat -o notify "/dev/$2" /mnt || echo "# mount /dev/$2 failed"
		t "$f: clean mount, fs_fault 0" expect_eq 0 "$(attr fat "$2" fs_fault)"
		t "$f: reading it fails" sh -c "[ -f /mnt/$f ] && ! cat /mnt/$f >/dev/null"
		t "$f: fs_fault 1" expect_eq 1 "$(attr fat "$2" fs_fault)"
		t "$f: first_errno EUCLEAN" expect_eq 117 "$(attr fat "$2" first_errno)"
		t "$f: errors counted" expect_between 1 1000000 "$(attr fat "$2" error_count)"
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
# be read, and check what fserr reports. /WALK holds 40 files (F1.TXT to
# F40.TXT); its first block holds "." and ".." and 14 of them. Without "."
# and ".." FAT finds the directory corrupted ("corrupted directory (invalid
# entries)") and refuses it whole: ls fails and lists none of the 40 (as
# measured on both QEMU devices; the old check, fewer than 40 listed, passed
# on that empty listing without saying so).
media_error_walk() {
	tap_begin "media-error-$1" 6
	mount -t vfat -o notify "/dev/$1" /mnt
	t "clean mount, fs_fault 0" expect_eq 0 "$(attr fat "$1" fs_fault)"
	ls /mnt/WALK >/tmp/walk 2>&1
	echo "ls status $?" >>/tmp/walk
	t "the directory is refused: ls fails and lists none of its 40 files" sh -c \
		'cat /tmp/walk; ! grep -q "^ls status 0$" /tmp/walk && ! grep -q "^F[0-9]*\.TXT$" /tmp/walk &&
		 grep -q "^ls: /mnt/WALK: " /tmp/walk'
	t "fs_fault 1" expect_eq 1 "$(attr fat "$1" fs_fault)"
	t "first_errno $2" expect_eq "$2" "$(attr fat "$1" first_errno)"
	if [ "$2" = 5 ]; then
		t "io_error_count counts the failed read" sh -c \
			"[ \"\$1\" -ge 1 ] 2>/dev/null || { echo \"io_error_count: \$1\"; exit 1; }" - \
			"$(attr fat "$1" io_error_count)"
	else
		t_skip "io_error_count counts the failed read" \
			"FAT met no EIO here (errno $2): the device returned data"
	fi
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
	run_tap "$1" fuzz_walk "$1" "$2" "$3" "/tmp/fuzz-$1.img" "$4" "$5" $_v
}

# --- the end of a run ----------------------------------------------------------

# guest_end: what follows the TAP in every guest (/init, and the board
# card's test): on the debug kernel a kmemleak scan, then the kernel log
# and the end marker.
guest_end() {
	# On the debug kernel, kmemleak: it reports no object younger than 5 s and
	# none whose contents changed since its previous scan, and its first scan
	# of its own comes a minute after boot. So scan, wait past that age, scan
	# again: what the second scan still finds unreferenced is reported.
	# (debugfs may be mounted already: the planted-bugs scenario uses it.)
	# A kmemleak that cannot scan (it disables itself when it runs out of
	# objects) would find nothing quietly: say so in the log check's words.
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	if grep -q 'fserr\.kernel=debug' /proc/cmdline; then
		read -r t0 _ </proc/uptime
		if ! { echo scan >/sys/kernel/debug/kmemleak && read -r t1 _ </proc/uptime &&
		       sleep 6 && read -r t2 _ </proc/uptime &&
		       echo scan >/sys/kernel/debug/kmemleak && read -r t3 _ </proc/uptime &&
		       cat /sys/kernel/debug/kmemleak >/tmp/kmemleak; }; then
			echo "BUG: kmemleak could not scan at the end of the run" >/dev/kmsg
		else
			echo "# kmemleak: scans took $t0..$t1 and $t2..$t3 s of uptime"
		fi
	fi
	read -r t0 _ </proc/uptime
	echo "# uptime at the end of the run: $t0 s"
	echo "@@FSERR-DMESG"
	# Error storms repeat one line thousands of times; say so once. (The
	# board's dmesg is util-linux's, which adds times unless told not to;
	# busybox's knows no --notime.)
	{ dmesg --notime 2>/dev/null || dmesg; } | awk '$0 == prev { n++; next }
		{ if (n) print "[repeated " n " more times]"; n = 0; print; prev = $0 }
		END { if (n) print "[repeated " n " more times]" }'
	[ -s /tmp/kmemleak ] && cat /tmp/kmemleak
	echo "@@FSERR-END"
}
