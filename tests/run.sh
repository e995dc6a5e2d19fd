#!/bin/bash
# The test suite behind `make check` (tier quick) and `make check-full`:
#   1. host tests: the runner's own self-tests (its judgement, and its
#      reading of scenario settings end to end), fscorrupt against freshly
#      made images, the log check's self-test, the userspace unit and CLI
#      tests, the series' known-false claims (kernel/check-facts.sh), a
#      short fuzz run of the uevent parser;
#   2. every scenario in tests/scenarios/ on each kernel in FSERR_KERNELS
#      (default "plain debug"): a fresh copy of its SD card, damaged on the
#      host by the scenario's prepare(), booted in QEMU; the guest prints TAP,
#      then its kernel log with the KUnit KTAP.
# Independent jobs run side by side, one per core (FSERR_JOBS, default
# nproc): each guest has one vCPU, a scenario with SMP=2 takes two slots.
# Each job's lines are printed when it ends; the run ends with
# "TIER: N passed, N failed, N skipped".
#
# Tiers (FSERR_TIER): "quick" runs the heavy scenarios scaled down on the
# debug kernel (the guest reads fserr.tier= and fserr.kernel= from its
# command line; see sized in tests/lib/guest.sh), "full" at full size on
# both kernels.
#
# Every TAP stream is judged by tests/lib/tapcheck.pl (TAP::Parser): a
# missing plan, results missing or beyond the plan, duplicate or
# out-of-order numbers and "Bail out!" fail; so do a host test program that
# exits non-zero, a guest that ended without its end marker, a kernel log
# with a report of any bug detector (tests/lib/logcheck.sh), a failed KUnit
# case. A scenario that plants bugs on purpose (PLANTED=) passes only if
# the log check reports each of them.
#
# Results and logs stay in build/run/: per job a folder with its lines
# (results), console, TAP and kernel log; times.tsv has one line per job
# (kernel, scenario, seconds, passed, failed, skipped), which
# tests/report.sh turns into the docs' tables.
#
#   tests/run.sh [SCENARIO...]     (default: all)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
runs=${FSERR_RUNS:-$top/build/run}
host_bin=$top/build/host
timeout=${FSERR_GUEST_TIMEOUT:-300}
tier=${FSERR_TIER:-quick}
slots=${FSERR_JOBS:-$(nproc)}
# make bench runs its benchmarks (tests/bench/) through the same machinery,
# without the host tests.
scenario_dir=${FSERR_SCENARIO_DIR:-$top/tests/scenarios}
host_tests=${FSERR_HOST_TESTS:-yes}

# shellcheck source=tests/lib/judge.sh
. "$top/tests/lib/judge.sh"
. "$top/tests/lib/tree.sh"

run_host_tests() {
	local us=$top/build/userspace/host t
	host_tap host/runner "$top/tests/host/runner-test.sh"
	host_tap host/runner-settings "$top/tests/host/runner-settings-test.sh"
	host_tap host/fscorrupt "$top/tests/host/fscorrupt-test.sh" "$host_bin/fscorrupt"
	host_tap host/logcheck "$top/tests/host/logcheck-test.sh"
	host_tap host/mountinfo-field "$top/tests/host/mountinfo-field-test.sh"
	host_tap host/docs "$top/tests/host/docs-test.sh"
	for t in uevent_test fsstate_test config_test state_test logline_test mountpoint_test fsck_test; do
		host_tap "host/userspace/${t%_test}" "$us/$t"
	done
	host_tap host/fserrctl "$top/userspace/tests/fserrctl-test.sh" "$us/fserrctl"
	host_tap host/fserrd "$top/userspace/tests/fserrd-test.sh" "$us/fserrd"
	host_tap host/repair-rig "$top/userspace/tests/repair-rig.sh" "$us/fserrd-rig"
	host_tap host/repair-rig-mutations "$top/userspace/tests/rig-mutations.sh"
	host_tap host/userspace/harness "$top/userspace/tests/harness-test.sh" gcc -Wall -Wextra \
		-Werror -Wno-unused-parameter
	host_tap host/userspace/build "$top/userspace/tests/build-test.sh"
	host_tap host/deb "$top/tests/host/deb-test.sh"
	if "$top/kernel/check-facts.sh" >"$us/check-facts.log" 2>&1; then
		result PASS "host/series: $(tail -n 1 "$us/check-facts.log" | sed 's/^check-facts: //')"
	else
		result FAIL "host/series: claims the v2 review found false (kernel/check-facts.sh)"
		sed 's/^/  | /' "$us/check-facts.log"
	fi
	if make -s -C "$top/userspace" fuzz-short O="$us" >"$us/fuzz.log" 2>&1; then
		result PASS "host/fuzz: uevent parser, 2,000,000 libFuzzer runs without a crash"
	else
		result FAIL "host/fuzz: uevent parser (see ${us#"$top"/}/fuzz.log)"
		tail -n 20 "$us/fuzz.log" | sed 's/^/  | /'
	fi
}

# A scenario's settings, read once: CARD; DEVICE=virtio for a virtio disk;
# TIMEOUT_FACTOR for long runs (fuzz); SMP (the race test wants two CPUs);
# KERNELS limits it to some kernels (planted bugs need LKDTM);
# PLANTED="LABEL=REGEX;..." names bugs it provokes on purpose, and TRACES
# how many "Call trace:" lines they print together (one more is a bug the
# planted ones would hide).
# STREAMS is the number of TAP streams its guest starts. APPEND adds to
# the kernel command line (fserr.enable=0). ICOUNT=1 gives the guest a
# clock that counts instructions (qemu/run.sh --icount; make bench's cost
# benchmarks). BOOT=board boots the board card (build/board/card.img, made
# by make board: a Debian root with systemd on p2) instead of the
# initramfs; its guest half is on the card.
#
# A scenario file is read with FSERR_TIER (quick, full) and FSERR_KERNEL
# (plain, debug) set, so that its settings may depend on them. One that
# defines boots() boots the guest itself, as often as it needs (the power
# cuts of board-powercut): run.sh calls boots CARD DIR TIMEOUT APPEND
# QEMU-ARGS... instead of booting once, and judges the DIR/console.log it
# puts together.
scenario_settings() { # FILE VARIANT: one per line
	(FSERR_KERNEL=$2
	 unset CARD DEVICE TIMEOUT_FACTOR SMP KERNELS PLANTED STREAMS APPEND ICOUNT BOOT TRACES
	 . "$1"; printf '%s\n' "$CARD" "${DEVICE:-sd}" "${TIMEOUT_FACTOR:-1}" \
		"${SMP:-1}" "${KERNELS:-$2}" "${PLANTED:-}" "${STREAMS:-}" "${APPEND:-}" \
		"${ICOUNT:-0}" "${BOOT:-initramfs}" "${TRACES:-}")
}

# What is wrong with a scenario's settings (scenario_settings' lines), or
# nothing: checked before anything computes with them, as a failed
# arithmetic expansion would end the loop that lists the jobs, and every
# scenario after it would vanish from the run.
settings_problem() { # CARD DEVICE FACTOR SMP KERNELS PLANTED STREAMS APPEND ICOUNT BOOT TRACES
	local whole='^[1-9][0-9]{0,5}$'
	[ $# -eq 11 ] || { echo "its settings could not be read"; return; }
	[[ $3 =~ $whole ]] || { echo "TIMEOUT_FACTOR=$3: not a whole number from 1"; return; }
	[[ $4 =~ $whole ]] || { echo "SMP=$4: not a whole number from 1"; return; }
	[ -n "$7" ] || { echo "STREAMS is not set (the number of TAP streams its guest starts)"; return; }
	[[ $7 =~ $whole ]] || { echo "STREAMS=$7: not a whole number from 1"; return; }
	local k
	for k in $5; do
		case $k in plain|debug) ;; *) echo "KERNELS=$5: '$k' is no kernel (plain, debug)"; return ;; esac
	done
	[ -n "${5// /}" ] || { echo "KERNELS is empty"; return; }
	case $2 in sd|virtio) ;; *) echo "DEVICE=$2: not sd or virtio"; return ;; esac
	case $9 in 0|1) ;; *) echo "ICOUNT=$9: not 0 or 1"; return ;; esac
	case ${10} in initramfs|board) ;; *) echo "BOOT=${10}: not initramfs or board"; return ;; esac
	if [ -n "$6" ]; then
		[[ ${11} =~ ^(0|[1-9][0-9]{0,2})$ ]] ||
			{ echo "TRACES=${11}: PLANTED needs the number of call traces its bugs print"; return; }
	elif [ -n "${11}" ]; then
		echo "TRACES=${11} without PLANTED"
	fi
}

run_scenario() { # FILE KERNEL-VARIANT
	local file=$1 variant=$2 name dir card device factor smp planted streams extra traces
	local status qemu_args=() append v src
	name=$(basename "$file" .sh)
	dir=$runs/$variant/$name
	[ "$variant" = plain ] || name=$variant/$name
	mapfile -t v < <(scenario_settings "$file" "$variant")
	card=${v[0]} device=${v[1]} factor=${v[2]} smp=${v[3]} planted=${v[5]} streams=${v[6]}
	extra=${v[7]} traces=${v[10]}
	# A replayed fuzz seed runs one stream of one scenario.
	[ -z "${FSERR_FUZZ:-}" ] || streams=
	[ "$device" = virtio ] && qemu_args=(--virtio)
	qemu_args+=(--smp "$smp")
	[ "${v[8]}" != 1 ] || qemu_args+=(--icount)
	append="fserr.scenario=$(basename "$file" .sh) fserr.tier=$tier fserr.kernel=$variant"
	append+="${FSERR_FUZZ:+ fserr.fuzz=$FSERR_FUZZ}"
	append+="${extra:+ $extra}"
	src=$top/build/images/card-$card.img
	if [ "${v[9]}" = board ]; then
		src=$top/build/board/card.img
		if ! [ -f "$src" ]; then
			result FAIL "$name: no board card ${src#"$top"/} (make board)"
			return
		fi
		qemu_args+=(--no-initrd)
		# (systemd's own status lines would interleave with the TAP)
		append="root=/dev/mmcblk0p2 rootwait rw systemd.show_status=0 $append"
	fi
	cp --sparse=always "$src" "$dir/card.img"
	# prepare() damages the card and may write blkdebug.conf for QEMU.
	if ! (PATH=$host_bin:$PATH FSERR_KERNEL=$variant; . "$top/tests/lib/host.sh"; . "$file"; prepare "$dir/card.img" "$dir") >"$dir/prepare.log" 2>&1; then
		result FAIL "$name: prepare the card (see ${dir#"$top"/}/prepare.log)"
		sed 's/^/  /' "$dir/prepare.log"
		return
	fi
	[ -f "$dir/blkdebug.conf" ] && qemu_args+=(--blkdebug "$dir/blkdebug.conf")
	if (FSERR_KERNEL=$variant; . "$file"; declare -F boots >/dev/null); then
		(FSERR_KERNEL=$variant; . "$file"
		 export GUEST_KERNEL=${kernel_image[$variant]} GUEST_INITRD=${kernel_initrd[$variant]}
		 boots "$dir/card.img" "$dir" $((kernel_timeout[$variant] * factor)) "$append" \
			"${qemu_args[@]}") >"$dir/boots.log" 2>&1
		status=$?
		judge_console "$name" "$dir" "$streams" "$planted" "$status" "$traces"
		return
	fi
	GUEST_KERNEL=${kernel_image[$variant]} GUEST_INITRD=${kernel_initrd[$variant]} \
		"$top/qemu/run.sh" --card "$dir/card.img" "${qemu_args[@]}" \
		--append "$append" --timeout $((kernel_timeout[$variant] * factor)) \
		--log "$dir/console.log" >/dev/null 2>"$dir/qemu.err"
	status=$?
	judge_console "$name" "$dir" "$streams" "$planted" "$status" "$traces"
}

# --- jobs ------------------------------------------------------------------

declare -A job_name=() job_dir=() job_cost=() job_start=()
running=0
all_results=$runs/results.txt
times=$runs/times.tsv

# A job's lines are printed, and added up, when it ends.
finish_job() { # PID STATUS
	local pid=$1 status=$2 dir=${job_dir[$1]} secs
	secs=$(( $(date +%s) - job_start[$1] ))
	echo "== ${job_name[$pid]} ($secs s)"
	if [ "$status" -ne 0 ]; then
		echo "FAIL ${job_name[$pid]}: the job itself ended with status $status" >>"$dir/results"
	fi
	cat "$dir/results"
	grep -E '^(PASS|FAIL|SKIP) ' "$dir/results" >>"$all_results"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${job_kernel[$pid]}" "${job_scenario[$pid]}" "$secs" \
		"$(grep -c '^PASS ' "$dir/results")" "$(grep -c '^FAIL ' "$dir/results")" \
		"$(grep -c '^SKIP ' "$dir/results")" >>"$times"
	running=$((running - job_cost[$pid]))
	unset "job_name[$pid]"
}

wait_one() {
	local pid status
	wait -n -p pid
	status=$?
	# (a process substitution may end here too: only jobs count)
	[ -n "${pid:-}" ] && [ -n "${job_name[$pid]:-}" ] || return 0
	finish_job "$pid" "$status"
}

declare -A job_kernel=() job_scenario=()
# start_job COST KERNEL SCENARIO NAME DIR COMMAND...: in the background, its
# output into DIR/results, once COST slots are free.
start_job() {
	local cost=$1 kernel=$2 scenario=$3 name=$4 dir=$5 pid
	shift 5
	[ "$cost" -le "$slots" ] || cost=$slots
	while [ $((running + cost)) -gt "$slots" ]; do
		wait_one
	done
	rm -rf "$dir"
	mkdir -p "$dir"
	"$@" >"$dir/results" 2>&1 &
	pid=$!
	job_name[$pid]=$name job_dir[$pid]=$dir job_cost[$pid]=$cost job_start[$pid]=$(date +%s)
	job_kernel[$pid]=$kernel job_scenario[$pid]=$scenario
	running=$((running + cost))
}

# --- main --------------------------------------------------------------------

: "${GUEST_QEMU:?run through make check (qemu/guest.mk describes the guest)}"
case $tier in quick|full) ;; *) echo "run.sh: FSERR_TIER is quick or full, not '$tier'" >&2; exit 2 ;; esac
export FSERR_TIER=$tier
declare -A kernel_image=([plain]=$GUEST_KERNEL [debug]=${GUEST_DEBUG_KERNEL:-})
declare -A kernel_initrd=([plain]=$GUEST_INITRD [debug]=${GUEST_DEBUG_INITRD:-$GUEST_INITRD})
# The debug kernel boots in about 10 s under TCG and runs far slower.
declare -A kernel_timeout=([plain]=$timeout [debug]=$((timeout * 3)))
read -r -a kernels <<<"${FSERR_KERNELS:-plain debug}"
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
	for f in "$scenario_dir"/*.sh; do
		scenarios+=("$(basename "$f" .sh)")
	done
fi
# (a scenario in a file that is not NAME.sh would never be listed, and
# never run; make bench's directory also holds tools, which define no
# prepare())
not_listed=()
for f in "$scenario_dir"/*; do
	case $f in
	*.sh) ;;
	*) [ -f "$f" ] && grep -q '^prepare()' "$f" && not_listed+=("${f##*/}") ;;
	esac
done
mkdir -p "$runs"
# run.info is written last: a run that did not finish leaves none.
rm -f "$runs/run.info"
started=$(date +%s)
# The commit under test, as it was when the run started.
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null)$(
	[ -z "$(git -C "$top" status --porcelain 2>/dev/null)" ] || echo '+uncommitted changes')
tree=$(tree_digest "$top")
echo "== tier $tier, kernels ${kernels[*]}, $slots jobs at a time"

# The jobs: every (kernel, scenario) pair, the slowest first, so that the
# two slots stay busy to the end: by the time each took in the last run of
# the same tier (times-TIER.tsv), else by a guess (debug kernel, long
# timeout, two CPUs).
declare -A last_secs=()
if [ -f "$runs/times-$tier.tsv" ]; then
	while IFS=$'\t' read -r k s secs _; do
		[[ $secs =~ ^[0-9]+$ ]] && last_secs[$k/$s]=$secs
	done <"$runs/times-$tier.tsv"
fi
: >"$all_results"
printf 'kernel\tscenario\tseconds\tpassed\tfailed\tskipped\n' >"$times"
for f in "${not_listed[@]}"; do
	result FAIL "$f: a file in ${scenario_dir#"$top"/}/ that is not named NAME.sh is never run" |
		tee -a "$all_results"
done
jobs_list=()
for k in "${kernels[@]}"; do
	if [ -z "${kernel_image[$k]:-}" ]; then
		result FAIL "$k: no such kernel (FSERR_KERNELS takes plain and debug)" | tee -a "$all_results"
		continue
	fi
	for s in "${scenarios[@]}"; do
		f=$scenario_dir/$s.sh
		name=$s
		[ "$k" = plain ] || name=$k/$s
		if ! [ -f "$f" ]; then
			result FAIL "$name: no such scenario ($f)" | tee -a "$all_results"
			continue
		fi
		mapfile -t v < <(scenario_settings "$f" "$k")
		problem=$(settings_problem "${v[@]}")
		if [ -n "$problem" ]; then
			result FAIL "$name: $problem" | tee -a "$all_results"
			continue
		fi
		if ! [[ " ${v[4]} " == *" $k "* ]]; then
			result SKIP "$name: runs on the ${v[4]} kernel only" | tee -a "$all_results"
			continue
		fi
		weight=$(( v[2] * 10 + v[3] ))
		[ "$k" = debug ] && weight=$((weight * 100))
		weight=${last_secs[$k/$s]:-$weight}
		jobs_list+=("$weight $k $s ${v[3]}")
	done
done
if [ ${#jobs_list[@]} -gt 0 ]; then
	mapfile -t jobs_list < <(printf '%s\n' "${jobs_list[@]}" | sort -rn -k1,1 -s)
else
	result FAIL "no scenario runs on the kernels named (${kernels[*]}): nothing was tested in a guest" |
		tee -a "$all_results"
fi

[ "$host_tests" = no ] || start_job 1 host host "host tests" "$runs/host" run_host_tests
# The first job in the list that fits the free slots starts: a two-CPU job
# that must wait for both slots does not keep the other slot idle while a
# long job runs (it starts when the one-slot jobs are done).
pending=("${jobs_list[@]}")
while [ ${#pending[@]} -gt 0 ]; do
	launched=false
	for i in "${!pending[@]}"; do
		read -r _ k s smp <<<"${pending[$i]}"
		[ "$smp" -le "$slots" ] || smp=$slots
		[ $((running + smp)) -le "$slots" ] || continue
		start_job "$smp" "$k" "$s" "scenario $s on the $k kernel" "$runs/$k/$s" \
			run_scenario "$scenario_dir/$s.sh" "$k"
		unset "pending[$i]"
		launched=true
		break
	done
	$launched || wait_one
done
while [ "$running" -gt 0 ]; do
	wait_one
done

# KUnit runs at every boot; its results are counted once per kernel, from
# the first scenario (in the list's order) that booted it without extra
# kernel parameters (with fserr.enable=0 its cases that mount are skipped).
# A case that failed in any other boot already failed that boot's scenario
# (judge_console).
for k in "${kernels[@]}"; do
	[ -n "${kernel_image[$k]:-}" ] || continue
	booted=false
	for s in "${scenarios[@]}"; do
		d=$runs/$k/$s
		[ -f "$d/dmesg" ] || continue
		mapfile -t v < <(scenario_settings "$scenario_dir/$s.sh" "$k")
		[ -z "${v[7]}" ] || continue
		booted=true
		if grep -q '# Subtest: fserr$' "$d/dmesg"; then
			label=kunit
			[ "$k" = plain ] || label=$k/kunit
			echo "== $label (from the boot of $s)"
			kunit_tap <"$d/dmesg" | tapcheck "$label" | tee -a "$all_results"
			continue 2
		fi
	done
	! $booted || echo "FAIL $k/kunit: no KUnit results in the kernel log of any guest" | tee -a "$all_results"
done

passed=$(grep -c '^PASS ' "$all_results")
failed=$(grep -c '^FAIL ' "$all_results")
skipped=$(grep -c '^SKIP ' "$all_results")
# The next run of this tier orders its jobs by these times.
cp "$times" "$runs/times-$tier.tsv"
# What tests/report.sh needs to say which run its figures come from.
{
	echo "date=$(date -u -d "@$started" '+%Y-%m-%d %H:%M UTC')"
	echo "commit=$commit"
	echo "tree=$tree"
	echo "tier=$tier"
	echo "kernels=${kernels[*]}"
	echo "scenarios=${#scenarios[@]}"
	echo "all_scenarios=$( [ $# -eq 0 ] && echo yes || echo no)"
	echo "fuzz_replay=${FSERR_FUZZ:-}"
	echo "jobs=$slots"
	echo "machine=$(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), $(qemu-system-aarch64 --version | head -n1)"
	echo "seconds=$(( $(date +%s) - started ))"
	echo "passed=$passed"
	echo "failed=$failed"
	echo "skipped=$skipped"
} >"$runs/run.info"
echo "== $(( $(date +%s) - started )) s; results in ${runs#"$top"/}/results.txt, times in ${runs#"$top"/}/times.tsv"
echo "$tier: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
