#!/bin/bash
# Self-test of the kernel log check (TAP): a report line of each bug
# detector, in the kernel's own format, makes kernel_log_problems() fail the
# run; lines that a clean run of the suite prints (filesystem errors, which
# are what the tests cause, delayed kobject releases, KUnit, boot) do not.
# The planted-bugs scenario shows the same for real reports on the debug
# kernel.
#
#   tests/host/logcheck-test.sh
set -uo pipefail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/logcheck.sh
. "$(dirname "$0")/../lib/logcheck.sh"

caught() { # LINE: kernel_log_problems reports it
	printf '[   12.345678] %s\n' "$1" | kernel_log_problems >/dev/null
}

passed() { # LINE: kernel_log_problems lets it pass
	! caught "$1"
}

# DETECTOR|LINE: a report line of each detector, in the kernel's format
# (UBSAN, kmemleak, sysfs duplicate, kobject_add and the call trace copied from the
# debug kernel's log of the planted-bugs scenario, build/run/debug/planted-bugs/dmesg;
# the RCU report's lines from a stalled make demo, issue 28, each alone:
# a report cut after any line still fails the run)
caught_lines=$(cat <<'LINES'
WARN_ON|WARNING: CPU: 1 PID: 70 at fs/fserr.c:231 fserr_report+0x30/0x80
BUG_ON|kernel BUG at fs/fserr.c:240!
oops|Internal error: Oops: 0000000096000006 [#1] SMP
NULL pointer|Unable to handle kernel NULL pointer dereference at virtual address 00000000000000b0
panic|Kernel panic - not syncing: Oops: Fatal exception
KASAN|BUG: KASAN: slab-use-after-free in fserr_work+0x44/0x164
UBSAN shift|UBSAN: shift-out-of-bounds in /work/main/build/planted/src/fserr_planted.c:74:2
UBSAN bounds|UBSAN: array-index-out-of-bounds in /work/main/build/linux/drivers/misc/lkdtm/bugs.c:349:16
lockdep circular|WARNING: possible circular locking dependency detected
lockdep recursive|WARNING: possible recursive locking detected
lockdep inconsistent|WARNING: inconsistent lock state
atomic sleep|BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580
kmemleak|unreferenced object 0xffffff8009131300 (size 128):
sysfs duplicate|sysfs: cannot create duplicate filename '/kernel/fserr-planted/planted'
kobject_add|kobject_add_internal failed for fserr-planted with -EEXIST, don't try to register things with the same name in the same directory.
kobject_create_and_add|kobject_create_and_add: kobject_add error: -17
bare call trace|Call trace:
refcount|refcount_t: underflow; use-after-free.
debugobjects|ODEBUG: free active (active state 0) object: ffffff80036e2b48 object type: work_struct hint: fserr_work+0x0/0x164
list_add|list_add corruption. next->prev should be prev (ffffff80036e2b48), but was 0000000000000000. (next=ffffff80036e2c00).
list_del|list_del corruption, ffffff80036e2b48->next is LIST_POISON1 (dead000000000100)
hung task|INFO: task kworker/0:1:25 blocked for more than 60 seconds.
soft lockup|watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [fserrd:80]
RCU stall|rcu: INFO: rcu_sched detected stalls on CPUs/tasks:
RCU self-detected stall|rcu: INFO: rcu_sched self-detected stall on CPU
RCU timer wakeup|rcu: rcu_sched kthread timer wakeup didn't happen for 8434 jiffies! g-543 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x402
RCU timer handling|rcu: 	Possible timer handling issue on cpu=0 timer-softirq=153
RCU kthread starved|rcu: rcu_sched kthread starved for 8435 jiffies! g-543 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x402 ->cpu=0
LINES
)
# lines of a clean run
clean_lines=$(cat <<'LINES'
FAT-fs (mmcblk0p1): error, fat_get_cluster: invalid start cluster (i_pos 789, start 000017cd)
FAT-fs (loop12): Filesystem has been set read-only
EXT2-fs (loop0): error: ext2_get_inode: bad inode number: 5
Buffer I/O error on dev loop0, logical block 52949, async page read
kobject: 'loop12' ((____ptrval____)): kobject_release, parent 0000000000000000 (delayed 1000)
fserr: same (fserr-kunit): cannot create /sys/fs/fserr-kunit/same (error -17), errors are reported through fanotify only
    ok 8 fserr_test_name_collision
kmemleak: Kernel memory leak detector initialized (mem pool available: 15788)
rcu: Hierarchical RCU implementation.
lkdtm: This is probably expected, since this kernel (6.1.192+ aarch64) was built *without* CONFIG_UBSAN_TRAP=y
LINES
)

tap_plan $(($(grep -c . <<<"$caught_lines") + $(grep -c . <<<"$clean_lines")))

while IFS='|' read -r detector line; do
	[ -n "$detector" ] || continue
	check "caught: $detector" caught "$line"
done <<<"$caught_lines"

while IFS= read -r line; do
	[ -n "$line" ] || continue
	check "passes: ${line:0:60}" passed "$line"
done <<<"$clean_lines"
tap_done
