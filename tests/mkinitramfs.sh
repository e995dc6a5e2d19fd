#!/bin/bash
# Make the guest's initramfs: busybox-static for arm64 from Debian's package,
# the guest test programs and fscorrupt cross-compiled statically, the
# scenarios and /init.
#
#   tests/mkinitramfs.sh OUTPUT
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1")
tree=${KERNEL_TREE:-$top/build/linux}
work=$top/build/initramfs
cc=aarch64-linux-gnu-gcc
cflags=(-static -O2 -Wall -Werror)

die() { printf 'initramfs: error: %s\n' "$*" >&2; exit 1; }

busybox_deb=$(compgen -G "$top/build/debs/busybox-static_*_arm64.deb" | head -n1) ||
	die "busybox-static:arm64 is missing: run 'make deps'"
command -v $cc >/dev/null || die "$cc is missing: run 'make deps'"
[ -f "$tree/tools/testing/selftests/kselftest_harness.h" ] ||
	die "no kernel tree at $tree (the tests use its kselftest_harness.h): run 'make kernel-tree'"

rm -rf "$work"
mkdir -p "$work/root/bin" "$work/root/tests" "$work/root/scenarios" "$work/deb"
dpkg-deb -x "$busybox_deb" "$work/deb"
cp "$work/deb/bin/busybox" "$work/root/bin/busybox"
ln -s busybox "$work/root/bin/sh"	# /init installs the other applets

for src in "$top"/tests/guest/*.c; do
	$cc "${cflags[@]}" -I "$tree/tools/testing/selftests" -o \
		"$work/root/tests/$(basename "$src" .c)" "$src" -lpthread
done
$cc "${cflags[@]}" -o "$work/root/tests/fscorrupt" "$top/tests/fscorrupt/fscorrupt.c"
cp "$top"/tests/scenarios/*.sh "$work/root/scenarios/"
cp "$top/tests/demo/guest-demo.sh" "$work/root/scenarios/demo.sh"
cp "$top/tests/lib/guest.sh" "$work/root/tests/guest.sh"
cp "$top/build/images/card.sha256" "$work/root/tests/card.sha256"
install -m 0755 "$top/tests/guest/init" "$work/root/init"

(cd "$work/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -9 >"$out.tmp"
mv "$out.tmp" "$out"
printf 'initramfs: %s (%s KiB)\n' "${out#"$top"/}" $(( $(stat -c %s "$out") / 1024 ))
