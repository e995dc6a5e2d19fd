#!/bin/bash
# Self-test of the unit tests' harness (tests/harness.h), TAP: a program of
# crafted tests (tests/harness/crafted.c) whose outcomes are known is built
# and run; its plan, each result line, the handlers that must and must not
# run, and its exit status are checked.
#
#   tests/harness-test.sh CC [CFLAGS...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${1:-cc}
shift || true

tap_plan 26
if ! "$cc" "$@" -DTH_TIMEOUT_S=2 -o "$work/crafted" "$here/harness/crafted.c" 2>"$work/cc.log" ||
   ! "$cc" "$@" -o "$work/crafted_pass" "$here/harness/crafted_pass.c" 2>>"$work/cc.log"; then
	sed 's/^/# /' "$work/cc.log"
	echo "Bail out! the crafted tests do not build"
	exit 1
fi
# (built with a 2 s timeout: one crafted test hangs)
"$work/crafted" >"$work/crafted.out" 2>&1
status=$?
has() { grep -qxF -- "$1" "$work/crafted.out"; }
has_re() { grep -qE -- "$1" "$work/crafted.out"; }
hasnt() { ! grep -qF -- "$1" "$work/crafted.out"; }

check "the plan comes first: 1..15 before any result" \
	bash -c "grep -E '^(1\.\.|ok |not ok )' '$work/crafted.out' | head -n 1 | grep -qx '1\.\.15'"
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
check "a failed ASSERT in a helper ends the test" \
	bash -c "grep -qx 'not ok 10 assert_in_a_helper' '$work/crafted.out'"
check "a test that exits before its end fails, whatever its status" has "not ok 11 exits_midway"
check "a failed ASSERT in an unbraced loop stops the loop" \
	bash -c "grep -qx 'not ok 12 assert_stops_an_unbraced_loop' '$work/crafted.out' && [ \$(grep -c 'loop stopped at' '$work/crafted.out') = 1 ]"
check "SKIP in a fixture's setup skips the test, and the teardown runs" \
	bash -c "grep -qx 'ok 13 skipper.body_must_not_run # SKIP skipped in the setup' '$work/crafted.out' && grep -q 'skipper teardown ran' '$work/crafted.out'"
check "a break in a failed ASSERT's handler still ends the test" \
	bash -c "grep -qx 'not ok 14 break_in_an_assert_handler' '$work/crafted.out' && grep -q 'handler with a break at 1' '$work/crafted.out' &&
		 ! grep -q 'handler breaks: must not print' '$work/crafted.out'"
check "a test that turned its alarm off and hangs is stopped at the timeout" \
	has "not ok 15 hangs_without_its_alarm"
check "... and the timeout is named" has_re "hangs_without_its_alarm: .*the 2 s timeout"
check "the summary counts the failures" has "# 10 of 15 tests failed"
"$work/crafted_pass" >"$work/pass.out" 2>&1
pstatus=$?
check "a program whose tests pass or skip exits 0 (got $pstatus)" [ "$pstatus" = 0 ]
check "... and reports them so" \
	bash -c "grep -qx 'ok 1 passes' '$work/pass.out' && grep -qx 'ok 2 skips # SKIP nothing to do' '$work/pass.out' && ! grep -q 'must not print' '$work/pass.out'"
if [ "$failed" != 0 ]; then sed 's/^/# | /' "$work/crafted.out"; fi
tap_done
