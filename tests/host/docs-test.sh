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
# The runs behind make check's figures (docs/runs/fresh-clone, docs/runs/
# full) must be of what is here now: a result for every scenario in
# tests/scenarios/, and made at a commit whose tests/, userspace/, series,
# kernel/ and qemu/ (their Markdown aside) are HEAD's. Else regenerate them
# before landing (tests/fresh-clone.sh; FSERR_SAVING_RUN=1 make check-full,
# then tests/report.py --save --as full). The run made to replace them
# cannot pass that check: with FSERR_SAVING_RUN=1 it is a SKIP that says so.
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

# of_now NAME: docs/runs/NAME is a run of what is here now (see above)
of_now() {
	local d=$top/docs/runs/$1 commit s missing= changed
	commit=$(sed -n 's/^commit=//p' "$d/run.info" 2>/dev/null)
	[[ $commit =~ ^[0-9a-f]{7,40}$ ]] ||
		{ echo "docs/runs/$1/run.info: commit '$commit' is no clean commit"; return 1; }
	for s in "$top"/tests/scenarios/*.sh; do
		s=$(basename "$s" .sh)
		cut -f2 "$d/times.tsv" | grep -qx -- "$s" || missing+=" $s"
	done
	[ -z "$missing" ] || { echo "docs/runs/$1 has no result for:$missing"; return 1; }
	git -C "$top" cat-file -e "$commit^{commit}" 2>/dev/null ||
		{ echo "docs/runs/$1 was made at $commit, which is not in this clone's history"; return 1; }
	changed=$(git -C "$top" diff --stat "$commit" HEAD -- tests userspace fs-notify-errors kernel \
		qemu Makefile ':(exclude)*.md')
	[ -z "$changed" ] || {
		echo "docs/runs/$1 was made at $commit; what it ran has changed since:"
		echo "$changed"
		echo "regenerate it (see tests/host/docs-test.sh)"
		return 1
	}
}

echo "1..6"
report "tests/report.py rewrites ${generated[*]} from docs/runs/ unchanged" \
	regenerates tests/report.py "${generated[@]}"
report "tests/bench/report.py rewrites ${bench_generated[*]} from docs/runs/bench/ unchanged" \
	regenerates tests/bench/report.py "${bench_generated[@]}"
report "tests/board/excerpts.py rewrites docs/board-bringup.md from docs/runs/board/ unchanged" \
	regenerates tests/board/excerpts.py docs/board-bringup.md
report "tests/board/powercut-report.py rewrites docs/reliability.md's power-cut table from docs/runs/powercut/ unchanged" \
	regenerates tests/board/powercut-report.py docs/reliability.md
for r in fresh-clone full; do
	if [ "${FSERR_SAVING_RUN:-}" = 1 ]; then
		n=$((n + 1))
		echo "ok $n docs/runs/$r is a run of what is here now # SKIP this run is made to replace it (FSERR_SAVING_RUN=1)"
	else
		report "docs/runs/$r is a run of what is here now: every scenario, made at a commit that ran this tree's tests, userspace, series, kernel and qemu" \
			of_now "$r"
	fi
done
[ "$bad" -eq 0 ]
