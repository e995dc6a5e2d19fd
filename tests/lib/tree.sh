# shellcheck shell=bash
# tree_digest TOP: a digest of what a run of the suite runs: the files of
# tests/, userspace/, the series (fs-notify-errors/), kernel/, qemu/ and
# the Makefile as git's index has them, Markdown aside. tests/run.sh
# records it in run.info (tree=); host/docs compares a saved run's with the
# tree's own, which needs no history (a shallow clone has none).
tree_digest() {
	git -C "$1" ls-files -s -- tests userspace fs-notify-errors kernel qemu Makefile \
		':(exclude)*.md' 2>/dev/null | sha256sum | cut -c1-16
}
