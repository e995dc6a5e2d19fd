# TAP from the host's shell tests (bash). Set $work to a scratch folder,
# run `check NAME COMMAND...` per test, and `tap_plan` at the end.
n=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $*"; }

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

tap_plan() { echo "1..$n"; }
