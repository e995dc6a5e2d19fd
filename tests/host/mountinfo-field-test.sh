#!/bin/bash
# What parsers of /proc/<pid>/mountinfo make of series v4's optional field
# fs_fault:<fault_count> (TAP), on lines in the kernel's form: libmount
# (findmnt -F, as util-linux 2.38 parses a mountinfo file) and a parser
# written here the way container runtimes parse it (moby/sys/mountinfo
# keeps the optional fields as one string; runc reads propagation from the
# shared: and master: tags in it). The field must not change what either
# says of the mount (type, source, options, propagation), and must be
# there to read. What findmnt --poll and systemd do on a live kernel is
# the guest's and the board's to show.
#
#   tests/host/mountinfo-field-test.sh
set -uo pipefail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

# The lines show_mountinfo() prints: a faulted shared mount, a faulted
# private one, a slave, a clean one; the same mounts without the field.
cat >"$work/faulted" <<'MI'
17 1 179:1 / /mnt rw,relatime shared:1 fs_fault:3 - vfat /dev/mmcblk0p1 ro,notify,fmask=0022
18 1 179:2 / /mnt2 rw,relatime fs_fault:1 - ext2 /dev/mmcblk0p2 ro,notify,errors=remount-ro
19 1 179:1 /DIR1 /mnt3 rw,relatime master:1 fs_fault:3 - vfat /dev/mmcblk0p1 ro,notify,fmask=0022
20 1 0:5 / /tmp rw,relatime - tmpfs tmpfs rw
MI
sed 's/ fs_fault:[0-9]*//' "$work/faulted" >"$work/clean"

findmnt_cols() { # FILE: what libmount makes of each mount
	findmnt -F "$1" -n -r -o TARGET,FSTYPE,SOURCE,VFS-OPTIONS,FS-OPTIONS,PROPAGATION
}

# The parse of moby/sys/mountinfo (GetMountsFromReader) and runc's
# propagation test, in Python: fields split on spaces, the optional
# fields up to the "-" separator kept as one string, type and source
# after it.
cat >"$work/runtime.py" <<'PY'
import sys
for line in open(sys.argv[1]):
    f = line.split()
    sep = f.index("-", 6)
    optional = " ".join(f[6:sep])
    tags = optional.split(" ") if optional else []
    prop = ("shared" if any(t.startswith("shared:") for t in tags) else
            "slave" if any(t.startswith("master:") for t in tags) else "private")
    fault = [t.split(":", 1)[1] for t in tags if t.startswith("fs_fault:")]
    print(f[4], f[sep + 1], f[sep + 2], f[5], f[sep + 3], prop, fault[0] if fault else "-")
PY

tap_plan 5
check "libmount: type, source, options and propagation are the same with the field" \
	bash -c "$(declare -f findmnt_cols); [ -n \"\$(findmnt_cols '$work/clean')\" ] &&
		 diff <(findmnt_cols '$work/clean') <(findmnt_cols '$work/faulted')"
check "libmount: OPT-FIELDS shows the field next to the propagation tag" bash -c \
	"[ \"\$(findmnt -F '$work/faulted' -n -o OPT-FIELDS /mnt)\" = 'shared:1 fs_fault:3' ] &&
	 [ \"\$(findmnt -F '$work/faulted' -n -o OPT-FIELDS /mnt2)\" = 'fs_fault:1' ]"
check "libmount: propagation read from the tags beside it (shared; private; a slave, private,slave)" bash -c \
	"[ \"\$(findmnt -F '$work/faulted' -n -r -o PROPAGATION | paste -sd ' ')\" = 'shared private private,slave private' ]"
check "runtime-style parser: the same mounts, types, sources, options, propagation" bash -c \
	"[ \"\$(python3 '$work/runtime.py' '$work/clean' | wc -l)\" = 4 ] &&
	 diff <(python3 '$work/runtime.py' '$work/clean' | cut -d' ' -f1-6) \
	      <(python3 '$work/runtime.py' '$work/faulted' | cut -d' ' -f1-6)"
check "runtime-style parser: reads which mounts faulted, and their count" bash -c \
	"[ \"\$(python3 '$work/runtime.py' '$work/faulted' | cut -d' ' -f1,7 | paste -sd ,)\" = \
	   '/mnt 3,/mnt2 1,/mnt3 3,/tmp -' ]"
tap_done
