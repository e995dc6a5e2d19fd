# Fuzzed FAT images: 500 mutated copies of small FAT12, FAT16 and FAT32
# volumes (fscorrupt random: 1-8 bytes of FAT and root directory flipped
# per image, from fixed seeds), each mounted from a loop device, walked,
# written and unmounted. fs_fault must be 1 exactly when FAT logged an
# error; run.sh fails the run on any splat and names the seed before it.
# Sizes (sized in guest.sh): full 170 + 165 + 165 images; the quick tier on
# the debug kernel 34 + 33 + 33 (a fifth). fuzz_walk's plan is 5 either way.
STREAMS=3	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
TIMEOUT_FACTOR=3
prepare() { :; }
# FSERR_KNOWN_SILENT (read by fuzz_walk), per volume: the seeds whose walk
# meets EUCLEAN or EIO on a metadata operation while fs_fault stays 0, a
# known failure (issue 11): test 6 is TODO while every silent seed is
# listed, not ok for any other. None on the plain kernel, full tier (make
# check-full SCENARIOS=fuzz-fat FSERR_KERNELS=plain): FAT12 met metadata
# errors in 1 image, FAT32 in 3, all with fs_fault 1; FAT16 in none of its
# 165 (test 6 is a SKIP there: nothing to check), and the quick tier's
# prefixes on the debug kernel met none in any of the three (SKIP).
guest() {
	export FSERR_KNOWN_SILENT=""
	fuzz fat12 vfat fat 1 "$(sized 170 34)"
	FSERR_KNOWN_SILENT=""
	fuzz fat16 vfat fat 1001 "$(sized 165 33)"
	FSERR_KNOWN_SILENT=""
	fuzz fat32 vfat fat 2001 "$(sized 165 33)"
}
