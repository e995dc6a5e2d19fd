#!/bin/bash
# Self-test of the unit tests' harness (tests/harness.h), TAP: a program of
# crafted tests (tests/harness/crafted.c) whose outcomes are known is built
# and run; its plan, each result line, the handlers that must and must not
# run, and its exit status are checked.
#
#   tests/harness-test.sh CC [CFLAGS...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${1:-cc}
shift || true

tap_plan 16
if ! "$cc" "$@" -o "$work/crafted" "$here/harness/crafted.c" 2>"$work/cc.log"; then
	sed 's/^/# /' "$work/cc.log"
	echo "Bail out! the crafted tests do not build"
	exit 1
fi
"$work/crafted" >"$work/crafted.out" 2>&1
status=$?
has() { grep -qxF -- "$1" "$work/crafted.out"; }
has_re() { grep -qE -- "$1" "$work/crafted.out"; }
hasnt() { ! grep -qF -- "$1" "$work/crafted.out"; }

check "the plan comes first: 1..9" [ "$(grep -m1 -E '^1\.\.' "$work/crafted.out")" = 1..9 ]
check "exit status 1 when a test failed (got $status)" [ "$status" = 1 ]
check "a passing test is ok" has "ok 1 passes"
check "a failed EXPECT fails the test" has "not ok 2 expect_fails_and_goes_on"
check "a failed EXPECT runs its handler and goes on" \
	bash -c "grep -q 'handler of a failed EXPECT' '$work/crafted.out' && grep -q 'after the failed EXPECT' '$work/crafted.out'"
check "a passed EXPECT does not run its handler" hasnt "must not print"
check "a failed ASSERT fails the test and runs its handler block" \
	bash -c "grep -qx 'not ok 3 assert_ends_the_test' '$work/crafted.out' && grep -q 'handler block of a failed ASSERT' '$work/crafted.out'"
check "a failed check says what it compared" has_re 'expected "a" "a" == "b" "b"|expected 1 \(1\) == 2 \(2\)'
check "SKIP gives ok with its reason" has "ok 4 skipped # SKIP a reason"
check "a test killed by a signal fails" has "not ok 5 killed"
check "the signal is named" has_re "killed: killed by signal 11"
check "negative values are printed as such" has_re 'expected -22 \(-22\) == -5 \(-5\)'
check "a fixture test passes, named fixture.test" has "ok 7 fx.fixture_passes"
check "a failed ASSERT in a fixture test fails it" has "not ok 8 fx.fixture_assert_still_tears_down"
check "the teardown runs after every fixture test, also after a failed ASSERT" \
	[ "$(grep -c 'teardown ran, set_up=1' "$work/crafted.out")" = 2 ]
check "a check's handler does not run when it passed" has "ok 9 log_handler_only_on_failure"
if [ "$failed" != 0 ]; then sed 's/^/# | /' "$work/crafted.out"; fi
tap_done
