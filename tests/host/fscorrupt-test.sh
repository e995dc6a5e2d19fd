#!/bin/bash
# Host tests of fscorrupt (TAP). Each corruption is made on a fresh image
# and must be one that the filesystem's own checker (fsck.fat -n, e2fsck -n)
# finds; bad requests must fail and leave the image byte for byte as it was.
#
#   tests/host/fscorrupt-test.sh FSCORRUPT
set -uo pipefail

fscorrupt=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$fscorrupt" --help >/dev/null; then
	echo "Bail out! cannot run $fscorrupt"
	exit 1
fi

# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

make_fat() { # BITS IMAGE
	local spc
	case $1 in 32) spc=1 ;; 16) spc=2 ;; 12) spc=32 ;; esac
	rm -f "$2"
	truncate -s 40M "$2"
	mkfs.fat -F "$1" -s "$spc" -S 512 "$2" >/dev/null
	head -c 65536 /dev/zero | tr '\0' 'x' >"$work/big"
	echo small >"$work/small"
	mcopy -i "$2" "$work/big" ::/DATA.BIN
	mcopy -i "$2" "$work/small" ::/SMALL.TXT
	mmd -i "$2" ::/DIR1
	mcopy -i "$2" "$work/big" ::/DIR1/NESTED.BIN
}

make_ext2() { # IMAGE
	rm -rf "$work/tree" "$1"
	mkdir -p "$work/tree/walk"
	echo one >"$work/tree/walk/f1.txt"
	echo two >"$work/tree/walk/f2.txt"
	truncate -s 8M "$1"
	mke2fs -q -t ext2 -b 1024 -d "$work/tree" "$1"
}

# exFAT: mkfs.exfat's empty volume, and files added without a mount
# (exfat-add-file.py): FRAG.BIN's 3 clusters linked in the FAT with free
# clusters between them, CONT.BIN's 2 contiguous (NoFatChain)
make_exfat() { # IMAGE
	rm -f "$1"
	truncate -s 32M "$1"
	mkfs.exfat "$1" >/dev/null &&
		"$(dirname "$0")/exfat-add-file.py" "$1" FRAG.BIN 3 fragmented >/dev/null &&
		"$(dirname "$0")/exfat-add-file.py" "$1" CONT.BIN 2 contiguous >/dev/null
}

fat_broken() { ! fsck.fat -n "$1" >/dev/null 2>&1; }
exfat_broken() { ! fsck.exfat -n "$1" >/dev/null 2>&1; }
exfat_clean() { fsck.exfat -n "$1" >/dev/null 2>&1; }
fat_clean() { fsck.fat -n "$1" >/dev/null 2>&1; }
ext2_broken() { ! e2fsck -fn "$1" >/dev/null 2>&1; }
ext2_clean() { e2fsck -fn "$1" >/dev/null 2>&1; }

unchanged_after_failure() { # IMAGE ARGS... : fscorrupt must fail and write nothing
	local img=$1 before
	shift
	before=$(sha256sum <"$img")
	if "$fscorrupt" "$img" "$@"; then
		echo "fscorrupt $* succeeded"
		return 1
	fi
	[ "$before" = "$(sha256sum <"$img")" ]
}

# per FAT type 2 + 4 corruptions x 2 + 4; ext2 1 + 2 x 2 + 2; random 4;
# exfat 2 + 2 x 2 + 3; partitions 4; junk 4
tap_plan $((3 * (2 + 4 * 2 + 4) + 1 + 2 * 2 + 2 + 4 + 2 + 2 * 2 + 3 + 4 + 4))

img=$work/fat.img
for bits in 12 16 32; do
	make_fat "$bits" "$img"
	check "fat$bits: fresh image is clean" fat_clean "$img"
	check "fat$bits: info names the type" bash -o pipefail -c "'$fscorrupt' '$img' info | grep -q '^fat$bits '"
	for c in fat-chain-past-end fat-free-in-chain fat-dirent-bad-start fat-size-past-chain; do
		make_fat "$bits" "$img"
		check "fat$bits: $c reports the change" \
			bash -o pipefail -c "'$fscorrupt' '$img' $c DIR1/NESTED.BIN | grep -q '^$c DIR1/NESTED.BIN: '"
		check "fat$bits: fsck.fat finds $c" fat_broken "$img"
	done
	make_fat "$bits" "$img"
	check "fat$bits: missing file changes nothing" unchanged_after_failure "$img" fat-dirent-bad-start NOPE.BIN
	check "fat$bits: one-cluster chain cannot break" unchanged_after_failure "$img" fat-chain-past-end SMALL.TXT
	check "fat$bits: ext2 command on FAT refused" unchanged_after_failure "$img" ext2-dirent-bad-inode SMALL.TXT
	check "fat$bits: dry run writes nothing" bash -o pipefail -c \
		"b=\$(sha256sum <'$img'); '$fscorrupt' --dry-run '$img' fat-dirent-bad-start DATA.BIN >/dev/null && [ \"\$b\" = \"\$(sha256sum <'$img')\" ]"
done

img=$work/ext2.img
make_ext2 "$img"
check "ext2: fresh image is clean" ext2_clean "$img"
for c in ext2-dirent-bad-inode ext2-dirent-bad-reclen; do
	make_ext2 "$img"
	check "ext2: $c reports the change" bash -o pipefail -c "'$fscorrupt' '$img' $c walk/f1.txt | grep -q '^$c walk/f1.txt: '"
	check "ext2: e2fsck finds $c" ext2_broken "$img"
done
make_ext2 "$img"
check "ext2: missing path changes nothing" unchanged_after_failure "$img" ext2-dirent-bad-inode walk/nope
check "ext2: FAT command on ext2 refused" unchanged_after_failure "$img" fat-chain-past-end walk/f1.txt

img=$work/exfat.img
make_exfat "$img"
check "exfat: the image with files added is clean" exfat_clean "$img"
check "exfat: info gives the serial number as blkid does" bash -o pipefail -c \
	"[ \"\$('$fscorrupt' '$img' info | sed -n 's/^exfat .* serial //p')\" = \"\$(blkid -p -o value -s UUID '$img')\" ]"
for c in exfat-free-in-chain exfat-chain-past-end; do
	make_exfat "$img"
	check "exfat: $c reports the change" bash -o pipefail -c "'$fscorrupt' '$img' $c FRAG.BIN | grep -q '^$c FRAG.BIN: '"
	check "exfat: fsck.exfat finds $c" exfat_broken "$img"
done
make_exfat "$img"
check "exfat: a contiguous file has no FAT link to break: nothing written" \
	unchanged_after_failure "$img" exfat-free-in-chain CONT.BIN
check "exfat: missing file changes nothing" unchanged_after_failure "$img" exfat-chain-past-end NOPE.BIN
check "exfat: FAT command on exFAT refused" unchanged_after_failure "$img" fat-free-in-chain FRAG.BIN

# Random mode: the same seed gives the same image, another seed another one.
make_ext2 "$img"
cp "$img" "$work/a"; cp "$img" "$work/b"; cp "$img" "$work/c"
"$fscorrupt" "$work/a" random 42 20 >/dev/null
"$fscorrupt" "$work/b" random 42 20 >/dev/null
"$fscorrupt" "$work/c" random 43 20 >/dev/null
check "random: the image changed" bash -o pipefail -c "! cmp -s '$img' '$work/a'"
check "random: same seed, same corruption" cmp -s "$work/a" "$work/b"
check "random: other seed, other corruption" bash -o pipefail -c "! cmp -s '$work/a' '$work/c'"
check "random: superblock spared, still ext2" bash -o pipefail -c "'$fscorrupt' '$work/a' info | grep -q '^ext2 '"

# Partitions and junk.
make_fat 16 "$work/p1"
truncate -s 64M "$work/card"
printf 'label: dos\nstart=2048, size=81920, type=6\n' | sfdisk -q "$work/card"
dd if="$work/p1" of="$work/card" bs=512 seek=2048 conv=notrunc status=none
check "partition: info through the MBR" bash -o pipefail -c "'$fscorrupt' --partition 1 '$work/card' info | grep -q '^fat16 '"
check "partition: locate gives card sectors" bash -o pipefail -c \
	"'$fscorrupt' -p 1 '$work/card' locate DATA.BIN | awk 'NR == 1 { ok = \$5 > 2048 } END { exit !ok }'"
check "partition: empty partition refused" unchanged_after_failure "$work/card" --partition 2 info
check "partition: number out of range refused" unchanged_after_failure "$work/card" --partition 9 info
head -c 1M /dev/urandom >"$work/junk"
check "junk: not a filesystem, nothing written" unchanged_after_failure "$work/junk" fat-dirent-bad-start DATA.BIN
check "junk: unknown command refused" unchanged_after_failure "$img" explode walk/f1.txt
check "junk: bad seed refused" unchanged_after_failure "$img" random -5 3
check "junk: missing image refused" bash -o pipefail -c "! '$fscorrupt' '$work/none' info 2>/dev/null"

tap_done
