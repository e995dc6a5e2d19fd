#!/bin/bash
# Make the guest's initramfs: busybox-static for arm64 from Debian's package,
# the guest test programs and fscorrupt cross-compiled statically, fserrd
# and fserrctl cross-compiled with their libraries, fsck.fat, e2fsck and exfatprogs (fsck.exfat, mkfs.exfat) from
# Debian's arm64 packages, the scenarios and benchmarks and /init.
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

# fserrd and fserrctl link libmount, which Debian ships only as a shared
# library, and fserrd's repair runs fsck.fat, e2fsck and fsck.exfat from Debian's arm64
# packages: add the arm64 loader and every library they need, found through
# readelf in the unpacked packages first, then in the arm64 libraries that
# 'make deps' installed. No libsystemd here: the busybox guest has no
# systemd (the board card's fserrd has it, tests/mkboard.sh).
PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
	make -s -C "$top/userspace" O="$top/build/userspace/arm64" CC=$cc SYSTEMD=no WERROR=1 >/dev/null
mkdir -p "$work/root/lib/aarch64-linux-gnu" "$work/root/usr/sbin" "$work/root/sbin" "$work/fsck"
cp "$top/build/userspace/arm64/fserrctl" "$top/build/userspace/arm64/fserrd" "$work/root/usr/sbin/"
for p in dosfstools e2fsprogs exfatprogs libext2fs2 libcom-err2 libblkid1 libuuid1; do
	deb=$(compgen -G "$top/build/debs/${p}_*_arm64.deb" | head -n1) ||
		die "$p:arm64 is missing: run 'make deps'"
	dpkg-deb -x "$deb" "$work/fsck"
done
for prog in fsck.fat e2fsck fsck.exfat mkfs.exfat; do
	src=$(compgen -G "$work/fsck/sbin/$prog" || compgen -G "$work/fsck/usr/sbin/$prog") ||
		die "$prog is not in the unpacked arm64 packages"
	cp -L "$src" "$work/root/sbin/$prog"
done
# (linked dynamically, as fserrd is: the check that the loader fits libc)
$cc -O2 -Wall -Werror -o "$work/root/tests/fork_exit" "$top/tests/guest/dynamic/fork_exit.c"
need=(usr/sbin/fserrctl usr/sbin/fserrd sbin/fsck.fat sbin/e2fsck sbin/fsck.exfat sbin/mkfs.exfat
      tests/fork_exit)
seen=" "
while [ ${#need[@]} -gt 0 ]; do
	file=$work/root/${need[0]}
	need=("${need[@]:1}")
	for lib in $(aarch64-linux-gnu-readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case $seen in *" $lib "*) continue ;; esac
		seen="$seen$lib "
		src=$(compgen -G "$work/fsck/lib/aarch64-linux-gnu/$lib" ||
		      compgen -G "$work/fsck/usr/lib/aarch64-linux-gnu/$lib" ||
		      compgen -G "/usr/lib/aarch64-linux-gnu/$lib" || compgen -G "/lib/aarch64-linux-gnu/$lib" ||
		      compgen -G "/usr/aarch64-linux-gnu/lib/$lib") ||
			die "$lib (needed by ${file##*/}) not found: run 'make deps'"
		cp -L "$src" "$work/root/lib/aarch64-linux-gnu/$lib"
		need+=("lib/aarch64-linux-gnu/$lib")
		[ "$lib" = libc.so.6 ] && libc_dir=$(dirname "$src")
	done
done
# The dynamic loader from the same glibc build as libc.so.6: the two share
# private data (_rtld_global), whose layout changes between builds. With
# the cross toolchain's loader (2.36-8) and libc6:arm64's libc.so.6
# (2.36-9+deb12u14), every fork() child of fserrd and of any dynamically
# linked program looped in glibc's reclaim_stacks() for ever.
ldso=$libc_dir/ld-linux-aarch64.so.1
[ -e "$ldso" ] || die "no ld-linux-aarch64.so.1 beside $libc_dir/libc.so.6"
cp -L "$ldso" "$work/root/lib/"
glibc_build() { grep -ao 'Debian GLIBC [^)]*' "$1" | head -n 1; }
[ "$(glibc_build "$work/root/lib/ld-linux-aarch64.so.1")" = \
  "$(glibc_build "$work/root/lib/aarch64-linux-gnu/libc.so.6")" ] ||
	die "ld-linux-aarch64.so.1 ($(glibc_build "$ldso")) and libc.so.6" \
	    "($(glibc_build "$libc_dir/libc.so.6")) are of different glibc builds"
# fsck.fat converts file names from code page 850 with iconv: glibc's
# module for it and the module cache, from the same build (without them it
# says "Cannot initialize conversion from codepage 850" twice per run)
mkdir -p "$work/root/usr/lib/aarch64-linux-gnu/gconv"
cp "$libc_dir/gconv/IBM850.so" "$libc_dir/gconv/gconv-modules.cache" \
	"$work/root/usr/lib/aarch64-linux-gnu/gconv/" ||
	die "glibc's gconv modules are not beside $libc_dir/libc.so.6"
cp "$top"/tests/scenarios/*.sh "$top"/tests/bench/*.sh "$work/root/scenarios/"
cp "$top/tests/demo/guest-demo.sh" "$work/root/scenarios/demo.sh"
cp "$top/tests/rootfs/stage2.sh" "$work/root/scenarios/rootfs-stage2.sh"
cp "$top/tests/rootfs/install-debs.sh" "$work/root/scenarios/board-install-debs.sh"
cp "$top/tests/lib/guest.sh" "$work/root/tests/guest.sh"
cp "$top/tests/lib/bench.sh" "$work/root/tests/bench.sh"
cp "$top/build/images/card.sha256" "$work/root/tests/card.sha256"
cp -r "$top/build/images/fuzz" "$work/root/fuzz"
install -m 0755 "$top/tests/guest/init" "$work/root/init"

(cd "$work/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -9 >"$out.tmp"
mv "$out.tmp" "$out"
printf 'initramfs: %s (%s KiB)\n' "${out#"$top"/}" $(( $(stat -c %s "$out") / 1024 ))
