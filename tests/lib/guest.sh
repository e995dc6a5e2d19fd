# Shell helpers for the guest half of a scenario (busybox ash).
# Sourced by /init before the scenario's guest().

# Lift the global uevent cap for a test run: tests that follow each other
# quickly must not suppress each other's uevents. Tests of the cap set it.
fserr_lift_global_cap() {
	echo 100000 >/sys/module/fserr/parameters/uevent_burst
}

# run_channels LABEL DEV FSTYPE FAMILY VICTIM TRIGGER ERRNO [OPTS]
# Runs the channel tests against one filesystem of the card.
run_channels() {
	echo "# fserr_channels on $1"
	FSERR_DEV=$2 FSERR_FSTYPE=$3 FSERR_FAMILY=$4 FSERR_VICTIM=$5 \
	FSERR_TRIGGER=$6 FSERR_ERRNO=$7 FSERR_OPTS=${8:-} \
		/tests/fserr_channels 2>&1 | sed -E "s/^(not ok|ok) ([0-9]+) /\\1 \\2 $1: /"
}
