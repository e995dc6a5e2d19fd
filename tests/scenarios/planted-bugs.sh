# Planted bugs, on the debug kernel only: LKDTM provokes a WARN_ON(), a
# use-after-free read (KASAN), a corrupted list_add() (list debugging) and
# a refcount_t overflow. run.sh must report each of them, which shows that
# a real one in any other scenario fails the run. (tests/host/logcheck-test.sh
# covers the report formats of the detectors LKDTM cannot provoke without
# ending the guest: lockdep, atomic sleep, kmemleak, hung tasks, oopses.)
CARD=fat12
KERNELS=debug
PLANTED="WARN_ON=WARNING: CPU: [0-9]+ PID: [0-9]+ at drivers/misc/lkdtm/;KASAN=BUG: KASAN: [a-z-]*use-after-free in lkdtm_READ_AFTER_FREE;list debugging=list_add corruption;refcount_t=refcount_t: saturated"
prepare() { :; }

guest() {
	tap_begin planted
	mount -t debugfs debugfs /sys/kernel/debug
	for bug in WARNING READ_AFTER_FREE CORRUPT_LIST_ADD REFCOUNT_INC_OVERFLOW; do
		t "LKDTM provoked $bug" sh -c "echo $bug >/sys/kernel/debug/provoke-crash/DIRECT"
	done
	tap_end
}
