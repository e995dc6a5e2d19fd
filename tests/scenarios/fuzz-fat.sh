# Fuzzed FAT images: 500 mutated copies of small FAT12, FAT16 and FAT32
# volumes (fscorrupt random: 1-8 bytes of FAT and root directory flipped
# per image, from fixed seeds), each mounted from a loop device, walked,
# written and unmounted. fs_fault must be 1 exactly when FAT logged an
# error; run.sh fails the run on any splat and names the seed before it.
# Sizes (sized in guest.sh): full 170 + 165 + 165 images; the quick tier on
# the debug kernel 34 + 33 + 33 (a fifth, the first seeds of each range).
# fuzz_walk's plan is 6 either way.
STREAMS=3	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
TIMEOUT_FACTOR=3
prepare() { :; }
# The seeds: fuzz_walk's sixth test (a metadata operation that failed
# with EUCLEAN or EIO implies fs_fault 1) checks something only where the
# walk meets such an error, so each range starts where it does, in the
# quick prefix too. Measured on the plain kernel at 3681a04 (a scan of
# seeds 1-1000 on FAT12, 1001-3000 on FAT16, 2001-3000 on FAT32, which
# fuzz_walk prints as "seeds whose walk met EUCLEAN or EIO"):
#   FAT12: 122 172 183 266 285 430 566 603 659 685 749 757 773 877 927
#   FAT16: 1175 1455 1491 1919 2727 2942 (none in 1001-1165, the range
#          before, so its test never checked anything)
#   FAT32: 2071 2125 2132 2479 2567 2768 2861 2924
# Hence FAT12 from 150 (quick: 172 183; full: 172 183 266 285), FAT16 from
# 1455 (quick: 1455; full: 1455 1491), FAT32 from 2100 (2125 2132 in both).
# A range that meets none fails that test: choose again from a scan.
guest() {
	fuzz fat12 vfat fat 150 "$(sized 170 34)"
	fuzz fat16 vfat fat 1455 "$(sized 165 33)"
	fuzz fat32 vfat fat 2100 "$(sized 165 33)"
}
