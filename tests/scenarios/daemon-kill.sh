# Nothing lost when fserrd is killed with SIGKILL in the middle of a repair,
# then started again: the volume ends mounted read-write with its bind mount,
# fs_fault is 0, every untouched file verifies by checksum, no fault is
# handled twice, and after the last kill fsck.fat -n finds nothing to repair.
#
# 1. Pause points (deterministic, one round per step): --pause-before stops
#    fserrd right after the state file records the step (unmount, fsck,
#    mount); it is killed there. Then fserrd is killed while its fsck.fat
#    runs (held by a wrapper), and the next one must wait for that orphan.
# 2. Random kills: moments fserrd does not choose. Trial SEED (a seeded
#    PRNG, tests/guest/fserrd_kill.c) damages a fresh file with one of three
#    FAT corruptions and reads it; then fserrd_kill sends SIGKILL after a
#    delay counted from that read (60 %: 0 .. 1.2 x the measured length of
#    a whole repair) or from a line of fserrd's log (40 %: fault,
#    repair-start, fsck-start, fsck-verify, repaired; 0 .. 1/40 of a repair,
#    so that it lands between an action and the next save of the state
#    file). Half the trials kill fserrd alone (the fsck it runs goes on,
#    an orphan, as after kill -9 of the daemon), half kill its children
#    with it (as systemd does with a crashed service's cgroup). Each trial
#    prints its seed, delay and where the kill landed (from the state file
#    and the log: before, handled, unmount, fsck, mount, after) in a TAP
#    comment; the results are aggregated, so the plan is fixed.
#    Sizes: 100 trials (sized in guest.sh) on both kernels in the full
#    tier; the quick tier runs 60 on the plain kernel and none on the
#    debug one (where 8 trials were its second-largest job; what still
#    covers the debug kernel: docs/reliability.md). Replay one trial:
#    make check SCENARIOS=daemon-kill FSERR_FUZZ=daemon-kill:SEED[:REPAIR_US]
#    (REPAIR_US as the trial's comment printed it, else it is measured
#    again). A hang prints every process with its kernel stack.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32
TIMEOUT_FACTOR=2
KERNELS=plain
[ "${FSERR_TIER:-quick}" != full ] || KERNELS="plain debug"

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	: # the damage is done in the guest
}

# A hang shows where it is: with no progress (dk_progress) for 120 s
# (600 s on the debug kernel), every process is printed with its state,
# wait channel and kernel stack.
dk_progress() {
	: >/tmp/dk.progress
}

dk_watchdog() {
	_limit=120
	grep -q 'fserr\.kernel=debug' /proc/cmdline && _limit=600
	while sleep 10; do
		[ $(($(date +%s) - $(stat -c %Y /tmp/dk.progress))) -gt $_limit ] || continue
		echo "# daemon-kill: no progress for $_limit s; the processes:"
		for _p in /proc/[0-9]*; do
			echo "# $(cut -d' ' -f1-4 "$_p/stat") wchan=$(cat "$_p/wchan")"
			sed 's/^/#   /' "$_p/stack"
		done 2>/dev/null
		return
	done
}

# kill_round STEP KIND FILE
kill_round() {
	dk_progress
	_resumed=$(grep -c ' how=resumed-repair ' /tmp/fserrd.log)
	fserrd_start -c /tmp/fserrd.conf --pause-before "$1"
	damage /dev/mmcblk0p1 "$2" "$3"
	cat "/mnt/$3" >/dev/null 2>&1
	t "$1: fserrd stopped before the step" wait_log " paused before=$1\$"
	kill -KILL "$fserrd_pid"
	wait "$fserrd_pid" 2>/dev/null
	_krc=$?
	# (137: ended by the SIGKILL, not by itself)
	t "$1: fserrd died of the kill (status $_krc) and the state file records the step" \
		sh -c "[ $_krc = 137 ] && grep -q '^step $1 179:1 ' /tmp/fserrd/state"
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
	t "$1: no repair step is left in the state file" sh -c \
		'[ -f /tmp/fserrd/state ] && ! grep -q "^step " /tmp/fserrd/state'
	fserrd_stop
}

# The trace lines of the wrapper around fsck.fat since _trace_from, from
# fserrd's log (its output), into /tmp/fsck.trace: "start PID", "end PID"
fsck_trace() {
	sed -n "$_trace_from,\$s/^fsck-trace //p" /tmp/fserrd.log >/tmp/fsck.trace
}

# orphan_round VICTIM UNTOUCHED: fserrd killed alone while its fsck.fat
# runs (the fsck.fat goes on, an orphan, as after kill -9 of the daemon).
# The next fserrd must wait for it before its own fsck: two fsck.fat on
# one device at once undo each other's work (a random trial saw the
# second one find the clusters the first had just reclaimed, and the
# volume came back read-only). fsck.fat behind a wrapper that notes when
# it starts and ends; the first run waits on a FIFO until the test lets
# it go, after the next fserrd said it waits (or did not, in time).
orphan_round() {
	dk_progress
	cp /sbin/fsck.fat /tmp/fsck.fat.real
	# (fsck sees every mount read-only: the wrapper writes its trace to
	# its output, fserrd's log, and the hold is the test's to remove)
	cat >/tmp/trace-fsck <<'WRAPPER'
#!/bin/sh
echo "fsck-trace start $$"
if [ -e /tmp/fsck.hold ]; then
	read _go </tmp/fsck.go
fi
/tmp/fsck.fat.real "$@"
_rc=$?
echo "fsck-trace end $$"
exit $_rc
WRAPPER
	chmod +x /tmp/trace-fsck
	_trace_from=$(($(wc -l </tmp/fserrd.log) + 1))
	rm -f /tmp/fsck.go
	mkfifo /tmp/fsck.go
	: >/tmp/fsck.hold
	mount --bind /tmp/trace-fsck /sbin/fsck.fat
	# (a victim the kernel has not cached: written before a fresh mount)
	head -c 4096 /dev/urandom >"/mnt/$1"
	umount /mnt2
	umount /mnt
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	mount --bind /mnt/DIR1 /mnt2
	_resumed=$(grep -c ' how=resumed-repair ' /tmp/fserrd.log)
	fserrd_start -c /tmp/fserrd.conf
	damage /dev/mmcblk0p1 fat-chain-past-end "$1"
	cat "/mnt/$1" >/dev/null 2>&1
	_n=0
	while fsck_trace && ! grep -q '^start ' /tmp/fsck.trace && [ $_n -lt 200 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	t "orphan: fserrd started fsck.fat" grep -q '^start ' /tmp/fsck.trace
	kill -KILL "$fserrd_pid"
	wait "$fserrd_pid" 2>/dev/null
	_krc=$?
	fsck_trace
	t "orphan: fserrd died of the kill (status $_krc), its fsck.fat waits on" \
		sh -c "[ $_krc = 137 ] && pidof fsck.fat >/dev/null && ! grep -q '^end ' /tmp/fsck.trace"
	fserrd_start -c /tmp/fserrd.conf
	t "orphan: the next fserrd waits for that fsck.fat" \
		wait_log ' fsck-wait device=/dev/mmcblk0p1 '
	rm -f /tmp/fsck.hold
	echo go >/tmp/fsck.go &
	_writer=$!
	t "orphan: ... then finishes the repair" wait_log \
		' repaired dev=179:1 how=resumed-repair mounted=as-before fs_fault=0$' $((_resumed + 1))
	kill "$_writer" 2>/dev/null
	fsck_trace
	echo "# fsck.fat runs, in order: $(tr '\n' ' ' </tmp/fsck.trace)"
	t "orphan: never two fsck.fat at once" \
		awk '$1 == "start" { if (++n > 1) bad = 1; runs++ } $1 == "end" { n-- }
		     END { exit (bad || runs < 2) ? 1 : 0 }' /tmp/fsck.trace
	t "orphan: /mnt is mounted read-write" mounted_rw /mnt
	t "orphan: the bind mount is back" test -f /mnt2/FILE2.TXT
	t "orphan: fs_fault 0" expect_eq 0 "$(attr fat mmcblk0p1 fs_fault)"
	t "orphan: the untouched files verify" untouched_files_intact /mnt "$2"
	fserrd_stop
	umount /sbin/fsck.fat
	rm -f /tmp/fsck.go /tmp/fsck.hold
}

# The counters of the random trials: k_NAME is the number of trials that
# failed the check NAME, at_PLACE where the kills landed.
kill_counters_reset() {
	k_raised=0 k_anchor=0 k_stop=0 k_rw=0 k_bind=0 k_fault=0 k_files=0 k_step=0
	k_lost=0 k_twice=0
	at_before=0 at_handled=0 at_unmount=0 at_fsck=0 at_mount=0 at_after=0
	fsck_running=0 orphans=0 mode_alone=0 mode_group=0
}

# The failed checks so far
kill_failures() {
	echo $((k_raised + k_anchor + k_stop + k_rw + k_bind + k_fault + k_files + k_step + k_lost +
		k_twice))
}

# kill_fail COUNTER WHY: count a failed check of this trial, say why
kill_fail() {
	eval "$1=\$(($1 + 1))"
	echo "#   FAILED: $2"
}

# The mounts of the card's FAT partition now
p1_mounts() {
	grep -c '^/dev/mmcblk0p1 ' /proc/mounts
}

# kill_trial SEED [REPAIR_US]
kill_trial() {
	dk_progress
	_seed=$1 _rus=${2:-$repair_us}
	set -- $(fserrd_kill plan "$_seed" "$_rus")
	_kind=$1 _mode=$2 _anchor=$3 _delay=$4
	_victim=KILL/S$_seed.BIN
	eval "mode_$_mode=\$((mode_$_mode + 1))"
	damage /dev/mmcblk0p1 "$_kind" "$_victim"
	_ino=$(stat -c %i /sys/fs/fat/mmcblk0p1)
	_from=$(($(wc -l </tmp/fserrd.log) + 1))
	fserrd_start -c /tmp/fserrd.conf
	_killed=$(fserrd_kill kill "$_mode" "$_anchor" "$_delay" "$fserrd_pid" \
		/tmp/fserrd.log "/mnt/$_victim")
	wait "$fserrd_pid" 2>/dev/null
	_krc=$?
	cp /tmp/fserrd/state /tmp/state.at-kill 2>/dev/null
	_raised=$(attr fat mmcblk0p1 fs_fault)
	# Where it landed: the state file, the log of the killed fserrd
	sed -n "$_from,\$p" /tmp/fserrd.log >/tmp/trial.log
	_step=$(sed -n 's/^step \([a-z]*\) .*/\1/p' /tmp/fserrd/state)
	_mounts=$(p1_mounts)
	_fsck=$(pidof fsck.fat)
	if [ -n "$_step" ]; then
		_at=$_step
	elif grep -q ' fserrd: repaired ' /tmp/trial.log; then
		_at=after
	elif grep -q ' fserrd: fault ' /tmp/trial.log; then
		_at=handled
	else
		_at=before	# (or handled, unlogged: told below by the fault line)
	fi
	case $_killed in *fsck.fat*) fsck_running=$((fsck_running + 1)) ;; esac
	[ -n "$_fsck" ] && orphans=$((orphans + 1))
	fserrd_start -c /tmp/fserrd.conf
	fserrd_stop
	_rc=$?
	# An orphan fsck of the killed fserrd may still run: let it end.
	_n=0
	while pidof fsck.fat >/dev/null && [ $_n -lt 300 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	sed -n "$_from,\$p" /tmp/fserrd.log >/tmp/trial.log
	# The faults of this trial: "fault_count=N ... ino=I" of each fault line
	sed -n 's/.* fserrd: fault .* fault_count=\([0-9]*\) .* ino=\([0-9]*\) .*/\2:\1/p' \
		/tmp/trial.log >/tmp/trial.faults
	_restarts=$(grep -c ' fserrd: repair-restart ' /tmp/trial.log)
	# (saved as handled, but killed before the fault line)
	if [ "$_at" = before ] && grep -q "^handled $_ino " /tmp/state.at-kill 2>/dev/null; then
		_at=handled
	fi
	eval "at_$_at=\$((at_$_at + 1))"
	echo "# trial seed=$_seed repair_us=$_rus kind=$_kind mode=$_mode anchor=$_anchor" \
		"delay_us=$_delay: $_killed; landed=$_at mounts=$_mounts${_fsck:+ orphan-fsck=$_fsck}"
	[ "$_raised" = 1 ] || [ "$_at" != before ] ||
		kill_fail k_raised "the read did not raise the fault"
	case $_killed in killed*) ;; *) kill_fail k_anchor "$_killed" ;; esac
	# (an fserrd that crashed or exited by itself is no kill)
	[ "$_krc" = 137 ] || kill_fail k_anchor "fserrd ended with status $_krc, not by the SIGKILL"
	[ "$_rc" = 0 ] || kill_fail k_stop "the next fserrd exited with $_rc on SIGTERM"
	mounted_rw /mnt || kill_fail k_rw "/mnt is not mounted read-write"
	{ grep -q ' /mnt2 ' /proc/mounts && test -f /mnt2/FILE2.TXT; } ||
		kill_fail k_bind "the bind mount /mnt2 is not back"
	_f=$(attr fat mmcblk0p1 fs_fault)
	[ "$_f" = 0 ] || kill_fail k_fault "fs_fault is '$_f'"
	untouched_files_intact /mnt 'DATA.BIN|VICTIM2.BIN|FREE.BIN' >/tmp/trial.sha 2>&1 ||
		kill_fail k_files "$(grep -v ': OK$' /tmp/trial.sha | head -n 5 | tr '\n' ' ')"
	{ [ -f /tmp/fserrd/state ] && ! grep -q '^step ' /tmp/fserrd/state; } ||
		kill_fail k_step "no state file, or a step left: $(grep '^step ' /tmp/fserrd/state 2>&1)"
	# One fault per trial, logged once, or once more after each restart
	[ -s /tmp/trial.faults ] || kill_fail k_lost "no fserrd logged the fault"
	if [ "$(sort -u /tmp/trial.faults | wc -l)" -gt 1 ] ||
	   [ "$(wc -l </tmp/trial.faults)" -gt $((1 + _restarts)) ]; then
		kill_fail k_twice "fault lines (ino:fault_count) $(tr '\n' ' ' </tmp/trial.faults), $_restarts repair-restart"
	fi
	if [ "$_k_failed" != "$(kill_failures)" ]; then
		echo "# fserrd log of the failed trial:"
		sed 's/^/#   /' /tmp/trial.log
		# Go on from a mounted, clean volume
		mounted_rw /mnt || { umount /mnt2 2>/dev/null; umount /mnt 2>/dev/null;
			fsck.fat -a -w /dev/mmcblk0p1 >/dev/null 2>&1;
			mount -t vfat -o notify /dev/mmcblk0p1 /mnt; }
		grep -q ' /mnt2 ' /proc/mounts || mount --bind /mnt/DIR1 /mnt2
		[ "$(attr fat mmcblk0p1 fs_fault)" = 0 ] || echo 0 >/sys/fs/fat/mmcblk0p1/fs_fault
	fi
	_k_failed=$(kill_failures)
}

# kill_trials N: the random trials, seeds 1..N (or the one of
# fserr.fuzz=daemon-kill:SEED[:REPAIR_US])
kill_trials() {
	kill_counters_reset
	_k_failed=0
	_replay=$(sed -n 's/.*fserr\.fuzz=daemon-kill:\([0-9:]*\).*/\1/p' /proc/cmdline)
	[ -n "$_replay" ] && trials=1
	# The victims, 8 clusters each, made before a fresh mount: the
	# kernel must not have their inodes cached (with the clusters the
	# write mapped), or reading one would not see the damage. Every
	# trial ends with a fresh mount, made by the repair.
	mkdir -p /mnt/KILL
	for _v in C1 C2 $(seq 1 "$trials" | sed 's/^/S/') ${_replay:+S${_replay%%:*}}; do
		head -c 4096 /dev/urandom >"/mnt/KILL/$_v.BIN"
	done
	umount /mnt2
	umount /mnt
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	mount --bind /mnt/DIR1 /mnt2
	# How long a whole repair takes here: from the read to the
	# "repaired" line, twice, the longer one.
	repair_us=0
	# ("_cal": wait_log, in fserrd_start, sets _c)
	for _cal in 1 2; do
		damage /dev/mmcblk0p1 fat-chain-past-end "KILL/C$_cal.BIN"
		fserrd_start -c /tmp/fserrd.conf
		_us=$(fserrd_kill measure /tmp/fserrd.log "/mnt/KILL/C$_cal.BIN" repaired)
		fserrd_stop
		[ "${_us:-0}" -gt "$repair_us" ] && repair_us=$_us
	done
	echo "# a repair takes $repair_us us (the longer of two)"
	if [ -n "$_replay" ]; then
		kill_trial "${_replay%%:*}" "$(echo "$_replay" | sed -n 's/^[0-9]*:\([0-9]*\)$/\1/p')"
	else
		_s=1
		while [ $_s -le "$trials" ]; do
			kill_trial $_s
			_s=$((_s + 1))
		done
	fi
	echo "# $trials trials: mode alone $mode_alone, group $mode_group;" \
		"landed before $at_before, handled $at_handled, unmount $at_unmount," \
		"fsck $at_fsck (fsck.fat running at $fsck_running), mount $at_mount," \
		"after $at_after; orphan fsck.fat alive after the kill $orphans"
}

guest() {
	fserr_lift_global_cap
	printf 'match fstype vfat repair\nrepair-limit 1000\n' >/tmp/fserrd.conf
	: >/tmp/fserrd.log
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	mount --bind /mnt/DIR1 /mnt2
	# 100; the quick tier 60 on the plain kernel (8 on the debug one, if
	# asked for: make check runs it there in the full tier only)
	trials=$(sized 100 8)
	grep -q 'fserr\.tier=quick' /proc/cmdline && grep -q 'fserr\.kernel=plain' /proc/cmdline &&
		trials=60
	dk_progress
	dk_watchdog &
	_watchdog=$!
	tap_begin daemon-kill 50
	kill_round unmount fat-dirent-bad-start DATA.BIN 'DATA.BIN'
	kill_round fsck fat-chain-past-end VICTIM2.BIN 'DATA.BIN|VICTIM2.BIN'
	kill_round mount fat-free-in-chain FREE.BIN 'DATA.BIN|VICTIM2.BIN|FREE.BIN'
	orphan_round ORPHAN.BIN 'DATA.BIN|VICTIM2.BIN|FREE.BIN'
	_t0=$(date +%s)
	kill_trials
	echo "# the random trials took $(($(date +%s) - _t0)) s"
	t "random kills: a repair without a kill took $repair_us us" test "$repair_us" -gt 0
	t "$trials trials: the read raised the fault ($k_raised failed)" expect_eq 0 $k_raised
	t "$trials trials: the kill came at its moment ($k_anchor failed)" expect_eq 0 $k_anchor
	t "$trials trials: the next fserrd stopped with 0 on SIGTERM ($k_stop failed)" expect_eq 0 $k_stop
	t "$trials trials: /mnt mounted read-write ($k_rw failed)" expect_eq 0 $k_rw
	t "$trials trials: the bind mount back ($k_bind failed)" expect_eq 0 $k_bind
	t "$trials trials: fs_fault 0 ($k_fault failed)" expect_eq 0 $k_fault
	t "$trials trials: the untouched files verify ($k_files failed)" expect_eq 0 $k_files
	t "$trials trials: no repair step left in the state file ($k_step failed)" expect_eq 0 $k_step
	t "$trials trials: a fserrd logged the fault ($k_lost failed)" expect_eq 0 $k_lost
	t "$trials trials: no fault handled twice ($k_twice failed)" expect_eq 0 $k_twice
	# (kills during the unmount step are rare: it takes a few ms of a
	# repair; the pause round covers it. The quick tier's 8 trials on the
	# debug kernel are too few to require a landing in each step.)
	if [ "$trials" -ge 60 ]; then
		t "kills landed during fsck and mount (at least 1 each)" \
			test $at_fsck -ge 1 -a $at_mount -ge 1
	else
		t_skip "kills landed during fsck and mount" \
			"only $trials trials (fsck $at_fsck, mount $at_mount)"
	fi
	umount /mnt2
	umount /mnt
	t "fsck.fat -n finds nothing left to repair" fsck.fat -n /dev/mmcblk0p1
	tap_end
	kill "$_watchdog"
	if [ "$(kill_failures)" != 0 ]; then
		echo "# fserrd log:"
		sed 's/^/# /' /tmp/fserrd.log
	fi
}
