# Power cuts during a repair, on the board card (issue 27). The card is
# booted again and again; at each boot but the last the guest
# (tests/board/powercut-test.sh) raises a FAT fault that fserrd's policy
# repairs, and the host kills QEMU with SIGKILL at a random moment after
# it: the guest's page cache is lost, what it wrote to the card stays (the
# SD card model writes each block to the image as the guest sends it).
# The next boot checks what the cut left: fserrd carries the repair over
# from its state file (/var/lib/fserrd on the card's root), the volume is
# repaired and read-write, every file the host wrote verifies, fsck.fat -n
# finds nothing, no fault is handled twice or lost. Between boots the host
# runs e2fsck -p on the root partition, as a board's boot-time fsck of an
# ext2 root would, and e2fsck -y when -p may not fix what it found (seen
# once in 50 cuts: an unattached inode); the root, ext2 without a journal,
# is not what is tested here, fserrd's state file on it is (each boot
# checks fserrd read it whole). The exit statuses are in cuts.tsv.
#
# The last cut is not random: it comes while fserrd stands still right
# before the mount step (--pause-before mount), fsck ended and the step
# saved, the moment at which fsck.fat's unflushed writes were lost before
# fserrd 0.5 flushed the device after fsck.
#
# The delays are seeded: the seed is printed, and FSERR_CUT_SEED=N replays
# a run's delays. Each cut's numbers go to build/run/KERNEL/board-powercut/
# cuts.tsv; the TAP says how many cuts landed in each step.
BOOT=board
CARD=board
# Cuts: 50 in the full tier on the plain kernel, 3 in quick. The debug
# kernel boots the card in about 2.5 min under TCG: one cut (two boots)
# took 347 s beside the plain kernel's three (65 s); it runs in the full
# tier only, with 2 cuts, to keep make check's time.
KERNELS=plain
[ "${FSERR_TIER:-quick}" != full ] || KERNELS="plain debug"
case ${FSERR_TIER:-quick}/${FSERR_KERNEL:-plain} in
full/plain) CUTS=50 ;;
*/debug) CUTS=2 ;;
*) CUTS=3 ;;
esac
# a stream per boot, and the host's
STREAMS=$((CUTS + 2))
# each boot gets the kernel's timeout (run.sh), times this
TIMEOUT_FACTOR=1
# The delay after the fault's read is uniform in 0..WINDOW ms. A repair
# of the card on the plain kernel took 0.45 s from repair-start to
# repaired (board scenario at 31ba9b9): the window also covers the time
# before fserrd sees the fault and some after the repair.
case ${FSERR_KERNEL:-plain} in
debug) WINDOW_MS=6000 ;;
*) WINDOW_MS=1500 ;;
esac

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	: # nothing: the damage is done in the guest
}

guest() {
	echo "Bail out! the power-cut trials run from the board card, not from the initramfs"
}

# The last fserrd event of a boot's console before the cut
last_event() { # LOG
	sed -n 's/^@@CUT-EVENT //p' "$1" | tail -n 1 | grep . || echo none
}

# boots CARD DIR TIMEOUT APPEND QEMU-ARGS...: the boots and cuts, then
# DIR/console.log put together for run.sh's judge: every boot's TAP, the
# host's stream, every boot's kernel log.
boots() {
	local card=$1 dir=$2 timeout=$3 append=$4 k seed status delay p2 st rr fsck pause
	local -a delays qemu_args
	shift 4
	qemu_args=("$@")
	p2=$((83968 * 512))	# the root's offset on the card (tests/mkboard.sh)
	seed=${FSERR_CUT_SEED:-$(( ($(date +%s) ^ $$) % 1000000 ))}
	mapfile -t delays < <(awk -v s="$seed" -v n="$CUTS" -v w="$WINDOW_MS" \
		'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%d\n", rand() * w }')
	printf 'cut\tdelay_ms\tlast_event\tstate_step\tvictim\tqemu_status\te2fsck_status\n' >"$dir/cuts.tsv"
	: >"$dir/qemu.err"
	for ((k = 0; k <= CUTS; k++)); do
		rm -f "$dir/qemu.pid"
		pause=
		[ $((k + 1)) != "$CUTS" ] || pause=" fserr.cutpause=mount"
		"$top/qemu/run.sh" --card "$card" "${qemu_args[@]}" --pidfile "$dir/qemu.pid" \
			--append "$append loglevel=5 fserr.cut=$k fserr.cuts=$CUTS$pause" \
			--timeout "$timeout" --log "$dir/boot-$k.log" >/dev/null 2>>"$dir/qemu.err" &
		local run=$!
		if [ "$k" -lt "$CUTS" ]; then
			delay=${delays[$k]}
			# (polled every 20 ms; the delay counts from then)
			while kill -0 "$run" 2>/dev/null &&
				! grep -q '^@@FSERR-CUT-ARMED' "$dir/boot-$k.log" 2>/dev/null; do
				sleep 0.02
			done
			if [ -n "$pause" ]; then
				delay=paused
				while kill -0 "$run" 2>/dev/null &&
					! grep -q '^@@CUT-EVENT paused$' "$dir/boot-$k.log"; do
					sleep 0.02
				done
				kill -KILL "$(cat "$dir/qemu.pid")" 2>/dev/null
			elif grep -q '^@@FSERR-CUT-ARMED' "$dir/boot-$k.log"; then
				sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
				kill -KILL "$(cat "$dir/qemu.pid")" 2>/dev/null
			fi
		fi
		wait "$run"
		status=$?
		echo "boot $k: qemu/run.sh ended with status $status" >>"$dir/qemu.err"
		if [ "$k" -lt "$CUTS" ]; then
			# (-p stops at what it may not fix alone, an unattached
			# inode say; then -y, as whoever looks after the board would)
			e2fsck -fp "$card?offset=$p2" >"$dir/e2fsck-$k.log" 2>&1
			fsck=$?
			if [ "$fsck" -ge 4 ]; then
				e2fsck -fy "$card?offset=$p2" >>"$dir/e2fsck-$k.log" 2>&1
				fsck="$fsck/$?"
			fi
			printf '%s\t%s\t%s\t\t\t%s\t%s\n' $((k + 1)) "$delay" "$(last_event "$dir/boot-$k.log")" \
				"$status" "$fsck" >>"$dir/cuts.tsv"
		fi
		# the state step and the victim, as the next boot saw them
		if [ "$k" -gt 0 ]; then
			st=$(sed -n "s/^@@CUT-STATE $k //p" "$dir/boot-$k.log" | head -n 1)
			rr=$(sed -n "s/^@@CUT-REREAD $k //p" "$dir/boot-$k.log" | head -n 1)
			awk -F '\t' -v OFS='\t' -v k="$k" -v st="${st:-?}" -v rr="${rr:-?}" \
				'$1 == k { $4 = st; $5 = rr } { print }' "$dir/cuts.tsv" >"$dir/cuts.tsv.new"
			mv "$dir/cuts.tsv.new" "$dir/cuts.tsv"
		fi
	done
	cut_console "$dir" "$seed" >"$dir/console.log"
}

# The run's console, for run.sh's judge
cut_console() { # DIR SEED
	local dir=$1 seed=$2 k n
	echo "@@FSERR-BEGIN board-powercut"
	for ((k = 0; k <= CUTS; k++)); do
		sed -n "/^@@CUT-TAP-BEGIN $k\$/,/^@@CUT-TAP-END $k\$/p" "$dir/boot-$k.log" |
			grep -E '^(1\.\.[0-9]+$|ok |not ok |# |Bail out!)'
		grep '^Bail out!' "$dir/boot-$k.log" | grep -v -F -f <(
			sed -n "/^@@CUT-TAP-BEGIN $k\$/,/^@@CUT-TAP-END $k\$/p" "$dir/boot-$k.log")
	done
	# The host's stream: three checks per cut
	echo "1..$((3 * CUTS))"
	echo "# power-cut trials: $CUTS cuts, seed $seed (FSERR_CUT_SEED=$seed replays the delays)"
	n=0
	while IFS=$'\t' read -r k delay ev st rr qs fs; do
		[ "$k" = cut ] && continue
		n=$((n + 1))
		if [ "$qs" = 137 ] && grep -q '^@@FSERR-CUT-ARMED' "$dir/boot-$((k - 1)).log"; then
			if [ "$delay" = paused ]; then
				echo "ok $n powercut: cut $k: QEMU killed while fserrd stood still before the mount step, fsck ended (last fserrd event seen: $ev)"
			else
				echo "ok $n powercut: cut $k: QEMU killed $delay ms after the fault's read (last fserrd event seen: $ev)"
			fi
		else
			echo "not ok $n powercut: cut $k: QEMU killed after the fault's read (status $qs; armed: $(grep -c '^@@FSERR-CUT-ARMED' "$dir/boot-$((k - 1)).log"))"
		fi
		n=$((n + 1))
		# Once fserrd logged the fault, the state file held its repair
		# (saved before the line): with no repair left in it, or one
		# past fsck, fsck had ended, and its repair must be on the card.
		if [ "$rr" = fault ] && { [ "$st" = mount ] || { [ "$st" = none ] && [ "$ev" != none ]; }; }; then
			echo "not ok $n powercut: cut $k: fsck had ended before the cut (last event: $ev, state file: $st), but the card did not keep its repair"
		elif [ "$rr" = fault ] || [ "$rr" = clean ]; then
			echo "ok $n powercut: cut $k: what fserrd did before the cut is on the card (state file: $st, victim: $rr)"
		else
			echo "not ok $n powercut: cut $k: the next boot did not say what it found (state file: $st, victim: $rr)"
		fi
		n=$((n + 1))
		if [ "${fs#*/}" -lt 4 ]; then
			echo "ok $n powercut: cut $k: e2fsck makes the root partition consistent after the cut (exit $fs: -p, then -y if -p could not)"
		else
			echo "not ok $n powercut: cut $k: e2fsck makes the root partition consistent after the cut (exit $fs: -p, then -y)"
			sed 's/^/# /' "$dir/e2fsck-$((k - 1)).log"
		fi
	done <"$dir/cuts.tsv"
	echo "# where the cuts landed, by the last event fserrd logged before it: $(
		awk -F '\t' 'NR > 1 { n[$3]++ } END { for (e in n) printf "%s %d, ", e, n[e] }' "$dir/cuts.tsv" | sed 's/, $//')"
	echo "# ... and by the step in the state file at the next boot: $(
		awk -F '\t' 'NR > 1 { n[$4]++ } END { for (e in n) printf "%s %d, ", e, n[e] }' "$dir/cuts.tsv" | sed 's/, $//')"
	echo "@@FSERR-DMESG"
	for ((k = 0; k < CUTS; k++)); do
		sed -n "/^@@CUT-DMESG-BEGIN $k\$/,/^@@CUT-DMESG-END $k\$/{/^@@CUT-DMESG/!p}" "$dir/boot-$k.log"
		# (what the kernel printed to the console after that, up to the cut)
		sed -n "/^@@CUT-DMESG-END $k\$/,\$p" "$dir/boot-$k.log" | grep -E '^\[ *[0-9]+\.[0-9]+\] '
	done
	sed -n '/^@@FSERR-DMESG/,/^@@FSERR-END/{/^@@FSERR-DMESG/!p}' "$dir/boot-$CUTS.log"
}
