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
# tests/scenarios/, and made of a tree whose tests/, userspace/, series,
# kernel/, qemu/ and Makefile (their Markdown aside) are this one's (the
# digest run.info keeps, tests/lib/tree.sh; no history needed). Else regenerate them
# before landing (FSERR_SAVING_RUN=COMMIT:full,fresh-clone make check-full,
# tests/report.py --save --as full, commit; then tests/fresh-clone.sh, which
# sets FSERR_SAVING_RUN=COMMIT:fresh-clone). They must also be of
# the right tier (quick for fresh-clone, full for full), on both kernels,
# of every scenario, with no failure. The run made to replace one cannot
# pass that check for it: FSERR_SAVING_RUN=COMMIT:NAME[,NAME] (COMMIT HEAD's
# short hash, NAME the runs being made again, this one first) makes their
# checks SKIPs that say so, at that commit only.
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

# of_now NAME: docs/runs/NAME is a run of what is here now (see above):
# its run.info's tree digest (tests/lib/tree.sh) is this tree's
. "$top/tests/lib/tree.sh"
info() { sed -n "s/^$2=//p" "$top/docs/runs/$1/run.info" 2>/dev/null; }
of_now() { # NAME TIER
	local d=$top/docs/runs/$1 commit tree s missing=
	commit=$(info "$1" commit)
	tree=$(info "$1" tree)
	[[ $commit =~ ^[0-9a-f]{7,40}$ ]] ||
		{ echo "docs/runs/$1/run.info: commit '$commit' is no clean commit"; return 1; }
	[ "$(info "$1" tier)" = "$2" ] && [ "$(info "$1" kernels)" = "plain debug" ] &&
		[ "$(info "$1" all_scenarios)" = yes ] && [ "$(info "$1" failed)" = 0 ] || {
		echo "docs/runs/$1 must be a $2-tier run of every scenario on plain and debug with no failure:"
		cat "$d/run.info"
		return 1
	}
	for s in "$top"/tests/scenarios/*.sh; do
		s=$(basename "$s" .sh)
		cut -f2 "$d/times.tsv" | grep -qx -- "$s" || missing+=" $s"
	done
	[ -z "$missing" ] || { echo "docs/runs/$1 has no result for:$missing"; return 1; }
	[ -n "$tree" ] && [ "$tree" = "$(tree_digest "$top")" ] || {
		echo "docs/runs/$1 was made at $commit (tree ${tree:-not recorded}); what it ran is not this tree's ($(tree_digest "$top"))"
		git -C "$top" diff --stat "$commit" HEAD -- tests userspace fs-notify-errors kernel qemu \
			Makefile ':(exclude)*.md' 2>/dev/null
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
head=$(git -C "$top" rev-parse --short HEAD 2>/dev/null)
saving=${FSERR_SAVING_RUN:-}
for r in fresh-clone:quick full:full; do
	if [ -n "$head" ] && [ "${saving%%:*}" = "$head" ] && [[ ,${saving#*:}, == *",${r%:*},"* ]]; then
		n=$((n + 1))
		echo "ok $n docs/runs/${r%:*} is a run of what is here now # SKIP it is being made again (FSERR_SAVING_RUN=$saving)"
	else
		report "docs/runs/${r%:*} is a run of what is here now: ${r#*:} tier, both kernels, every scenario, no failure, of this tree's tests, userspace, series, kernel, qemu and Makefile" \
			of_now "${r%:*}" "${r#*:}"
	fi
done
[ "$bad" -eq 0 ]
