# Fuzzed ext2 images: 200 mutated copies of a small ext2 volume
# (fscorrupt random: 1-8 bytes of group descriptors, bitmaps and inode
# table flipped per image, from fixed seeds), each mounted from a loop
# device, walked, written and unmounted. fs_fault must be 1 exactly when
# ext2_error() logged an error; run.sh fails the run on any splat and names
# the seed before it.
# Sizes (sized in guest.sh): full 200 images; the quick tier on the debug
# kernel 50 (a quarter). fuzz_walk's plan is the same either way.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
TIMEOUT_FACTOR=2
prepare() { :; }
guest() {
	fuzz ext2 ext2 ext2 3001 "$(sized 200 50)"
}
