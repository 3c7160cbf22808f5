# SPDX-License-Identifier: BSD-2-Clause
"""Hostile cases of the dual GPT (`--sector-size any`, tools/disk/dual.h): the valid dual disk built
by lib.dual, then each way one half can break, as other tools and firmware break it. Every
damaged disk is refused by install and add (exit 2) and fails check (exit 2) with the sentence
naming the half, the header or partition and the bytes; info shows it (exit 0); the image never
changes. Controls: the valid disk needs no --sector-size and is clean at either view, also behind
512- and 4096-byte loop devices. (corpus.py adds these to its lists.)"""
import struct

from lib import dual as D
from lib import gpt as G
from lib import stages
from lib.disk import MIB

S512 = ["--sector-size", "512"]
N = 8 * MIB                      # the base disk's size
GEO = D.geometry(N)
N512, N4K = N // D.SMALL, N // D.LARGE


def writers(*has, code=None, flags=()):
    """install and add refuse (exit 2) with the sentences, check fails with them and the
    problem's code, info shows both halves."""
    f = list(flags)
    return [("install", f, 2, list(has)), ("add", f, 2, list(has)),
            ("check", f, 2, list(has) + ([code] if code else [])),
            ("info", f, 0, ["dual GPT"]), ("json", f, 2, [])]


def dual_case(entries=None, pmbr=0xFFFFFFFF, after=None):
    """The valid dual disk with one size's entries changed (entries(lss, list)), another
    protective MBR size, or after(img, gpts) run last."""
    def build(work):
        img, gpts = D.disk(work, N, entries=entries, pmbr=pmbr)
        if after:
            after(img, gpts)
        return img
    return build


def small_only(f):
    """entries(lss, list) that applies f to the 512-byte table's entries only."""
    def entries(lss, ents):
        if lss == D.SMALL:
            f(ents)
    return entries


def set_field(i, off, fmt, value):
    def f(ents):
        struct.pack_into(fmt, ents[i], off, value)
    return f


def set_bytes(i, off, data):
    def f(ents):
        ents[i][off:off + len(data)] = data
    return f


def extra_partition(lss, ents):
    """Partition 3 one MiB shorter at both sizes, a fourth in that MiB at 512 only."""
    end = GEO["end_usable_byte"] - MIB
    struct.pack_into("<Q", ents[2], G.ENTRY_LAST_OFF, end // lss - 1)
    if lss == D.SMALL:
        ents.append(G.gpt_entry(G.LINUX_TYPE, G.part_guid(9), end // lss,
                                GEO["end_usable_byte"] // lss - 1, "extra"))


def stage1_at(offset):
    """Our stage1's patch block in LBA 0 with stage2 at byte offset (no stage2 there)."""
    def after(img, gpts):
        rec = D.protective_mbr()
        stages.mark_stage1(rec)
        stages.set_stage1_target(rec, offset, 4096, version=1)
        img.put(0, rec)
    return after


CONTROL = [("check", [], 0, ["dual GPT:  for 512- and 4096-byte sectors: both GPTs valid"]),
           ("check", S512, 0, []), ("install", ["--dry-run"], 0, ["dry run"]),
           ("add", ["--dry-run"], 0, ["dry run"]), ("info", [], 0, ["viewed at 4096"])]

DUAL_CASES = [
    ("dual-control", "the valid dual-GPT disk", dual_case(), CONTROL),
    ("dual-512-primary-crc", "the 512-byte primary header's CRC wrong",
     dual_case(after=lambda img, g: D.break_header(img, N, D.SMALL, "primary")),
     writers("the 512-byte GPT's primary header at byte 512 is invalid", "header CRC",
             code="dual.header")),
    ("dual-4k-backup-crc", "the 4096-byte backup header's CRC wrong",
     dual_case(after=lambda img, g: D.break_header(img, N, D.LARGE, "backup")),
     writers("the 4096-byte GPT's backup header at byte %d is invalid" % (N - D.LARGE))),
    ("dual-sgdisk-4k", "what sgdisk leaves after an edit at 4096: the 512-byte headers zeroed",
     dual_case(after=lambda img, g: D.drop_small_headers(img, N)),
     writers("the 512-byte GPT of this dual-GPT disk is gone",
             "entry array at byte 24576 remains", code="dual.half_gone") +
     [("check", [], 2, ["dual.pmbr_size", "size %d fits 4096-byte sectors only" % (N4K - 1)])]),
    ("dual-parted-512", "what parted leaves after an edit at 512: 512-byte arrays at LBA 2 and "
     "the end, over the 4096-byte headers",
     dual_case(after=lambda img, g: D.small_at_usual_places(img, N, g)),
     writers("the 4096-byte GPT of this dual-GPT disk is gone",
             "entry array at byte %d remains" % (N - D.LARGE - GEO["array_bytes"]),
             "the 512-byte GPT's primary entry array (bytes 1024..17407) overlaps the "
             "4096-byte GPT's primary header (bytes 4096..4187)")),
    ("dual-ovmf-512-primary", "OVMF's restore of a damaged 512-byte primary: its array at LBA 2",
     dual_case(after=lambda img, g: (D.break_header(img, N, D.SMALL, "primary"),
                                     D.edk2_restore(img, N, D.SMALL, "primary"))),
     writers("the 4096-byte GPT's primary header at byte 4096 is invalid", code="dual.overlap") +
     [("check", [], 2, ["the 512-byte GPT's primary entry array (bytes 1024..17407) overlaps the "
                        "4096-byte GPT's primary header (bytes 4096..4187)"])]),
    ("dual-ovmf-4k-backup", "OVMF's restore of a damaged 4096-byte backup: header block and "
     "array over the 512-byte backup",
     dual_case(after=lambda img, g: (D.break_header(img, N, D.LARGE, "backup"),
                                     D.edk2_restore(img, N, D.LARGE, "backup"))),
     writers("the 512-byte GPT's backup header at byte %d is invalid" % (N - D.SMALL))),
    ("dual-ovmf-4k-primary", "OVMF's restore of a damaged 4096-byte primary: harmless",
     dual_case(after=lambda img, g: (D.break_header(img, N, D.LARGE, "primary"),
                                     D.edk2_restore(img, N, D.LARGE, "primary"))), CONTROL),
    ("dual-ovmf-512-backup", "OVMF's restore of a damaged 512-byte backup: harmless",
     dual_case(after=lambda img, g: (D.break_header(img, N, D.SMALL, "backup"),
                                     D.edk2_restore(img, N, D.SMALL, "backup"))), CONTROL),
    ("dual-mismatch-end", "partition 3 ends 1 MiB earlier in the 512-byte GPT",
     dual_case(entries=small_only(set_field(2, G.ENTRY_LAST_OFF, "<Q",
                                            (GEO["end_usable_byte"] - MIB) // D.SMALL - 1))),
     writers("partition 3 ends at byte %d in one and byte %d in the other"
             % (GEO["end_usable_byte"] - MIB - 1, GEO["end_usable_byte"] - 1),
             code="dual.mismatch")),
    ("dual-mismatch-name", "partition 2 has another name in the 512-byte GPT",
     dual_case(entries=small_only(set_bytes(1, 56, "boot".encode("utf-16-le") + bytes(20)))),
     writers("partition 2 is named 'boot' in one and 'EFI system' in the other")),
    ("dual-mismatch-type", "partition 3 has another type in the 512-byte GPT",
     dual_case(entries=small_only(set_bytes(2, 0, G.BIOS_BOOT_TYPE))),
     writers("partition 3 has type 21686148-6449-6E6F-744E-656564454649 in one")),
    ("dual-mismatch-guid", "partition 1 has another unique GUID in the 512-byte GPT",
     dual_case(entries=small_only(set_bytes(0, 16, G.part_guid(7)))),
     writers("partition 1 has GUID")),
    ("dual-mismatch-attributes", "partition 2 has attribute bit 0 set in the 512-byte GPT only",
     dual_case(entries=small_only(set_field(1, 48, "<Q", 1))),
     writers("partition 2 has attributes 0x1 in one and 0x0 in the other")),
    ("dual-mismatch-extra", "a fourth partition in the 512-byte GPT only",
     dual_case(entries=extra_partition),
     writers("partition 4 ('extra') is in the 512-byte GPT only")),
    ("dual-unaligned", "partition 3 ends 512 bytes into a 4 KiB block at 512 bytes per sector",
     dual_case(entries=small_only(set_field(2, G.ENTRY_LAST_OFF, "<Q",
                                            GEO["end_usable_byte"] // D.SMALL - 2))),
     writers("partition 3 (bytes %d..%d) is not whole 4096-byte blocks"
             % (6 * MIB, GEO["end_usable_byte"] - D.SMALL - 1), code="dual.unaligned")),
    ("dual-pmbr-4k", "the protective MBR sized for 4096-byte sectors only",
     dual_case(pmbr=N4K - 1),
     [("check", [], 1, ["dual.pmbr_size", "size %d fits 4096-byte sectors only" % (N4K - 1)]),
      ("install", ["--dry-run"], 0, ["dry run"])]),
    ("dual-pmbr-512", "the protective MBR sized for 512-byte sectors only",
     dual_case(pmbr=N512 - 1),
     writers("protective MBR entry 1: size %d sectors" % (N512 - 1)) +
     [("check", [], 2, ["size %d fits 512-byte sectors only" % (N512 - 1)])]),
    ("dual-stage2-off-4k", "stage1 points at stage2 512 bytes past a 4 KiB boundary",
     dual_case(after=stage1_at(MIB + 512)),
     [("check", S512, 2, ["boot.stage2_offset", "not a multiple of 4096"])]),
]

DUAL_LOOP_CASES = [
    ("loop-dual-control-512", "the valid dual-GPT disk on a 512-byte loop device", dual_case(),
     512, [("check", [], 0, ["both GPTs valid"]), ("install", ["--dry-run"], 0, ["dry run"])]),
    ("loop-dual-control-4k", "the valid dual-GPT disk on a 4Kn loop device", dual_case(),
     4096, [("check", [], 0, ["both GPTs valid"]), ("install", ["--dry-run"], 0, ["dry run"])]),
    ("loop-dual-sgdisk-4k-on-512", "the 512-byte GPT dropped, seen on a 512-byte loop device",
     dual_case(after=lambda img, g: D.drop_small_headers(img, N)), 512,
     [("install", [], 2, ["the 512-byte GPT of this dual-GPT disk is gone"]),
      ("check", [], 2, ["dual.half_gone"])]),
]
