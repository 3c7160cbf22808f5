# SPDX-License-Identifier: BSD-2-Clause
"""Dual GPTs (`--sector-size any`, the byte map in tools/disk/dual.h), built and damaged byte by
byte, independently of tools/disk/dual.c: the layout's numbers, a valid dual disk for the hostile corpus,
and what other tools and firmware do to one (sgdisk at 4096, parted at 512, edk2 restoring a
damaged GPT), on anything with get(off, n) and put(off, data): a disk.Image being built or an
image file (File)."""
import struct

from lib import bootinfo as B
from lib import gpt as G
from lib.disk import MIB, Image, read_at, write_at
from lib.fat import put_fat
from lib.mbr import mbr_record

SMALL, LARGE = 512, 4096     # the two sector sizes a dual GPT serves
SIZES = (SMALL, LARGE)
BLOCK = LARGE                # every structure and partition is whole 4 KiB blocks


def geometry(size, num_entries=128):
    """The layout for a disk of size bytes: array_bytes, first_usable_byte, end_usable_byte and
    per sector size the LBAs (primary_array, backup_array, first_usable, last_usable)."""
    arr = -(-max(num_entries * 128, G.MIN_ARRAY_BYTES) // BLOCK) * BLOCK
    front, back = 2 * BLOCK + 2 * arr, BLOCK + 2 * arr
    g = dict(array_bytes=arr, first_usable_byte=front, end_usable_byte=size - back)
    small = (2 * BLOCK + arr, size - back)          # byte offsets of the arrays
    large = (2 * BLOCK, size - BLOCK - arr)
    for lss, (pa, ba) in ((SMALL, small), (LARGE, large)):
        g[lss] = dict(primary_array=pa // lss, backup_array=ba // lss, first_usable=front // lss,
                      last_usable=(size - back) // lss - 1, sectors=size // lss)
    return g


def protective_mbr(size_field=0xFFFFFFFF):
    """LBA 0's record: one 0xEE entry from LBA 1 with the given size, end CHS FF FF FF."""
    e = b"\x00\x00\x02\x00\xEE\xFF\xFF\xFF" + struct.pack("<II", 1, size_field)
    return mbr_record([e], disk_sig=0)


class At:
    """A disk (get/put by byte) addressed in lss-byte LBAs, for gpt.Gpt.put."""

    def __init__(self, disk, lss):
        self.disk, self.lss = disk, lss

    def put_lba(self, lba, data):
        self.disk.put(lba * self.lss, data)


class File:
    """An image file as a disk: get/put by byte offset."""

    def __init__(self, path, size):
        self.path, self.size = path, size

    def get(self, off, n):
        return bytearray(read_at(self.path, off, n))

    def put(self, off, data):
        write_at(self.path, off, bytes(data))


def tables(size, parts, num_entries=128, entries=None):
    """{512: gpt.Gpt, 4096: gpt.Gpt} of one disk: parts are (type, first byte, end byte, name)
    with the same unique GUIDs (gpt.part_guid) at both sizes; entries(lss, list) may change an
    entry list (one size's table disagreeing)."""
    geo = geometry(size, num_entries)
    out = {}
    for lss in SIZES:
        g = G.Gpt(lss, size // lss, [(t, f // lss, e // lss - 1, n) for t, f, e, n in parts],
                  num_entries=num_entries)
        for k in ("primary_array", "backup_array", "first_usable", "last_usable"):
            setattr(g, k, geo[lss][k])
        if entries:
            entries(lss, g.entries)
        out[lss] = g
    return out


def put_tables(disk, gpts, small=None, large=None):
    """Writes both GPTs, the large one first (its 4 KiB header blocks hold the small headers);
    small/large: dicts of Gpt.put keyword arguments."""
    gpts[LARGE].put(At(disk, LARGE), **(large or {}))
    gpts[SMALL].put(At(disk, SMALL), **(small or {}))


def disk(work, size=8 * MIB, entries=None, pmbr=0xFFFFFFFF):
    """A valid, installable dual disk: BIOS boot at 1 MiB, a FAT ESP with 4096-byte sectors at
    2..6 MiB, a Linux partition to the end of the usable bytes. Returns (Image, tables)."""
    img = Image(size, LARGE)
    geo = geometry(size)
    parts = [(G.BIOS_BOOT_TYPE, MIB, 2 * MIB, "BIOS boot"),
             (G.ESP_TYPE, 2 * MIB, 6 * MIB, "EFI system"),
             (G.LINUX_TYPE, 6 * MIB, geo["end_usable_byte"], "Linux filesystem")]
    gpts = tables(size, parts, entries=entries)
    put_fat(img, work, 2 * MIB // LARGE, 4 * MIB // LARGE)
    put_tables(img, gpts)
    img.put(0, protective_mbr(pmbr))
    return img, gpts


# ---- what other tools do to a dual disk ----

def header_at(d, lss, lba):
    raw = d.get(lba * lss, G.HEADER_SIZE)
    my, alt, fu, lu = struct.unpack_from("<QQQQ", raw, G.MY_LBA_OFF)
    elba, num, esz = struct.unpack_from("<QII", raw, G.ENTRIES_LBA_OFF)
    return raw, dict(my=my, alt=alt, first_usable=fu, last_usable=lu, entries_lba=elba,
                     num_entries=num, entry_size=esz)


def edk2_restore(d, size, lss, broken):
    """What OVMF does to a GPT whose `broken` header ("primary" or "backup") is invalid on a
    writable disk of lss-byte sectors (edk2 PartitionDxe PartitionRestoreGptTable): it copies
    the good header over the broken one's LBA in a zero-filled block, with its array at LBA 2
    (a restored primary) or LastUsable + 1 (a restored backup), and writes the array there."""
    last = size // lss - 1
    good_lba = last if broken == "primary" else 1
    raw, h = header_at(d, lss, good_lba)
    to = h["alt"]
    entries_lba = h["last_usable"] + 1 if h["my"] == 1 else 2
    arr = d.get(h["entries_lba"] * lss, h["num_entries"] * h["entry_size"])
    new = bytearray(lss)
    new[:G.HEADER_SIZE] = raw
    struct.pack_into("<QQ", new, G.MY_LBA_OFF, to, h["my"])
    struct.pack_into("<Q", new, G.ENTRIES_LBA_OFF, entries_lba)
    struct.pack_into("<I", new, G.CRC_OFF, 0)
    struct.pack_into("<I", new, G.CRC_OFF, G.crc32(bytes(new[:G.HEADER_SIZE])))
    d.put(to * lss, new)
    d.put(entries_lba * lss, arr)


def break_header(d, size, lss, which):
    """A wrong header CRC in the primary (LBA 1) or backup (last LBA) header of one size."""
    lba = 1 if which == "primary" else size // lss - 1
    d.put(lba * lss + G.CRC_OFF, b"\xDE\xAD\xBE\xEF")


def set_pmbr_size(d, sectors):
    """The protective MBR's 0xEE entry (the first) says sectors, the rest of LBA 0 kept."""
    d.put(PMBR_SIZE_OFF, struct.pack("<I", sectors))


PMBR_SIZE_OFF = B.MBR_TABLE_OFF + 12    # the first entry's size field


def drop_small_headers(d, size):
    """What sgdisk leaves after editing the disk at 4096: LBA 0 and the backup header's block
    written whole (the 512-byte headers zeroed), the protective MBR sized for 4096."""
    d.put(SMALL, bytes(LARGE - SMALL))
    d.put(size - SMALL, bytes(SMALL))
    set_pmbr_size(d, size // LARGE - 1)


def small_at_usual_places(d, size, gpts):
    """What parted leaves after editing the disk at 512: the 512-byte GPT rewritten with its
    arrays where a plain GPT has them (LBA 2, just below the backup header), over the 4096-byte
    headers, and the protective MBR sized for 512."""
    g = gpts[SMALL]
    g.primary_array, g.backup_array = 2, size // SMALL - 1 - G.gpt_array_sectors(SMALL)
    g.put(At(d, SMALL))
    set_pmbr_size(d, size // SMALL - 1)
