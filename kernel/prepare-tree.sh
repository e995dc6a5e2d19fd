#!/bin/bash
# Create (or bring up to date) the kernel development tree: Debian's pristine
# linux-source-6.1 as a git repository with the fs-notify-errors/ series applied
# on top by `git am`.
#
# The tree is rebuilt from the series whenever the series changes, but never
# over commits made in the tree that the series does not hold yet: those would
# be lost, so we stop and say how to export them (make patches).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KERNEL_TREE:-$top/build/linux}
series=$top/fs-notify-errors
tarball=/usr/src/linux-source-6.1.tar.xz

say() { printf 'kernel-tree: %s\n' "$*"; }
die() { printf 'kernel-tree: error: %s\n' "$*" >&2; exit 1; }

series_patches() {
	find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | sort
}

series_hash() {
	series_patches | xargs -r cat | sha256sum | cut -d' ' -f1
}

git_tree() { git -C "$tree" "$@"; }

extract() {
	[ -f "$tarball" ] || die "$tarball is missing: run 'make deps' (package linux-source-6.1)"
	say "extracting $tarball (about 15 s)"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xJf "$tarball"
	# Debian's top-level .gitignore ignores the whole tree (its last block
	# starts with "/*"); drop that block so that git sees the sources.
	sed -i '/^# Debian/,$d' "$tree.tmp/.gitignore"
	say "recording the pristine baseline commit (about 1 min)"
	git -C "$tree.tmp" init -q
	git -C "$tree.tmp" config user.name "fserr build"
	git -C "$tree.tmp" config user.email "fserr@localhost"
	git -C "$tree.tmp" add -A
	git -C "$tree.tmp" commit -q -m "Debian linux-source-6.1 (pristine)"
	git -C "$tree.tmp" tag pristine
	mv "$tree.tmp" "$tree"
}

apply_series() {
	git_tree reset -q --hard pristine
	local p
	for p in $(series_patches); do
		if ! git_tree am -q --whitespace=nowarn "$p" >/dev/null 2>&1; then
			git_tree am --abort >/dev/null 2>&1 || true
			die "patch does not apply: ${p#"$top"/}"
		fi
	done
	git_tree rev-parse HEAD >"$tree/.fserr-applied-head"
	series_hash >"$tree/.fserr-applied-series"
	say "applied $(series_patches | wc -l) patch(es) from fs-notify-errors/"
}

[ -d "$tree/.git" ] || extract

want=$(series_hash)
have=$(cat "$tree/.fserr-applied-series" 2>/dev/null || true)
if [ "$want" = "$have" ]; then
	say "up to date ($(git_tree rev-list --count pristine..HEAD) patch(es) on pristine)"
	exit 0
fi

applied_head=$(cat "$tree/.fserr-applied-head" 2>/dev/null || git_tree rev-parse pristine)
if [ "$(git_tree rev-parse HEAD)" != "$applied_head" ] ||
   [ -n "$(git_tree status --porcelain --untracked-files=no)" ]; then
	die "fs-notify-errors/ changed, but $tree has commits or edits that are not exported.
Export them with 'make patches' (then commit fs-notify-errors/), or discard them with
'git -C $tree reset --hard $applied_head', and run 'make kernel-tree' again."
fi
apply_series
