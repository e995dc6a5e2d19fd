#!/bin/bash
# Can the repair rig fail? (TAP) Each mutation below removes one defence
# of repair.c that no other host test exercises; fserrd-rig is built from
# a copy of userspace/ with that one change, and tests/repair-rig.sh must
# then fail. A mutation whose text is no longer in repair.c fails here too
# (the defence moved: update the mutation, never drop it silently).
#
#   tests/rig-mutations.sh [CC]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=userspace/tests/tap.sh
. "$here/tap.sh"

# NAME, then the text of repair.c and what it becomes
mutations=(
	"the unsafe mount point check before a repair is skipped"
	'		if (fserr_mountpoint_check(mnt_fs_get_target(m), d->repair_why,'
	'		if (0 && fserr_mountpoint_check(mnt_fs_get_target(m), d->repair_why,'

	"hold_device() does not check the device number"
	'	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != dev) {'
	'	if (fstat(fd, &st)) {'

	"bind mounts come back without nosuid, nodev, noexec"
	'		if (flags & map[i].ms)'
	'		if ((flags & map[i].ms) && map[i].attr == MOUNT_ATTR_RDONLY)'

	"the state is not saved after each repair step"
	'		fserrd_save_state(d);
	}
}'
	'		(void)0;
	}
}'
)

tap_plan $((${#mutations[@]} / 3))
if [ "$(id -u)" != 0 ]; then
	for ((i = 0; i < ${#mutations[@]}; i += 3)); do
		skip "mutation: ${mutations[i]}" "the rig needs root"
	done
	tap_done
fi
for ((i = 0; i < ${#mutations[@]}; i += 3)); do
	name=${mutations[i]}
	rm -rf "$work/us"
	cp -a "$src" "$work/us"
	if ! python3 - "$work/us/repair.c" "${mutations[i + 1]}" "${mutations[i + 2]}" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(f"{old!r} is in repair.c {text.count(old)} times, not once")
open(path, "w").write(text.replace(old, new))
EOF
	then
		not_ok "mutation: $name (cannot apply it)"
		continue
	fi
	if ! make -s -C "$work/us" O="$work/out" "$work/out/fserrd-rig" >"$work/build.log" 2>&1; then
		not_ok "mutation: $name (does not build)"
		sed 's/^/# /' "$work/build.log"
		continue
	fi
	if "$work/us/tests/repair-rig.sh" "$work/out/fserrd-rig" >"$work/rig.log" 2>&1; then
		not_ok "mutation: $name: the rig still passes"
	else
		ok "mutation: $name: the rig fails ($(grep -c '^not ok' "$work/rig.log") of its tests)"
	fi
done
tap_done
