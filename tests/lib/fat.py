# SPDX-License-Identifier: BSD-2-Clause
"""FAT file systems: made by mkfs.fat (deterministic bytes, as pieces for a disk.Image), read
back (the BPB's geometry and the cluster count by Microsoft's formula), and edited in memory
(chains, directory entries), independently of common/fat.c."""
import os
import struct
import subprocess
import threading

from lib.disk import read_at


def u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def fat_type(clusters):
    """12, 16 or 32 by the cluster count, as the FAT specification decides it."""
    return 12 if clusters < 4085 else 16 if clusters < 65525 else 32


# ---- making one ----

_fat_cache = {}
_fat_lock = threading.Lock()


def fat_fs(work, lss, sectors, hidden):
    """A FAT file system of sectors x lss bytes made by mkfs.fat (--invariant, fixed volume
    ID), as a list of (offset, bytes) pieces holding its nonzero 4 KiB blocks."""
    key = (lss, sectors, hidden)
    with _fat_lock:
        if key not in _fat_cache:
            _fat_cache[key] = _make_fat(work, lss, sectors, hidden)
        return _fat_cache[key]


def _make_fat(work, lss, sectors, hidden):
    key = (lss, sectors, hidden)
    path = os.path.join(work, "fat-%d-%d-%d.tmp" % key)
    with open(path, "wb") as f:
        f.truncate(sectors * lss)
    subprocess.run(["mkfs.fat", "--invariant", "-i", "A5C0FFEE", "-n", "ESP", "-S", str(lss),
                    "-h", str(hidden), path], check=True, capture_output=True)
    pieces = []
    zero = bytes(4096)
    with open(path, "rb") as f:
        off = 0
        while True:
            b = f.read(4096)
            if not b:
                break
            if b != zero[:len(b)]:
                pieces.append((off, b))
            off += len(b)
    os.unlink(path)
    return pieces


def put_fat(img, work, first, sectors):
    """Puts a fresh FAT file system into the disk.Image img at LBA first."""
    for off, b in fat_fs(work, img.lss, sectors, first):
        img.put(first * img.lss + off, b)


def fat12_set(fat, cluster, value):
    """Sets a FAT12 entry in the FAT bytes fat."""
    off = cluster * 3 // 2
    cur = fat[off] | fat[off + 1] << 8
    if cluster & 1:
        cur = (cur & 0x000F) | (value << 4)
    else:
        cur = (cur & 0xF000) | (value & 0x0FFF)
    fat[off], fat[off + 1] = cur & 0xFF, cur >> 8


# ---- reading one ----

def read_bpb(path, off):
    """The FAT boot sector's key fields at byte off of the image file, and the cluster count
    by the Microsoft formula."""
    b = read_at(path, off, 512)
    bps, spc, rsvd, nfats, rootent, tot16, _media, fatsz16 = struct.unpack_from("<HBHBHHBH", b, 11)
    hidden, tot32 = struct.unpack_from("<II", b, 28)
    fatsz = fatsz16 or struct.unpack_from("<I", b, 36)[0]
    tot = tot16 or tot32
    rootsec = (rootent * 32 + bps - 1) // bps
    data = tot - (rsvd + nfats * fatsz + rootsec)
    clusters = data // spc
    return dict(bps=bps, spc=spc, hidden=hidden, total=tot, clusters=clusters,
                type=fat_type(clusters))


class Fat:
    """A FAT16/32 file system at byte `base` of img (a bytearray holding the image): enough to
    find files and directory entries and to edit the FAT in every copy. ValueError when it is
    not one or a path is not there."""

    def __init__(self, img, base):
        self.img, self.base = img, base
        b = img[base:base + 512]
        self.bps, self.spc = u16(b, 11), b[13]
        rsv, self.nfats, root_ent = u16(b, 14), b[16], u16(b, 17)
        total = u16(b, 19) or u32(b, 32)
        self.fat_sectors = u16(b, 22) or u32(b, 36)
        root_sectors = (root_ent * 32 + self.bps - 1) // self.bps
        self.fat_off = base + rsv * self.bps
        self.root_off = self.fat_off + self.nfats * self.fat_sectors * self.bps
        self.root_bytes = root_sectors * self.bps
        data_sector = rsv + self.nfats * self.fat_sectors + root_sectors
        self.data_off = base + data_sector * self.bps
        self.clusters = (total - data_sector) // self.spc
        self.type = fat_type(self.clusters)
        self.root_cluster = u32(b, 44) if self.type == 32 else 0
        self.cluster_bytes = self.bps * self.spc
        if self.type == 12:
            raise ValueError("a FAT12 file system: lib.fat.Fat edits FAT16/32 only")

    def get(self, c):
        if self.type == 16:
            return u16(self.img, self.fat_off + 2 * c)
        return u32(self.img, self.fat_off + 4 * c) & 0x0FFFFFFF

    def set(self, c, v):
        """In every FAT copy."""
        for k in range(self.nfats):
            off = self.fat_off + k * self.fat_sectors * self.bps
            if self.type == 16:
                struct.pack_into("<H", self.img, off + 2 * c, v & 0xFFFF)
            else:
                old = u32(self.img, off + 4 * c)
                struct.pack_into("<I", self.img, off + 4 * c, (old & 0xF0000000) | (v & 0x0FFFFFFF))

    def end_mark(self):
        return 0xFFFF if self.type == 16 else 0x0FFFFFFF

    def chain(self, first):
        out, c = [], first
        end = 0xFFF8 if self.type == 16 else 0x0FFFFFF8
        while 2 <= c < end and len(out) <= self.clusters:
            out.append(c)
            c = self.get(c)
        return out

    def cluster_off(self, c):
        return self.data_off + (c - 2) * self.cluster_bytes

    def dir_slots(self, first):
        """Byte offsets of the 32-byte slots of a directory (first 0: the FAT16 root)."""
        if first == 0 and self.type == 16:
            return range(self.root_off, self.root_off + self.root_bytes, 32)
        offs = []
        for c in self.chain(first or self.root_cluster):
            o = self.cluster_off(c)
            offs.extend(range(o, o + self.cluster_bytes, 32))
        return offs

    def entries(self, first):
        """(long or short name, slot offset, [LFN slot offsets], first cluster, size, attr)."""
        lfn, lfn_slots = {}, []
        for o in self.dir_slots(first):
            e = self.img[o:o + 32]
            if e[0] == 0:
                return
            if e[0] == 0xE5:
                lfn, lfn_slots = {}, []
                continue
            if e[11] == 0x0F:
                part = e[1:11] + e[14:26] + e[28:32]
                lfn[e[0] & 0x1F] = part.decode("utf-16-le").split("\0")[0]
                lfn_slots.append(o)
                continue
            short = e[0:8].decode("latin-1").rstrip() + (
                "." + e[8:11].decode("latin-1").rstrip() if e[8:11].strip() else "")
            name = "".join(lfn[k] for k in sorted(lfn)) or short
            clus = (u16(e, 20) << 16 | u16(e, 26)) if self.type == 32 else u16(e, 26)
            yield name, o, lfn_slots, clus, u32(e, 28), e[11]
            lfn, lfn_slots = {}, []

    def find(self, path):
        first, found = 0, None
        for part in path.strip("/").split("/"):
            found = next((e for e in self.entries(first) if e[0].lower() == part.lower()), None)
            if not found:
                raise ValueError(f"cannot find {path} on the ESP (no {part})")
            first = found[3]
        return found
