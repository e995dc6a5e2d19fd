# Benchmark (make bench), fserr on: what a report costs on the error path,
# what a superblock costs in memory, the report path with many faulting
# superblocks (tests/lib/bench.sh). bench-cost-off.sh does the same work on
# the same kernel booted with fserr.enable=0. The guest's clock counts
# instructions (ICOUNT=1), and its one CPU runs everything fserr does for
# an error, its worker included: a time here is the work done.
CARD=fat32
ICOUNT=1
STREAMS=8	# cost, cost listened, the same on ext4, memory, multi 1, 10, 100

# (in the guest /tests/bench.sh, on the host tests/lib/bench.sh)
if [ -f /tests/bench.sh ]; then . /tests/bench.sh; else . "$top/tests/lib/bench.sh"; fi

prepare() {
	bench_prepare "$@"
}

guest() {
	bench_cost_boot
}
