# The check of a guest's kernel log (bash), shared by tests/run.sh and its
# self-test (tests/host/logcheck-test.sh).
#
# A report of any of the kernel's bug detectors fails a run: WARN()/BUG()
# and oopses, KASAN, UBSAN, lockdep (circular or recursive locking,
# inconsistent lock state), DEBUG_ATOMIC_SLEEP, kmemleak ("unreferenced
# object"), refcount_t, debugobjects (ODEBUG), list debugging, the hung-task,
# soft-lockup and RCU-stall detectors; and the reports of code that warns
# by hand: sysfs's duplicate filename, kobject_add failures, and any call
# trace (dump_stack()), which no clean run prints; and a kmemleak that
# disabled itself (then it finds no leak).
problem_re='WARNING:|BUG:|kernel BUG at|Oops|Unable to handle kernel|Kernel panic|Internal error|sleeping function called from invalid context|possible circular locking|possible recursive locking|inconsistent lock state|unreferenced object|KASAN|UBSAN:|refcount_t:|ODEBUG:|list_add corruption|list_del corruption|blocked for more than|soft lockup|rcu.*stall|kthread timer wakeup didn.t happen|Possible timer handling issue|kthread starved for|cannot create duplicate filename|kobject_add_internal failed|kobject_add error|Call trace:|kmemleak: .*disabled|Cannot allocate a kmemleak'

# kernel_log_problems < DMESG: the lines that report a problem; exit status
# 0 if there is one.
kernel_log_problems() {
	grep -E "$problem_re"
}
