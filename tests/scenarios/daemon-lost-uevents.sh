# fserrd when uevents are lost: while fserrd is stopped (SIGSTOP), a flood
# of uevents fills its 2 MiB netlink buffer, and then the FAT volume
# faults, so its uevent is dropped. When fserrd runs again, recv() says
# ENOBUFS; fserrd must treat that as "something was lost", rescan, and
# handle the fault exactly once.
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
}

guest() {
	tap_begin lost-uevents
	printf 'default log\n' >/tmp/fserrd.conf
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	fserrd_start -c /tmp/fserrd.conf
	kill -STOP "$fserrd_pid"
	i=0
	while [ $i -lt 6000 ]; do
		echo change >/sys/block/mmcblk0/uevent
		i=$((i + 1))
	done
	cat /mnt/DATA.BIN >/dev/null 2>&1
	t "the volume faulted while fserrd was stopped" expect_eq 1 "$(attr fat mmcblk0p1 fs_fault)"
	kill -CONT "$fserrd_pid"
	t "fserrd saw that uevents were lost (ENOBUFS)" wait_log 'fserrd: wake channel=uevents-lost'
	# (other channels may wake in the same round: one rescan for all)
	t "...and rescanned" sh -c \
		"sed -n '/wake channel=uevents-lost/,\$p' /tmp/fserrd.log | grep -q 'fserrd: rescan why='"
	t "fserrd handled the fault" wait_log ' fserrd: fault .*sysfs=/sys/fs/fat/mmcblk0p1 '
	settle 1
	t "...once" expect_eq 1 "$(grep -c ' fserrd: fault ' /tmp/fserrd.log)"
	t "fserrd stops on SIGTERM" fserrd_stop
	umount /mnt
	tap_end
}
