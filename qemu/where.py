#!/usr/bin/env python3
"""Keep QEMU's main loop awake, and say where a guest's CPUs are after a
delay: both through QEMU's QMP socket.

    qemu/where.py AFTER_SECONDS QMP_SOCKET KERNEL_IMAGE

qemu/run.sh starts this beside a guest that runs unattended and kills it
when the guest ends first.

Until AFTER_SECONDS it asks QEMU for its status every 50 ms. QEMU 7.2's
main loop can miss that a vCPU thread just armed a timer: it then sleeps
with the timeout it computed before, and the guest's timer interrupt
comes only when something else wakes the loop. Seen in `make demo` (one
run in eight, issue 28, and 3 to 5 runs of 10 with two guests side by
side): the trace of QEMU's generic timer (-trace arm_gt_*) shows the
guest's last compare value 0.48 s ahead, and no recalculation after it
for the 34 s until the run was killed; the guest sits in WFI, and when a
tick finally comes the kernel reports "rcu_sched kthread timer wakeup
didn't happen ... Possible timer handling issue". Neither gic-version=3
nor single-threaded TCG changed that; a QMP command every 50 ms did (14
runs of 14 finished in about 10 s). Each command wakes the main loop,
which then runs the timers that are due.

If the guest is still running after
AFTER_SECONDS (shortly before run.sh's timeout kills it), it prints to
standard error, for every CPU: its registers ("info registers"), the
kernel symbols of PC and LR, and a scan of 64 words of the stack for
kernel text addresses (what the kernel's own backtrace would start from).
The symbols come from the System.map of the build that made KERNEL_IMAGE
(its arch/arm64/boot/Image). A guest that froze without a word on its
console (seen in make check: a card scenario stopped after a test, and
QEMU was killed 300 s later) then says at least where it spins or waits.
"""
import bisect
import json
import os
import re
import socket
import sys
import time


def qmp(path):
    """A connected QMP session: a function that runs one HMP command, and
    one that asks for the status (a wake-up of the main loop)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(path)
    stream = sock.makefile("rw")

    def reply():
        while True:
            line = stream.readline()
            if not line:
                raise EOFError("QEMU closed its QMP socket")
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg

    json.loads(stream.readline())  # the greeting
    stream.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
    stream.flush()
    reply()

    def hmp(command):
        stream.write(json.dumps({"execute": "human-monitor-command",
                                 "arguments": {"command-line": command}}) + "\n")
        stream.flush()
        msg = reply()
        if "error" in msg:
            return "error: %s\n" % msg["error"].get("desc", msg["error"])
        return msg["return"]

    def poke():
        stream.write(json.dumps({"execute": "query-status"}) + "\n")
        stream.flush()
        reply()

    return hmp, poke


def load_symbols(kernel_image):
    """Sorted (address, name) of the text symbols in the build's System.map."""
    build = os.path.dirname(os.path.abspath(kernel_image))
    for _ in range(4):  # Image is in arch/arm64/boot/
        build = os.path.dirname(build)
        path = os.path.join(build, "System.map")
        if os.path.exists(path):
            break
    else:
        return [], None
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms, path


def symbolize(syms, addr):
    if not syms or addr < syms[0][0] or addr > syms[-1][0] + 0x10000:
        return None
    i = bisect.bisect_right(syms, (addr, "\xff")) - 1
    return "%s+0x%x" % (syms[i][1], addr - syms[i][0])


def main():
    after, path, kernel = float(sys.argv[1]), sys.argv[2], sys.argv[3]
    deadline = time.monotonic() + after
    session = None
    # (QEMU makes the socket as it starts)
    while session is None and time.monotonic() < deadline:
        try:
            session = qmp(path)
        except (OSError, EOFError, ValueError):
            time.sleep(0.05)
    if session is None:
        return 0
    hmp, poke = session
    try:
        while time.monotonic() < deadline:
            poke()
            time.sleep(0.05)
    except (OSError, EOFError, ValueError):
        return 0  # QEMU ended: the guest finished
    try:
        syms, mapfile = load_symbols(kernel)
        out = ["qemu/where.py: the guest still runs after %g s; where its CPUs are"
               " (symbols: %s):" % (after, mapfile or "no System.map found")]
        out.append(hmp("info cpus").rstrip())
        text_end = syms[-1][0] if syms else 0
        for cpu in re.findall(r"CPU #(\d+)", hmp("info cpus")):
            hmp("cpu %s" % cpu)
            regs = hmp("info registers")
            # (the vector registers say nothing about where it is)
            out.append("\n".join(l for l in regs.strip().splitlines()
                                  if not re.match(r"\s*Q\d\d=", l)))
            values = dict((k, int(v, 16)) for k, v in
                          re.findall(r"\b(PC|X30|SP|SP_EL1|SP_EL0)\s*=\s*([0-9a-fA-F]+)", regs))
            for reg in ("PC", "X30"):
                if reg in values:
                    out.append("  %s %016x %s" % (reg, values[reg],
                                                  symbolize(syms, values[reg]) or "?"))
            sp = values.get("SP_EL1") or values.get("SP")
            if sp and syms:
                words = re.findall(r"\b0x([0-9a-f]{16})\b",
                                   hmp("x/64gx 0x%x" % sp).split(":", 1)[-1])
                hits = [symbolize(syms, int(w, 16)) for w in words
                        if syms[0][0] <= int(w, 16) <= text_end]
                out.append("  text addresses on the stack from SP: %s" %
                           (", ".join(h for h in hits if h) or "none"))
        print("\n".join(out), file=sys.stderr, flush=True)
    except (OSError, EOFError, ValueError) as e:
        print("qemu/where.py: could not ask QEMU where the guest is: %s" % e,
              file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
