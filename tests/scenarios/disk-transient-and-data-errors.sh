# Media errors that go away, and media errors in file data, on a virtio disk
# (QEMU blkdebug; its virtio-blk model passes read errors on as EIO):
#  - the FAT sector with the first link of VICTIM2.BIN fails once: FAT logs
#    the failed FAT read and fs_fault goes to 1 with EIO. The reader does not
#    see it (in our runs cat succeeded: a later read of the sector served
#    it), which is the point of a state that outlives the error: fs_fault
#    stays 1 (one-shot) until root clears it, and the file reads back intact;
#  - the first data block of DATA.BIN fails every time: the read fails with
#    EIO, but FAT never sees file data (the page cache reads it), so this is
#    not a filesystem error and fs_fault stays 0.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32
DEVICE=virtio

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	blkdebug_fail_fat_entry "$1" "$2" 1 VICTIM2.BIN once &&
	blkdebug_fail_first_block "$1" "$2" 1 DATA.BIN
}

guest() {
	tap_begin media-errors 10
	mount -t vfat -o notify /dev/vda1 /mnt
	t "clean mount, fs_fault 0" expect_eq 0 "$(attr fat vda1 fs_fault)"
	t "DATA.BIN: the read of a failing data block fails" \
		sh -c "[ -f /mnt/DATA.BIN ] && ! cat /mnt/DATA.BIN >/dev/null"
	t "DATA.BIN: a failed file data read leaves fs_fault 0" \
		expect_eq 0 "$(attr fat vda1 fs_fault)"
	cat /mnt/VICTIM2.BIN >/dev/null 2>&1
	t "VICTIM2.BIN: FAT logged the failed read of its FAT sector" \
		sh -c "dmesg | grep -q 'FAT-fs (vda1): FAT read failed'"
	t "VICTIM2.BIN: fs_fault 1, first_errno EIO, one error" \
		expect_eq "1 5 1" "$(attr fat vda1 fs_fault) $(attr fat vda1 first_errno) $(attr fat vda1 error_count)"
	echo 3 >/proc/sys/vm/drop_caches
	t "VICTIM2.BIN: once the medium recovers, it reads back intact" \
		files_intact /mnt 'VICTIM2\.BIN'
	t "fs_fault stays 1 after the recovery, until cleared" \
		expect_eq 1 "$(attr fat vda1 fs_fault)"
	echo 0 >/sys/fs/fat/vda1/fs_fault
	t "cleared: fs_fault 0, error_count kept" \
		expect_eq "0 1" "$(attr fat vda1 fs_fault) $(attr fat vda1 error_count)"
	t "the other files read back intact" \
		untouched_files_intact /mnt 'DATA\.BIN|VICTIM2\.BIN'
	t "...and reported nothing" expect_eq 1 "$(attr fat vda1 error_count)"
	umount /mnt
	tap_end
}
