#!/usr/bin/env python3
"""Stand in for systemd's ends of sd_notify() and the journal, for the tests.

    dgram-listen.py SOCKET OUT

Binds a datagram socket at SOCKET, writes its pid to OUT.ready once bound,
and appends one line to OUT for every datagram: its fields, KEY=value,
separated by tabs (a tab, newline or backslash in a value written as \\t,
\\n, \\\\). It reads both protocols: sd_notify()'s newline-separated
assignments, and the journal's native one, where a value with a newline
is sent as KEY, a newline, its length (64 bits, little-endian), the value
and a newline.
"""
import os
import socket
import struct
import sys


def fields(data):
    out, pos = [], 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            nl = len(data)
        line = data[pos:nl]
        if b"=" in line:
            out.append(line)
            pos = nl + 1
        else:  # binary-safe: KEY \n length value \n
            (size,) = struct.unpack("<Q", data[nl + 1:nl + 9])
            out.append(line + b"=" + data[nl + 9:nl + 9 + size])
            pos = nl + 9 + size + 1
    return out


def escape(field):
    text = field.decode("utf-8", "backslashreplace")
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main():
    path, out = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    with open(out + ".ready", "w") as f:
        f.write("%d\n" % os.getpid())
    with open(out, "a") as f:
        while True:
            data = sock.recv(1 << 20)
            f.write("\t".join(escape(x) for x in fields(data)) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
