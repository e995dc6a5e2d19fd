# The guest half of `make rootfs` (busybox ash), installed as
# /scenarios/rootfs-stage2.sh: debootstrap's second stage, which runs
# Debian's arm64 programs (dpkg, the maintainer scripts) and so cannot run
# on the host. The root made by the first stage is the virtio disk
# /dev/vda (ext2); it is chrooted into with /proc, /sys and /dev, and the
# last line says how it ended (@@ROOTFS-OK or @@ROOTFS-FAILED).
guest() {
	if ! mount -t ext2 /dev/vda /mnt; then
		echo "@@ROOTFS-FAILED cannot mount /dev/vda"
		return
	fi
	mount -t proc proc /mnt/proc
	mount -t sysfs sysfs /mnt/sys
	mount --bind /dev /mnt/dev
	# (its log is the progress: I: Unpacking ..., I: Configuring ...)
	if chroot /mnt /debootstrap/debootstrap --second-stage; then
		status=OK
	else
		status=FAILED
		tail -n 40 /mnt/debootstrap/debootstrap.log 2>/dev/null | sed 's/^/# /'
	fi
	umount /mnt/dev /mnt/sys /mnt/proc
	sync
	umount /mnt
	echo "@@ROOTFS-$status"
}
