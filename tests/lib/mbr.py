# SPDX-License-Identifier: BSD-2-Clause
"""MBR partition records, built byte by byte (independently of common/mbr.c) and read back.
Offsets from common/mbr.h through lib.bootinfo."""
import struct

from lib import bootinfo as B
from lib.disk import read_at

CHS_HEADS, CHS_SECTORS = 255, 63


def mbr_entry(type_, first, sectors, active=False, chs=True):
    """A 16-byte partition entry; CHS as 255x63 geometry (FE FF FF past its range)."""
    def enc(lba):
        if not chs or lba > 1024 * CHS_HEADS * CHS_SECTORS - 1:
            return b"\xFE\xFF\xFF"
        c, rem = divmod(lba, CHS_HEADS * CHS_SECTORS)
        h, s = divmod(rem, CHS_SECTORS)
        return bytes([h, (s + 1) | ((c >> 2) & 0xC0), c & 0xFF])
    last = first + sectors - 1 if sectors else first
    return (bytes([0x80 if active else 0]) + enc(first) + bytes([type_]) + enc(last) +
            struct.pack("<II", first & 0xFFFFFFFF, sectors & 0xFFFFFFFF))


def mbr_record(entries, disk_sig=0x12345678, signature=True):
    """The record of LBA 0 (or an EBR) with up to four 16-byte entries."""
    rec = bytearray(B.MBR_RECORD_SIZE)
    struct.pack_into("<I", rec, B.MBR_DISK_SIG_OFF, disk_sig)
    for i, e in enumerate(entries):
        at = B.MBR_TABLE_OFF + B.MBR_ENTRY_SIZE * i
        rec[at:at + B.MBR_ENTRY_SIZE] = e
    if signature:
        rec[B.MBR_SIGNATURE_OFF:B.MBR_SIGNATURE_OFF + 2] = b"\x55\xAA"
    return rec


def protective_mbr(sectors, extra=()):
    """The UEFI protective MBR (one 0xEE entry from LBA 1 over the disk), plus extra entries
    (a hybrid MBR)."""
    return mbr_record([mbr_entry(B.MBR_TYPE_GPT_PROTECTIVE, 1, min(sectors - 1, 0xFFFFFFFF))]
                      + list(extra), disk_sig=0)


def entry_offset(i):
    """Byte offset of primary entry i (0-based) in LBA 0."""
    return B.MBR_TABLE_OFF + B.MBR_ENTRY_SIZE * i


def read_entries(path):
    """The used primary entries of the image file's LBA 0 (dicts: number, status, type, first,
    size, chs_first, chs_last) and LBA 0's record."""
    raw = read_at(path, 0, B.MBR_RECORD_SIZE)
    out = []
    for i in range(4):
        e = raw[entry_offset(i):entry_offset(i) + B.MBR_ENTRY_SIZE]
        status, typ = e[0], e[4]
        first, size = struct.unpack_from("<II", e, 8)
        if typ:
            out.append(dict(number=i + 1, status=status, type=typ, first=first, size=size,
                            chs_first=e[1:4], chs_last=e[5:8]))
    return out, raw
