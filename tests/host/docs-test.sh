#!/bin/bash
# The generated figures in the docs are those of the saved runs (TAP): in a
# copy of the tree's files, tests/report.py (README.md, docs/reliability.md,
# docs/development.md, from docs/runs/*/ with times.tsv),
# tests/bench/report.py (docs/benchmarks.md, from docs/runs/bench/),
# tests/board/excerpts.py (docs/board-bringup.md, from docs/runs/board/) and
# tests/board/powercut-report.py (docs/reliability.md's power-cut table, from
# docs/runs/powercut/) rewrite their parts; each must finish without an error and change nothing. A
# report that trips over another report's saved run, or a figure edited by
# hand, fails here.
#
#   tests/host/docs-test.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$work/tree

# The tree's files as they are now (committed or not), nothing built.
mkdir -p "$copy"
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && xargs -0 sh -c 'd=$1; shift; for f; do [ ! -e "$f" ] || cp --parents -t "$d" "$f" || exit 1; done' \
		copy "$copy") || { echo "Bail out! could not copy the tree"; exit 1; }
# The files each report writes: they are compared with what was there.
generated=(README.md docs/reliability.md docs/development.md)
bench_generated=(docs/benchmarks.md docs/runs/bench/latency-cdf.dat docs/runs/bench/mount-scale.dat)

n=0 bad=0
report() { # NAME COMMAND...: one result, from COMMAND's exit status
	local name=$1
	shift
	n=$((n + 1))
	if "$@" >"$work/out" 2>&1; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		sed 's/^/# /' "$work/out"
		bad=$((bad + 1))
	fi
}
regenerates() { # SCRIPT FILE...: SCRIPT runs cleanly and leaves FILEs as they were
	local script=$1 f
	shift
	mkdir -p "$work/before"
	for f in "$@"; do
		cp --parents -t "$work/before" "$copy/$f" 2>/dev/null ||
			{ echo "$f: not in the tree"; return 1; }
	done
	(cd "$copy" && "./$script") || { echo "$script failed"; return 1; }
	for f in "$@"; do
		diff -u "$work/before$copy/$f" "$copy/$f" || return 1
	done
}

echo "1..4"
report "tests/report.py rewrites ${generated[*]} from docs/runs/ unchanged" \
	regenerates tests/report.py "${generated[@]}"
report "tests/bench/report.py rewrites ${bench_generated[*]} from docs/runs/bench/ unchanged" \
	regenerates tests/bench/report.py "${bench_generated[@]}"
report "tests/board/excerpts.py rewrites docs/board-bringup.md from docs/runs/board/ unchanged" \
	regenerates tests/board/excerpts.py docs/board-bringup.md
report "tests/board/powercut-report.py rewrites docs/reliability.md's power-cut table from docs/runs/powercut/ unchanged" \
	regenerates tests/board/powercut-report.py docs/reliability.md
[ "$bad" -eq 0 ]
