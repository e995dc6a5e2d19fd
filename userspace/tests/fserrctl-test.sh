#!/bin/bash
# Host tests of the fserrctl command line on a fake /sys/fs and a fake
# mountinfo (TAP): the status table and JSON, clear by mount point and by
# source, and clear errors and exit codes for bad input.
#
#   tests/fserrctl-test.sh FSERRCTL
set -uo pipefail

fserrctl=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=userspace/tests/tap.sh
. "$(dirname "$0")/tap.sh"

fake_fs() { # FAMILY ID FAULT DEV
	local d=$work/sys/$1/$2
	mkdir -p "$d"
	echo "$3" >"$d/fs_fault"
	echo "$4" >"$d/dev"
	echo 12 >"$d/error_count"
	echo 1 >"$d/fault_count"
	echo 1764700000 >"$d/first_error_time"
	echo 1764700100 >"$d/last_error_time"
	echo 117 >"$d/first_errno"
	echo 5 >"$d/last_errno"
	echo 0 >"$d/uevents_suppressed"
}
fake_fs fat mmcblk0p1 1 179:1
fake_fs ext2 mmcblk0p2 0 179:2
cat >"$work/mountinfo" <<'MI'
21 1 0:19 / / rw - tmpfs tmp rw
30 21 179:1 / /media/sd rw - vfat /dev/mmcblk0p1 rw,notify
31 21 179:1 /DCIM /home/u/my\040photos rw - vfat /dev/mmcblk0p1 rw
MI
ctl() { "$fserrctl" --sysfs "$work/sys" --mountinfo "$work/mountinfo" "$@"; }

tap_plan 19

check "status lists the faulted FAT volume with both mount points" \
	bash -c "$(declare -f ctl); fserrctl='$fserrctl' work='$work'; ctl status | grep -E '^/media/sd,/home/u/my photos +vfat +/dev/mmcblk0p1 +179:1 +1 +12 '"
check "status shows an fserr filesystem that is not mounted here" \
	bash -c "$(declare -f ctl); fserrctl='$fserrctl' work='$work'; ctl status | grep -q '^(not mounted here) *ext2 *mmcblk0p2 *179:2 *0 '"
check "status --json is valid JSON with the state" \
	bash -c "$(declare -f ctl); fserrctl='$fserrctl' work='$work'; ctl status --json | python3 -c '
import json, sys
d = {e[\"dev\"]: e for e in json.load(sys.stdin)[\"filesystems\"]}
assert d[\"179:1\"][\"mountpoints\"] == [\"/media/sd\", \"/home/u/my photos\"], d
assert d[\"179:1\"][\"fs_fault\"] == 1 and d[\"179:1\"][\"error_count\"] == 12
assert d[\"179:2\"][\"mountpoints\"] in ([None], []) and d[\"179:2\"][\"type\"] == \"ext2\"
'"
# Any path, any label: a mount point with a newline, a backslash, a quote
# and a comma is one element of the JSON array, exactly; a source with a
# control character is valid JSON, and the table escapes it.
cp "$work/mountinfo" "$work/mountinfo-odd"
cat >>"$work/mountinfo-odd" <<'MI'
32 21 179:1 /x /tmp/a\012b\134c"d,e rw - vfat /dev/odd\011source rw
MI
check "status --json: a mount point with a newline, a backslash, a quote and a comma is one element" \
	bash -c "'$fserrctl' --sysfs '$work/sys' --mountinfo '$work/mountinfo-odd' status --json | python3 -c '
import json, sys
d = {e[\"dev\"]: e for e in json.load(sys.stdin)[\"filesystems\"]}
want = [\"/media/sd\", \"/home/u/my photos\", \"/tmp/a\\nb\\\\c\\\"d,e\"]
assert d[\"179:1\"][\"mountpoints\"] == want, d[\"179:1\"][\"mountpoints\"]
'"
check "status: the table shows it on one line, escaped" bash -c \
	"[ \$('$fserrctl' --sysfs '$work/sys' --mountinfo '$work/mountinfo-odd' status | wc -l) = 3 ]"
check "clear by mount point writes 0" bash -c \
	"$(declare -f ctl); fserrctl='$fserrctl' work='$work'; ctl clear /media/sd && [ \"\$(cat '$work/sys/fat/mmcblk0p1/fs_fault')\" = 0 ]"
echo 1 >"$work/sys/fat/mmcblk0p1/fs_fault"
check "clear by mount source writes 0" bash -c \
	"$(declare -f ctl); fserrctl='$fserrctl' work='$work'; ctl clear /dev/mmcblk0p1 && [ \"\$(cat '$work/sys/fat/mmcblk0p1/fs_fault')\" = 0 ]"
echo 1 >"$work/sys/fat/mmcblk0p1/fs_fault"
check "clear of an unknown mount point: exit 3, nothing written" bash -c \
	"$(declare -f ctl exits); fserrctl='$fserrctl' work='$work'; exits 3 ctl clear /nowhere && [ \"\$(cat '$work/sys/fat/mmcblk0p1/fs_fault')\" = 1 ]"
check "no command: exit 2" exits 2 "$fserrctl"
check "unknown command: exit 2" exits 2 "$fserrctl" explode
check "clear without an argument: exit 2" exits 2 "$fserrctl" clear
check "status with a stray argument: exit 2" exits 2 "$fserrctl" status --yaml
check "unreadable mount table: exit 1 with a message" bash -c \
	"'$fserrctl' --mountinfo /nonexistent status 2>&1 >/dev/null | grep -q 'cannot read the mount table'"
check "--help matches the man page's commands" bash -c \
	"'$fserrctl' --help | grep -q '^  status' && '$fserrctl' --help | grep -q '^  clear' && '$fserrctl' --help | grep -q '^  watch'"
chmod 0444 "$work/sys/fat/mmcblk0p1/fs_fault"
# (root may write a read-only file: as root, the test runs as nobody)
as_user=
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 0755 "$work"
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
	check "clear without write permission: exit 4" bash -c \
		"$(declare -f exits); exits 4 $as_user '$fserrctl' --sysfs '$work/sys' --mountinfo '$work/mountinfo' clear /media/sd"
else
	skip "clear without write permission: exit 4" "root without setpriv"
fi

# watch prints names escaped: a directory name with an escape sequence
# must not reach the terminal as one
esc=$(printf 'a\033[31mb')
mkdir -p "$work/sys-esc/fat"
cp -r "$work/sys/ext2/mmcblk0p2" "$work/sys-esc/fat/$esc"
timeout 1 "$fserrctl" --sysfs "$work/sys-esc" --mountinfo "$work/mountinfo" watch \
	>"$work/watch.out" 2>&1
check "watch: a control character in a name is printed as \\ooo" bash -c \
	"grep -qF 'fat/a\\033[31mb fs_fault=0' '$work/watch.out' && ! grep -q \$'\\033' '$work/watch.out' || { cat -v '$work/watch.out'; exit 1; }"

# watch_forged OUT FORGE-OPTION COMMAND...: start COMMAND (a watch in a
# network namespace of its own) with its output in OUT, send it
# forge-uevent.py's message (with FORGE-OPTION, if not empty) from inside
# that namespace, then stop it. $sent is the sender's exit status.
watch_forged() {
	local out=$1 opt=$2 pid
	shift 2
	"$@" >"$out" 2>&1 &
	pid=$!
	sleep 0.5
	nsenter --net="/proc/$pid/ns/net" python3 "$(dirname "$0")/forge-uevent.py" ${opt:+"$opt"}
	sent=$?
	sleep 0.5
	kill "$pid"
	wait "$pid"
}

# watch believes only the kernel's uevents: one sent from a process (port
# id not 0) is not printed. In a network namespace of its own.
if unshare --net true 2>/dev/null && command -v nsenter >/dev/null &&
   command -v python3 >/dev/null; then
	watch_forged "$work/watch2.out" "" unshare --net -- "$fserrctl" --sysfs "$work/sys" \
		--mountinfo "$work/mountinfo" watch --uevents kernel
	check "watch: a forged uevent (not from the kernel) is not printed, and said so" bash -c \
		"[ $sent = 0 ] && grep -q 'ignoring uevents that do not come from the kernel' '$work/watch2.out' &&
		 ! grep -q '^uevent:' '$work/watch2.out' || { cat '$work/watch2.out'; exit 1; }"
else
	skip "watch: a forged uevent (not from the kernel) is not printed" "no unshare --net, nsenter or python3"
fi

# watch --uevents udev: what udevd passes on (forge-uevent.py --udev sends
# its form, as root), in a network and mount namespace whose /run says
# udevd runs; printed with the kernel's fields
# (built with libsystemd or not: --version says, as fserrd's does; ldd piped
# into grep -q could die of SIGPIPE under pipefail and skip this by chance)
if ! grep -q ' +systemd$' <<<"$("$fserrctl" --version)"; then
	skip "watch --uevents udev: udevd's message is printed" "fserrctl is built without libsystemd"
elif unshare --net --mount true 2>/dev/null && command -v nsenter >/dev/null &&
     command -v python3 >/dev/null; then
	watch_forged "$work/watch3.out" --udev unshare --net --mount -- bash -c \
		'mount -t tmpfs tmpfs /run && mkdir /run/udev && touch /run/udev/control &&
		 exec "$@"' - "$fserrctl" --sysfs "$work/sys" --mountinfo "$work/mountinfo" \
		watch --uevents udev
	check "watch --uevents udev: udevd's message is printed, with the kernel's fields" bash -c \
		"[ $sent = 0 ] && grep -qx 'fserrctl: uevents from udev' '$work/watch3.out' &&
		 grep -qx 'uevent: /fs/fat/sdz1 type=vfat id=sdz1 dev=4000:7 errno=EUCLEAN errors=0 suppressed=0' \
			'$work/watch3.out' || { cat '$work/watch3.out'; exit 1; }"
else
	skip "watch --uevents udev: udevd's message is printed" "no unshare --net --mount, nsenter or python3"
fi
check "watch --uevents with anything but auto, kernel or udev: exit 2" bash -c \
	"'$fserrctl' watch --uevents sideways 2>&1 | grep -q 'auto, kernel or udev' &&
	 { '$fserrctl' watch --uevents sideways 2>/dev/null; [ \$? = 2 ]; }"
tap_done
