#!/bin/bash
# Make the SD card images on the host, without mounting anything:
#
#   build/images/card-fat32.img   64 MiB, MBR: p1 FAT32 (the handheld's data
#                                 volume), p2 ext2
#   build/images/card-fat16.img   the same with p1 FAT16
#   build/images/card-fat12.img   the same with p1 FAT12
#   build/images/card.sha256      checksums of every file, for later checks
#   build/images/fuzz/            small empty FAT12/16/32 and ext2 volumes
#                                 and the files the fuzz scenarios put on them
#
# The files are the same on every partition; the guest tests rely on their
# names (8.3 on FAT). Contents come from a fixed seed, so images are
# reproducible. QEMU wants SD cards whose size is a power of two.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/images
stage=$out/stage

say() { printf 'images: %s\n' "$*"; }

for tool in mkfs.fat mke2fs mcopy mmd sfdisk; do
	command -v "$tool" >/dev/null ||
		{ echo "images: error: $tool is missing: run 'make deps'" >&2; exit 1; }
done

# Rebuild only when this script changed.
stamp=$(sha256sum "$0" | cut -d' ' -f1)
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
rm -rf "$out"
mkdir -p "$stage/DIR1" "$stage/WALK"

# Deterministic contents.
pseudo() { # NAME BYTES
	python3 -c 'import hashlib,sys
n=int(sys.argv[2]); seed=sys.argv[1].encode(); out=b""; i=0
while len(out)<n:
    out+=hashlib.sha256(seed+i.to_bytes(8,"little")).digest(); i+=1
sys.stdout.buffer.write(out[:n])' "$1" "$2"
}
# Victims: 64 KiB spans at least four clusters on every FAT type.
pseudo data 65536 >"$stage/DATA.BIN"
pseudo victim2 65536 >"$stage/VICTIM2.BIN"
pseudo free 65536 >"$stage/FREE.BIN"
pseudo keep 40000 >"$stage/KEEP.BIN"		# never corrupted
echo "fserr test card" >"$stage/README.TXT"
echo one >"$stage/DIR1/FILE1.TXT"
echo two >"$stage/DIR1/FILE2.TXT"
for i in $(seq 1 40); do echo "entry $i" >"$stage/WALK/F$i.TXT"; done
(cd "$stage" && find . -type f | sort | xargs sha256sum) >"$out/card.sha256"

part_start=2048			# sectors
p1_sectors=$((40 * 2048))	# 40 MiB
p2_start=$((part_start + p1_sectors))
card_mib=64
p2_sectors=$((card_mib * 2048 - p2_start))

make_fat() { # BITS FILE
	local bits=$1 file=$2 spc
	case $bits in 32) spc=1 ;; 16) spc=2 ;; 12) spc=32 ;; esac
	truncate -s $((p1_sectors * 512)) "$file"
	mkfs.fat -F "$bits" -s "$spc" -S 512 -n FSERRTEST -i 12345678 "$file" >/dev/null
	mcopy -i "$file" -s "$stage"/* ::/
}

make_ext2() { # FILE
	truncate -s $((p2_sectors * 512)) "$1"
	E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -t ext2 -b 1024 -L fserrtest \
		-U 12345678-1234-1234-1234-123456789abc -E root_owner=0:0 \
		-d "$stage" "$1"
}

make_ext2 "$out/p2.img"
for bits in 32 16 12; do
	card=$out/card-fat$bits.img
	make_fat "$bits" "$out/p1.img"
	truncate -s ${card_mib}M "$card"
	printf 'label: dos\nstart=%d, size=%d, type=c\nstart=%d, size=%d, type=83\n' \
		"$part_start" "$p1_sectors" "$p2_start" "$p2_sectors" |
		sfdisk -q "$card"
	dd if="$out/p1.img" of="$card" bs=512 seek=$part_start conv=notrunc,sparse status=none
	dd if="$out/p2.img" of="$card" bs=512 seek=$p2_start conv=notrunc,sparse status=none
	rm -f "$out/p1.img"
	say "made ${card#"$top"/}"
done
rm -f "$out/p2.img"

# The fuzz volumes, for the fuzz scenarios: small empty FAT12/16/32 and
# ext2 volumes and the files to put on them. The guest fills each volume
# once through its own kernel (mtools cannot write a FAT32 this small) and
# then mutates a fresh copy per image. Small, so that the copy is cheap; the
# files (nested directories, long names, one to many clusters) fill them so
# that a flipped byte in a FAT, a directory or an inode table is likely to
# be met by the walk. 64 root entries keep the FAT12/16 root directory,
# which fscorrupt's random mode also hits, mostly in use.
fuzz=$out/fuzz
mkdir -p "$fuzz/stage/DEEP/ER/STILL" "$fuzz/stage/Long directory name" "$fuzz/stage/MANY"
for i in $(seq 1 24); do pseudo "root$i" $((i * 700)) >"$fuzz/stage/R$i.BIN"; done
for i in $(seq 1 30); do echo "small $i" >"$fuzz/stage/MANY/S$i.TXT"; done
pseudo big 200000 >"$fuzz/stage/BIG.BIN"
pseudo mid 60000 >"$fuzz/stage/DEEP/MID.BIN"
pseudo deep 9000 >"$fuzz/stage/DEEP/ER/STILL/LEAF.BIN"
pseudo long 5000 >"$fuzz/stage/Long directory name/A file with a long name.dat"
for spec in 12:1 16:3 32:1; do
	truncate -s "${spec#*:}M" "$fuzz/fat${spec%:*}.img"
	mkfs.fat -F "${spec%:*}" -s 1 -S 512 -r 64 -n FUZZ -i 2468ace0 "$fuzz/fat${spec%:*}.img" \
		>/dev/null 2>&1
done
truncate -s 1M "$fuzz/ext2.img"
E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -t ext2 -b 1024 -N 128 -I 256 -L fuzz \
	-U 12345678-1234-1234-1234-0123456789ab -E root_owner=0:0 "$fuzz/ext2.img"
say "made ${fuzz#"$top"/}: empty fat12, fat16, fat32 and ext2 volumes and their files"
echo "$stamp" >"$out/.stamp"
