# Benchmark (make bench), fserr off: the same kernel as bench-fserr-on.sh
# booted with fserr.enable=0, running the same work (lib-bench.sh).
CARD=fat32
SMP=2
STREAMS=5	# memory, 3 multi, cost
APPEND=fserr.enable=0

. "${FSERR_SCENARIO_LIB:-/scenarios}/lib-bench.sh"

prepare() {
	bench_prepare "$@"
}

guest() {
	bench_both
	umount /mnt
}
