#!/bin/bash
# Install every Debian package the project needs, when something is missing.
# Quiet when all is present; safe to run again.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
debs=$top/build/debs

# Host packages: kernel source and cross build, QEMU, image tools, userspace.
host_pkgs=(
	linux-source-6.1 xz-utils git make bc bison flex libssl-dev libelf-dev
	cpio ccache gcc libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-arm mtools dosfstools e2fsprogs exfatprogs fdisk python3 python3-ply python3-git
	libmount-dev libsmartcols-dev libsystemd-dev pkgconf clang perl gnuplot-nox debootstrap
	debhelper lintian
)
# arm64 libraries to cross-link the guest's programs against (libsystemd
# for the board card's fserrd only, tests/mkboard.sh), and pkgconf's arm64
# wrapper (aarch64-linux-gnu-pkg-config), which the cross build of the
# Debian packages uses (tests/mkdeb.sh arm64).
arm64_pkgs=(libmount-dev:arm64 libblkid-dev:arm64 libsmartcols-dev:arm64 libsystemd-dev:arm64
	pkgconf:arm64)
# arm64 packages that are unpacked into the guest, not installed: the
# shell, and the fsck programs (with their libraries) that fserrd's repair
# policy runs.
guest_debs=(busybox-static dosfstools e2fsprogs exfatprogs libext2fs2 libcom-err2 libblkid1 libuuid1)

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

missing=()
for p in "${host_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
for p in "${arm64_pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
missing_debs=()
for p in "${guest_debs[@]}"; do
	compgen -G "$debs/${p}_*_arm64.deb" >/dev/null || missing_debs+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_debs[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] ||
	die "missing ${missing[*]} ${missing_debs[*]}; run 'make deps' as root (it uses apt-get)"

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	say "adding the arm64 architecture for the guest's packages"
	dpkg --add-architecture arm64
fi
say "apt-get update"
apt-get update -qq >/dev/null ||
	die "apt-get update failed: is Debian's package archive reachable (see /etc/apt/sources.list*)?"
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]} (a few minutes on a fresh machine)"
	# (apt's own lines, hundreds on a fresh machine, go to a log; here a
	# count of what it set up)
	mkdir -p "$top/build"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >"$top/build/deps-apt.log" 2>&1 || true
	say "apt-get set up $(grep -c '^Setting up ' "$top/build/deps-apt.log") packages (build/deps-apt.log)"
	for p in "${missing[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
			die "package $p did not install; try 'apt-get install $p' to see why"
	done
fi
if [ ${#missing_debs[@]} -gt 0 ]; then
	mkdir -p "$debs"
	say "downloading ${missing_debs[*]} for arm64"
	(cd "$debs" && for p in "${missing_debs[@]}"; do
		apt-get download -q "$p:arm64" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
		compgen -G "${p}_*_arm64.deb" >/dev/null || die "could not download $p:arm64"
	done)
fi
say "all packages present"
