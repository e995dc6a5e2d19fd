#!/bin/bash
# Build fserrd's and fserrctl's Debian packages from userspace/ and its
# debian/ directory, as a packager would: a copy of userspace/ (the files
# git knows) named fserr-tools-VERSION, dpkg-buildpackage -us -uc in it.
#
#   tests/mkdeb.sh ARCH OUTDIR [--source]
#
# ARCH is the host's (a native build) or arm64 (a cross build for the
# board card, with the arm64 -dev packages make deps installs). The unit
# tests are not run here (DEB_BUILD_OPTIONS=nocheck: make check runs them).
# --source builds the source package too. The .deb files, .changes and
# the build log end up in OUTDIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
arch=$1
out=$(realpath -m "$2")
source=${3:-}
version=$(dpkg-parsechangelog -l "$top/userspace/debian/changelog" -S Version)

say() { printf 'deb: %s\n' "$*"; }
die() { printf 'deb: error: %s\n' "$*" >&2; exit 1; }

command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	die "dpkg-buildpackage or debhelper is missing: run 'make deps'"
rm -rf "$out"
mkdir -p "$out/fserr-tools-$version"
(cd "$top/userspace" && git ls-files -z --cached --others --exclude-standard . |
	xargs -0 cp --parents -t "$out/fserr-tools-$version")
args=(-us -uc)
[ "$source" = --source ] || args+=(-b)
[ "$arch" = "$(dpkg --print-architecture)" ] || args+=(-a"$arch")
if ! (cd "$out/fserr-tools-$version" && DEB_BUILD_OPTIONS=nocheck DEB_BUILD_PROFILES=nocheck dpkg-buildpackage "${args[@]}") \
	>"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage ${args[*]} failed (${out#"$top"/}/build.log)"
fi
rm -rf "$out/fserr-tools-$version"
say "${out#"$top"/}: $(cd "$out" && ls ./*.deb | sed 's|^\./||' | tr '\n' ' ')"
