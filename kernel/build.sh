#!/bin/bash
# Build the arm64 guest kernel Image from the development tree.
#
#   kernel/build.sh OUTDIR FRAGMENT...
#
# The configuration is allnoconfig plus the fragments. After olddefconfig every
# option a fragment asks for must still be there: Kconfig silently drops an
# option whose dependencies are off, and a test run on a kernel without the
# feature under test proves nothing. Nothing is rebuilt when neither the tree
# (commits or uncommitted edits) nor the fragments changed, unless
# FSERR_BUILD_ALWAYS=1 (tests/bench/devloop times the build that follows a
# touch of a source file, which changes neither).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KERNEL_TREE:-$top/build/linux}
out=$(realpath -m "$1")
shift
fragments=("$@")

say() { printf 'kernel: %s\n' "$*"; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

[ -d "$tree/.git" ] || die "no kernel tree at $tree: run 'make kernel-tree'"
command -v aarch64-linux-gnu-gcc >/dev/null ||
	die "aarch64-linux-gnu-gcc is missing: run 'make deps' (package gcc-aarch64-linux-gnu)"

# A kernel build runs its own -j<nproc> even when started by make -j (make
# check builds both kernels side by side): not the caller's job server.
# (This also keeps the caller's command-line variables, such as V=1, from
# reaching Kbuild.)
unset MAKEFLAGS MFLAGS MAKELEVEL
kmake() {
	make -s -C "$tree" O="$out" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		CC="ccache aarch64-linux-gnu-gcc" "$@"
}

stamp=$( {
	git -C "$tree" rev-parse HEAD
	git -C "$tree" diff HEAD
	cat "${fragments[@]}"
} | sha256sum | cut -d' ' -f1)
if [ "${FSERR_BUILD_ALWAYS:-0}" != 1 ] && [ -f "$out/arch/arm64/boot/Image" ] &&
	[ "$(cat "$out/.fserr-stamp" 2>/dev/null)" = "$stamp" ]; then
	say "$out/arch/arm64/boot/Image is up to date"
	exit 0
fi

mkdir -p "$out"
# The compiler cache lives outside the clone, so that a second clone on the
# same machine (CI after a session) builds faster; nothing depends on it:
# an empty or missing cache only means a full build.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fserr/ccache}
export KCONFIG_ALLCONFIG="$out/fragments.config"
cat "${fragments[@]}" >"$KCONFIG_ALLCONFIG"
kmake allnoconfig >/dev/null
kmake olddefconfig >/dev/null

# Refuse a configuration that lost a requested option.
dropped=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$out/.config" || dropped+=("$line") ;;
	"# CONFIG_"*" is not set")
		opt=${line#"# "}; opt=${opt%% *}
		grep -q "^$opt=" "$out/.config" && dropped+=("$line") ;;
	esac
done <"$KCONFIG_ALLCONFIG"
if [ ${#dropped[@]} -gt 0 ]; then
	printf 'kernel: error: olddefconfig dropped requested option: %s\n' "${dropped[@]}" >&2
	die "fix the dependencies in ${fragments[*]#"$top"/}"
fi

say "building $(basename "$out") Image with $(nproc) jobs (from scratch ~5 min, incremental seconds)"
start=$(date +%s)
kmake -j"$(nproc)" Image &
build=$!
# A full build is minutes of silence otherwise: say how far it got.
(
	while sleep 30; do
		say "still building $(basename "$out"): $(find "$out" -name '*.o' -newer "$out/.config" | wc -l) objects compiled so far"
	done
) &
ticker=$!
status=0
wait "$build" || status=$?
kill "$ticker" 2>/dev/null
wait "$ticker" 2>/dev/null || true
[ "$status" -eq 0 ] || die "the $(basename "$out") kernel build failed (messages above)"
# With modules (the debug kernel, for tests/planted/): Module.symvers, which
# an out-of-tree module is built against.
if grep -q '^CONFIG_MODULES=y' "$out/.config"; then
	kmake -j"$(nproc)" modules || die "the $(basename "$out") modules build failed (messages above)"
fi
say "built in $(( $(date +%s) - start )) s: $out/arch/arm64/boot/Image"
echo "$stamp" >"$out/.fserr-stamp"
