#!/bin/bash
# Review checks of the fs-notify-errors/ series, as a maintainer would run
# them (slow: builds the kernel once per patch):
#   - scripts/checkpatch.pl --strict on every patch: no ERROR or WARNING;
#     the CHECKs that remain are listed (the cover letter justifies them);
#   - scripts/kernel-doc on the new files: no output;
#   - bisectability: the arm64 Image builds after every patch;
#   - the objects that use fserr (the VFS, FAT, exFAT, ext2) build without
#     CONFIG_FSNOTIFY;
#   - kernel/check-facts.sh: none of the claims the v2 review found false.
# Works on a scratch clone of the development tree, which stays untouched.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KERNEL_TREE:-$top/build/linux}
series=$top/fs-notify-errors
scratch=$top/build/series-check
obj=$top/build/obj-series-check
failures=0

say() { printf 'series-check: %s\n' "$*"; }
bad() { printf 'series-check: FAIL %s\n' "$*"; failures=$((failures + 1)); }

[ -d "$tree/.git" ] || { echo "series-check: no kernel tree: run 'make kernel-tree'" >&2; exit 1; }
mapfile -t patches < <(find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)

for p in "${patches[@]}"; do
	# System python: spdxcheck.py needs python3-ply, which a pyenv python lacks.
	out=$(cd "$tree" && PATH=/usr/bin:/bin:$PATH ./scripts/checkpatch.pl --strict --quiet "$p" 2>&1 || true)
	errors=$(grep -c '^ERROR:' <<<"$out" || true)
	warnings=$(grep -c '^WARNING:' <<<"$out" || true)
	checks=$(grep '^CHECK:' <<<"$out" | sort | uniq -c | sed 's/^ */  /' || true)
	if [ "$errors" -gt 0 ] || [ "$warnings" -gt 0 ]; then
		bad "checkpatch $(basename "$p"): $errors error(s), $warnings warning(s)"
		echo "$out"
	else
		say "checkpatch $(basename "$p"): clean${checks:+, CHECKs:}"
		[ -z "$checks" ] || echo "$checks"
	fi
done

"$top/kernel/check-facts.sh" "$series" || bad "false claims in the series (above)"

rm -rf "$scratch"
git clone -q --no-checkout "$tree" "$scratch"
git -C "$scratch" checkout -q pristine
for p in "${patches[@]}"; do
	git -C "$scratch" am -q "$p" || { bad "$(basename "$p") does not apply"; exit 1; }
	for f in fs/fserr.c include/linux/fserr.h; do
		[ -f "$scratch/$f" ] || continue
		out=$("$scratch/scripts/kernel-doc" -none "$scratch/$f" 2>&1)
		[ -z "$out" ] || bad "kernel-doc $f after $(basename "$p"): $out"
	done
	frag=$obj.config
	cat "$top/kernel/configs/guest.config" >"$frag"
	printf "CONFIG_FS_ERROR_NOTIFY=y\nCONFIG_FS_ERROR_NOTIFY_KUNIT_TEST=y\n" >>"$frag"
	start=$(date +%s)
	if make -s -C "$scratch" O="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		CC="ccache aarch64-linux-gnu-gcc" KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null &&
	   CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fserr/ccache} make -s -C "$scratch" O="$obj" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- CC="ccache aarch64-linux-gnu-gcc" \
		KCFLAGS=-Werror -j"$(nproc)" Image >"$obj.log" 2>&1; then
		say "builds after $(basename "$p") ($(( $(date +%s) - start )) s)"
	else
		bad "build after $(basename "$p"):"
		tail -n 30 "$obj.log"
	fi
done

# The whole series once more, on a configuration without fsnotify
# (FSNOTIFY is only selected by inotify, dnotify or fanotify), with FAT,
# exFAT and ext2: the objects that call fserr must build without it too.
printf 'CONFIG_SYSFS=y\nCONFIG_BLOCK=y\nCONFIG_FS_ERROR_NOTIFY=y\nCONFIG_MSDOS_FS=y\nCONFIG_VFAT_FS=y\nCONFIG_EXFAT_FS=y\nCONFIG_EXT2_FS=y\n' >"$frag"
rm -rf "$obj-nofsnotify"
if make -s -C "$scratch" O="$obj-nofsnotify" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null &&
   ! grep -q '^CONFIG_FSNOTIFY=y' "$obj-nofsnotify/.config" &&
   CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fserr/ccache} make -s -C "$scratch" \
	O="$obj-nofsnotify" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	CC="ccache aarch64-linux-gnu-gcc" KCFLAGS=-Werror -j"$(nproc)" \
	fs/fserr.o fs/super.o fs/namespace.o fs/fs_context.o fs/proc_namespace.o \
	fs/fat/ fs/exfat/ fs/ext2/ >"$obj.log" 2>&1; then
	say "fserr, the VFS, FAT, exFAT and ext2 build without CONFIG_FSNOTIFY"
else
	bad "build without CONFIG_FSNOTIFY:"
	tail -n 30 "$obj.log"
fi
rm -rf "$scratch" "$obj-nofsnotify"

if [ "$failures" -gt 0 ]; then
	say "$failures failure(s)"
	exit 1
fi
say "series is clean and bisectable (${#patches[@]} patches)"
