#!/bin/bash
# Make a Debian bookworm arm64 root for the board path (issue 13): minbase
# with systemd, udev and what fserrd needs, as an ext2 image.
#
#   tests/mkrootfs.sh
#
# debootstrap's first stage runs here (--foreign: download and unpack); the
# second stage runs Debian's arm64 programs, so it runs inside the test
# guest, booted with the image as a virtio disk (tests/rootfs/stage2.sh).
# The result is cached in build/rootfs/KEY/rootfs.img, KEY a hash of what
# goes into it (the suite, the package list, debootstrap's options, the
# image's size and type, the guest half), and made again only when one of
# them changes; build/rootfs/latest links to the last one made or found.
# The mirror is the one this machine's apt uses for the suite.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
size=2G
# minbase, and: systemd as init with udev, the fsck programs and libraries
# fserrd's repair runs and links, and what a board's userland needs to be
# looked at (procps, less).
packages=systemd,systemd-sysv,udev,dbus,dosfstools,e2fsprogs,util-linux,mount,libmount1,libsmartcols1,libsystemd0,procps,kmod,less

say() { printf 'rootfs: %s\n' "$*"; }
die() { printf 'rootfs: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "debootstrap needs root (device nodes, ownership)"
command -v debootstrap >/dev/null || die "debootstrap is missing: run 'make deps'"

# The mirror: the first deb source of this machine's apt for $suite, in
# deb822 (sources.list.d/*.sources) or one-line (sources.list) form.
mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			/^$/ { if (deb && ok && uri) { print uri; found = 1; exit }
			       deb = ok = 0; uri = "" }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
			END { if (!found && deb && ok && uri) print uri }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [OPTIONS] URI SUITE COMPONENTS...
		awk -v suite="$suite" '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			if ($(i + 1) == suite) print $i }' "$f"
	done
}
url=$(mirror | head -n 1)
[ -n "$url" ] || die "no 'deb' source for $suite in /etc/apt: cannot tell which mirror to use"

bootstrap=(--foreign --arch=arm64 --variant=minbase)
fstype=ext2
key=$( { echo "$suite $packages ${bootstrap[*]} $size $fstype"; cat "$top/tests/rootfs/stage2.sh"; } |
	sha256sum | cut -c1-16)
dir=$top/build/rootfs/$key
if [ -f "$dir/done" ]; then
	ln -sfn "$key" "$top/build/rootfs/latest"
	say "up to date: ${dir#"$top"/}/rootfs.img"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
say "first stage on the host: debootstrap --foreign $suite arm64 from $url"
t0=$(date +%s)
debootstrap "${bootstrap[@]}" --include="$packages" \
	"$suite" "$dir/tree" "$url" >"$dir/stage1.log" 2>&1 ||
	{ tail -n 20 "$dir/stage1.log" >&2; die "the first stage failed (${dir#"$top"/}/stage1.log)"; }
say "first stage: $(( $(date +%s) - t0 )) s, $(du -sm "$dir/tree" | cut -f1) MB"
mke2fs -q -t "$fstype" -L debian-root -d "$dir/tree" "$dir/rootfs.img" "$size"
rm -rf "$dir/tree"

say "second stage in the guest (minutes; its progress follows)"
t0=$(date +%s)
# (run.sh's console: only debootstrap's own lines and the result)
make -s -C "$top" --no-print-directory rootfs-stage2 ROOTFS_IMAGE="$dir/rootfs.img" \
	ROOTFS_LOG="$dir/stage2.log" | grep --line-buffered -E '^(I|W|E): |^@@ROOTFS' || true
if ! grep -q '^@@ROOTFS-OK' "$dir/stage2.log"; then
	tail -n 40 "$dir/stage2.log" >&2
	die "the second stage failed (${dir#"$top"/}/stage2.log)"
fi
say "second stage: $(( $(date +%s) - t0 )) s"
touch "$dir/done"
ln -sfn "$key" "$top/build/rootfs/latest"
say "done: ${dir#"$top"/}/rootfs.img"
