# TAP for the host's shell tests: the one in userspace/tests/tap.sh, which
# lives there so that userspace/ builds and tests alone (a packager's copy).
# shellcheck source=userspace/tests/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../userspace/tests/tap.sh"
