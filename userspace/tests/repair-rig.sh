#!/bin/bash
# The repair rig (TAP): fserrd's repair, remount-ro and kill/resume
# against real mounts on the host, in seconds. ext2 images on loop devices
# are mounted in a mount namespace of the rig's own (unshare -m, nothing
# leaks to the host's), and fserrd-rig (fserrd with tests/rig_sysfs.c)
# sees a fake fserr tree that follows those mounts as the kernel's does.
# A fault is raised by writing that tree. The cases are the attacks and
# losses of the security review of 1adb9d0 (issue 27): a bind mount's
# source swapped for a link to /etc, a filesystem mounted over the faulted
# one, a device node swapped while fserrd was down, a mount point a user
# may change, an unreadable mount table, a kill before remount-ro, a
# damaged state file mid-repair, an I/O error met by the flush.
#
# Needs root, unshare, losetup, mke2fs and e2fsck; without them every
# test is a SKIP that says why.
#
#   tests/repair-rig.sh FSERRD_RIG
set -uo pipefail

rig=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
plan=64

# shellcheck source=userspace/tests/tap.sh
. "$here/tap.sh"

cannot=
[ "$(id -u)" = 0 ] || cannot="needs root (loop devices, mounts)"
for tool in unshare losetup mke2fs e2fsck tune2fs setpriv findmnt; do
	[ -n "$cannot" ] || command -v "$tool" >/dev/null || cannot="needs $tool"
done
if [ -z "$cannot" ] && [ -z "${RIG_IN_NS:-}" ]; then
	if unshare -m --propagation private true 2>/dev/null; then
		RIG_IN_NS=1 exec unshare -m --propagation private "$0" "$@"
	fi
	cannot="unshare -m is not allowed here"
fi
work=$(mktemp -d /tmp/fserr-rig.XXXXXX)
if [ -z "$cannot" ] && ! mount -t tmpfs -o mode=0755 fserr-rig "$work"; then
	cannot="cannot mount a tmpfs"
fi
if [ -n "$cannot" ]; then
	tap_plan "$plan"
	for i in $(seq "$plan"); do skip "repair rig $i" "$cannot"; done
	rmdir "$work"
	tap_done
fi

daemon=
loops=()
cleanup() {
	[ -n "$daemon" ] && kill -9 "$daemon" 2>/dev/null
	# (the namespace's mounts go with it; the loop devices do not)
	umount -R "$work" 2>/dev/null || umount -l "$work"
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rmdir "$work" 2>/dev/null
}
trap cleanup EXIT
mkdir -p "$work/sys" "$work/img" "$work/m" "$work/tmpm"
user=65534
as_user() { setpriv --reuid=$user --regid=$user --clear-groups "$@"; }

# new_fs NAME: an ext2 image on a new loop device (in $dev, minor in $minor)
new_fs() {
	truncate -s 8M "$work/img/$1"
	mke2fs -q -t ext2 -F "$work/img/$1"
	dev=$(losetup -f --show "$work/img/$1") || exit 1
	loops+=("$dev")
	minor=$((0x$(stat -c %T "$dev")))
}

# fault MINOR [LAST_ERRNO] [FAULT_COUNT]: raise a fault on loop MINOR's
# fake fserr directory (made here if fserrd-rig has not made it yet)
fault() {
	local d=$work/sys/ext2/loop$1 f
	mkdir -p "$d"
	for f in first_error_time last_error_time uevents_suppressed; do echo 0 >"$d/$f"; done
	echo "7:$1" >"$d/dev"
	echo 3 >"$d/error_count"
	echo 117 >"$d/first_errno"
	echo "${2:-117}" >"$d/last_errno"
	echo "${3:-1}" >"$d/fault_count"
	echo 1 >"$d/fs_fault"
}

start() { # LOG ARGS...
	local log=$1
	shift
	"$rig" --sysfs "$work/sys" --state "$work/state" --config "$work/conf" \
		--channels mountinfo,fs_fault "$@" 2>"$log" &
	daemon=$!
}
stop() { kill "$daemon"; wait "$daemon"; daemon=; }
kill_daemon() { kill -9 "$daemon"; wait "$daemon" 2>/dev/null; daemon=; }

# wait_for LOG PATTERN: until LOG has a line matching (20 s)
wait_for() {
	local i
	for i in $(seq 200); do
		grep -q -E "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# timed out waiting for '$2' in $1:"
	sed 's/^/# /' "$1"
	return 1
}
# has LOG PATTERN... / lacks LOG PATTERN...
has() { local f=$1 p; shift; for p; do grep -q -E -- "$p" "$f" || { echo "no '$p' in:"; cat "$f"; return 1; }; done; }
lacks() { local f=$1 p; shift; for p; do ! grep -E -- "$p" "$f" || { cat "$f"; return 1; }; done; }

# top TARGET COLUMN: what findmnt says of the last mount on TARGET
top() { findmnt -rn -M "$1" -o "$2" | tail -n 1; }
# options TARGET OPT...: the last mount on TARGET has every option
options() {
	local t=$1 o all
	shift
	all=,$(top "$t" OPTIONS),
	for o; do [[ $all == *,$o,* ]] || { echo "$t: no $o in $all"; return 1; }; done
}
# stack TARGET: the filesystem types mounted on TARGET, bottom first
stack() {
	awk -v t="$1" '$5 == t { for (i = 7; i <= NF; i++) if ($i == "-") { printf "%s ", $(i + 1); break } }' \
		/proc/self/mountinfo
}
not_mounted() { ! findmnt -rn -M "$1" >/dev/null || { findmnt -M "$1"; return 1; }; }
fresh() { # CONF: a new policy, no state
	printf '%s\n' "$1" >"$work/conf"
	rm -f "$work/state" "$work/state.damaged"
}

tap_plan "$plan"

# 1. A repair, with a bind mount of a directory whose flags must come back
new_fs one
mkdir -p "$work/m/one" "$work/m/one-b"
mount -t ext2 "$dev" "$work/m/one"
mkdir "$work/m/one/sub" && echo data >"$work/m/one/sub/file"
mount --bind "$work/m/one/sub" "$work/m/one-b"
mount -o remount,bind,ro,nosuid,nodev,noexec,nosymfollow "$work/m/one-b"
fresh "default repair"
fault "$minor"
start "$work/log1"
wait_for "$work/log1" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "repair: unmount, e2fsck, mount back, the bind mount too" \
	has "$work/log1" "repair-start" "fsck-done" "repaired .*mounted=as-before"
check "repair: the filesystem is back on its device" \
	bash -c "[ \"\$(findmnt -rn -M '$work/m/one' -o MAJ:MIN | tail -n 1)\" = 7:$minor ]"
check "repair: the bind mount is back with ro, nosuid, nodev, noexec, nosymfollow" \
	options "$work/m/one-b" ro nosuid nodev noexec nosymfollow
check "repair: ... and the filesystem's own mount without them, as before" \
	eval "options '$work/m/one' rw && ! options '$work/m/one' nosymfollow >/dev/null"
check "repair: the bind mount shows the same directory" grep -qx data "$work/m/one-b/file"
umount "$work/m/one-b" "$work/m/one"

# 2. The bind's source directory removed and replaced by the filesystem's
# owner (mountinfo's root reads /foo//deleted; foo -> evil, evil/deleted
# -> /etc): /etc must never be mounted.
new_fs two
mkdir -p "$work/m/two" "$work/m/two-b"
mount -t ext2 "$dev" "$work/m/two"
chown $user:$user "$work/m/two"
as_user mkdir "$work/m/two/foo"
mount --bind "$work/m/two/foo" "$work/m/two-b"
as_user sh -c "cd '$work/m/two' && rmdir foo && mkdir evil && ln -s evil foo && ln -s /etc evil/deleted"
check "symlink swap: mountinfo shows the bind's root as deleted" \
	eval "[ \"\$(top '$work/m/two-b' FSROOT)\" = /foo//deleted ]"
fresh "default repair"
fault "$minor"
start "$work/log2"
wait_for "$work/log2" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "symlink swap: the deleted bind source is refused, and said why" \
	has "$work/log2" "mount-refused .*two-b.*deleted" "repair-failed .*1 of its 2 mounts"
check "symlink swap: nothing is mounted at the bind's mount point (not /etc)" \
	not_mounted "$work/m/two-b"
check "symlink swap: the filesystem itself is mounted back" \
	eval "[ \"\$(top '$work/m/two' MAJ:MIN)\" = 7:$minor ]"
umount "$work/m/two"

# 3. Killed before the mount step; while the filesystem is down its owner
# makes the bind's source a link to /etc. The next fserrd resumes at the
# step it was killed before, and refuses the link.
new_fs three
mkdir -p "$work/m/three" "$work/m/three-b"
mount -t ext2 "$dev" "$work/m/three"
mkdir "$work/m/three/foo"
mount --bind "$work/m/three/foo" "$work/m/three-b"
fresh "default repair"
fault "$minor"
start "$work/log3" --pause-before mount
wait_for "$work/log3" 'paused .*before=mount' >"$work/out"
kill_daemon
check "kill/resume: killed before mount, after e2fsck ran" has "$work/log3" "fsck-done"
mount -t ext2 "$dev" "$work/tmpm"
rmdir "$work/tmpm/foo" && ln -s /etc "$work/tmpm/foo"
umount "$work/tmpm"
start "$work/log3b"
wait_for "$work/log3b" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "kill/resume: the next fserrd resumes at the step saved last (mount)" \
	has "$work/log3b" "repair-resume .*step=mount"
check "kill/resume: a bind source that became a symbolic link is refused" \
	has "$work/log3b" "mount-refused .*three-b.*symbolic link"
check "kill/resume: nothing is mounted at the bind's mount point (not /etc)" \
	not_mounted "$work/m/three-b"
umount "$work/m/three"

# 4. Killed before fsck; the device node it was mounted from now names
# another device. Neither is checked or mounted.
new_fs four
four=$minor four_dev=$dev
new_fs four-other
other=$minor
mknod "$work/disk" b 7 "$four"
mkdir -p "$work/m/four"
mount -t ext2 "$work/disk" "$work/m/four"
fresh "default repair"
fault "$four"
start "$work/log4" --pause-before fsck
wait_for "$work/log4" 'paused .*before=fsck' >"$work/out"
kill_daemon
rm "$work/disk"
mknod "$work/disk" b 7 "$other"
start "$work/log4b"
wait_for "$work/log4b" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "device swap: resumed at fsck, the node names 7:$other now: no fsck" \
	has "$work/log4b" "repair-resume .*step=fsck" "fsck-refused .*is now 7:$other, not 7:$four"
check "device swap: e2fsck never ran on either device" lacks "$work/log4b" "fsck-start"
check "device swap: the other device is mounted nowhere" \
	bash -c "! grep -q ' 7:$other ' /proc/self/mountinfo"
rm "$work/disk"
mount -t ext2 "$four_dev" "$work/tmpm" && umount "$work/tmpm"

# 4b. Killed before fsck; the loop device is set up anew on another image:
# the same device number, another medium. Neither is checked or mounted.
new_fs vol
vol=$minor vol_dev=$dev
truncate -s 8M "$work/img/vol-other"
mke2fs -q -t ext2 -F "$work/img/vol-other"
mkdir -p "$work/m/vol"
mount -t ext2 "$vol_dev" "$work/m/vol"
fresh "default repair"
fault "$vol"
start "$work/log4c" --pause-before fsck
wait_for "$work/log4c" 'paused .*before=fsck' >"$work/out"
kill_daemon
losetup -d "$vol_dev"
losetup "$vol_dev" "$work/img/vol-other"
start "$work/log4d"
wait_for "$work/log4d" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "volume swap: same device number, another UUID: no fsck, and why" \
	has "$work/log4d" "fsck-refused .*is UUID .*another medium"
check "volume swap: e2fsck never ran, and the other medium is not mounted" \
	eval "lacks '$work/log4d' fsck-start && not_mounted '$work/m/vol'"

# 5. A mount point under a directory a user may change: no repair
new_fs five
mkdir -p "$work/u"
chown $user "$work/u"
mkdir "$work/u/e"
mount -t ext2 "$dev" "$work/u/e"
fresh "default repair"
fault "$minor"
start "$work/log5"
wait_for "$work/log5" 'remounted-ro|remount-ro-failed|repaired|repair-failed' >"$work/out"
stop
check "unsafe mount point: refused before anything is unmounted" \
	has "$work/log5" "repair-unsafe .*owned by"
check "unsafe mount point: nothing was unmounted" lacks "$work/log5" "repair-start"
check "unsafe mount point: remount-ro instead" options "$work/u/e" ro
umount "$work/u/e"

# 6. A tmpfs mounted over the faulted filesystem: neither remount-ro nor
# the repair may act on it.
new_fs six
mkdir -p "$work/m/six"
mount -t ext2 "$dev" "$work/m/six"
mount -t tmpfs over "$work/m/six"
fresh "default remount-ro"
fault "$minor"
start "$work/log6"
wait_for "$work/log6" 'remounted-ro|remount-ro-failed|remount-ro-refused' >"$work/out"
check "overmount: remount-ro refuses, naming the other mount" \
	has "$work/log6" "remount-ro-refused .*shows mount [0-9]+, not the faulted"
check "overmount: the tmpfs on top is still read-write" \
	eval "[ \"\$(top '$work/m/six' FSTYPE)\" = tmpfs ] && [[ ,\$(top '$work/m/six' OPTIONS), == *,rw,* ]]"
check "overmount: a refused remount-ro leaves the fault new, tried again" \
	has "$work/log6" "fault-deferred .*could not be done; tried again"
umount "$work/m/six"
wait_for "$work/log6" 'remounted-ro' >"$work/out"
stop
check "overmount: once the tmpfs is gone, the retry makes the filesystem read-only" \
	eval "has '$work/log6' 'remounted-ro mountpoint=$work/m/six' && options '$work/m/six' ro"
mount -o remount,rw "$work/m/six"
mount -t tmpfs over "$work/m/six"
fresh "default repair"
fault "$minor" 117 2
start "$work/log6b"
wait_for "$work/log6b" 'repaired|repair-failed|repair-busy' >"$work/out"
stop
check "overmount: the repair unmounts nothing, and says why" \
	has "$work/log6b" "repair-busy .*shows mount [0-9]+, not the faulted"
check "overmount: both mounts are still there, tmpfs on top" \
	eval "[ \"\$(stack '$work/m/six')\" = 'ext2 tmpfs ' ]"
umount "$work/m/six" && umount "$work/m/six"

# 7. The mount table cannot be read (EMFILE twice): the fault waits for
# it, and the rule for its mount point runs, not the default.
new_fs seven
mkdir -p "$work/m/seven"
mount -t ext2 "$dev" "$work/m/seven"
fresh "default log
match mountpoint $work/m/seven remount-ro"
fault "$minor"
RIG_MOUNTS_FAIL=2 start "$work/log7"
wait_for "$work/log7" 'remounted-ro|remount-ro-failed|policy=log' >"$work/out"
stop
check "no mount table: the fault is deferred, not used up" \
	has "$work/log7" "fault-deferred .*mount table" "mount-table-unreadable .*Too many open files"
check "no mount table: its mount point's rule runs when the table is back" \
	has "$work/log7" "fault .*policy=remount-ro" "remounted-ro"
check "no mount table: never handled under the default policy" lacks "$work/log7" "policy=log"
umount "$work/m/seven"

# 8. Killed just before remount-ro: the next fserrd does it
new_fs eight
mkdir -p "$work/m/eight"
mount -t ext2 "$dev" "$work/m/eight"
fresh "default remount-ro"
fault "$minor"
start "$work/log8" --pause-before remount-ro
wait_for "$work/log8" 'paused .*before=remount-ro' >"$work/out"
check "kill before remount-ro: stopped before it, the fault not yet saved as handled" \
	eval "has '$work/log8' 'paused .*before=remount-ro' && ! grep -s '^handled' '$work/state'"
kill_daemon
start "$work/log8b"
wait_for "$work/log8b" 'remounted-ro|remount-ro-failed' >"$work/out"
stop
check "kill before remount-ro: the next fserrd remounts read-only" \
	has "$work/log8b" "remounted-ro"
check "kill before remount-ro: the filesystem is read-only" options "$work/m/eight" ro
umount "$work/m/eight"

# 9. Killed before fsck, then one bad line appended to the state file:
# the repair in progress is finished all the same, the loss said.
new_fs nine
mkdir -p "$work/m/nine"
mount -t ext2 "$dev" "$work/m/nine"
echo kept >"$work/m/nine/file"
fresh "default repair"
fault "$minor"
start "$work/log9" --pause-before fsck
wait_for "$work/log9" 'paused .*before=fsck' >"$work/out"
kill_daemon
echo "what is this" >>"$work/state"
start "$work/log9b"
wait_for "$work/log9b" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "damaged state: the bad line is dropped and said, the rest kept" \
	has "$work/log9b" 'state-damaged .*dropped="1 line".*kept="the rest, with the repair in progress"'
check "damaged state: the repair resumes at fsck and ends repaired" \
	has "$work/log9b" "repair-resume .*step=fsck" "repaired .*mounted=as-before"
check "damaged state: the filesystem is mounted read-write, its file intact" \
	eval "options '$work/m/nine' rw && grep -qx kept '$work/m/nine/file'"
umount "$work/m/nine"

# 10. The flush before the unmount meets an I/O error: no fsck
new_fs ten
mkdir -p "$work/m/ten"
mount -t ext2 "$dev" "$work/m/ten"
id=$(top "$work/m/ten" ID)
fresh "default repair"
fault "$minor"
start "$work/log10" --pause-before unmount
wait_for "$work/log10" 'paused .*before=unmount' >"$work/out"
echo 5 >"$work/sys/ext2/loop$minor/last_errno"
kill -CONT "$daemon"
wait_for "$work/log10" 'remounted-ro|remount-ro-failed|repaired|repair-failed' >"$work/out"
stop
check "EIO at the flush: media-error, remount-ro, no fsck" \
	has "$work/log10" "media-error .*flushing" "remounted-ro"
check "EIO at the flush: nothing was unmounted or checked" \
	eval "lacks '$work/log10' fsck-start && [ \"\$(top '$work/m/ten' ID)\" = $id ]"
check "EIO at the flush: the filesystem is read-only" options "$work/m/ten" ro
umount "$work/m/ten"

# 11. fserrd's state file is on the faulted filesystem: no repair (its
# saves would go under the unmounted filesystem), remount-ro instead
new_fs eleven
mkdir -p "$work/m/eleven"
mount -t ext2 "$dev" "$work/m/eleven"
fresh "default repair"
fault "$minor"
"$rig" --sysfs "$work/sys" --state "$work/m/eleven/fserrd/state" --config "$work/conf" \
	--channels mountinfo,fs_fault 2>"$work/log11" &
daemon=$!
wait_for "$work/log11" 'remounted-ro|remount-ro-failed|repaired|repair-failed' >"$work/out"
stop
check "state file on the faulted filesystem: no repair, remount-ro" \
	eval "has '$work/log11' 'repair-unsupported .*state file' 'remounted-ro' &&
	      lacks '$work/log11' repair-start && options '$work/m/eleven' ro"
umount "$work/m/eleven"

# 12. What fsck can do: it runs as uid 0 on a medium a user crafted, so
# it gets no capability, no new privileges, and a world where every mount
# is read-only. e2fsck behind a wrapper that tries a write and says what
# it has, on its standard output (fserrd's log).
new_fs twelve
mkdir -p "$work/m/twelve"
mount -t ext2 "$dev" "$work/m/twelve"
e2fsck_path=$(for d in /usr/sbin /sbin /usr/bin /bin; do [ -x $d/e2fsck ] && echo $d/e2fsck && break; done)
cp "$e2fsck_path" "$work/real-e2fsck"
cat >"$work/probe-e2fsck" <<PROBE
#!/bin/sh
if (: >/tmp/fserr-rig-fsck-probe) 2>/dev/null; then w=allowed; rm -f /tmp/fserr-rig-fsck-probe; else w=denied; fi
echo "sandbox: write=\$w \$(grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status | tr -s '\t' ' ' | tr '\n' ' ')"
exec "$work/real-e2fsck" "\$@"
PROBE
chmod +x "$work/probe-e2fsck"
mount --bind "$work/probe-e2fsck" "$e2fsck_path"
fresh "default repair"
fault "$minor"
start "$work/log12"
wait_for "$work/log12" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
umount "$e2fsck_path"
check "fsck's sandbox: a write anywhere is refused (every mount read-only)" \
	has "$work/log12" "sandbox: write=denied"
check "fsck's sandbox: no capability in any set, no new privileges" \
	has "$work/log12" "sandbox: .*CapInh: 0+ " "sandbox: .*CapPrm: 0+ " "sandbox: .*CapEff: 0+ " \
		"sandbox: .*CapBnd: 0+ " "sandbox: .*CapAmb: 0+ " "sandbox: .*NoNewPrivs: 1"
check "fsck's sandbox: the repair still works" has "$work/log12" "repaired .*mounted=as-before"
umount "$work/m/twelve"

# 13. A volume without a UUID (the owner cleared it): another medium at
# its device number could not be told apart, so no repair: remount-ro
new_fs thirteen
tune2fs -q -U clear "$dev" >/dev/null 2>&1 || tune2fs -U clear "$dev" >/dev/null
mkdir -p "$work/m/thirteen"
mount -t ext2 "$dev" "$work/m/thirteen"
fresh "default repair"
fault "$minor"
start "$work/log13"
wait_for "$work/log13" 'remounted-ro|remount-ro-failed|repaired|repair-failed' >"$work/out"
stop
check "no volume UUID: no repair, remount-ro, and why" \
	eval "has '$work/log13' 'repair-unsupported .*no volume UUID' 'remounted-ro' &&
	      lacks '$work/log13' repair-start && options '$work/m/thirteen' ro"
umount "$work/m/thirteen"

# 14. A power cut (a reboot) while fsck had not run yet: the state file is
# another boot's (its boot line rewritten here). The next fserrd checks the
# volume again as soon as the boot has mounted it, by its UUID, and says
# it waits until then; with fsck ended before the cut, nothing runs again.
# (the file as the boot before left it: its boot, and its repair's)
reboot_state() {
	sed -i -E 's/^(boot|repair-boot) .*/\1 00000000-0000-4000-8000-000000000000/' "$work/state"
}
new_fs fourteen
mkdir -p "$work/m/fourteen"
mount -t ext2 "$dev" "$work/m/fourteen"
fresh "default repair"
fault "$minor"
start "$work/log14" --pause-before fsck
wait_for "$work/log14" 'paused .*before=fsck' >"$work/out"
kill_daemon
reboot_state
start "$work/log14b"
wait_for "$work/log14b" 'repair-waiting' >"$work/out"
check "reboot before fsck: the carried repair waits for its volume, and says so" \
	eval "has '$work/log14b' 'repair-interrupted-by-reboot .*step=fsck' 'repair-waiting .*step=fsck' &&
	      lacks '$work/log14b' fsck-start"
mount -t ext2 "$dev" "$work/m/fourteen"
wait_for "$work/log14b" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "reboot before fsck: the volume mounted by the boot is checked again, once" \
	eval "has '$work/log14b' 'repair-resume .*step=fsck after=reboot' 'repaired .*mounted=as-before' &&
	      [ \$(grep -c fsck-start '$work/log14b') = 1 ]"
check "reboot before fsck: mounted back where the boot mounted it, read-write" \
	eval "[ \"\$(top '$work/m/fourteen' MAJ:MIN)\" = 7:$minor ] && options '$work/m/fourteen' rw"
check "reboot before fsck: the state file holds no repair any more" \
	bash -c "! grep -qE '^(step|mount) ' '$work/state'"
start "$work/log14c"
sleep 1
stop
check "reboot before fsck: the next start has nothing to resume" \
	lacks "$work/log14c" 'repair-(resume|waiting|interrupted)' fsck-start
umount "$work/m/fourteen"

# 14b. The cut came after fsck ended (its work flushed): after the reboot
# the repair is done, nothing is checked again
new_fs fourteen-b
mkdir -p "$work/m/fourteen-b"
mount -t ext2 "$dev" "$work/m/fourteen-b"
fresh "default repair"
fault "$minor"
start "$work/log14d" --pause-before mount
wait_for "$work/log14d" 'paused .*before=mount' >"$work/out"
kill_daemon
reboot_state
mount -t ext2 "$dev" "$work/m/fourteen-b"
start "$work/log14e"
wait_for "$work/log14e" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "reboot after fsck: the repair ends as done, no fsck again" \
	eval "has '$work/log14e' 'repair-interrupted-by-reboot .*step=mount' 'repaired .*how=after-reboot' &&
	      lacks '$work/log14e' fsck-start repair-resume"
check "reboot after fsck: the boot's mount is left as it is" \
	eval "[ \"\$(top '$work/m/fourteen-b' MAJ:MIN)\" = 7:$minor ] && options '$work/m/fourteen-b' rw"
umount "$work/m/fourteen-b"

# 14c. After the reboot another medium has the UUID-less device's place:
# the carried repair never touches it, and keeps waiting
new_fs fourteen-c
fc_dev=$dev
mkdir -p "$work/m/fourteen-c"
mount -t ext2 "$dev" "$work/m/fourteen-c"
fresh "default repair"
fault "$minor"
start "$work/log14f" --pause-before fsck
wait_for "$work/log14f" 'paused .*before=fsck' >"$work/out"
kill_daemon
reboot_state
losetup -d "$fc_dev"
truncate -s 8M "$work/img/fourteen-other"
mke2fs -q -t ext2 -F "$work/img/fourteen-other"
losetup "$fc_dev" "$work/img/fourteen-other"
mount -t ext2 "$fc_dev" "$work/m/fourteen-c"
start "$work/log14g"
wait_for "$work/log14g" 'repair-waiting' >"$work/out"
sleep 1
stop
check "reboot, another medium at the device: not checked, not unmounted, still waited for" \
	eval "has '$work/log14g' 'repair-waiting' && lacks '$work/log14g' fsck-start repair-start &&
	      grep -q '^volume ' '$work/state' && [ \"\$(top '$work/m/fourteen-c' MAJ:MIN)\" = 7:$minor ]"
umount "$work/m/fourteen-c"

# carry NAME: a repair of a new filesystem at m/NAME, killed before fsck,
# then "a reboot" (the state file made another boot's): the filesystem is
# left unmounted, its device in $dev, minor in $minor, UUID in $uuid
carry() {
	new_fs "$1"
	uuid=$(blkid -o value -s UUID "$dev")
	mkdir -p "$work/m/$1"
	mount -t ext2 "$dev" "$work/m/$1"
	fault "$minor"
	start "$work/log-$1" --pause-before fsck
	wait_for "$work/log-$1" 'paused .*before=fsck' >"$work/out"
	kill_daemon
	reboot_state
}
# poke: a mount table change, which wakes fserrd-rig (its mountinfo
# channel) to scan the fake tree after a fault raised while it runs
poke() { mount -t tmpfs poke "$work/tmpm" && umount "$work/tmpm"; }
# clone NAME UUID: another ext2 image with that UUID on a new loop device
clone() {
	new_fs "$1"
	tune2fs -U "$2" "$dev" >/dev/null 2>&1
}

# 14d. Saved while the carried repair waits, then restarted in the same
# boot: still the other boot's repair (the state file says so), never
# resumed as this boot's at the old mount points
fresh "match mountpoint $work/m/other-d log
default repair"
carry fourteen-d
d_dev=$dev d_minor=$minor
new_fs other-d
mkdir -p "$work/m/other-d"
mount -t ext2 "$dev" "$work/m/other-d"
start "$work/log14h"
wait_for "$work/log14h" 'repair-waiting' >"$work/out"
fault "$minor"
poke
wait_for "$work/log14h" 'fault .*policy=log' >"$work/out"
kill_daemon
check "saved while carried: the state file names the boot the repair began in" \
	has "$work/state" '^repair-boot 00000000-0000-4000-8000-000000000000$'
start "$work/log14i"
wait_for "$work/log14i" 'repair-waiting' >"$work/out"
check "saved while carried: restarted in the same boot, it is still carried, not resumed" \
	eval "has '$work/log14i' 'repair-interrupted-by-reboot .*step=fsck' &&
	      lacks '$work/log14i' 'repair-resume' fsck-start"
mount -t ext2 "$d_dev" "$work/m/fourteen-d"
wait_for "$work/log14i" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "saved while carried: repaired once its volume is mounted where it was" \
	has "$work/log14i" 'repair-resume .*after=reboot' 'repaired .*mounted=as-before'
umount "$work/m/fourteen-d" "$work/m/other-d"

# 14e. A volume with the carried one's UUID, mounted somewhere else (a
# user's clone): never touched; then both at the same place: dropped
fresh "default repair"
carry fourteen-e
e_dev=$dev e_uuid=$uuid
clone clone-e "$e_uuid"
c_dev=$dev
mkdir -p "$work/m/clone-e"
mount -t ext2 "$c_dev" "$work/m/clone-e"
start "$work/log14j"
wait_for "$work/log14j" 'repair-waiting' >"$work/out"
sleep 1
stop
check "UUID clone mounted elsewhere: not acted on, still waited for" \
	eval "lacks '$work/log14j' repair-start fsck-start repair-dropped &&
	      [ \"\$(top '$work/m/clone-e' MAJ:MIN)\" = 7:$minor ]"
mount -t ext2 "$e_dev" "$work/m/fourteen-e"
mount -t ext2 "$c_dev" "$work/m/fourteen-e"
start "$work/log14j"
wait_for "$work/log14j" 'repair-dropped' >"$work/out"
stop
check "two volumes with its UUID where it was: dropped, and why; neither checked" \
	eval "has '$work/log14j' 'repair-dropped .*more than one mounted volume' &&
	      lacks '$work/log14j' repair-start fsck-start && [ \"\$(stack '$work/m/fourteen-e')\" = 'ext2 ext2 ' ]"
umount "$work/m/fourteen-e"; umount "$work/m/fourteen-e"; umount "$work/m/clone-e"

# 14f. The policy for its mount is log now: dropped, and why
fresh "default repair"
carry fourteen-f
f_dev=$dev
printf 'match mountpoint %s log\ndefault repair\n' "$work/m/fourteen-f" >"$work/conf"
mount -t ext2 "$f_dev" "$work/m/fourteen-f"
fault "$minor"
start "$work/log14k"
wait_for "$work/log14k" 'fault .*policy=' >"$work/out"
stop
check "policy log now: the carried repair is dropped, and why; nothing checked" \
	eval "has '$work/log14k' 'repair-dropped .*policy for its mounts is now log' &&
	      lacks '$work/log14k' fsck-start && options '$work/m/fourteen-f' rw"
check "policy log now: the volume's fault is handled under that policy, not swallowed" \
	has "$work/log14k" "fault .*fourteen-f.*policy=log"
umount "$work/m/fourteen-f"

# 14g. Another filesystem needs a repair while the carried volume is not
# mounted: the carried repair gives way, said; the other is repaired
fresh "default repair"
carry fourteen-g
new_fs other-g
mkdir -p "$work/m/other-g"
mount -t ext2 "$dev" "$work/m/other-g"
start "$work/log14l"
wait_for "$work/log14l" 'repair-waiting' >"$work/out"
fault "$minor"
poke
wait_for "$work/log14l" 'repaired|repair-failed|repair-incomplete' >"$work/out"
stop
check "another repair while carried: the carried one is dropped with a line, the other repaired" \
	eval "has '$work/log14l' 'repair-dropped .*another filesystem is repaired' 'repaired .*mounted=as-before' &&
	      [ \$(grep -c fsck-start '$work/log14l') = 1 ]"
umount "$work/m/other-g"

# 14h. Carried through a whole boot without its volume (saved in it),
# then another reboot: dropped, and why
fresh "match mountpoint $work/m/other-h log
default repair"
carry fourteen-h
new_fs other-h
mkdir -p "$work/m/other-h"
mount -t ext2 "$dev" "$work/m/other-h"
start "$work/log14m"
wait_for "$work/log14m" 'repair-waiting' >"$work/out"
fault "$minor"
poke
wait_for "$work/log14m" 'fault .*policy=log' >"$work/out"
stop
sed -i 's/^boot .*/boot 11111111-0000-4000-8000-000000000000/' "$work/state"
start "$work/log14n"
wait_for "$work/log14n" 'repair-dropped' >"$work/out"
stop
check "carried through a whole boot, then another reboot: dropped, and why" \
	eval "has '$work/log14n' 'repair-dropped .*during the whole boot after' && lacks '$work/log14n' repair-waiting &&
	      ! grep -q '^step ' '$work/state'"
umount "$work/m/other-h"

# 14i. fsck could not repair it before the reboot (killed before the
# mount step of an incomplete repair): read-only once it is mounted
fresh "default repair"
new_fs fourteen-i
i_dev=$dev
mkdir -p "$work/m/fourteen-i"
mount -t ext2 "$dev" "$work/m/fourteen-i"
fault "$minor"
start "$work/log14o" --pause-before mount
wait_for "$work/log14o" 'paused .*before=mount' >"$work/out"
kill_daemon
reboot_state
sed -i 's/^step mount \(.*\) fsck-ok$/step mount \1 fsck-failed/' "$work/state"
mount -t ext2 "$i_dev" "$work/m/fourteen-i"
start "$work/log14p"
wait_for "$work/log14p" 'remounted-ro|remount-ro-failed' >"$work/out"
stop
check "fsck had failed before the reboot: repair-incomplete, and read-only once mounted" \
	eval "has '$work/log14p' 'repair-incomplete .*how=after-reboot' 'remounted-ro' &&
	      lacks '$work/log14p' fsck-start && options '$work/m/fourteen-i' ro"
umount "$work/m/fourteen-i"

# 14j. Carried through a whole boot with nothing else saved in it, then
# another reboot: dropped (the carried repair saves the file as this
# boot's when it starts to wait)
fresh "default repair"
carry fourteen-j
start "$work/log14q"
wait_for "$work/log14q" 'repair-waiting' >"$work/out"
stop
sed -i 's/^boot .*/boot 22222222-0000-4000-8000-000000000000/' "$work/state"
start "$work/log14r"
wait_for "$work/log14r" 'repair-dropped' >"$work/out"
stop
check "carried through a quiet boot, then another reboot: dropped, and why" \
	eval "has '$work/log14r' 'repair-dropped .*during the whole boot after' && lacks '$work/log14r' repair-waiting"

# 14k. A state file that lost its repair-boot line, in the same boot: the
# repair is not taken for this boot's (whose resume would mount at the
# points the file names): carried, and waited for
fresh "default repair"
new_fs fourteen-k
mkdir -p "$work/m/fourteen-k"
mount -t ext2 "$dev" "$work/m/fourteen-k"
fault "$minor"
start "$work/log14s" --pause-before fsck
wait_for "$work/log14s" 'paused .*before=fsck' >"$work/out"
kill_daemon
sed -i '/^repair-boot /d' "$work/state"
start "$work/log14t"
wait_for "$work/log14t" 'repair-waiting' >"$work/out"
sleep 1
stop
check "a lost repair-boot line: not resumed as this boot's, waited for; nothing mounted" \
	eval "has '$work/log14t' 'repair-interrupted-by-reboot' 'repair-waiting' &&
	      lacks '$work/log14t' 'repair-resume' fsck-start && not_mounted '$work/m/fourteen-k'"

tap_done
