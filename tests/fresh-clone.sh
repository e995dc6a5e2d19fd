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
status=0
CCACHE_DIR=$scratch/ccache make -C "$scratch/clone" "$target" || status=$?
total=$(( $(date +%s) - start ))
echo "fresh-clone: make $target took $total s, status $status"
"$top/tests/report.py" --save "$scratch/clone/build/run" --as fresh-clone --total-seconds "$total"
exit "$status"
