# The board path (issue 13): the card a board boots from, p1 FAT32 data
# and p2 a Debian root (make rootfs, then tests/mkboard.sh), booted with
# root=/dev/mmcblk0p2 through the sdhci controller, no initramfs, systemd
# as init. fserrd runs from its shipped unit and udev has the shipped rule.
# The guest half is tests/board/board-test.sh, run by a unit on the card:
# an error storm seen by udevadm monitor and the journal, the rule
# starting fserrd for a fault, a repair, and systemctl stop during the
# repair's fsck.fat.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
BOOT=board	# the board card (build/board/card.img), not an initramfs
CARD=board
# The debug kernel boots the card under TCG in minutes, the plain one in
# seconds (the saved runs' times: docs/reliability.md); the timeout is the
# kernel's times this factor.
TIMEOUT_FACTOR=2
# The debug kernel's board was the quick tier's largest job: the quick tier
# runs the board on the plain kernel, the full tier on both. What still
# covers the debug kernel in quick: docs/reliability.md.
KERNELS=plain
[ "${FSERR_TIER:-quick}" != full ] || KERNELS="plain debug"

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	: # nothing: the damage is done in the guest
}

guest() {
	echo "Bail out! the board scenario runs from its card, not from the initramfs"
}
