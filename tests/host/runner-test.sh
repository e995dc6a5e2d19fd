#!/bin/bash
# Self-test of the runner's judgement (TAP): crafted test output is fed to
# the functions tests/run.sh uses (tests/lib/judge.sh, tapcheck.pl), and
# every way a result can vanish or a failure hide must come out as at least
# one FAIL line: a stream killed halfway, a bail-out, results beyond the
# plan, no plan, the plan printed last, duplicate and out-of-order numbers,
# garbage, a SKIP without a reason, a failed TODO (with or without one), a program that exits non-zero
# after a clean stream, a guest that died before its end marker, a kernel
# log with a bug report, a planted bug the log check misses, a failed KUnit
# case (in any boot's kernel log, not only the one run.sh counts). Clean input must give PASS lines only, as many as it has results.
#
#   tests/host/runner-test.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=$work
mkdir -p "$work/host"
# shellcheck source=tests/lib/judge.sh
. "$top/tests/lib/judge.sh"

# The crafted streams: NAME|TAP (\n for newlines) -- each must fail.
failing=(
	'killed halfway|1..3\nok 1 a\nok 2 b\n'
	'killed before the first result|1..2\n# starting\n'
	'bail-out|1..3\nok 1 a\nBail out! the device vanished\n'
	'bail-out after a complete stream|1..1\nok 1 a\nBail out! fuzz_walk killed by signal 9\n'
	'bail-out before any plan|Bail out! could not make the victim volumes\n'
	'more results than planned|1..1\nok 1 a\nok 2 b\n'
	'no plan|ok 1 a\nok 2 b\n'
	'plan printed last|ok 1 a\nok 2 b\n1..2\n'
	'duplicate number|1..2\nok 1 a\nok 1 b\n'
	'out-of-order numbers|1..2\nok 2 a\nok 1 b\n'
	'garbage|this is not TAP\nokay 1 fine\n'
	'nothing at all|'
	'a failed result|1..2\nok 1 a\nnot ok 2 b\n'
	'SKIP without a reason|1..1\nok 1 a # SKIP\n'
	'TODO without a reason|1..1\nnot ok 1 a # TODO\n'
	'a failed TODO with a reason|1..1\nnot ok 1 a # TODO issue 11\n'
	'second stream cut short|1..1\nok 1 a\n1..2\nok 1 c\n'
	'a skipped plan without a reason|1..0\n'
	'results after a plan that skips all|1..0 # SKIP nothing\nok 1 a\n'
)
# Clean streams: NAME|PASSES|SKIPS|TAP -- no FAIL, exactly these counts.
clean=(
	'two results|2|0|1..2\nok 1 a\nok 2 b\n'
	'kselftest harness|1|0|TAP version 13\n1..1\n# Starting 1 tests\n#  RUN  g.x ...\nok 1 g.x\n# PASSED: 1 / 1 tests passed.\n'
	'two streams with noise between|3|0|1..1\nok 1 a\n# noise\nboot message\nTAP version 13\n1..2\nok 1 c\nok 2 d\n'
	'SKIP with a reason, a TODO that passes|2|1|1..3\nok 1 a # SKIP no LKDTM here\nok 2 b # TODO issue 11\nok 3 c\n'
)

# A guest console as run.sh saves it: TAP, the kernel log (the guest's
# kernel prints no timestamps), the end marker.
console() { # TAP DMESG-LINE [END]
	printf '@@FSERR-BEGIN x\n%b@@FSERR-DMESG\nLinux version 6.1.0 (fserr)\n%b\n%s' \
		"$1" "$2" "${3-@@FSERR-END
}"
}
# Consoles: NAME|PLANTED|TRACES|END(yes/no)|TAP|DMESG-LINE -- each must fail.
# (Each has one stream, as judge_console is told.)
failing_consoles=(
	'a guest that died before its end marker|||no|1..1\nok 1 a\n|ok'
	'a kernel log with a WARNING|||yes|1..1\nok 1 a\n|WARNING: CPU: 0 PID: 1 at fs/fserr.c:10 fserr_report+0x10/0x20'
	'a kernel log with a bare call trace|||yes|1..1\nok 1 a\n|Call trace:'
	'a planted bug the log check does not see|KASAN=BUG: KASAN|0|yes|1..1\nok 1 a\n|nothing'
	'a guest whose program was killed halfway|||yes|1..5\nok 1 a\nok 2 b\nBail out! x: fuzz_walk killed by signal 9\n|ok'
	'a stream that never started|||yes|# sh: global_cap: not found\n|ok'
	'a second stream that never started|||yes|1..1\nok 1 a\n# sh: global_cap: not found\n|ok'
	'a splat beside the planted bug|KASAN=BUG: KASAN: .* in lkdtm|0|yes|1..1\nok 1 a\n|BUG: KASAN: slab-use-after-free in lkdtm_READ_AFTER_FREE+0x1/0x2\nBUG: KASAN: slab-use-after-free in fserr_work+0x44/0x164'
	'a KUnit case that failed in this boot|||yes|1..1\nok 1 a\n|    # Subtest: fserr\n    1..2\n    ok 1 fserr_test_a\n    not ok 2 fserr_test_b\nnot ok 1 fserr'
	'a KUnit suite cut short in this boot|||yes|1..1\nok 1 a\n|    # Subtest: fserr\n    1..2\n    ok 1 fserr_test_a'
	'a call trace beyond what the planted bug prints|KASAN=BUG: KASAN: .* in lkdtm|1|yes|1..1\nok 1 a\n|BUG: KASAN: slab-use-after-free in lkdtm_READ_AFTER_FREE+0x1/0x2\nCall trace:\nCall trace:'
	'fewer call traces than the planted bugs print|KASAN=BUG: KASAN: .* in lkdtm|2|yes|1..1\nok 1 a\n|BUG: KASAN: slab-use-after-free in lkdtm_READ_AFTER_FREE+0x1/0x2\nCall trace:'
	'a planted bug with TRACES not given|KASAN=BUG: KASAN: .* in lkdtm||yes|1..1\nok 1 a\n|BUG: KASAN: slab-use-after-free in lkdtm_READ_AFTER_FREE+0x1/0x2\nCall trace:'
)

has_fail() { grep -q '^FAIL ' "$work/out"; }
counts_are() { # PASSES SKIPS
	! grep -q '^FAIL ' "$work/out" &&
	[ "$(grep -c '^PASS ' "$work/out")" = "$1" ] &&
	[ "$(grep -c '^SKIP ' "$work/out")" = "$2" ]
}
n=0 bad=0
report() { # NAME COMMAND...: one result, from COMMAND's exit status
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		sed 's/^/# /' "$work/out"
		bad=$((bad + 1))
	fi
}

echo "1..$(( ${#failing[@]} + ${#clean[@]} + ${#failing_consoles[@]} + 10 ))"
for c in "${failing[@]}"; do
	printf '%b' "${c#*|}" | tapcheck x >"$work/out" 2>&1
	report "FAIL for: ${c%%|*}" has_fail
done
for c in "${clean[@]}"; do
	IFS='|' read -r name p s tap <<<"$c"
	printf '%b' "$tap" | tapcheck x >"$work/out" 2>&1
	report "clean: $name ($p PASS, $s SKIP, no FAIL)" counts_are "$p" "$s"
done
for c in "${failing_consoles[@]}"; do
	IFS='|' read -r name planted traces end tap dmesg <<<"$c"
	mkdir -p "$work/c"
	if [ "$end" = yes ]; then console "$tap" "$dmesg"; else console "$tap" "$dmesg" ''; fi \
		>"$work/c/console.log"
	judge_console x "$work/c" "$([[ $name == 'a second stream'* ]] && echo 2 || echo 1)" "$planted" 0 \
		"$traces" >"$work/out" 2>&1
	report "FAIL for: $name" has_fail
done

# A clean console passes: its results and the log check.
console '1..1\nok 1 a\n' 'FAT-fs (mmcblk0p1): error' >"$work/c/console.log"
judge_console x "$work/c" 1 '' 0 >"$work/out" 2>&1
report "clean: a guest console with one result and a clean log (2 PASS)" counts_are 2 0
console '1..1\nok 1 a\n' "$(printf '%s\n' 'BUG: KASAN: slab-use-after-free in lkdtm_READ_AFTER_FREE+0x1/0x2' 'Call trace:')" \
	>"$work/c/console.log"
judge_console x "$work/c" 1 'KASAN=BUG: KASAN: .* in lkdtm' 0 1 >"$work/out" 2>&1
report "clean: a planted bug reported with its one call trace, nothing else (4 PASS)" counts_are 4 0

# run_tap (tests/lib/guest.sh, run by the guest's busybox sh; dash here):
# a program's results get the label, a non-zero exit or a kill is a
# bail-out, a TAP version header is no stream of its own.
run_tap_case() { # SHELL-COMMAND: its TAP through run_tap, judged
	sh -c ". '$top/tests/lib/guest.sh'; run_tap lbl sh -c '$1'" 2>&1 | tapcheck x >"$work/out" 2>&1
}
run_tap_case 'echo TAP version 13; echo 1..2; echo ok 1 a; echo ok 2 b'
report "clean: run_tap of a program that passes (2 PASS)" counts_are 2 0
run_tap_case 'echo 1..2; echo ok 1 a; kill -KILL \$\$'
report "FAIL for: run_tap of a program killed halfway" has_fail
run_tap_case 'echo 1..1; echo ok 1 a; exit 3'
report "FAIL for: run_tap of a program that exits 3 after a clean stream" has_fail
run_tap_case 'echo 1..1; echo ok 1 a'
report "clean: run_tap puts the label before the name" grep -qx 'PASS x: lbl: a' "$work/out"

# A test program that exits non-zero after a clean stream.
host_tap prog sh -c 'echo 1..1; echo ok 1 a; exit 3' >"$work/out" 2>&1
report "FAIL for: a program exiting with status 3 after a clean stream" has_fail
host_tap prog sh -c 'echo 1..1; echo ok 1 a' >"$work/out" 2>&1
report "clean: the same program exiting with 0" counts_are 1 0

# A failed KUnit case, as 6.1 prints the suite.
printf '%s\n' '[    1.0]     # Subtest: fserr' '[    1.0]     1..2' \
	'[    1.0]     ok 1 fserr_test_a' '[    1.0]     not ok 2 fserr_test_b' \
	'[    1.0] not ok 1 fserr' | kunit_tap | tapcheck kunit >"$work/out" 2>&1
report "FAIL for: a failed KUnit case" has_fail
printf '%s\n' '    # Subtest: fserr' '    1..2' '        # Subtest: fserr_test_param' \
	'        ok 1 one' '    ok 1 fserr_test_param' '    ok 2 fserr_test_b' 'ok 1 fserr' |
	kunit_tap | tapcheck kunit >"$work/out" 2>&1
report "clean: a KUnit suite with a parameterised case (2 PASS)" counts_are 2 0
[ "$bad" -eq 0 ]
