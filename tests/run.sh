#!/bin/bash
# The test suite behind `make check`:
#   1. host tests: fscorrupt against freshly made images, the userspace
#      unit tests and fserrctl's command line, a short fuzz run (TAP);
#   2. every scenario in tests/scenarios/: a fresh copy of its SD card,
#      damaged on the host by the scenario's prepare(), booted in QEMU; the
#      guest half prints TAP, then the kernel log (with the KUnit KTAP).
# Prints one line per test and ends with "N passed, N failed, N skipped".
# The kernel log check is tests/lib/logcheck.sh; a scenario that plants
# bugs on purpose (PLANTED=) passes only if the check reports each of them.
# A test that was announced (TAP plan) but never reported is a failure, as
# is a guest that hangs, a kernel log with a WARNING, BUG, oops, lockdep or
# KASAN report, or a failed KUnit case.
#
# Every scenario runs on each kernel in FSERR_KERNELS (default "plain
# debug"): the plain guest kernel, and the debug kernel with lockdep,
# atomic-sleep checks, object debugging, KASAN and kmemleak. Results on the
# debug kernel are named "debug/...".
#
#   tests/run.sh [SCENARIO...]     (default: all)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/run
host_bin=$top/build/host
timeout=${FSERR_GUEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1"; }

# tap_results LABEL < TAP: count ok / not ok lines and check them against
# the plans ("1..N"); several TAP streams may follow each other.
tap_results() {
	local label=$1 line planned=0 seen=0 name
	while IFS= read -r line; do
		case $line in
		1..*)
			planned=$((planned + ${line#1..}))
			;;
		"ok "*|"not ok "*)
			seen=$((seen + 1))
			name=${line#ok }
			name=${name#not ok }
			name=${name#* }		# drop the number
			case $line in
			*"# SKIP"*) skip "$label: ${name%%# SKIP*}" ;;
			"ok "*) pass "$label: $name" ;;
			*) fail "$label: $name" ;;
			esac
			;;
		esac
	done
	if [ "$seen" -lt "$planned" ]; then
		for ((i = seen; i < planned; i++)); do
			fail "$label: result missing (planned $planned, reported $seen)"
		done
	fi
	[ "$planned" -gt 0 ] || [ "$seen" -gt 0 ] || fail "$label: no test reported"
}

# shellcheck source=tests/lib/logcheck.sh
. "$(dirname "$0")/lib/logcheck.sh"

# The fuzz scenarios log "fserr-fuzz: LABEL seed N" before each image:
# name the seeds after which a problem appeared.
fuzz_seeds_of_problems() { # < dmesg
	awk -v re="$problem_re" '/fserr-fuzz: / { seed = $0; sub(/.*fserr-fuzz: /, "", seed); next }
		$0 ~ re && seed != "" && !seen[seed]++ { print seed }' | head -n 5
}

# KUnit prints "    ok N name" per case inside the suite's subtest.
# (tap_results must not run in a pipeline: its counts would stay in a subshell.)
kunit_results() { # LABEL DMESG
	tap_results "$1" < <(sed 's/^\[[ 0-9.]*\] //' "$2" | awk '
		/^    # Subtest: fserr$/ { inside = 1; next }
		inside && /^    1\.\./ { print "1.." substr($1, 4); next }
		inside && /^        (not )?ok / { sub(/^        /, ""); print; next }
		inside && /^    (not )?ok / { sub(/^    /, ""); print; next }
		inside && /^(not )?ok [0-9]+ fserr/ { inside = 0 }
	')
}

run_host_tests() {
	local us=$top/build/userspace/host t
	tap_results host/fscorrupt < <("$top/tests/host/fscorrupt-test.sh" "$host_bin/fscorrupt" 2>&1)
	tap_results host/logcheck < <("$top/tests/host/logcheck-test.sh" 2>&1)
	for t in uevent_test fsstate_test config_test state_test; do
		tap_results "host/userspace/${t%_test}" < <("$us/$t" 2>&1)
	done
	tap_results host/fserrctl < <("$top/userspace/tests/fserrctl-test.sh" "$us/fserrctl" 2>&1)
	tap_results host/fserrd < <("$top/userspace/tests/fserrd-test.sh" "$us/fserrd" 2>&1)
	if make -s -C "$top/userspace" fuzz-short O="$us" >"$us/fuzz.log" 2>&1; then
		pass "host/fuzz: uevent parser, 2,000,000 libFuzzer runs without a crash"
	else
		fail "host/fuzz: uevent parser (see ${us#"$top"/}/fuzz.log)"
		tail -n 20 "$us/fuzz.log" | sed 's/^/  | /'
	fi
}

run_scenario() { # FILE KERNEL-VARIANT
	local file=$1 variant=$2 name dir card device factor smp kernels planted
	local console status qemu_args=() append v
	name=$(basename "$file" .sh)
	dir=$runs/$variant/$name
	[ "$variant" = plain ] || name=$variant/$name
	# The scenario's settings, read once: CARD; DEVICE=virtio for a virtio
	# disk; TIMEOUT_FACTOR for long runs (fuzz); SMP (the race test wants
	# two CPUs); KERNELS limits it to some kernels (planted bugs need
	# LKDTM); PLANTED="LABEL=REGEX;..." names bugs it provokes on purpose.
	mapfile -t v < <( (. "$file"; printf '%s\n' "$CARD" "${DEVICE:-sd}" "${TIMEOUT_FACTOR:-1}" \
		"${SMP:-1}" "${KERNELS:-$variant}" "${PLANTED:-}") )
	card=${v[0]} device=${v[1]} factor=${v[2]} smp=${v[3]} kernels=${v[4]} planted=${v[5]}
	if ! [[ " $kernels " == *" $variant "* ]]; then
		skip "$name: runs on the $kernels kernel only"
		return
	fi
	booted[$variant]=1
	rm -rf "$dir"
	mkdir -p "$dir"
	[ "$device" = virtio ] && qemu_args=(--virtio)
	qemu_args+=(--smp "$smp")
	append="fserr.scenario=$(basename "$file" .sh)${FSERR_FUZZ:+ fserr.fuzz=$FSERR_FUZZ}"
	cp --sparse=always "$top/build/images/card-$card.img" "$dir/card.img"
	# prepare() damages the card and may write blkdebug.conf for QEMU.
	if ! (PATH=$host_bin:$PATH; . "$top/tests/lib/host.sh"; . "$file"; prepare "$dir/card.img" "$dir") >"$dir/prepare.log" 2>&1; then
		fail "$name: prepare the card (see ${dir#"$top"/}/prepare.log)"
		sed 's/^/  /' "$dir/prepare.log"
		return
	fi
	console=$dir/console.log
	[ -f "$dir/blkdebug.conf" ] && qemu_args+=(--blkdebug "$dir/blkdebug.conf")
	GUEST_KERNEL=${kernel_image[$variant]} "$top/qemu/run.sh" --card "$dir/card.img" "${qemu_args[@]}" \
		--append "$append" --timeout $((kernel_timeout[$variant] * factor)) \
		--log "$console" >/dev/null 2>"$dir/qemu.err"
	status=$?
	sed -n '/^@@FSERR-BEGIN/,/^@@FSERR-DMESG/p' "$console" >"$dir/tap"
	sed -n '/^@@FSERR-DMESG/,/^@@FSERR-END/p' "$console" >"$dir/dmesg"
	tap_results "$name" <"$dir/tap"
	if ! grep -q '^@@FSERR-END' "$console"; then
		fail "$name: guest finished (status $status; console tail below)"
		cat "$dir/qemu.err" "$console" 2>/dev/null | tail -n 25 | sed 's/^/  | /'
	elif ! grep -q '^Linux version' "$dir/dmesg"; then
		fail "$name: kernel log clean (the guest printed no kernel log)"
	elif [ -n "$planted" ]; then
		# Each planted bug must be reported by the log check.
		problems=$(kernel_log_problems <"$dir/dmesg")
		IFS=';' read -r -a entries <<<"$planted"
		for e in "${entries[@]}"; do
			if grep -qE -- "${e#*=}" <<<"$problems"; then
				pass "$name: the log check reports the planted ${e%%=*}"
			else
				fail "$name: the log check reports the planted ${e%%=*} (no line matches '${e#*=}')"
			fi
		done
	elif problems=$(kernel_log_problems <"$dir/dmesg"); then
		fail "$name: kernel log clean"
		echo "$problems" | head -n 20 | sed 's/^/  | /'
		fuzz_seeds_of_problems <"$dir/dmesg" | sed 's/^/  | after the image of fuzz /'
	else
		pass "$name: kernel log clean"
	fi
	if [ -z "${kunit_counted[$variant]:-}" ] && grep -q '# Subtest: fserr$' "$dir/dmesg"; then
		if [ "$variant" = plain ]; then
			kunit_results kunit "$dir/dmesg"
		else
			kunit_results "$variant/kunit" "$dir/dmesg"
		fi
		kunit_counted[$variant]=1
	fi
}

: "${GUEST_QEMU:?run through make check (qemu/guest.mk describes the guest)}"
declare -A kernel_image=([plain]=$GUEST_KERNEL [debug]=${GUEST_DEBUG_KERNEL:-})
# The debug kernel boots in about 10 s under TCG and runs far slower.
declare -A kernel_timeout=([plain]=$timeout [debug]=$((timeout * 3)))
declare -A kunit_counted=() booted=()
read -r -a kernels <<<"${FSERR_KERNELS:-plain debug}"
echo "== host tests"
run_host_tests
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
	for f in "$top"/tests/scenarios/*.sh; do
		scenarios+=("$(basename "$f" .sh)")
	done
fi
for k in "${kernels[@]}"; do
	if [ -z "${kernel_image[$k]:-}" ]; then
		fail "$k: no such kernel (FSERR_KERNELS takes plain and debug)"
		continue
	fi
	for s in "${scenarios[@]}"; do
		f=$top/tests/scenarios/$s.sh
		[ -f "$f" ] || { fail "$s: no such scenario ($f)"; continue; }
		echo "== scenario $s on the $k kernel"
		start=$(date +%s)
		run_scenario "$f" "$k"
		echo "   ($(( $(date +%s) - start )) s)"
	done
	[ -n "${kunit_counted[$k]:-}" ] || [ -z "${booted[$k]:-}" ] ||
		fail "$k/kunit: no KUnit results in the kernel log of any guest"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
