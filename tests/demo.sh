#!/bin/bash
# `make demo`: boot the guest with a fresh SD card and walk through what
# fserr tells userspace. The guest half is tests/demo/guest-demo.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/demo
mkdir -p "$dir"
cp --sparse=always "$top/build/images/card-fat32.img" "$dir/card.img"

cat <<'TXT'
fserr demo: an arm64 guest (QEMU -M virt) with an SD card on an sdhci
controller, running the patched kernel from fs-notify-errors/.
TXT
"$top/qemu/run.sh" --card "$dir/card.img" --append "fserr.scenario=demo" \
	--timeout 180 --log "$dir/console.log" |
	sed -u -n '/^@@FSERR-BEGIN/,/^@@FSERR-DMESG/{/^@@FSERR/d;p}'
grep -q '^@@FSERR-END' "$dir/console.log" || {
	echo "demo: the guest did not finish; see build/demo/console.log" >&2
	exit 1
}
echo
echo "The whole console, with the kernel log, is in build/demo/console.log."
