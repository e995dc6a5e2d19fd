#!/bin/bash
# Claims that the reviews of series v2 and v3 found false (or that v4 made
# false), searched for in every
# patch of a series (commit messages, code comments, documentation); any
# hit fails. Run by kernel/check-series.sh; give it another folder to check
# an older series (git worktree or git archive of an earlier commit).
#
#   kernel/check-facts.sh [SERIES-DIR]     (default: fs-notify-errors/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
series=${1:-$top/fs-notify-errors}

# PATTERN<TAB>what is true instead
facts=$(cat <<'END'
only (to )?the initial network namespace	uevents reach every network namespace owned by the initial user namespace (lib/kobject_uevent.c, uevent_net_init)
reach only the initial	uevents reach every network namespace owned by the initial user namespace
(handle|names) (is that of )?the filesystem root	a report without inode gives fanotify FILEID_INVALID and no handle bytes (fanotify_encode_fh)
reached with (sbi->s_lock|a spinlock) held	ext2_error() sleeps (ext2_sync_super); ext2_get_group_desc() WARNs, it does not call ext2_error()
every change from 0 to 1 and from 1 to 0 wakes	poll wake-ups may be merged
KernelVersion:[[:space:]]+6\.1	the series is not merged in any kernel version
0 after mount and remount	no remount clears fs_fault (series v4)
after \(re\)mount	no remount clears fs_fault (series v4)
read-only to read-write,? (which )?clears	no remount clears fs_fault, not one from read-only to read-write either (series v4)
also when the filesystem passed an inode	a report with an inode carries its file handle while the inode is cached, from any context (series v4)
16 entries per superblock	the pending ring has 8 entries (series v4)
END
)

shopt -s nullglob
patches=("$series"/[0-9][0-9][0-9][0-9]-*.patch)
[ ${#patches[@]} -gt 0 ] || { echo "check-facts: no patches in $series" >&2; exit 2; }
# Each patch as one line (diff's leading +/- dropped, whitespace squeezed),
# so that a claim broken across lines is found too.
declare -A text=()
for p in "${patches[@]}"; do
	text[$p]=$(sed 's/^[-+]//' "$p" | tr -s '\n\t ' '   ')
done
failures=0
while IFS=$'\t' read -r pattern truth; do
	hit=false
	for p in "${patches[@]}"; do
		snippet=$(grep -o -i -E -- ".{0,30}($pattern).{0,30}" <<<"${text[$p]}" | head -n 1) || continue
		$hit || echo "check-facts: FAIL a false claim (\"$pattern\"); true: $truth"
		hit=true
		echo "  $(basename "$p"): ...$snippet..."
	done
	! $hit || failures=$((failures + 1))
done <<<"$facts"
if [ "$failures" -gt 0 ]; then
	echo "check-facts: $failures false claim(s) in $series"
	exit 1
fi
echo "check-facts: none of the $(wc -l <<<"$facts") known false claims in ${#patches[@]} patches"
