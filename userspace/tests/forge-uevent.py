#!/usr/bin/env python3
"""Send a forged fserr fault uevent from userspace, in the caller's network
namespace: what fserrd and fserrctl watch must not believe. Used by
fserrd-test.sh and fserrctl-test.sh, run in a network namespace of their own.

  forge-uevent.py [--udev] [--id ID] [--count N]

Without --udev: the kernel's form, to the kernel's group (1), from the
script's own port (not 0). With --udev: udevd's form ("libudev" header,
the properties, the subsystem hash its monitors filter on), to udevd's
group (2): believed by sd_device_monitor only from uid 0, which is how the
tests show both that the udev source hears and that it checks the sender.
ID (default sdz1) names the filesystem (DEVPATH /fs/fat/ID, FS_ID=ID), so
that a test can tell two messages apart; N times (a flood)."""
import argparse
import socket
import struct

ap = argparse.ArgumentParser()
ap.add_argument("--udev", action="store_true")
ap.add_argument("--id", default="sdz1")
ap.add_argument("--count", type=int, default=1)
args = ap.parse_args()
fs_id = args.id.encode()
PROPS = (b"ACTION=change\0DEVPATH=/fs/fat/" + fs_id + b"\0SUBSYSTEM=fserr\0FS_FAULT=1\0"
         b"FS_TYPE=vfat\0FS_ID=" + fs_id + b"\0FS_DEV=4000:7\0FS_ERRNO=117\0SEQNUM=1\0")


def murmur2(data, seed=0):
    """systemd's string_hash32(): MurmurHash2, 32 bits, seed 0."""
    m, h = 0x5BD1E995, (seed ^ len(data)) & 0xFFFFFFFF
    n = len(data) // 4 * 4
    for i in range(0, n, 4):
        k = struct.unpack_from("<I", data, i)[0]
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = data[n:]
    if tail:
        for i in reversed(range(len(tail))):
            h ^= tail[i] << (8 * i)
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((0, 0))
if args.udev:
    # monitor_netlink_header (systemd's sd-device/device-monitor.c)
    size = 40
    header = (struct.pack("8s", b"libudev") + struct.pack(">I", 0xFEEDCAFE) +
              struct.pack("=III", size, size, len(PROPS)) +
              struct.pack(">IIII", murmur2(b"fserr"), 0, 0, 0))
    msg, group = header + PROPS, 2
else:
    msg, group = b"change@/fs/fat/" + fs_id + b"\0" + PROPS, 1
for _ in range(args.count):
    s.sendto(msg, (0, group))
