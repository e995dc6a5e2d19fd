#!/usr/bin/env python3
"""Add a file to the root directory of an exFAT image without mounting it,
its clusters fragmented (linked in the FAT, another free cluster between
each two of its own) or contiguous (NoFatChain), as the exFAT
specification lays it out: a File, a Stream Extension and File Name
entries with their name hash and set checksum, the allocation bitmap and
the FAT. fsck.exfat -n finds the result clean. For fscorrupt's host tests:
mkfs.exfat makes an empty volume, and nothing else writes one without the
kernel.

    tests/host/exfat-add-file.py IMAGE NAME CLUSTERS fragmented|contiguous
"""
import struct
import sys


def die(msg):
    sys.exit(f"exfat-add-file: {msg}")


def checksum16(data, skip=()):
    s = 0
    for i, b in enumerate(data):
        if i in skip:
            continue
        s = (((s & 1) << 15) | (s >> 1)) + b & 0xFFFF
    return s


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("fragmented", "contiguous"):
        die("usage: exfat-add-file.py IMAGE NAME CLUSTERS fragmented|contiguous")
    path, name, nclus, layout = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if not name.isascii() or not name or len(name) > 15 or "/" in name:
        die("NAME: 1 to 15 ASCII characters")
    with open(path, "r+b") as f:
        img = bytearray(f.read())
    bs = img[:512]
    if bs[3:11] != b"EXFAT   ":
        die(f"{path}: not exFAT")
    sector = 1 << bs[0x6C]
    cluster = sector << bs[0x6D]
    fat_off = struct.unpack_from("<I", bs, 0x50)[0] * sector
    heap_off = struct.unpack_from("<I", bs, 0x58)[0] * sector
    count = struct.unpack_from("<I", bs, 0x5C)[0]
    root = struct.unpack_from("<I", bs, 0x60)[0]

    def coff(c):
        return heap_off + (c - 2) * cluster

    def fat_set(c, v):
        struct.pack_into("<I", img, fat_off + 4 * c, v)

    # the root directory's entries (its first cluster is enough here)
    rd = coff(root)
    bitmap = upcase = None
    free_slot = None
    for i in range(cluster // 32):
        e = img[rd + 32 * i: rd + 32 * i + 32]
        if e[0] == 0x81:
            bitmap = struct.unpack_from("<I", e, 20)[0]
        elif e[0] == 0x82:
            upcase = struct.unpack_from("<I", e, 20)[0]
        elif e[0] == 0x00:
            free_slot = i
            break
    if bitmap is None or upcase is None or free_slot is None:
        die(f"{path}: no bitmap, up-case table or free entry in the root directory")
    if free_slot + 3 > cluster // 32:
        die(f"{path}: the root directory's first cluster is full")

    def used(c):
        b = img[coff(bitmap) + (c - 2) // 8]
        return b >> ((c - 2) % 8) & 1

    def take(c):
        img[coff(bitmap) + (c - 2) // 8] |= 1 << ((c - 2) % 8)

    # clusters: every other free one (fragmented) or a free run (contiguous)
    clusters = []
    c = 2
    while len(clusters) < nclus and c < count + 2:
        if layout == "fragmented":
            if not used(c) and (not clusters or c > clusters[-1] + 1):
                clusters.append(c)
        elif not used(c):
            clusters = clusters + [c] if clusters and clusters[-1] == c - 1 else [c]
        else:
            clusters = []
        c += 1
    if len(clusters) < nclus:
        die(f"{path}: not enough free clusters")
    for i, c in enumerate(clusters):
        take(c)
        img[coff(c): coff(c) + cluster] = bytes([0x41 + i % 26]) * cluster
        if layout == "fragmented":
            fat_set(c, clusters[i + 1] if i + 1 < len(clusters) else 0xFFFFFFFF)

    # the name hash is over the up-cased name: ASCII letters up-case to
    # themselves in the table mkfs.exfat writes for them
    hash_ = checksum16(b"".join(struct.pack("<H", ord(ch.upper())) for ch in name))
    size = nclus * cluster
    file_e = bytearray(32)
    file_e[0] = 0x85
    file_e[1] = 2  # secondary count: stream + one name entry
    struct.pack_into("<H", file_e, 4, 0x20)  # archive
    stream = bytearray(32)
    stream[0] = 0xC0
    stream[1] = 0x01 | (0x02 if layout == "contiguous" else 0)
    stream[3] = len(name)
    struct.pack_into("<H", stream, 4, hash_)
    struct.pack_into("<Q", stream, 8, size)
    struct.pack_into("<I", stream, 20, clusters[0])
    struct.pack_into("<Q", stream, 24, size)
    name_e = bytearray(32)
    name_e[0] = 0xC1
    for i, ch in enumerate(name):
        struct.pack_into("<H", name_e, 2 + 2 * i, ord(ch))
    entries = file_e + stream + name_e
    struct.pack_into("<H", entries, 2, checksum16(entries, skip=(2, 3)))
    img[rd + 32 * free_slot: rd + 32 * free_slot + 96] = entries
    with open(path, "r+b") as f:
        f.write(img)
    print(f"{name}: clusters {' '.join(map(str, clusters))} ({layout})")


if __name__ == "__main__":
    main()
