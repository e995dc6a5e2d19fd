# The guest half of tests/mkboard.sh's package step (busybox ash),
# installed as /scenarios/board-install-debs.sh: dpkg -i of fserrd's and
# fserrctl's arm64 packages (tests/mkdeb.sh) into the board's Debian root,
# which is the virtio disk /dev/vda (ext2). mkboard.sh put the packages in
# /var/cache/fserr-debs/; dpkg and the maintainer scripts (the unit
# enabled by deb-systemd-helper) are Debian's arm64 programs, so they run
# here, chrooted into the root with /proc, /sys and /dev. The last line
# says how it ended (@@DEBS-OK or @@DEBS-FAILED).
guest() {
	if ! mount -t ext2 /dev/vda /mnt; then
		echo "@@DEBS-FAILED cannot mount /dev/vda"
		return
	fi
	mount -t proc proc /mnt/proc
	mount -t sysfs sysfs /mnt/sys
	mount --bind /dev /mnt/dev
	chroot /mnt /bin/sh -c 'dpkg -i /var/cache/fserr-debs/*.deb' >/tmp/dpkg.log 2>&1
	dpkg_status=$?
	sed 's/^/# dpkg: /' /tmp/dpkg.log
	if [ "$dpkg_status" = 0 ] &&
	   chroot /mnt dpkg-query -W -f='${Package} ${Status}\n' fserrd fserrctl >/tmp/status &&
	   [ "$(grep -c ' install ok installed$' /tmp/status)" = 2 ]; then
		status=OK
	else
		status=FAILED
	fi
	sed 's/^/# /' /tmp/status 2>/dev/null
	rm -rf /mnt/var/cache/fserr-debs
	umount /mnt/dev /mnt/sys /mnt/proc
	sync
	umount /mnt
	echo "@@DEBS-$status"
}
