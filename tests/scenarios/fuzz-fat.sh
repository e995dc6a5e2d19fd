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
guest() {
	fuzz fat12 vfat fat 1 "$(sized 170 34)"
	fuzz fat16 vfat fat 1001 "$(sized 165 33)"
	fuzz fat32 vfat fat 2001 "$(sized 165 33)"
}
