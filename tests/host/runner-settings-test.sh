#!/bin/bash
# Self-test of tests/run.sh's reading of scenario settings, end to end: a
# copy of the runner in a scratch tree runs made-up scenarios with a fake
# QEMU that prints a canned guest console (TAP, a kernel log with a KUnit
# suite, the end marker). A scenario whose settings run.sh cannot use (a
# timeout factor or a CPU count that is not a whole number, an unknown
# device, boot or clock, PLANTED without TRACES or TRACES not a number or
# without PLANTED) must come out as a FAIL line that names the
# setting, counted in the last line; it must not vanish, nor take the
# scenarios listed after it along (bash drops the rest of a loop when an
# arithmetic expansion fails). Good scenarios beside it pass. qemu/run.sh
# refuses a --timeout or --smp that is not a whole number from 1.
#
#   tests/host/runner-settings-test.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The scratch tree: the runner and what it calls, a card, the scenarios.
tree=$work/tree
mkdir -p "$tree/tests" "$tree/qemu" "$tree/build/images" "$work/scen"
cp -r "$top/tests/run.sh" "$top/tests/lib" "$tree/tests/"
cp "$top/qemu/run.sh" "$top/qemu/where.py" "$tree/qemu/"
: >"$tree/build/images/card-fat32.img"
: >"$work/Image"
: >"$work/initrd"
cat >"$work/qemu" <<'QEMU'
#!/bin/sh
printf '%s\n' '@@FSERR-BEGIN x' '1..1' 'ok 1 a' '@@FSERR-DMESG' 'Linux version 6.1.0 (fake)' \
	'    # Subtest: fserr' '    1..1' '    ok 1 fserr_test_a' 'ok 1 fserr' '@@FSERR-END'
QEMU
chmod +x "$work/qemu"
scenario() { # NAME SETTINGS...
	local name=$1
	shift
	{ echo 'CARD=fat32'; printf '%s\n' "$@"; echo 'prepare() { :; }'; } >"$work/scen/$name.sh"
}
# (listed in this order: a bad one first, good ones after it)
scenario a-factor 'TIMEOUT_FACTOR=1.5' 'STREAMS=1'
scenario b-good 'STREAMS=1'
scenario c-smp 'SMP=two' 'STREAMS=1'
scenario d-device 'DEVICE=nvme' 'STREAMS=1'
scenario e-boot 'BOOT=uefi' 'STREAMS=1'
scenario f-icount 'ICOUNT=yes' 'STREAMS=1'
scenario g-streams 'STREAMS=-1'
scenario h-good 'TIMEOUT_FACTOR=2' 'SMP=2' 'STREAMS=1'
scenario i-nostreams
scenario j-kernels 'KERNELS=dbug' 'STREAMS=1'
scenario l-traces "PLANTED='KASAN=BUG: KASAN'" 'STREAMS=1'
scenario m-traces "PLANTED='KASAN=BUG: KASAN'" 'TRACES=abc' 'STREAMS=1'
scenario n-traces 'TRACES=2' 'STREAMS=1'
# a scenario in a file not named NAME.sh
scenario k-named
mv "$work/scen/k-named.sh" "$work/scen/k-named.txt"

GUEST_QEMU=$work/qemu GUEST_KERNEL=$work/Image GUEST_INITRD=$work/initrd GUEST_APPEND=x \
	FSERR_KERNELS=plain FSERR_HOST_TESTS=no FSERR_JOBS=2 FSERR_TIER=quick \
	FSERR_SCENARIO_DIR=$work/scen FSERR_RUNS=$work/runs FSERR_GUEST_TIMEOUT=20 \
	"$tree/tests/run.sh" >"$work/out" 2>&1
status=$?

# qemu/run.sh itself, given a timeout or CPU count that is not whole
qemu_run() { # ARGS...: its status, its standard error in $work/qerr
	GUEST_QEMU=$work/qemu GUEST_KERNEL=$work/Image GUEST_INITRD=$work/initrd GUEST_APPEND=x \
		"$tree/qemu/run.sh" "$@" >/dev/null 2>"$work/qerr"
}
refused() { # WHAT ARGS...: exit status 2, and a message naming WHAT
	qemu_run "${@:2}"
	[ $? = 2 ] && grep -q -- "$1" "$work/qerr"
}

n=0 bad=0
check() { # NAME COMMAND...
	n=$((n + 1))
	if "${@:2}"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		bad=$((bad + 1))
	fi
}
fails_with() { # SCENARIO TEXT: its one result is a FAIL line naming TEXT
	[ "$(grep -c "^[A-Z]* $1:" "$work/out")" = 1 ] &&
		grep -q "^FAIL $1: .*$2" "$work/out"
}
# Only scenarios that run on no kernel named: said, and a failure
mkdir -p "$work/scen2"
{ echo 'CARD=fat32'; echo 'STREAMS=1'; echo 'KERNELS=debug'; echo 'prepare() { :; }'; } \
	>"$work/scen2/debug-only.sh"
GUEST_QEMU=$work/qemu GUEST_KERNEL=$work/Image GUEST_INITRD=$work/initrd GUEST_APPEND=x \
	FSERR_KERNELS=plain FSERR_HOST_TESTS=no FSERR_JOBS=2 FSERR_TIER=quick \
	FSERR_SCENARIO_DIR=$work/scen2 FSERR_RUNS=$work/runs2 FSERR_GUEST_TIMEOUT=20 \
	"$tree/tests/run.sh" >"$work/out2" 2>&1
status2=$?
echo "1..21"
check "TIMEOUT_FACTOR=1.5 fails, named" fails_with a-factor 'TIMEOUT_FACTOR=1.5'
check "SMP=two fails, named" fails_with c-smp 'SMP=two'
check "DEVICE=nvme fails, named" fails_with d-device 'DEVICE=nvme'
check "BOOT=uefi fails, named" fails_with e-boot 'BOOT=uefi'
check "ICOUNT=yes fails, named" fails_with f-icount 'ICOUNT=yes'
check "STREAMS=-1 fails, named" fails_with g-streams 'STREAMS=-1'
check "the good scenario after a bad one runs and passes" grep -q '^PASS b-good: a' "$work/out"
check "the good scenario with every numeric setting runs and passes" \
	grep -q '^PASS h-good: a' "$work/out"
check "no STREAMS= fails, named" fails_with i-nostreams 'STREAMS is not set'
check "KERNELS=dbug fails, named (not a SKIP)" fails_with j-kernels "KERNELS=dbug: 'dbug' is no kernel"
check "PLANTED without TRACES fails, named" fails_with l-traces 'TRACES=: PLANTED needs'
check "TRACES=abc fails, named" fails_with m-traces 'TRACES=abc: PLANTED needs'
check "TRACES without PLANTED fails, named" fails_with n-traces 'TRACES=2 without PLANTED'
check "a scenario in k-named.txt fails, named" grep -q '^FAIL k-named.txt: .*not named NAME.sh' "$work/out"
check "the last line counts the twelve" grep -qx 'quick: 5 passed, 12 failed, 0 skipped' "$work/out"
check "only scenarios for another kernel: a FAIL that says nothing ran" \
	grep -q '^FAIL no scenario runs on the kernels named (plain)' "$work/out2"
check "... counted, run.sh exits non-zero, no shell error" \
	eval "grep -qx 'quick: 0 passed, 1 failed, 1 skipped' '$work/out2' && [ $status2 -ne 0 ] &&
	      ! grep -q 'unbound variable' '$work/out2'"
check "run.sh exits non-zero" [ "$status" -ne 0 ]
check "qemu/run.sh --timeout 1.5: refused, named" refused "--timeout" --timeout 1.5
check "qemu/run.sh --smp 0: refused, named" refused "--smp" --smp 0
check "qemu/run.sh --timeout 20 --smp 2: the guest runs" qemu_run --timeout 20 --smp 2
[ "$bad" -eq 0 ] || sed 's/^/# /' "$work/out"
[ "$bad" -eq 0 ]
