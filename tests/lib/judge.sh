# Judging test output into result lines (bash), shared by tests/run.sh and
# its self-test (tests/host/runner-test.sh). Needs $top, the project's root.
# Every line that counts is "PASS NAME", "FAIL NAME" or "SKIP NAME".

# One result line; only these lines are counted.
result() { echo "$1 $2"; }

tapcheck() { # LABEL < TAP
	perl "$top/tests/lib/tapcheck.pl" "$1"
}

# shellcheck source=tests/lib/logcheck.sh
. "$top/tests/lib/logcheck.sh"

# The fuzz scenarios log "fserr-fuzz: LABEL seed N" before each image:
# name the seeds after which a problem appeared.
fuzz_seeds_of_problems() { # < dmesg
	awk -v re="$problem_re" '/fserr-fuzz: / { seed = $0; sub(/.*fserr-fuzz: /, "", seed); next }
		$0 ~ re && seed != "" && !seen[seed]++ { print seed }' | head -n 5
}

# KUnit's KTAP for the fserr suite, unindented: the suite's plan and
# results (its subtests' lines are dropped).
kunit_tap() { # < dmesg
	sed 's/^\[[ 0-9.]*\] //' | awk '
		/^    # Subtest: fserr$/ { inside = 1; next }
		inside && /^    1\.\./ { print substr($0, 5); next }
		inside && /^    (not )?ok / { print substr($0, 5); next }
		inside && /^(not )?ok [0-9]+ fserr/ { inside = 0 }'
}

# The console's parts: the TAP between the begin and dmesg markers, the
# kernel log after it. Judged into result lines. STREAMS is the number of
# TAP streams the scenario starts (its STREAMS=): one that never started
# (a helper not found, a return before it) is a failure, not a silence.
# PLANTED names the bugs the scenario provokes on purpose; then each must
# be reported, any other report in the log is a failure, and the log has
# exactly TRACES "Call trace:" lines (a bug beside the planted ones prints
# one more, even when its first line is like one of theirs).
judge_console() { # NAME DIR STREAMS PLANTED QEMU-STATUS [TRACES]
	local name=$1 dir=$2 streams=$3 planted=$4 status=$5 traces=${6:-} console=$2/console.log
	local problems e entries started unexplained
	sed -n '/^@@FSERR-BEGIN/,/^@@FSERR-DMESG/p' "$console" >"$dir/tap"
	sed -n '/^@@FSERR-DMESG/,/^@@FSERR-END/p' "$console" >"$dir/dmesg"
	tapcheck "$name" <"$dir/tap"
	started=$(grep -c '^1\.\.[0-9]' "$dir/tap")
	if [ -n "$streams" ] && [ "$started" != "$streams" ]; then
		result FAIL "$name: $started TAP streams started, the scenario has $streams"
	fi
	if ! grep -q '^@@FSERR-END' "$console"; then
		result FAIL "$name: guest finished (status $status; console tail below)"
		# (a guest that timed out: where its CPUs were, from qemu/where.py)
		sed -n '/^qemu\/where\.py/,/^qemu\/run\.sh:/{/^qemu\/run\.sh:/!p}' \
			"$dir/qemu.err" 2>/dev/null | sed 's/^/  | /'
		cat "$dir/qemu.err" "$console" 2>/dev/null | tail -n 25 | sed 's/^/  | /'
	elif ! grep -q '^Linux version' "$dir/dmesg"; then
		result FAIL "$name: kernel log clean (the guest printed no kernel log)"
	elif [ -n "$planted" ]; then
		# Each planted bug must be reported by the log check ...
		problems=$(kernel_log_problems <"$dir/dmesg")
		IFS=';' read -r -a entries <<<"$planted"
		unexplained=$problems
		for e in "${entries[@]}"; do
			if grep -qE -- "${e#*=}" <<<"$problems"; then
				result PASS "$name: the log check reports the planted ${e%%=*}"
			else
				result FAIL "$name: the log check reports the planted ${e%%=*} (no line matches '${e#*=}')"
			fi
			unexplained=$(grep -vE -- "${e#*=}" <<<"$unexplained")
		done
		# ... with as many call traces as they print, and nothing else.
		e=$(grep -cx 'Call trace:' <<<"$problems")
		if [ "$e" = "$traces" ]; then
			result PASS "$name: $e call traces, as many as the planted bugs print"
		else
			result FAIL "$name: $e call traces, the planted bugs print ${traces:-(TRACES not given)}"
		fi
		unexplained=$(grep -vx 'Call trace:' <<<"$unexplained")
		if [ -n "$unexplained" ]; then
			result FAIL "$name: kernel log has nothing but the planted bugs"
			echo "$unexplained" | head -n 20 | sed 's/^/  | /'
		else
			result PASS "$name: kernel log has nothing but the planted bugs"
		fi
	elif problems=$(kernel_log_problems <"$dir/dmesg"); then
		result FAIL "$name: kernel log clean"
		echo "$problems" | head -n 20 | sed 's/^/  | /'
		fuzz_seeds_of_problems <"$dir/dmesg" | sed 's/^/  | after the image of fuzz /'
	else
		result PASS "$name: kernel log clean"
	fi
	# KUnit runs at every boot: a case that failed in any boot fails its
	# scenario (run.sh counts the passes once per kernel, from one boot).
	if [ -f "$dir/dmesg" ] && grep -q '# Subtest: fserr$' "$dir/dmesg"; then
		kunit_tap <"$dir/dmesg" | tapcheck "$name/kunit" | grep '^FAIL '
	fi
	return 0
}

# host_tap LABEL COMMAND...: a host test program's TAP, and its exit status
# (its output is kept in $runs/host/).
host_tap() {
	local label=$1 log status
	shift
	log=$runs/host/${label//\//-}.tap
	"$@" >"$log" 2>&1
	status=$?
	tapcheck "$label" <"$log"
	[ "$status" -eq 0 ] || result FAIL "$label: exited with status $status (see ${log#"$top"/})"
}
