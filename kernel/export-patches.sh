#!/bin/bash
# Export the development tree's commits since the pristine baseline into
# fs-notify-errors/ as numbered `git format-patch` files, with a cover letter
# made from fs-notify-errors/cover-letter.txt (first line: the subject).
# The series is the only source of truth for kernel code: commit it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KERNEL_TREE:-$top/build/linux}
series=$top/fs-notify-errors
cover=$series/cover-letter.txt

die() { printf 'patches: error: %s\n' "$*" >&2; exit 1; }

[ -d "$tree/.git" ] || die "no kernel tree at $tree: run 'make kernel-tree'"
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has uncommitted edits: commit them there first"
[ -f "$cover" ] || die "$cover is missing"
count=$(git -C "$tree" rev-list --count pristine..HEAD)
[ "$count" -gt 0 ] || die "no commits on top of the pristine baseline"

branch=$(git -C "$tree" symbolic-ref --short HEAD)
git -C "$tree" config "branch.$branch.description" "$(cat "$cover")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" format-patch -q --zero-commit --no-signature --cover-letter \
	--cover-from-description=subject -o "$tmp" pristine..HEAD
rm -f "$series"/[0-9][0-9][0-9][0-9]-*.patch
mv "$tmp"/*.patch "$series/"

# The tree now matches the series: let kernel/prepare-tree.sh know.
git -C "$tree" rev-parse HEAD >"$tree/.fserr-applied-head"
find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' |
	sort | xargs -r cat | sha256sum | cut -d' ' -f1 >"$tree/.fserr-applied-series"
printf 'patches: exported %d patch(es) and a cover letter to fs-notify-errors/\n' "$count"
