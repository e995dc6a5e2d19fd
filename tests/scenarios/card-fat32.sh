# The handheld's card: p1 FAT32, p2 ext2, each damaged through fscorrupt.
# Every channel is tested on both filesystems (fserr_channels; a storm of
# 100,000 errors on the FAT volume, 10,000 on ext2), each kind
# of FAT corruption is found through FAT's own code paths, a bad ext2
# directory block is found by ext2, and the global uevent cap holds across
# the two superblocks.
# Sizes (sized in guest.sh): the FAT storm is 100,000 errors; in the quick
# tier on the debug kernel 10,000. The plans are the same either way.
STREAMS=6	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fat_matrix_damage "$1" &&
	fscorrupt --partition 2 "$1" ext2-dirent-bad-inode WALK/F1.TXT &&
	fscorrupt --partition 2 "$1" ext2-dirent-bad-reclen DIR1/FILE2.TXT
}

ext2_bad_directory_block() {
	tap_begin ext2-dirblock 4
	mount -t ext2 -o notify /dev/mmcblk0p2 /mnt
	t "clean mount, fs_fault 0" expect_eq 0 "$(attr ext2 mmcblk0p2 fs_fault)"
	ls /mnt/DIR1 >/dev/null 2>&1
	t "ext2 found the bad entry" sh -c "dmesg | grep -q 'ext2_check_page: bad entry in directory'"
	t "fs_fault 1" expect_eq 1 "$(attr ext2 mmcblk0p2 fs_fault)"
	t "first_errno EUCLEAN" expect_eq 117 "$(attr ext2 mmcblk0p2 first_errno)"
	umount /mnt
	tap_end
}

# Two superblocks, burst 1: the first transition gets the window's only
# uevent; the other one's comes when the window opens (5 s later), marked
# as one suppressed transition.
global_cap() {
	tap_begin global-cap 6
	fserr_default_limits
	echo 1 >/sys/module/fserr/parameters/uevent_burst
	# Let the window that earlier tests used expire (interval 5 s): the
	# next uevent opens a new one, which holds one uevent.
	settle 5.2
	: >/tmp/uevents
	uevent_listener /tmp/uevents
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	mount -t ext2 -o notify,ro /dev/mmcblk0p2 /mnt2
	# (a recorded ext2 error would raise a fault, and send its uevent, now)
	t "ext2 mounted clean" expect_eq 0 "$(attr ext2 mmcblk0p2 error_count)"
	cat /mnt/DATA.BIN >/dev/null 2>&1
	stat /mnt2/WALK/F1.TXT >/dev/null 2>&1
	settle 1
	kill $listener
	t "both filesystems faulted" expect_eq 11 \
		"$(attr fat mmcblk0p1 fs_fault)$(attr ext2 mmcblk0p2 fs_fault)"
	t "one uevent for the two transitions" expect_eq 1 "$(grep -c FS_FAULT=1 /tmp/uevents)"
	# (as text: an attribute that cannot be read must not end the shell
	# in an arithmetic expansion)
	t "the other one counted as suppressed" sh -c '[ "$1" = "0 1" ] || [ "$1" = "1 0" ] ||
		{ echo "uevents_suppressed (fat, ext2): $1"; exit 1; }' - \
		"$(attr fat mmcblk0p1 uevents_suppressed) $(attr ext2 mmcblk0p2 uevents_suppressed)"
	uevent_listener /tmp/uevents
	# the window opened 1 s ago and is 5 s long: 1 s of margin
	settle 5
	kill $listener
	t "the other one's uevent came when the window opened" expect_eq 2 "$(grep -c FS_FAULT=1 /tmp/uevents)"
	t "...saying that it was held back" sh -c \
		"tail -n 1 /tmp/uevents | grep -q -E ' FS_UEVENTS_SUPPRESSED=1( |\$)'"
	umount /mnt
	umount /mnt2
	fserr_default_limits
	tap_end
}

# The KUnit suite ran at boot: it must leave nothing behind in sysfs.
kunit_leftovers() {
	tap_begin kunit-leftovers 2
	t "no /sys/fs/fserr-kunit* after the KUnit suite" sh -c \
		'if ls -d /sys/fs/fserr-kunit* 2>/dev/null; then echo "left behind: see above"; exit 1; fi'
	# The check above depends on timing: a kobject_put() without
	# kobject_del() keeps the directory until the release, which
	# CONFIG_DEBUG_KOBJECT_RELEASE (debug kernel) delays by 1-4 s. That
	# option logs each release with the parent the kobject still has: one
	# that left sysfs first has none (a null pointer).
	if grep -q -w fserr.kernel=debug /proc/cmdline; then
		t "every kobject the suite released had left sysfs first" kunit_released_outside_sysfs
	else
		t_skip "every kobject the suite released had left sysfs first" \
			"only the debug kernel (CONFIG_DEBUG_KOBJECT_RELEASE) logs each release"
	fi
	tap_end
}

kunit_released_outside_sysfs() {
	dmesg >/tmp/kunit-dmesg
	sed -n '/KTAP version 1$/,/ok [0-9]* fserr$/p' /tmp/kunit-dmesg >/tmp/kunit-span
	grep -q 'fserr_test_uevent_env' /tmp/kunit-span || { echo "the suite's output is not in the kernel log"; return 1; }
	grep -q 'kobject_release, parent' /tmp/kunit-span || { echo "no release logged during the suite"; return 1; }
	! grep 'kobject_release, parent [^0]' /tmp/kunit-span
}

guest() {
	kunit_leftovers
	fserr_lift_global_cap
	# 100,000 errors on one mount: still one uevent, counters exact.
	FSERR_STORM=$(sized 100000 10000)
	run_channels fat32 /dev/mmcblk0p1 vfat fat DATA.BIN read 117
	FSERR_STORM=
	run_channels ext2 /dev/mmcblk0p2 ext2 ext2 WALK/F1.TXT stat 117 errors=remount-ro
	fat_matrix fat32-corruptions mmcblk0p1
	# (the errors above left ext2's on-disk record: it would mount faulted)
	ext2_forget_errors /dev/mmcblk0p2
	ext2_bad_directory_block
	ext2_forget_errors /dev/mmcblk0p2
	global_cap
}
