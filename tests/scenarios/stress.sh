# Many mounts at once, and mounts that come and go under errors, on two
# CPUs (fserr_stress). The victims: a FAT16 and an ext2 fuzz volume with one
# broken entry each, copied onto loop devices.
#   storm: 8 FAT mounts x 10,000 errors and 4 ext2 mounts x 2,000, all at
#          once: counters exact, one uevent per mount, the guest responsive.
#   race:  mount, bind mount, remount, lazy unmount with an error just
#          queued, errors, clears, sysfs reads, pollers and a child hopping
#          through fresh mount namespaces, for at least 3,000 (FAT) and
#          1,000 (ext2) mount cycles; nothing left after the last unmount.
#          The first device of each race is the fs_fault poller's: nothing
#          else clears or remounts it, so its wake-ups can only come from
#          0->1 transitions (fserr_stress.c, poll_thread).
# The kernel log must stay clean (run.sh); on the debug kernel that covers
# lockdep, KASAN, kobject release and kmemleak.
# Sizes (sized in guest.sh): full as above, races at most 600 s each; the
# quick tier on the debug kernel a fifth: storms 8 x 2,000 and 4 x 400,
# races >= 600 and 200 cycles, at most 120 s each. The plans (4 per storm,
# 10 per race) are the same either way.
STREAMS=4	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
SMP=2
TIMEOUT_FACTOR=3
prepare() { :; }

guest() {
	fserr_lift_global_cap
	if ! { fuzz_volume fat16 vfat &&
	       fscorrupt /tmp/fuzz-fat16.img fat-dirent-bad-start R5.BIN >/dev/null &&
	       fuzz_volume ext2 ext2 &&
	       fscorrupt /tmp/fuzz-ext2.img ext2-dirent-bad-inode MANY/S1.TXT >/dev/null; }; then
		echo "Bail out! could not make the victim volumes"
		return
	fi
	run_tap "vfat storm" fserr_stress storm vfat fat /tmp/fuzz-fat16.img R5.BIN \
		8 "$(sized 10000 2000)"
	run_tap "ext2 storm" fserr_stress storm ext2 ext2 /tmp/fuzz-ext2.img MANY/S1.TXT \
		4 "$(sized 2000 400)"
	run_tap "vfat race" fserr_stress race vfat fat /tmp/fuzz-fat16.img R5.BIN \
		4 "$(sized 3000 600)" "$(sized 600 120)"
	run_tap "ext2 race" fserr_stress race ext2 ext2 /tmp/fuzz-ext2.img MANY/S1.TXT \
		2 "$(sized 1000 200)" "$(sized 600 120)"
	fserr_default_limits
}
