# fserrctl against the real kernel: the status table and JSON map the
# faulted FAT volume to both of its mount points (a bind mount included)
# through libmount, clear works by mount point, watch sees the uevent and
# the state change, and a mount namespace without the volume shows it as
# not mounted there.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
}

guest() {
	tap_begin fserrctl 12
	# (fserrd and fserrctl are linked dynamically; with a loader of another
	# glibc build, every fork() child looped for ever)
	t "a dynamically linked program's fork() children exit (ld.so fits libc.so.6)" /tests/fork_exit
	t "status with nothing mounted" sh -c "fserrctl status | grep -q '^no filesystem with fserr state'"
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	mount --bind /mnt/DIR1 /mnt2
	fserrctl status >/tmp/status
	t "status maps the volume to both mount points" \
		grep -Eq '^/mnt,/mnt2 +vfat +/dev/mmcblk0p1 +179:1 +0 +0 ' /tmp/status
	fserrctl watch >/tmp/watch &
	watcher=$!
	settle 0.5
	cat /mnt/DATA.BIN >/dev/null 2>&1
	settle 1
	fserrctl status >/tmp/status
	t "status shows the fault and its errno" \
		grep -Eq '^/mnt,/mnt2 +vfat +/dev/mmcblk0p1 +179:1 +1 +[1-9][0-9]* .* EUCLEAN ' /tmp/status
	fserrctl status --json >/tmp/json
	# (libsmartcols spreads the document over lines: compare without blanks)
	tr -d ' \n' </tmp/json >/tmp/json.flat
	t "status --json has the state and both mount points" sh -c \
		'grep -q "\"mountpoints\":\[\"/mnt\",\"/mnt2\"\]" /tmp/json.flat && grep -q "\"fs_fault\":1," /tmp/json.flat'
	t "watch printed the uevent" grep -q '^uevent: /fs/fat/mmcblk0p1 type=vfat id=mmcblk0p1 dev=179:1 errno=EUCLEAN' /tmp/watch
	t "watch printed the new state (mountinfo woke it)" grep -q '^state: /sys/fs/fat/mmcblk0p1 fs_fault=1' /tmp/watch
	kill $watcher
	wait $watcher
	# A process killed by the signal would report 143; the handler exits 0.
	t "watch exits 0 on SIGTERM" expect_eq 0 $?
	t "a namespace without the volume sees it as not mounted there" sh -c \
		"unshare -m --propagation private sh -c 'umount /mnt2 && umount /mnt && fserrctl status' | grep -q '^(not mounted here) *fat *mmcblk0p1 *179:1 *1 '"
	t "clear by the bind mount point" fserrctl clear /mnt2
	t "fs_fault is 0 again" expect_eq 0 "$(attr fat mmcblk0p1 fs_fault)"
	fserrctl clear /nowhere >/dev/null 2>&1
	t "clear of an unknown mount point exits 3" expect_eq 3 $?
	umount /mnt2
	umount /mnt
	tap_end
}
