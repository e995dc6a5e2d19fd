#!/bin/bash
# Measure what CI measures: `make check` in a fresh clone of HEAD, with an
# empty compiler cache, so the two kernels, the images and the initramfs are
# built from scratch (the Debian packages are taken as installed: install
# time depends on the mirror). The run is saved as docs/runs/fresh-clone
# and the docs' generated parts are rewritten (tests/report.py).
#
#   tests/fresh-clone.sh [MAKE-TARGET]      (default: check)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-check}
scratch=$(mktemp -d /tmp/fserr-fresh.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

git clone -q "$top" "$scratch/clone"
echo "fresh-clone: $(git -C "$scratch/clone" rev-parse --short HEAD) in $scratch/clone, empty ccache"
start=$(date +%s)
set +e
# (FSERR_SAVING_RUN: host/docs cannot require the saved runs to be of this
# commit in the run that replaces them; tests/host/docs-test.sh)
CCACHE_DIR=$scratch/ccache FSERR_SAVING_RUN=$(git -C "$scratch/clone" rev-parse --short HEAD):fresh-clone \
	make -C "$scratch/clone" "$target" 2>&1 |
	tee "$scratch/make.log"
status=${PIPESTATUS[0]}
set -e
total=$(( $(date +%s) - start ))
echo "fresh-clone: make $target took $total s, status $status"
# The kernels' build times, as kernel/build.sh said them ("kernel: built in
# N s: .../obj-debug/arch/..."): the part of the total that depends most on
# the machine's speed that day.
builds=$(sed -n 's|^kernel: built in \([0-9]*\) s: .*/\(obj[^/]*\)/arch/.*|\2 \1 s|p' "$scratch/make.log" |
	paste -sd, - | sed 's/,/, /g')
"$top/tests/report.py" --save "$scratch/clone/build/run" --as fresh-clone --total-seconds "$total" \
	${builds:+--kernel-builds "$builds, side by side"}
exit "$status"
