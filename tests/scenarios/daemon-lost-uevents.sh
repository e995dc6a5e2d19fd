# fserrd when uevents are lost: fserrd listens on the uevent channel only
# (--channels uevent: no poll on fs_fault, no mountinfo, no fanotify), so
# ENOBUFS is the one thing that can make it find the fault. While fserrd
# is stopped (SIGSTOP), a flood of uevents fills its 2 MiB netlink buffer,
# and then the FAT volume faults, so its uevent is dropped. When fserrd
# runs again, recv() says ENOBUFS; fserrd must treat that as "something was
# lost", rescan, and handle the fault exactly once. The log must show no
# other wake-up before that rescan: without the ENOBUFS handling nothing
# would wake it (the flood is "change" uevents of the card, which are no
# fserr events). A control then shows that this fserrd is deaf to the other
# channels: a fault without a uevent (a mount without notify) stays
# unhandled until SIGHUP makes it rescan.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat32

prepare() { # CARD-IMAGE RUN-DIR (on the host)
	fscorrupt --partition 1 "$1" fat-dirent-bad-start DATA.BIN
}

# uevent_drops PID: messages the kernel dropped on PID's uevent socket
# (NETLINK_KOBJECT_UEVENT is protocol 15; the kernel gives a process's
# first socket of a protocol its pid as port id); -1 if there is none
uevent_drops() {
	awk -v pid="$1" '$2 == 15 && $3 == pid && !found { print $9; found = 1 }
		END { if (!found) print -1 }' /proc/net/netlink
}

# The wake-up lines of fserrd's log after its start
wakes() {
	sed -n '/ fserrd: start /,$p' /tmp/fserrd.log | grep ' fserrd: wake '
}

guest() {
	tap_begin lost-uevents 14
	printf 'default log\n' >/tmp/fserrd.conf
	: >/tmp/fserrd.log
	mount -t vfat -o notify /dev/mmcblk0p1 /mnt
	fserrd_start -c /tmp/fserrd.conf --channels uevent
	t "fserrd listens on the uevent channel only" sh -c \
		"grep -c -E ' fserrd: channel-off channel=(fs_fault|mountinfo|fanotify) ' /tmp/fserrd.log |
		 grep -qx 3 && ! grep -q ' channel-unavailable ' /tmp/fserrd.log"
	kill -STOP "$fserrd_pid"
	# Flood until the kernel counts drops on fserrd's socket (the Drops
	# column of /proc/net/netlink; 6000 uevents at most), then 50 more:
	# its buffer is full, so the fault's uevent is dropped too.
	i=0
	until [ "$(uevent_drops "$fserrd_pid")" -gt 0 ] || [ $i -ge 6000 ]; do
		j=0
		while [ $j -lt 50 ]; do
			echo change >/sys/block/mmcblk0/uevent
			j=$((j + 1))
		done
		i=$((i + 50))
	done
	echo "# $i uevents; drops on fserrd's socket: $(uevent_drops "$fserrd_pid") (-1: no such socket)"
	t "the flood overran fserrd's uevent socket" \
		test "$(uevent_drops "$fserrd_pid")" -gt 0
	j=0
	while [ $j -lt 50 ]; do
		echo change >/sys/block/mmcblk0/uevent
		j=$((j + 1))
	done
	cat /mnt/DATA.BIN >/dev/null 2>&1
	t "the volume faulted while fserrd was stopped" expect_eq 1 "$(attr fat mmcblk0p1 fs_fault)"
	kill -CONT "$fserrd_pid"
	t "fserrd saw that uevents were lost (ENOBUFS)" wait_log 'fserrd: wake channel=uevents-lost$'
	t "fserrd handled the fault" wait_log ' fserrd: fault .*sysfs=/sys/fs/fat/mmcblk0p1 '
	wakes >/tmp/wakes
	t "no other wake-up came before (or with) the lost uevents" sh -c \
		"cat /tmp/wakes; grep -q ' fserrd: wake channel=uevents-lost\$' /tmp/wakes &&
		 [ \$(wc -l </tmp/wakes) = 1 ]"
	# (the rescan right before the fault line is the one the ENOBUFS asked for)
	t "the rescan that found the fault was for the lost uevents" sh -c \
		"sed -n '/ fserrd: rescan why=/h; / fserrd: fault /{x;p;q}' /tmp/fserrd.log |
		 grep -q ' rescan why=uevents-lost\$'"
	settle 1
	t "...once" expect_eq 1 "$(grep -c ' fserrd: fault ' /tmp/fserrd.log)"

	# Control: a fault with no uevent at all. Every other channel would
	# see it (poll on fs_fault, mountinfo, fanotify); this fserrd must not.
	umount /mnt
	mount -t vfat /dev/mmcblk0p1 /mnt
	t "control: a mount without notify is clean" expect_eq 0 "$(attr fat mmcblk0p1 fs_fault)"
	cat /mnt/DATA.BIN >/dev/null 2>&1
	t "control: it faults (and sends no uevent)" expect_eq 1 "$(attr fat mmcblk0p1 fs_fault)"
	settle 2
	t "control: fserrd on the uevent channel alone does not notice" \
		expect_eq 1 "$(grep -c ' fserrd: fault ' /tmp/fserrd.log)"
	t "control: ... no wake-up at all" expect_eq 1 "$(wakes | wc -l)"
	kill -HUP "$fserrd_pid"
	t "control: SIGHUP makes it rescan and handle the fault" wait_log \
		' fserrd: fault .*sysfs=/sys/fs/fat/mmcblk0p1 ' 2
	t "fserrd stops on SIGTERM" fserrd_stop
	umount /mnt
	tap_end
}
