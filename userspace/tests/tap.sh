# TAP from the host's shell tests (bash). Set $work to a scratch folder,
# say `tap_plan N` before the first test (N: the exact number of tests, so
# that a script that dies halfway leaves a plan its results do not reach),
# run `check NAME COMMAND...` per test, and end with `tap_done`, which exits
# non-zero when a test failed or the count was not the plan's.
n=0
failed=0
planned=

tap_plan() { planned=$1; echo "1..$1"; }

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }

# skip NAME REASON: a test that cannot run here, and why
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

# check NAME COMMAND...: one test that passes when COMMAND succeeds; its
# output is shown as TAP comments when it fails.
check() {
	local name=$1
	shift
	if "$@" >"$work/out" 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/# /' "$work/out"; fi
}

# exits STATUS COMMAND...: the command exits with STATUS (output dropped)
exits() {
	local want=$1
	shift
	"$@" >/dev/null 2>&1
	[ $? -eq "$want" ]
}

# tap_done: exit 0 if every planned test ran and passed, 1 otherwise.
tap_done() {
	if [ "$n" != "$planned" ]; then
		echo "# planned ${planned:-nothing}, ran $n"
		exit 1
	fi
	[ "$failed" -eq 0 ] || echo "# $failed of $n failed"
	exit $((failed > 0))
}
