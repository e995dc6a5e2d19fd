# Benchmark (make bench), fserr off: bench-cost-on.sh's work on the same
# kernel booted with fserr.enable=0 (tests/lib/bench.sh).
CARD=fat32
ICOUNT=1
STREAMS=8	# cost, cost listened, the same on ext4, memory, multi 1, 10, 100
APPEND=fserr.enable=0

# (in the guest /tests/bench.sh, on the host tests/lib/bench.sh)
if [ -f /tests/bench.sh ]; then . /tests/bench.sh; else . "$top/tests/lib/bench.sh"; fi

prepare() {
	bench_prepare "$@"
}

guest() {
	bench_cost_boot
}
