# A failed read of the FAT itself, on a virtio disk (whose QEMU model passes
# the error on): the FAT sector with the first link of VICTIM2.BIN cannot be
# read. FAT logs "FAT read failed", the read of the file fails, and fserr
# reports EIO; a file whose links live in another FAT sector still reads.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32
DEVICE=virtio

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	blkdebug_fail_fat_entry "$1" "$2" 1 VICTIM2.BIN
	fscorrupt --partition 1 "$1" locate-fat DATA.BIN
}

guest() {
	tap_begin fat-read-error 6
	mount -t vfat -o notify /dev/vda1 /mnt
	t "clean mount, fs_fault 0" expect_eq 0 "$(attr fat vda1 fs_fault)"
	t "reading the file fails" sh -c "[ -f /mnt/VICTIM2.BIN ] && ! cat /mnt/VICTIM2.BIN >/dev/null"
	t "fs_fault 1" expect_eq 1 "$(attr fat vda1 fs_fault)"
	t "first_errno EIO" expect_eq 5 "$(attr fat vda1 first_errno)"
	t "FAT logged the failed FAT read" sh -c "dmesg | grep -q 'FAT read failed'"
	t "a file with links in another FAT sector reads back intact" files_intact /mnt 'DATA\.BIN'
	umount /mnt
	tap_end
}
