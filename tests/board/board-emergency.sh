#!/bin/bash
# The board's emergency.service (a drop-in from tests/mkboard.sh): when the
# boot fails and systemd goes to emergency mode, say why on the console the
# runner reads, end the run as the test would, and power off, instead of
# waiting at a login prompt until the host's timeout.
export PATH=/tests:/usr/sbin:/usr/bin:/sbin:/bin
. /tests/guest.sh
exec >/dev/ttyAMA0 2>&1
echo "@@FSERR-BEGIN board"
echo "Bail out! the boot failed: systemd went to emergency mode"
systemctl --failed --no-legend --no-pager | sed 's/^/# failed: /'
journalctl -b -p warning --no-pager | tail -n 40 | sed 's/^/# journal: /'
guest_end
poweroff -f
