#!/bin/bash
# Make the board card: an SD card laid out as an arm64 board boots from it.
#
#   tests/mkboard.sh ROOTFS-IMAGE OUTPUT
#
#   p1  FAT32, the data volume: partition 1 of build/images/card-fat32.img,
#       with its files (build/images/card.sha256)
#   p2  ext2, the Debian root of make rootfs (tests/mkrootfs.sh), with
#       fserrd and fserrctl installed from their Debian packages
#       (tests/mkdeb.sh builds them for arm64 from userspace/debian/; dpkg
#       installs them in a guest boot, tests/rootfs/install-debs.sh: the
#       unit, the udev rule, the man pages, the policy file as a conffile,
#       the unit enabled by the package's postinst), /data in /etc/fstab
#       with FAT's notify option, and the board test (tests/board/: its
#       unit, its scripts, and the guest test tools; the power-cut trials'
#       guest half, tests/board/powercut-test.sh)
#
# The root image is copied first: make rootfs's cache stays as debootstrap
# left it. Files go into the copy with debugfs (e2fsprogs), so nothing is
# mounted on the host; dpkg runs in the guest, which boots the copy as its
# virtio disk. The card is 4 GiB and sparse (QEMU wants a power of
# two); the kernel boots it with root=/dev/mmcblk0p2 and no initramfs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rootfs=$(realpath "$1")
out=$(realpath -m "$2")
work=$top/build/board
cc=aarch64-linux-gnu-gcc

say() { printf 'board: %s\n' "$*"; }
die() { printf 'board: error: %s\n' "$*" >&2; exit 1; }

[ -f "$rootfs" ] || die "no root image $rootfs: run 'make rootfs'"
for f in "$top/build/images/card-fat32.img" "$top/build/initramfs/root/tests/fserr_bench" \
	"$top/build/initramfs/root/tests/fscorrupt"; do
	[ -f "$f" ] || die "$f is missing: run 'make images initramfs'"
done

rm -rf "$work"
mkdir -p "$work/dest"

# fserrd and fserrctl for arm64, with libsystemd (journal, sd_notify): the
# Debian packages a distribution would ship.
"$top/tests/mkdeb.sh" arm64 "$top/build/deb/arm64" >/dev/null
debs=()
for p in fserrd fserrctl; do
	f=$(ls "$top"/build/deb/arm64/${p}_*_arm64.deb)
	debs+=("$f")
done
dpkg-deb --fsys-tarfile "${debs[0]}" | tar -xO ./lib/systemd/system/fserrd.service | grep -qx 'Type=notify' ||
	die "the packaged unit is not Type=notify: fserrd was built without libsystemd"

# What the board adds: the data volume in fstab, the policy the test
# starts from, the test, and no login prompt on the console it writes to.
# The device of /data may take longer than systemd's 90 s to appear on the
# debug kernel under TCG (udev's coldplug: fserrd started at 102 s of
# uptime there; one boot went to emergency mode): it gets 10 minutes. A
# boot that fails all the same ends the run with the reason on the
# console (tests/board/board-emergency.sh as emergency.service).
d=$work/dest
mkdir -p "$d/etc/systemd/system/multi-user.target.wants" \
	"$d/tests" "$d/data" "$d/etc/systemd/journald.conf.d" "$d/etc/systemd/system/emergency.service.d"
cat >"$d/etc/fstab" <<'FSTAB'
# the board card (tests/mkboard.sh)
/dev/mmcblk0p2	/	ext2	defaults	0	0
/dev/mmcblk0p1	/data	vfat	notify,shortname=winnt,x-systemd.device-timeout=10min	0	0
FSTAB
printf 'match fstype vfat repair\ndefault log\n' >"$d/etc/fserrd.conf"
# the journal in /run only: nothing writes to the card but the tests
printf '[Journal]\nStorage=volatile\n' >"$d/etc/systemd/journald.conf.d/board.conf"
install -m 0644 "$top/tests/board/fserr-board-test.service" "$d/etc/systemd/system/"
install -m 0755 "$top/tests/board/board-test.sh" "$top/tests/board/board-emergency.sh" \
	"$top/tests/board/powercut-test.sh" "$d/tests/"
printf '[Service]\nExecStart=\nExecStart=/tests/board-emergency.sh\n' \
	>"$d/etc/systemd/system/emergency.service.d/board.conf"
install -m 0644 "$top/tests/lib/guest.sh" "$top/build/images/card.sha256" "$d/tests/"
install -m 0755 "$top/build/initramfs/root/tests/fserr_bench" \
	"$top/build/initramfs/root/tests/fscorrupt" "$d/tests/"
echo board >"$d/etc/hostname"

# Into a copy of the root. debugfs's write takes the mode, owner and times
# of the file it copies (mkdir makes 0755, root's); a file that exists is
# replaced (the policy file the package installed: the board's is what an
# administrator would write there).
cp --sparse=always "$rootfs" "$work/root.img"
# The packages, installed by dpkg in a guest that boots the copy as its
# virtio disk (the maintainer scripts are arm64 programs).
{
	echo "mkdir /var/cache/fserr-debs"
	for f in "${debs[@]}"; do echo "write $f /var/cache/fserr-debs/${f##*/}"; done
} >"$work/debugfs-debs.cmds"
debugfs -w -f "$work/debugfs-debs.cmds" "$work/root.img" >"$work/debugfs-debs.log" 2>&1
if grep -vE '^(debugfs[: ]|Allocated inode: [0-9]+$|$)' "$work/debugfs-debs.log" | grep .; then
	die "debugfs could not put the packages in (${work#"$top"/}/debugfs-debs.log)"
fi
"$top/qemu/run.sh" --card "$work/root.img" --virtio --timeout 600 \
	--append "fserr.scenario=board-install-debs" --log "$work/install-debs.log" >/dev/null 2>&1 || true
grep -q '^@@DEBS-OK' "$work/install-debs.log" ||
	{ tail -n 30 "$work/install-debs.log" >&2; die "dpkg -i in the guest failed (${work#"$top"/}/install-debs.log)"; }
say "installed $(sed -n 's/^# \(fserr[a-z]*\) install ok installed$/\1/p' "$work/install-debs.log" | tr '\n' ' ')with dpkg"
{
	(cd "$d" && find . -mindepth 1 -type d | sort) | while read -r p; do
		echo "mkdir /${p#./}"
	done
	(cd "$d" && find . -type f | sort) | while read -r p; do
		echo "rm /${p#./}"
		echo "write $d/${p#./} /${p#./}"
	done
	# systemctl enable, by hand: the links it would make
	echo "symlink /etc/systemd/system/multi-user.target.wants/fserr-board-test.service /etc/systemd/system/fserr-board-test.service"
	echo "symlink /etc/systemd/system/serial-getty@ttyAMA0.service /dev/null"
} >"$work/debugfs.cmds"
# (debugfs says "directory already exists" for directories the root has,
# and "File not found" when there is nothing to replace: those are
# expected; any other complaint is not)
debugfs -w -f "$work/debugfs.cmds" "$work/root.img" >"$work/debugfs.log" 2>&1
# (debugfs echoes each command as "debugfs: COMMAND" and says which inode
# a write allocated)
if grep -vE '^(debugfs[: ]|Allocated inode: [0-9]+$|$)' "$work/debugfs.log" |
	grep -vE '^(rm: File not found by ext2_lookup |(ext2fs_)?mkdir: Ext2 directory already exists)' |
	grep .; then
	die "debugfs could not install everything (${work#"$top"/}/debugfs.log)"
fi
e2fsck -fn "$work/root.img" >"$work/e2fsck.log" 2>&1 ||
	die "the root image is not clean after the install (${work#"$top"/}/e2fsck.log)"

# The card: p1 the FAT32 volume of card-fat32.img, p2 the root.
p1_start=2048 p1_sectors=81920
p2_start=$((p1_start + p1_sectors))
p2_sectors=$(( $(stat -c %s "$work/root.img") / 512 ))
rm -f "$out.tmp"
truncate -s 4G "$out.tmp"
sfdisk -q "$out.tmp" <<SFDISK
label: dos
start=$p1_start, size=$p1_sectors, type=c
start=$p2_start, size=$p2_sectors, type=83
SFDISK
src_p1=$(sfdisk -d "$top/build/images/card-fat32.img" | awk '/img1 :/ { sub(/,/, "", $4); sub(/,/, "", $6); print $4, $6 }')
[ "$src_p1" = "$p1_start $p1_sectors" ] ||
	die "card-fat32.img's first partition is '$src_p1', not '$p1_start $p1_sectors' sectors"
dd if="$top/build/images/card-fat32.img" of="$out.tmp" bs=512 skip=$p1_start seek=$p1_start \
	count=$p1_sectors conv=notrunc,sparse status=none
dd if="$work/root.img" of="$out.tmp" bs=1M seek=$((p2_start / 2048)) conv=notrunc,sparse status=none
mv "$out.tmp" "$out"
rm -f "$work/root.img"
say "${out#"$top"/}: p1 FAT32 data, p2 the Debian root with fserrd (4 GiB, sparse)"
