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
# fuzz_walk's sixth test fails on a seed whose walk meets EUCLEAN or EIO
# on a metadata operation while fs_fault stays 0: seeds 3004 and 3007 were
# such with series v2, where ext2_iget() refused an inode with a negative
# size without ext2_error(); series v3's "ext2: report a negative inode
# size as corruption" reports it (replayed: FSERR_FUZZ=ext2:3004 and
# ext2:3007 log "inode 33/46 has a negative size"). The range meets such
# errors in both tiers (make check at 8f8f1be: 8 images of the full 200 on
# the plain kernel, 4 of the quick 50 on the debug one); one that met none
# would fail the test (nothing checked).
guest() {
	fuzz ext2 ext2 ext2 3001 "$(sized 200 50)"
}
