#!/bin/bash
# Boot the test guest with an SD card and print its console.
#
#   qemu/run.sh [--card IMG] [--blkdebug RULES] [--virtio] [--append ARGS]
#               [--smp CPUS] [--icount] [--no-initrd] [--timeout SECONDS]
#               [--log FILE] [--pidfile FILE] [--interactive]
#
# The card sits on the sdhci-pci controller (/dev/mmcblk0); with --virtio
# the same image is a virtio-blk disk instead (/dev/vda). With --blkdebug,
# QEMU's blkdebug driver injects the media errors that RULES describes; QEMU
# 7.2's SD card model hands a failed read to the guest as stale data, its
# virtio-blk model as an I/O error. --smp gives the guest more than its one
# CPU (the race scenario wants threads to run in parallel). --icount makes
# the guest's clock count instructions (QEMU's -icount shift=0: one
# nanosecond per instruction, idle time skipped), so that a time the guest
# measures is the work it did, whatever else the host was doing: make
# bench's cost benchmarks use it. --no-initrd boots without the
# initramfs, as a board boots its root from the card (--append names it:
# root=/dev/mmcblk0p2 rootwait; tests/mkboard.sh). --pidfile has QEMU
# write its process ID there (the power-cut trials SIGKILL it). Without
# --interactive the guest runs unattended: its console goes to stdout (and
# to --log), the host kills it after --timeout, and the exit status says
# only whether the guest ended by itself (0) or timed out (124); a guest
# that times out gets its CPUs' registers and kernel symbols printed to
# stderr first (qemu/where.py). QEMU's own exit status says nothing about
# the tests: the caller parses the console.
set -euo pipefail

: "${GUEST_QEMU:?run through make (qemu/guest.mk describes the guest)}"
: "${GUEST_KERNEL:?}" "${GUEST_INITRD:?}" "${GUEST_APPEND:?}"

card='' blkdebug='' virtio=false append='' smp='' icount=false timeout=300 log=/dev/null
interactive=false initrd=true pidfile=''
while [ $# -gt 0 ]; do
	case $1 in
	--card) card=$2; shift 2 ;;
	--blkdebug) blkdebug=$2; shift 2 ;;
	--virtio) virtio=true; shift ;;
	--append) append=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--icount) icount=true; shift ;;
	--no-initrd) initrd=false; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--pidfile) pidfile=$2; shift 2 ;;
	--interactive) interactive=true; shift ;;
	*) echo "qemu/run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

[[ $timeout =~ ^[1-9][0-9]{0,5}$ ]] ||
	{ echo "qemu/run.sh: --timeout wants whole seconds from 1, not '$timeout'" >&2; exit 2; }
[ -z "$smp" ] || [[ $smp =~ ^[1-9][0-9]{0,2}$ ]] ||
	{ echo "qemu/run.sh: --smp wants a whole number of CPUs from 1, not '$smp'" >&2; exit 2; }

for f in "$GUEST_KERNEL" ${card:+"$card"} ${blkdebug:+"$blkdebug"}; do
	[ -f "$f" ] || { echo "qemu/run.sh: $f is missing (make kernel initramfs images)" >&2; exit 2; }
done

args=(-kernel "$GUEST_KERNEL" -append "$GUEST_APPEND $append")
if $initrd; then
	[ -f "$GUEST_INITRD" ] || { echo "qemu/run.sh: $GUEST_INITRD is missing (make initramfs)" >&2; exit 2; }
	args+=(-initrd "$GUEST_INITRD")
fi
[ -n "$smp" ] && args+=(-smp "$smp")	# the last -smp counts
! $icount || args+=(-icount shift=0,sleep=off)
[ -z "$pidfile" ] || args+=(-pidfile "$pidfile")
if [ -n "$card" ]; then
	file=$card
	[ -n "$blkdebug" ] && file="blkdebug:$blkdebug:$card"
	if $virtio; then
		args+=(-drive "if=none,id=disk,format=raw,file=$file" -device virtio-blk-pci,drive=disk)
	else
		args+=(-drive "if=none,id=sdcard,format=raw,file=$file" -device sd-card,drive=sdcard)
	fi
fi

# shellcheck disable=SC2086 # GUEST_QEMU is a command line
if $interactive; then
	exec $GUEST_QEMU "${args[@]}"
fi
# qemu/where.py, through a QMP socket in a directory of its own, keeps
# QEMU's main loop from sleeping through a timer a vCPU armed (a QMP
# command every 50 ms: QEMU 7.2 missed such timers in about one run of
# eight, and the guest stalled in WFI for 30 s or more; where.py says how
# it was found). A guest still running 3 s before the timeout is asked
# where its CPUs are, so that one that froze without a word says at least
# where it spins or waits.
qmpdir=$(mktemp -d)
trap 'rm -rf "$qmpdir"' EXIT
args+=(-qmp "unix:$qmpdir/qmp,server=on,wait=off")
"$(dirname "$0")/where.py" $((timeout > 6 ? timeout - 3 : timeout / 2)) "$qmpdir/qmp" \
	"$GUEST_KERNEL" &
where=$!
set +e
timeout -k 5 "$timeout" $GUEST_QEMU "${args[@]}" </dev/null 2>&1 |
	sed -u 's/\r$//' | tee "$log"
status=${PIPESTATUS[0]}
kill "$where" 2>/dev/null
wait "$where" 2>/dev/null
set -e
if [ "$status" = 124 ]; then
	echo "qemu/run.sh: the guest did not finish within ${timeout}s; the console ended with:" >&2
	tail -n 20 "$log" >&2
fi
exit "$status"
