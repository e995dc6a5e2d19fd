# Planted bugs, on the debug kernel only: LKDTM provokes a WARN_ON(), a
# use-after-free read (KASAN), a corrupted list_add() (list debugging), a
# refcount_t overflow and an array index out of bounds (UBSAN); the module
# tests/planted/ (loaded here only) leaks memory (kmemleak, found by the
# scans at the end of the boot), creates a sysfs file twice, adds a kobject
# twice, prints a bare call trace and shifts past a type's width (UBSAN).
# (Every other report has a call trace too, so the planted bare one is not
# told apart here; the log check's self-test has its real line.)
# run.sh must report each of them, which shows that a real one in any other
# scenario fails the run; and any report that none of them explains fails
# this one. (tests/host/logcheck-test.sh covers the report
# formats of the detectors that cannot be provoked without ending the
# guest: lockdep, atomic sleep, hung tasks, oopses.)
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
KERNELS=debug
PLANTED="WARN_ON=WARNING: CPU: [0-9]+ PID: [0-9]+ at drivers/misc/lkdtm/;KASAN=BUG: KASAN: [a-z-]*use-after-free in lkdtm_READ_AFTER_FREE;list debugging=list_add corruption|WARNING: CPU: [0-9]+ PID: [0-9]+ at lib/list_debug.c;refcount_t=refcount_t: saturated|WARNING: CPU: [0-9]+ PID: [0-9]+ at lib/refcount.c"
PLANTED="$PLANTED;UBSAN bounds=UBSAN: array-index-out-of-bounds in .*drivers/misc/lkdtm/bugs.c|lkdtm: This is probably expected, .*UBSAN_TRAP"
PLANTED="$PLANTED;kmemleak leak=unreferenced object 0x[0-9a-f]+ \\(size (1234[5-9]|1235[0-2])\\)"
PLANTED="$PLANTED;sysfs duplicate=sysfs: cannot create duplicate filename '/kernel/fserr-planted/planted'"
PLANTED="$PLANTED;kobject_add failure=kobject_add_internal failed for fserr-planted with -EEXIST|kobject_create_and_add: kobject_add error: -17|sysfs: cannot create duplicate filename '/kernel/fserr-planted'\$"
PLANTED="$PLANTED;UBSAN shift=UBSAN: shift-out-of-bounds in .*fserr_planted.c"
prepare() { :; }

guest() {
	tap_begin planted 11
	mount -t debugfs debugfs /sys/kernel/debug
	for bug in WARNING READ_AFTER_FREE CORRUPT_LIST_ADD REFCOUNT_INC_OVERFLOW ARRAY_BOUNDS; do
		t "LKDTM provoked $bug" sh -c "echo $bug >/sys/kernel/debug/provoke-crash/DIRECT"
	done
	t "the planted-bugs module loads" insmod /lib/modules/fserr_planted.ko
	for bug in leak sysfs_dup kobject_dup call_trace shift; do
		t "planted $bug" sh -c "echo 1 >/sys/kernel/debug/fserr-planted/$bug"
	done
	tap_end
}
