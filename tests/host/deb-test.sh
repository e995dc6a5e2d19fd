#!/bin/bash
# fserrd's and fserrctl's Debian packages (TAP), as a packager builds them:
# tests/mkdeb.sh runs dpkg-buildpackage -us -uc (source and binary, for
# this machine's architecture) in a copy of userspace/; lintian must
# report no error; the packages hold what make install installs, the
# policy file as a conffile, a Type=notify unit that the postinst enables;
# debian/changelog's version is NEWS's newest. (The board card installs
# the arm64 build of the same packages: tests/mkboard.sh.)
#
#   tests/host/deb-test.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
out=$top/build/deb/host
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tap_plan 7
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || {
		for i in $(seq 7); do check "packages $i" sh -c "echo '$tool is missing: make deps installs it'; false"; done
		tap_done
	}
done
check "dpkg-buildpackage -us -uc builds the source and both packages" \
	"$top/tests/mkdeb.sh" "$arch" "$out" --source
deb() { ls "$out/${1}_"*"_$arch.deb" 2>/dev/null | head -n 1; }
lintian_errors() {
	lintian --no-cfg --fail-on error "$out"/*.changes >"$out/lintian.log" 2>&1
	local s=$?
	grep -v 'running with root privileges' "$out/lintian.log"
	return $s
}
check "lintian finds no error in the source and binary packages" lintian_errors
holds() { # PACKAGE PATH...
	local p=$1 f list
	shift
	list=$(dpkg-deb -c "$(deb "$p")" | awk '{ print $6 }') || return 1
	for f; do grep -qx "\\./$f" <<<"$list" || { echo "$p: no $f"; return 1; }; done
}
check "fserrd holds the daemon, its unit, the udev rule, the man page, the policy file" \
	holds fserrd usr/sbin/fserrd lib/systemd/system/fserrd.service lib/udev/rules.d/90-fserr.rules \
	usr/share/man/man8/fserrd.8.gz etc/fserrd.conf
check "fserrctl holds the tool and its man page" holds fserrctl usr/sbin/fserrctl usr/share/man/man8/fserrctl.8.gz
check "the policy file is a conffile" sh -c \
	"dpkg-deb --ctrl-tarfile '$(deb fserrd)' | tar -xO ./conffiles | grep -x /etc/fserrd.conf"
check "the packaged unit is Type=notify (libsystemd), and the postinst enables it" sh -c \
	"dpkg-deb --fsys-tarfile '$(deb fserrd)' | tar -xO ./lib/systemd/system/fserrd.service | grep -x Type=notify &&
	 dpkg-deb --ctrl-tarfile '$(deb fserrd)' | tar -xO ./postinst | grep \"deb-systemd-helper enable 'fserrd.service'\""
news=$(sed -n 's/^\([0-9][0-9.]*\) .*/\1/p; s/^\([0-9][0-9.]*\)$/\1/p' "$top/userspace/NEWS" | head -n 1)
check "debian/changelog's version ($(dpkg-parsechangelog -l "$top/userspace/debian/changelog" -S Version)) is NEWS's newest ($news)" \
	test "$(dpkg-parsechangelog -l "$top/userspace/debian/changelog" -S Version)" = "$news"
tap_done
