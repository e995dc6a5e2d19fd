#!/usr/bin/env python3
"""Send a forged fserr fault uevent from userspace (sender port id not 0)
to the kernel uevent group, in the caller's network namespace: what
fserrd and fserrctl watch must not believe. Used by fserrd-test.sh and
fserrctl-test.sh, run in a network namespace of their own."""
import socket

s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((0, 0))
s.sendto(b"change@/fs/fat/sdz1\0ACTION=change\0DEVPATH=/fs/fat/sdz1\0SUBSYSTEM=fserr\0"
         b"FS_FAULT=1\0FS_TYPE=vfat\0FS_ID=sdz1\0FS_DEV=4000:7\0FS_ERRNO=117\0SEQNUM=1\0", (0, 1))
