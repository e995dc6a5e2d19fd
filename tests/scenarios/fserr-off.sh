# fserr.enable=0 on the kernel command line: the kernel runs as if it had
# no fserr. FAT and ext2 mount (the notify option is still accepted) and
# find their errors as before, but no superblock gets a directory, no
# report is counted as dropped, no uevent comes, and the parameter cannot
# be changed at run time. (What fserr costs is measured against such a
# boot: make bench.)
STREAMS=1
CARD=fat32
APPEND=fserr.enable=0

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN &&
	fscorrupt --partition 2 "$1" ext2-dirent-bad-inode WALK/F1.TXT
}

guest() {
	p=/sys/module/fserr/parameters
	tap_begin fserr-off 15
	t "the enable parameter reads N" expect_eq N "$(cat $p/enable)"
	t "KUnit skipped its cases that mount" sh -c "dmesg | grep -q 'SKIP fserr.enable=0'"
	t "...and they left nothing in /sys/fs" sh -c "! ls -d /sys/fs/fserr-kunit*"
	t "root cannot turn it on at run time" sh -c "! echo Y >$p/enable"
	t "...and it still reads N" expect_eq N "$(cat $p/enable)"
	: >/tmp/uevents
	uevent_listener /tmp/uevents
	t "FAT mounts with notify" mount -t vfat -o notify,errors=continue /dev/mmcblk0p1 /mnt
	t "...and says once that notify sends no uevents" sh -c \
		"dmesg | grep -c 'fserr.enable=0, the notify option sends no uevents' | grep -qx 1"
	t "no /sys/fs/fat/mmcblk0p1" sh -c "! ls -d /sys/fs/fat/mmcblk0p1"
	t "reading the damaged file fails" sh -c "! cat /mnt/DATA.BIN >/dev/null"
	t "FAT logged the error itself" sh -c "dmesg | grep -q 'FAT-fs (mmcblk0p1): error'"
	t "ext2 mounts with notify, without a directory" sh -c \
		"mount -t ext2 -o notify,ro /dev/mmcblk0p2 /mnt2 && ! ls -d /sys/fs/ext2/mmcblk0p2"
	t "ext2 finds its error" sh -c "! stat /mnt2/WALK/F1.TXT && dmesg | grep -q 'EXT2-fs (mmcblk0p2): error'"
	settle 1
	# (an empty list proves nothing unless the listener listened: it
	# binds before it makes the ready file, and must still run now)
	t "the uevent listener listened all along" sh -c \
		"test -e /tmp/uevent_listen.ready && kill -0 $listener"
	kill $listener
	t "no report counted as dropped" expect_eq 0 "$(cat $p/reports_dropped)"
	t "no fserr uevent" expect_eq 0 "$(grep -c FS_FAULT /tmp/uevents)"
	umount /mnt2
	umount /mnt
	tap_end
}
