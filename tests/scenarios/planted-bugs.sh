# Planted bugs, on the debug kernel only: LKDTM provokes a WARN_ON(), a
# use-after-free read (KASAN), a corrupted list_add() (list debugging), a
# refcount_t overflow and an array index out of bounds (UBSAN's own report:
# LKDTM's "This is probably expected ... UBSAN_TRAP" note comes whether or
# not UBSAN reported); the module tests/planted/ (loaded here only) leaks
# memory (kmemleak, found by the scans at the end of the boot), creates a
# sysfs file twice, adds a kobject twice, prints a bare call trace, shifts
# past a type's width (UBSAN), takes two mutexes in both orders (lockdep),
# calls might_sleep() under a spinlock (atomic sleep), and leaves a thread
# waiting uninterruptibly past the hung-task timeout (10 s on the debug
# kernel; woken once reported, as the detector repeats itself every 10 s).
# lockdep turns itself off at its first report and when the kernel is
# tainted by KASAN's, so its plant comes first, before LKDTM's.
# run.sh must report each of them, which shows that a real one in any other
# scenario fails the run; any report that none of them explains fails this
# one, and so does a call trace beyond the TRACES they print (measured:
# build/run/debug/planted-bugs/dmesg). (tests/host/logcheck-test.sh covers
# the report formats of what cannot be provoked without ending the guest:
# oopses, panics, soft lockups, RCU stalls.)
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
KERNELS=debug
PLANTED="WARN_ON=WARNING: CPU: [0-9]+ PID: [0-9]+ at drivers/misc/lkdtm/;KASAN=BUG: KASAN: [a-z-]*use-after-free in lkdtm_READ_AFTER_FREE;list debugging=list_add corruption|WARNING: CPU: [0-9]+ PID: [0-9]+ at lib/list_debug.c;refcount_t=refcount_t: saturated|WARNING: CPU: [0-9]+ PID: [0-9]+ at lib/refcount.c"
PLANTED="$PLANTED;UBSAN bounds=UBSAN: array-index-out-of-bounds in .*drivers/misc/lkdtm/bugs.c"
PLANTED="$PLANTED;kmemleak leak=unreferenced object 0x[0-9a-f]+ \\(size (1234[5-9]|1235[0-2])\\)"
PLANTED="$PLANTED;sysfs duplicate=sysfs: cannot create duplicate filename '/kernel/fserr-planted/planted'"
PLANTED="$PLANTED;kobject_add failure=kobject_add_internal failed for fserr-planted with -EEXIST|kobject_create_and_add: kobject_add error: -17|sysfs: cannot create duplicate filename '/kernel/fserr-planted'\$"
PLANTED="$PLANTED;UBSAN shift=UBSAN: shift-out-of-bounds in .*fserr_planted.c"
PLANTED="$PLANTED;atomic sleep=BUG: sleeping function called from invalid context at .*fserr_planted.c"
PLANTED="$PLANTED;lockdep=WARNING: possible circular locking dependency detected"
PLANTED="$PLANTED;hung task=INFO: task fserr-hung:[0-9]+ blocked for more than [0-9]+ seconds"
TRACES=12
prepare() { :; }

guest() {
	tap_begin planted 18
	mount -t debugfs debugfs /sys/kernel/debug
	t "the planted-bugs module loads" insmod /lib/modules/fserr_planted.ko
	# (lockdep reports once per boot: an earlier report would stand in for
	# the planted one)
	t "lockdep is on before its plant" grep -q 'debug_locks: *1$' /proc/lockdep_stats
	t "planted lock_order" sh -c "echo 1 >/sys/kernel/debug/fserr-planted/lock_order"
	t "... and lockdep's report names the planted locks" sh -c \
		"dmesg | grep -A 40 'possible circular locking dependency detected' | grep -q planted_b"
	for bug in WARNING READ_AFTER_FREE CORRUPT_LIST_ADD REFCOUNT_INC_OVERFLOW ARRAY_BOUNDS; do
		t "LKDTM provoked $bug" sh -c "echo $bug >/sys/kernel/debug/provoke-crash/DIRECT"
	done
	for bug in leak sysfs_dup kobject_dup call_trace shift atomic_sleep hung; do
		t "planted $bug" sh -c "echo 1 >/sys/kernel/debug/fserr-planted/$bug"
	done
	# (the detector looks every 10 s: reported within 20 s)
	t "the hung-task detector reported the planted thread" until_true 30 sh -c \
		"dmesg | grep -q 'INFO: task fserr-hung:[0-9]* blocked for more than'"
	t "... which then ends" sh -c "echo 1 >/sys/kernel/debug/fserr-planted/hung_end"
	tap_end
}
