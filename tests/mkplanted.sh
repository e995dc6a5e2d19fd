#!/bin/bash
# The debug guest's initramfs: the test initramfs plus /lib/modules/
# fserr_planted.ko (tests/planted/), built against the debug kernel. The
# kernel unpacks concatenated cpio archives as one, so the module is a
# second archive appended to the first.
#
#   tests/mkplanted.sh DEBUG-OBJ INITRAMFS OUTPUT
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
obj=$(realpath "$1")
initrd=$2
out=$(realpath -m "$3")
tree=${KERNEL_TREE:-$top/build/linux}
work=$top/build/planted

grep -q '^CONFIG_MODULES=y' "$obj/.config" ||
	{ echo "planted: $obj is not built with modules (kernel/configs/debug.config)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/src" "$work/root/lib/modules"
cp "$top"/tests/planted/Kbuild "$top"/tests/planted/*.c "$work/src/"
make -s -C "$tree" O="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- M="$work/src" modules
cp "$work/src/fserr_planted.ko" "$work/root/lib/modules/"
{
	cat "$initrd"
	(cd "$work/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -9
} >"$out.tmp"
mv "$out.tmp" "$out"
