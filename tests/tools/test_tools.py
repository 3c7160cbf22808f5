#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The installer on image files (no root needed): mocked topologies, GPT worked numbers, FAT type
choice, install/restore/dry-run safety, the backup file on the disk before the image's first
write (strace), every refusal with its message and exit code, and check on damaged tables. Run
by `make test-tools` (suite 40)."""
import hashlib
import os
import struct
import subprocess
import sys
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import paths, stages, strace, uki  # noqa: E402
from lib import bootinfo as B  # noqa: E402
from lib.disk import read_at, sha256 as sha, sparse, write_at  # noqa: E402
from lib.fat import read_bpb as fat_bpb  # noqa: E402
from lib.gpt import (fix_header_crc, read_entries as gpt_entries,  # noqa: E402
                     read_header as gpt_header, rewrite_crcs as rewrite_gpt_crcs)
from lib.mbr import read_entries as mbr_entries  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

MIB = 1 << 20
ESP_GUID = bytes.fromhex("28732AC11FF8D211BA4B00A0C93EC93B")
BIOS_GUID = b"Hah!IdontNeedEFI"

# name: (flags, lss, aoff, grain in sectors, GPT starts, MBR starts) for a 300 MiB disk.
# docs/FIRMWARE.md "Alignment": 512n/512e -> 2048, 4Kn -> 256, offset-by-one -> 7 mod 2048 (LBA 2055
# after the GPT's 34 reserved sectors), io_opt 196608 -> lcm(192 KiB, 1 MiB) = 3 MiB, the bogus
# 33553920 is ignored.
MOCKS = {
    "512n": ([], 512, 0, 2048, [2048, 4096, 536576], [2048, 534528]),
    "512e": (["--physical-size", "4096"], 512, 0, 2048, [2048, 4096, 536576], [2048, 534528]),
    "4Kn": (["--sector-size", "4096"], 4096, 0, 256, [256, 512, 67072], [256, 66816]),
    "offset-by-one": (["--physical-size", "4096", "--align-offset", "3584"], 512, 3584, 2048,
                      [2055, 4103, 536583], [2055, 534535]),
    "io_opt-196608": (["--io-opt", "196608"], 512, 0, 6144, [6144, 12288, 546816], [6144, 540672]),
    "io_opt-bogus": (["--io-opt", "33553920"], 512, 0, 2048, [2048, 4096, 536576], [2048, 534528]),
}


def flags_for(lss, extra):
    return (["--sector-size", str(lss)] if "--sector-size" not in extra else []) + extra


def t_cli(s):
    for cmd in ("info", "check", "partition", "install", "add", "mkimage", "restore"):
        s.anysector(cmd, "--help", has=["usage: anysector " + cmd])
    s.anysector("--help", has=["commands:", "mkimage"])
    s.anysector(rc=64)
    s.anysector("frobnicate", rc=64, has=["unknown command 'frobnicate'"])
    s.anysector("info", rc=64, has=["info needs exactly one TARGET"])
    s.anysector("info", "--bogus", "x", rc=64)
    s.anysector("info", s.path("missing.img"), rc=2, has=["No such file"])
    img = s.path("cli.img")
    sparse(img, 8 * MIB)
    s.anysector("partition", img, "--label", "zfs", rc=64, has=["--label zfs: use gpt or mbr"])
    s.anysector("partition", img, "--sector-size", "1000", rc=64,
                has=["--sector-size 1000: must be a power of two"])
    s.anysector("partition", img, "--physical-size", "4096", "--align-offset", "100", rc=64,
                has=["alignment offset 100 must be a multiple of the logical sector size"])
    s.anysector("mkimage", s.path("x.img"), rc=64, has=["--size is required"])
    s.anysector("mkimage", s.path("x.img"), "--size", "1000", rc=64,
                has=["not a whole number of 512-byte sectors"])
    s.anysector("add", img, rc=64, has=["--kernel is required"])
    s.anysector("add", img, "--kernel", "a", "--cmdline", "x", "--cmdline", "y", rc=64,
                has=["--cmdline given twice"])
    s.anysector("partition", img, "--dos-compat", rc=64,
                has=["--dos-compat is for --label mbr only"])


def t_mocked_topologies(s):
    """Partition starts for every mocked drive, GPT and MBR, against docs/FIRMWARE.md
    "Alignment"."""
    img = s.path("mock.img")
    for name, (extra, lss, aoff, grain, gpt_starts, mbr_starts) in MOCKS.items():
        for label, want in (("gpt", gpt_starts), ("mbr", mbr_starts)):
            sparse(img, 300 * MIB)
            flags = flags_for(lss, extra)
            s.anysector("partition", img, "--label", label, *flags)
            j = s.json("info", img, *flags)
            starts = [p["start"] for p in j.get("partitions", [])]
            s.eq(starts, want, "%s %s starts" % (name, label))
            for p in j.get("partitions", []):
                s.check((p["start"] * lss - aoff) % (grain * lss) == 0,
                        "%s %s partition %d start %d not aligned" % (name, label, p["number"],
                                                                     p["start"]))
                s.check(p["physically_aligned"] and p["grain_aligned"],
                        "%s: info says partition %d is misaligned" % (name, p["number"]))
            last = j["partitions"][-1]
            s.check(((last["end"] + 1) * lss - aoff) % (grain * lss) == 0,
                    "%s %s: the last partition's end is not aligned down" % (name, label))
            s.anysector("check", img, *flags, rc=0)


def big_image(s, name, size):
    """A sparse image in the work directory, or in /dev/shm when this filesystem cannot hold it
    (ext4 stops at 16 TiB)."""
    p = s.path(name)
    try:
        sparse(p, size)
        return p
    except Skip:
        if not os.path.isdir("/dev/shm"):
            raise
        p = os.path.join("/dev/shm", "anysector-test-%d-%s" % (os.getpid(), name))
        sparse(p, size)
        s.cleanup.append(p)
        return p


def t_gpt_worked_numbers(s):
    """GPT fields for 64 MiB, 3 TB and 20 TB at 512 and 4096 bytes per sector: FirstUsable =
    2 + ceil(16384/LSS), LastUsable = N - 2 - ceil(16384/LSS), backup header N - 1, backup array
    N - 1 - ceil(16384/LSS), protective MBR size min(N - 1, 2^32 - 1). Read back in Python."""
    cases = [(64 * MIB, 512), (64 * MIB, 4096), (3 * 10**12, 512), (3 * 10**12, 4096),
             (20 * 10**12, 512), (20 * 10**12, 4096)]
    worked = {  # (size, lss): (N, FirstUsable, LastUsable, backup array LBA, PMBR size)
        (64 * MIB, 512): (131072, 34, 131038, 131039, 131071),
        (64 * MIB, 4096): (16384, 6, 16378, 16379, 16383),
        (3 * 10**12, 512): (5859375000, 34, 5859374966, 5859374967, 0xFFFFFFFF),
        (3 * 10**12, 4096): (732421875, 6, 732421869, 732421870, 732421874),
        (20 * 10**12, 512): (39062500000, 34, 39062499966, 39062499967, 0xFFFFFFFF),
        (20 * 10**12, 4096): (4882812500, 6, 4882812494, 4882812495, 0xFFFFFFFF),
    }
    for size, lss in cases:
        n, fu, lu, barr, pmbr = worked[(size, lss)]
        img = big_image(s, "gpt-%d-%d.img" % (size, lss), size)
        what = "%d bytes at %d" % (size, lss)
        s.anysector("partition", img, "--sector-size", lss, "--no-rest")
        p = gpt_header(img, lss, 1)
        b = gpt_header(img, lss, n - 1)
        s.check(p["sig"] == b"EFI PART" and p["crc_ok"], what + ": primary header invalid")
        s.check(b["sig"] == b"EFI PART" and b["crc_ok"], what + ": backup header invalid")
        s.eq((p["my"], p["alt"], p["first_usable"], p["last_usable"], p["entries_lba"]),
             (1, n - 1, fu, lu, 2), what + ": primary MyLBA/Alternate/FirstUsable/LastUsable/array")
        s.eq((b["my"], b["alt"], b["first_usable"], b["last_usable"], b["entries_lba"]),
             (n - 1, 1, fu, lu, barr), what + ": backup MyLBA/Alternate/usable/array")
        ents, ok = gpt_entries(img, lss, p)
        s.check(ok, what + ": primary array CRC")
        ents_b, ok_b = gpt_entries(img, lss, b)
        s.check(ok_b and ents == ents_b, what + ": backup array differs")
        parts, raw = mbr_entries(img)
        s.eq([(e["type"], e["status"], e["first"], e["size"], bytes(e["chs_first"]))
              for e in parts], [(0xEE, 0, 1, pmbr, b"\x00\x02\x00")], what + ": protective MBR")
        j = s.json("info", img)
        s.eq((j["topology"]["logical_sector_size"], j["gpt"]["last_usable"],
              j["gpt"]["backup_entries_lba"], j["mbr"]["protective_sectors"]),
             (lss, lu, barr, pmbr), what + ": info --json")
        s.anysector("check", img, rc=0)
        os.unlink(img)


def t_mbr_limit(s):
    """MBR fields stop at LBA 2^32 - 1: 2 TiB at 512, 16 TiB at 4096."""
    for size, lss, ok in ((3 * 10**12, 512, False), (3 * 10**12, 4096, True),
                          (20 * 10**12, 512, False), (20 * 10**12, 4096, False),
                          (2**32 * 512, 512, True), ((2**32 + 1) * 512, 512, False)):
        img = big_image(s, "mbr-%d-%d.img" % (size, lss), size)
        if ok:
            s.anysector("partition", img, "--label", "mbr", "--sector-size", lss, "--no-rest")
            parts, _ = mbr_entries(img)
            s.check(parts and parts[0]["type"] == 0xEF and parts[0]["status"] == 0x80,
                    "MBR %d at %d: no active 0xEF partition" % (size, lss))
        else:
            s.anysector("partition", img, "--label", "mbr", "--sector-size", lss, rc=2,
                        has=["an MBR cannot address this disk", "use --label gpt"])
            s.check(read_at(img, 0, 512) == bytes(512), "refused MBR wrote LBA 0")
        os.unlink(img)


def extract(img, off, size, out):
    """Copies [off, off+size) of img into a sparse file (for fsck.fat)."""
    with open(img, "rb") as f, open(out, "wb") as g:
        g.truncate(size)
        f.seek(off)
        done = 0
        while done < size:
            chunk = f.read(min(MIB, size - done))
            if chunk.strip(b"\0"):
                g.seek(done)
                g.write(chunk)
            done += len(chunk)


def t_fat_types(s):
    """FAT32 only with >= 65,525 clusters (edk2), else FAT16/FAT12; -S = LSS, -h = start."""
    img = s.path("fat.img")
    for lss, esp, want in ((4096, "260M", 32), (4096, "200M", 16), (4096, "8M", 12),
                           (512, "260M", 32), (512, "32M", 16), (512, "1M", 12)):
        sparse(img, 300 * MIB)
        s.anysector("partition", img, "--sector-size", lss, "--esp-size", esp, "--no-rest")
        j = s.json("info", img)
        espp = [p for p in j["partitions"] if p["type_name"] == "EFI system"][0]
        bpb = fat_bpb(img, espp["start"] * lss)
        what = "ESP %s at %d" % (esp, lss)
        s.eq(bpb["type"], want, what + ": FAT type")
        s.eq((bpb["bps"], bpb["hidden"]), (lss, espp["start"]), what + ": bytes/sector, hidden")
        if want == 32:
            s.check(bpb["clusters"] >= 65525, what + ": FAT32 with too few clusters")
        if have("fsck.fat"):
            out = s.path("esp.fat")
            extract(img, espp["start"] * lss, espp["size_bytes"], out)
            s.fat_clean(out, what)
            os.unlink(out)


def t_dos_compat(s):
    """--dos-compat: LBA 63 and cylinders, with a warning that names the misalignment."""
    img = s.path("dos.img")
    sparse(img, 300 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat", "--physical-size", "4096",
                has=["--dos-compat: partition 1 starts at LBA 63 (byte 32256), 3584 bytes into a "
                     "4096-byte physical sector", "aligned: LBA 2048"])
    parts, _ = mbr_entries(img)
    s.eq([(p["first"], (p["first"] + p["size"]) % 16065) for p in parts], [(63, 0), (16065 * 34, 0)],
         "dos-compat starts and cylinder ends")
    sparse(img, 300 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat",
                has=["partition 1 starts at LBA 63 (byte 32256), not on a 1.0 MiB boundary"])
    # The same LBA 63 is physically aligned on an offset-by-one drive: only the 1 MiB note.
    sparse(img, 300 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat", "--physical-size", "4096",
                "--align-offset", "3584", has=["partition 1 starts at LBA 63 (byte 32256), not on "
                                               "a 1.0 MiB boundary (it is physically aligned"],
                lacks=["partition 1 starts at LBA 63 (byte 32256), 3584"])
    # stage2 measured against the 31744 bytes before LBA 63: 31744 fit, a byte more does not
    big = s.path("gapstages")
    os.makedirs(big, exist_ok=True)
    for name in ("stage1.bin", "BOOTX64.EFI"):
        open(os.path.join(big, name), "wb").write(open(os.path.join(s.stages, name), "rb").read())
    os.environ["ANYSECTOR_STAGES"] = big
    try:
        for size in (31744, 31745):
            open(os.path.join(big, "stage2.bin"), "wb").write(bytes(size))
            want = ("--dos-compat: stage2 (%d bytes, %s/stage2.bin) does not fit the 31744 bytes "
                    "between the MBR and partition 1 at LBA 63" % (size, big))
            sparse(img, 300 * MIB)
            s.anysector("partition", img, "--label", "mbr", "--dos-compat", "--dry-run",
                        **({"has": [want]} if size > 31744 else {"lacks": ["does not fit"]}))
    finally:
        os.environ["ANYSECTOR_STAGES"] = s.stages


def t_check_misaligned(s):
    """The article's disk (LBA 63 on 4 KiB physical sectors) and LBA 2048 on an offset-by-one
    drive: check warns, names the aligned start, exits 1."""
    img = s.path("mis.img")
    sparse(img, 300 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat", "--no-rest")
    s.anysector("check", img, "--sector-size", "512", "--physical-size", "4096", rc=1,
                has=["partition 1 starts at LBA 63 (byte 32256), 3584 bytes into a 4096-byte "
                     "physical sector", "it should start at LBA 64", "align.partition"])
    j = s.json("check", img, "--sector-size", "512", "--physical-size", "4096", rc=1)
    s.eq([(p["physically_aligned"], p["physically_aligned_start"]) for p in j["partitions"]],
         [(False, 64)], "check --json alignment")
    s.eq(j.get("status"), 1, "check --json status")
    s.anysector("check", img, "--sector-size", "512", rc=0)  # 512n: LBA 63 is physically fine
    sparse(img, 300 * MIB)
    s.anysector("partition", img)  # starts at 2048
    s.anysector("check", img, "--physical-size", "4096", "--align-offset", "3584", rc=1,
                has=["partition 1 starts at LBA 2048 (byte 1048576), 512 bytes into a 4096-byte "
                     "physical sector", "should start at LBA 2055"])


def new_gpt(s, name, lss=512, size=16 * MIB, install=True):
    img = s.path(name)
    sparse(img, size)
    s.anysector("partition", img, "--sector-size", lss)
    if install:
        s.anysector("install", img, "--backup", img + ".bak")
    return img


def t_gpt_rules(s):
    """check on a GPT with one rule broken in both headers: the exact code, exit 2."""
    lss, n = 512, 131072

    def both(img, fn):
        for lba in (1, n - 1):
            raw = bytearray(read_at(img, lba * lss, lss))
            fn(raw, lba)
            fix_header_crc(raw)
            write_at(img, lba * lss, bytes(raw))

    header_rules = {
        "gpt.revision": lambda r, lba: struct.pack_into("<I", r, 8, 0x00020000),
        "gpt.header_size": lambda r, lba: struct.pack_into("<I", r, 12, 600),
        "gpt.my_lba": lambda r, lba: struct.pack_into("<Q", r, 24, lba + 5),
        "gpt.alternate_lba": lambda r, lba: struct.pack_into("<Q", r, 32, n + 10),
        "gpt.usable_range": lambda r, lba: struct.pack_into("<QQ", r, 40, 5000, 4000),
        "gpt.entry_size": lambda r, lba: struct.pack_into("<I", r, 84, 100),
        "gpt.array_size": lambda r, lba: struct.pack_into("<I", r, 80, 0x10000000),
        "gpt.array_location": lambda r, lba: struct.pack_into("<Q", r, 72, 3000),
        "gpt.array_crc": lambda r, lba: struct.pack_into("<I", r, 88, 0x12345678),
    }
    for code, fn in header_rules.items():
        img = new_gpt(s, "rule.img", size=64 * MIB, install=False)
        both(img, fn)
        s.anysector("check", img, "--sector-size", lss, rc=2, has=[code])
    img = new_gpt(s, "rule.img", size=64 * MIB, install=False)
    for lba in (1, n - 1):
        write_at(img, lba * lss + 16, b"\xde\xad\xbe\xef")
    s.anysector("check", img, "--sector-size", lss, rc=2, has=["gpt.header_crc"])
    img = new_gpt(s, "rule.img", size=64 * MIB, install=False)
    for lba in (1, n - 1):
        write_at(img, lba * lss, b"NOT PART")
    s.anysector("check", img, "--sector-size", lss, rc=2, has=["gpt.signature"])

    # Entry rules: change the entry in both arrays, fix both CRCs.
    def entries(fn):
        img = new_gpt(s, "rule.img", size=64 * MIB, install=False)
        for lba in (1, n - 1):
            h = gpt_header(img, lss, lba)
            raw = bytearray(read_at(img, h["entries_lba"] * lss, 128 * 128))
            fn(raw)
            write_at(img, h["entries_lba"] * lss, bytes(raw))
            rewrite_gpt_crcs(img, lss, lba)
        return img
    img = entries(lambda r: struct.pack_into("<QQ", r, 128 + 32, 4096, 200000))
    s.anysector("check", img, "--sector-size", lss, rc=2, has=["gpt.entry_range"])
    img = entries(lambda r: struct.pack_into("<QQ", r, 128 + 32, 9000, 8000))
    s.anysector("check", img, "--sector-size", lss, rc=2, has=["gpt.entry_order"])
    img = entries(lambda r: struct.pack_into("<QQ", r, 128 + 32, 3000, 9000))  # over partition 1
    s.anysector("check", img, "--sector-size", lss, rc=2, has=["gpt.overlap"])

    # A nonzero reserved field is only a warning; a backup that disagrees with the primary is an
    # error (install refuses to build on it, so check fails too).
    img = new_gpt(s, "rule.img", size=64 * MIB, install=False)
    both(img, lambda r, lba: struct.pack_into("<I", r, 20, 1))
    s.anysector("check", img, rc=1, has=["gpt.reserved"])
    img = new_gpt(s, "rule.img", size=64 * MIB, install=False)
    raw = bytearray(read_at(img, (n - 1) * lss, lss))
    raw[56] ^= 0xFF
    fix_header_crc(raw)
    write_at(img, (n - 1) * lss, bytes(raw))
    s.anysector("check", img, rc=2, has=["gpt.backup_mismatch", "disk GUID"])
    s.anysector("install", img, "--backup", img + ".b", rc=2,
                has=["cannot validate the partition table", "differs from the primary"])

    # The primary alone broken: the backup is used, check still fails.
    img = new_gpt(s, "rule.img", install=False)
    write_at(img, lss + 16, b"\xde\xad\xbe\xef")
    s.anysector("check", img, rc=2, has=["gpt.header_crc", "gpt.using_backup"])
    # A protective MBR that breaks the spec.
    img = new_gpt(s, "rule.img", install=False)
    write_at(img, 446 + 8, struct.pack("<I", 2))
    s.anysector("check", img, rc=2, has=["pmbr.start_lba"])


def t_mbr_rules(s):
    img = s.path("mbrrule.img")
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--esp-size", "16M")
    write_at(img, 446 + 16 + 8, struct.pack("<I", 20000))  # partition 2 into partition 1
    s.anysector("check", img, "--sector-size", "512", rc=2, has=["mbr.overlap"])
    s.anysector("install", img, "--sector-size", "512", rc=2,
                has=["cannot validate the partition table"])
    write_at(img, 446 + 16 + 8, struct.pack("<II", 4294967000, 4000))
    s.anysector("check", img, "--sector-size", "512", rc=2, has=["mbr.lba32"])
    s.anysector("info", img, rc=64, has=["give --sector-size"])


def t_detection(s):
    img = s.path("det.img")
    sparse(img, 64 * MIB)
    j = s.json("info", img)
    s.eq((j["label"], j["topology"]["logical_sector_size"]), ("none", 512), "blank image")
    s.anysector("check", img, rc=2, has=["has no partition table"])
    s.anysector("partition", img, "--sector-size", "4096")
    j = s.json("info", img)
    s.eq((j["label"], j["topology"]["logical_sector_size"]), ("gpt", 4096), "detected 4Kn GPT")
    s.check("GPT header at 4096-byte sectors" in j["topology"]["source"], "topology source")
    # the primary header gone: found through the backup at the last LBA
    write_at(img, 4096, bytes(4096))
    j = s.json("info", img)
    s.eq((j["topology"]["logical_sector_size"], j["gpt"]["used_backup"]), (4096, True),
         "detected from the backup")
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--label", "mbr")
    # an MBR image anysector made tells its size by its FAT (tests/tools/test_inputs.py has
    # every way); one whose boot partition holds nothing does not
    s.anysector("info", img, rc=0, has=["from the FAT boot sector of MBR partition 1"])
    s.anysector("partition", img, "--label", "mbr", "--sector-size", "4096", "--force")
    write_at(img, 256 * 4096, bytes(4096))
    s.anysector("info", img, rc=64, has=["holds an MBR partition table", "give --sector-size"])
    s.anysector("info", img, "--sector-size", "4096", rc=0, has=["label:     mbr"])


def lba0_fields(img):
    raw = read_at(img, 0, 512)
    return raw, stages.stage1_target(raw)


def t_install_layouts(s):
    """stage2 at a whole logical and physical sector; stage1 patched; identity in stage2; LBA 0
    keeps the table, signature, 0x55AA and 0xDA..0xDF; install -> restore is byte-identical."""
    cases = [
        ("gpt", [], 512, 2048 * 512),
        ("gpt", ["--sector-size", "4096"], 4096, 256 * 4096),
        ("gpt", ["--physical-size", "4096", "--align-offset", "3584"], 512, 2055 * 512),
        ("mbr", [], 512, 512),
        ("mbr", ["--physical-size", "4096"], 512, 4096),
        ("mbr", ["--physical-size", "4096", "--align-offset", "3584"], 512, 3584),
        ("mbr", ["--sector-size", "4096"], 4096, 4096),
    ]
    stage1 = open(os.path.join(s.stages, "stage1.bin"), "rb").read()
    stage2 = open(os.path.join(s.stages, "stage2.bin"), "rb").read()
    for label, flags, lss, s2off in cases:
        what = "%s %s" % (label, " ".join(flags))
        img = s.path("inst.img")
        for f in (img, img + ".anysector-backup"):
            if os.path.exists(f):
                os.unlink(f)
        sparse(img, 16 * MIB)
        flags = flags_for(lss, flags)
        s.anysector("partition", img, "--label", label, *flags)
        write_at(img, B.MBR_TIMESTAMP_OFF, b"WINTS!")  # a Windows-style timestamp must survive
        if lss == 4096:
            write_at(img, 3000, b"tail of a 4 KiB LBA 0")
        before = sha(img)
        before0 = read_at(img, 0, lss)
        s.anysector("install", img, "--dry-run", *flags, has=["dry run:", "nothing was written"])
        s.eq(sha(img), before, what + ": --dry-run changed the image")
        s.check(not os.path.exists(img + ".anysector-backup"), what + ": dry run made a backup")
        s.anysector("install", img, *flags, has=["saved the original bytes", "stage2 in the"])
        raw0, (off, length) = lba0_fields(img)
        after0 = read_at(img, 0, lss)
        s.eq((off, length), (s2off, len(stage2)), what + ": stage1 patch block")
        s.check(off % lss == 0 and (off - (3584 if "3584" in flags else 0)) %
                max(lss, 4096 if "4096" in flags else lss) == 0,
                what + ": stage2 offset not on a physical sector")
        ts, ts_end = B.MBR_TIMESTAMP_OFF, B.MBR_TIMESTAMP_OFF + B.MBR_TIMESTAMP_LEN
        code, rec = B.MBR_BOOTCODE_SIZE, B.MBR_RECORD_SIZE
        s.eq(raw0[ts:ts_end], b"WINTS!", what + ": timestamp bytes")
        s.eq(raw0[code:rec], before0[code:rec], what + ": signature/table/0x55AA")
        s.eq(after0[rec:], before0[rec:], what + ": rest of LBA 0")
        s.eq(raw0[:ts], stage1[:ts], what + ": stage1 code")
        s.eq(raw0[ts_end:B.STAGE1_MAGIC_OFF], stage1[ts_end:B.STAGE1_MAGIC_OFF],
             what + ": stage1 code after the timestamp")
        s2 = read_at(img, off, length)
        s.eq(s2[B.STAGE2_HDR_SIZE:], stage2[B.STAGE2_HDR_SIZE:], what + ": stage2 body")
        kind = stages.stage2_field(s2, B.STAGE2_KIND_OFF)
        s.eq(stages.stage2_field(s2, B.STAGE2_CRC_OFF), stages.stage2_crc(s2),
             what + ": stage2 CRC")
        if label == "gpt":
            h = gpt_header(img, lss, 1)
            ents, _ = gpt_entries(img, lss, h)
            esp = [e for e in ents if e["type"] == ESP_GUID][0]
            guid = s2[B.STAGE2_PART_GUID_OFF:B.STAGE2_PART_GUID_OFF + 16]
            s.eq((kind, guid), (1, esp["unique"]), what + ": stage2 identity")
        else:
            sig = struct.unpack_from("<I", raw0, B.MBR_DISK_SIG_OFF)[0]
            s.eq((kind, (stages.stage2_field(s2, B.STAGE2_MBR_SIG_OFF),
                         stages.stage2_field(s2, B.STAGE2_MBR_PART_OFF))), (2, (sig, 1)),
                 what + ": stage2 identity")
        s.eq(stages.config_path(s2), "/anysector.cfg", what + ": config path")
        s.anysector("check", img, *flags, rc=1, has=["stage2 intact", "BOOTX64.EFI present"])
        s.anysector("restore", img, img + ".anysector-backup", has=["restored"])
        s.eq(sha(img), before, what + ": restore is not byte-identical")


def check_backup_first(s, what, ops, img, bak, lba0_last):
    """The order of a journalled change of img (strace ops, lib.strace): the backup file bak
    (tools/plan/journal.c) created, written, fsync'd after its last write and its directory fsync'd,
    all before the first write to img, and its bytes in place the ones written; every write to img
    followed by an fsync of img; with lba0_last, LBA 0 written last, after an fsync of every
    other write (stage1 never points at sectors that may not be on the disk)."""
    disk = [o for o in ops if o.kind == "write" and o.path == img]
    if not s.check(disk, "%s: no write to %s in the trace" % (what, img)):
        return
    first = disk[0].index
    made = [o for o in ops if o.kind == "create" and o.path == bak]
    if not s.check(made and made[0].index < first, "%s: the backup file %s was not created before "
                   "the first write to the image (call %d)" % (what, bak, first)):
        return
    writes = [o for o in ops if o.kind == "write" and o.path == bak]
    last = writes[-1].index if writes else made[0].index
    s.check(last < first, "%s: the backup file was written (call %d) after the first write to the "
            "image (call %d)" % (what, last, first))
    f = strace.synced_after(ops, bak, last)
    s.check(f and f.index < first, "%s: no fsync of the backup file %s after its last write (call "
            "%d) and before the first write to the image (call %d)" % (what, bak, last, first))
    d = strace.synced_after(ops, os.path.dirname(bak), made[0].index)
    s.check(d and d.index < first, "%s: no fsync of the backup's directory %s after its creation "
            "(call %d) and before the first write to the image (call %d)"
            % (what, os.path.dirname(bak), made[0].index, first))
    s.check(not any(w.cut for w in writes), "%s: strace cut a write to %s" % (what, bak))
    with open(bak, "rb") as f:
        kept = hashlib.sha256(f.read()).hexdigest()
    s.eq(kept, hashlib.sha256(strace.written(writes)).hexdigest(),
         "%s: sha256 of %s against the bytes written to it" % (what, bak))
    for w in disk:
        s.check(strace.synced_after(ops, img, w.index), "%s: no fsync of the image after its "
                "write at byte %s (call %d)" % (what, w.offset, w.index))
    if lba0_last:
        lba0 = [o for o in disk if o.offset == 0]
        rest = [o for o in disk if o.offset != 0]
        if s.check(lba0 and rest, "%s: no write of LBA 0 or of anything before it" % what):
            f = strace.synced_after(ops, img, rest[-1].index)
            s.check(lba0[0].index > rest[-1].index and f and f.index < lba0[0].index,
                    "%s: LBA 0 written (call %d) before the image's last other write (call %d) "
                    "was fsync'd" % (what, lba0[0].index, rest[-1].index))


def t_backup_durable(s):
    """install and add --backup on an image file under strace: the backup file is on the disk
    (file and directory fsync'd) before the image's first byte changes, and the image's writes
    are fsync'd, LBA 0's last (check_backup_first)."""
    if not have("strace"):
        raise Skip("strace is not installed")
    k = s.path("vmlinuz-6.1.0-durable")
    open(k, "wb").write(os.urandom(40000))
    for label, lss in (("gpt", 512), ("mbr", 4096)):
        what = "install %s %d" % (label, lss)
        img = os.path.realpath(s.path("durable-%s.img" % label))  # strace's fd paths are real
        bak = img + ".bak"
        sparse(img, 16 * MIB)
        s.anysector("partition", img, "--label", label, "--sector-size", lss)
        ops = strace.traced(s, "install", img, "--sector-size", lss, "--backup", bak,
                            has=["saved the original bytes"])
        check_backup_first(s, what, ops, img, bak, True)
        ops = strace.traced(s, "add", img, "--sector-size", lss, "--kernel", k, "--name", "d",
                            "--backup", img + ".addbak")
        check_backup_first(s, "add " + what[8:], ops, img, img + ".addbak", False)


def t_reinstall_and_backups(s):
    img = new_gpt(s, "re.img")
    # a second install overwrites our own stage2 without --force; the default backup name moves on
    s.anysector("install", img, has=["re.img.anysector-backup"])
    s.check(os.path.exists(img + ".anysector-backup"), "default backup missing")
    s.anysector("install", img, has=["re.img.anysector-backup.1"])
    s.anysector("install", img, "--backup", img + ".bak", rc=3,
                has=["the backup file", "exists already"])


def t_foreign_gap(s):
    """Data that is not ours where stage2 goes: refused (exit 3), --force overwrites."""
    for label, flags, off in (("gpt", [], 2048 * 512), ("mbr", [], 512)):
        img = s.path("foreign.img")
        sparse(img, 16 * MIB)
        s.anysector("partition", img, "--label", label, "--sector-size", "512")
        write_at(img, off + 1000, b"GRUB core.img was here")
        before = sha(img)
        s.anysector("install", img, "--sector-size", "512", "--backup", img + ".b1", rc=3,
                    has=["holds data that is not anysector's (byte %d is 0x47)" % (off + 1000),
                         "use --force"])
        s.eq(sha(img), before, label + ": refused install changed the image")
        s.check(not os.path.exists(img + ".b1"), "refused install left a backup")
        s.anysector("install", img, "--sector-size", "512", "--force", "--backup", img + ".b2",
                    has=["--force: overwriting data"])
        s.anysector("restore", img, img + ".b2")
        s.eq(sha(img), before, label + ": restore after --force")
        for f in (img + ".b2",):
            os.unlink(f)


def t_stage2_slots(s):
    """Two stage2 slots (region start, aligned middle): each install writes the slot the current
    stage1 does not load and switches LBA 0 to it, so the previous stage2 stays whole until then;
    foreign data in the other slot is still refused; a region with room for one copy only (the
    legacy gap) is written in place with a warning."""
    img = new_gpt(s, "slots.img", install=False)
    a, b = 2048 * 512, 3072 * 512           # BIOS boot partition LBA 2048..4095
    stage2 = open(os.path.join(s.stages, "stage2.bin"), "rb").read()
    for n, want in enumerate((a, b, a)):
        s.anysector("install", img, "--backup", img + ".b%d" % n,
                    has=["slot %s of 2" % ("A" if want == a else "B")],
                    lacks=["not crash-safe", "one copy"])
        _, (off, length) = lba0_fields(img)
        s.eq(off, want, "install %d: stage1 points at slot" % n)
        s.eq(read_at(img, off + B.STAGE2_HDR_SIZE, length - B.STAGE2_HDR_SIZE),
             stage2[B.STAGE2_HDR_SIZE:], "install %d: stage2" % n)
        if n:
            other = b if want == a else a
            s.eq(read_at(img, other + B.STAGE2_MAGIC_OFF, 8), stages.STAGE2_MAGIC,
                 "install %d: the previous stage2 kept" % n)
        s.anysector("check", img, rc=1, has=["stage2 intact"])
    # slot B at a whole physical sector on 512e, offset-by-one and 4Kn disks, GPT and MBR
    for label, flags, lss, aoff in (
            ("gpt", ["--physical-size", "4096"], 512, 0),
            ("mbr", ["--physical-size", "4096", "--align-offset", "3584"], 512, 3584),
            ("mbr", ["--sector-size", "4096"], 4096, 0)):
        img = s.path("slots-phys.img")
        sparse(img, 16 * MIB)
        flags = flags_for(lss, flags)
        s.anysector("partition", img, "--label", label, *flags)
        offs = []
        for n in range(2):
            s.anysector("install", img, *flags, "--backup", img + ".p%d" % n)
            offs.append(lba0_fields(img)[1][0])
            os.unlink(img + ".p%d" % n)
        what = "%s %s" % (label, " ".join(flags))
        s.check(offs[0] != offs[1] and all((o - aoff) % 4096 == 0 for o in offs),
                what + ": slots %s not two whole physical sectors" % offs)
        s.check(offs[1] - offs[0] >= len(stage2), what + ": slots %s overlap" % offs)
    # something else in slot B while stage1 loads slot A: refused, image untouched
    img = new_gpt(s, "slots2.img")
    write_at(img, b + 5000, b"not ours")
    before = sha(img)
    s.anysector("install", img, "--backup", img + ".b9", rc=3,
                has=["holds data that is not anysector's (byte %d is 0x6E)" % (b + 5000)])
    s.eq(sha(img), before, "refused install changed the image")
    # the legacy gap (LBA 1..62, 31,744 bytes) holds one 24,576-byte stage2 only
    img = s.path("legacy.img")
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat")
    for n in range(2):
        s.anysector("install", img, "--sector-size", "512", "--backup", img + ".l%d" % n,
                    has=["room for one copy of stage2 only", "the only slot"])
        _, (off, _) = lba0_fields(img)
        s.eq(off, 512, "legacy gap: stage2 at LBA 1")


def t_gap_build(s):
    """The legacy-gap build of stage2 (common/features.h) goes only where stage2.bin does not fit
    and it does: the LBA 63 gap, with the warning naming what it leaves out and check saying so;
    a 1 MiB gap gets stage2.bin; a stage2-gap.bin without the gap build's flag is refused."""
    d = s.path("gapbuild-stages")
    stages.write_placeholders(d, stage2_size=40000)
    with open(os.path.join(d, "stage2-gap.bin"), "wb") as f:
        f.write(stages.placeholder_stage2(24576, B.STAGE2_FLAG_GAP_BUILD))
    left_out = ("measured boot, one-shot boots, boot counting, unified kernel images, a locked "
                "configuration: not in the legacy-gap stage2")
    img = s.path("gapbuild.img")
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat",
                lacks=["does not fit"])
    s.anysector("install", img, "--sector-size", "512", "--stages", d, "--backup", img + ".b",
                has=["holds the legacy-gap build of stage2 (24576 bytes) but not stage2.bin "
                     "(40000 bytes), which leaves out measured boot, one-shot boots, boot "
                     "counting, unified kernel images, a locked configuration"])
    off, s2 = stages.installed_stage2(img)
    s.eq((off, len(s2), stages.stage2_field(s2, B.STAGE2_FLAGS_OFF)),
         (512, 24576, B.STAGE2_FLAG_GAP_BUILD), "LBA 63 gap: the gap build at LBA 1")
    s.anysector("check", img, "--sector-size", "512", rc=None,
                has=["boot.gap_build", left_out])
    img2 = s.path("gapbuild-1m.img")
    sparse(img2, 64 * MIB)
    s.anysector("partition", img2, "--label", "mbr")
    s.anysector("install", img2, "--sector-size", "512", "--stages", d, "--backup",
                img2 + ".b", lacks=["legacy-gap build"])
    _, s2 = stages.installed_stage2(img2)
    s.eq((len(s2), stages.stage2_field(s2, B.STAGE2_FLAGS_OFF)), (40000, 0),
         "1 MiB gap: stage2.bin")
    s.anysector("check", img2, "--sector-size", "512", rc=None, lacks=[left_out])
    # no room for a boot state block in the LBA 63 gap: set-default --once is refused
    k = s.path("gapbuild-k")
    open(k, "wb").write(os.urandom(20000))
    s.anysector("add", img, "--sector-size", "512", "--kernel", k, "--name", "g")
    before = sha(img)
    s.anysector("set-default", "--once", img, "--sector-size", "512", "g", rc=3,
                has=["has no boot state block", "--boot-loader-entry=g", "nothing was changed"])
    s.eq(sha(img), before, "refused set-default --once changed the image")
    s.anysector("add", img, "--sector-size", "512", "--kernel", k, "--name", "t", "--tries", "2",
                rc=3, has=["has no boot state block", "--tries is refused"])
    s.eq(sha(img), before, "refused add --tries changed the image")
    with open(os.path.join(d, "stage2-gap.bin"), "wb") as f:
        f.write(stages.placeholder_stage2(24576))
    before = sha(img)
    s.anysector("install", img, "--sector-size", "512", "--stages", d, "--backup", img + ".c",
                rc=2, has=["stage2-gap.bin is not a sealed legacy-gap build of stage2"])
    s.eq(sha(img), before, "refused install changed the image")


GAP_UKI = ("the legacy-gap stage2 on this disk cannot boot a unified kernel image (they start "
           "under UEFI only): under BIOS ")
GAP_ONLY = "UEFI only (the legacy-gap stage2 on this disk cannot boot a unified kernel image)"


def gap_uki_inputs(s, name, gap_size=24576):
    """Placeholder stages in s.path(name + "-stages") whose stage2.bin (40000 bytes) needs more
    than the legacy gap and whose stage2-gap.bin (gap_size bytes) is a legacy-gap build, a UKI
    tiny.efi and a kernel file: (stages, uki, kernel)."""
    d = s.path(name + "-stages")
    stages.write_placeholders(d, stage2_size=40000)
    with open(os.path.join(d, "stage2-gap.bin"), "wb") as f:
        f.write(stages.placeholder_stage2(gap_size, B.STAGE2_FLAG_GAP_BUILD))
    os.makedirs(s.path(name + "-uki"), exist_ok=True)
    u = os.path.join(s.path(name + "-uki"), "tiny.efi")  # the entry's name: 'tiny'
    uki.build(u, paths.BIOS_PAYLOAD, "console=ttyS0 tiny\n",
              'PRETTY_NAME="Tiny UKI"\nID=tiny\nVERSION_ID=1.0\n', initrd=os.urandom(3000))
    k = s.path(name + "-k")
    open(k, "wb").write(os.urandom(20000))
    return d, u, k


def t_gap_uki(s):
    """Unified kernel images on a disk whose stage2 is the legacy-gap build, which boots none
    under BIOS: list shows their entries UEFI only (firmware ["uefi"]) and, like check (exit 1)
    and add, remove and set-default, says in one sentence what that stage2 leaves out and what
    it boots by default instead: another entry; nothing without a key, when the default is an
    uki entry of anysector.cfg; nothing at all (list and check exit 2) when only /EFI/Linux is
    left. A disk with stage2.bin lists the same UKI under both firmwares, quietly."""
    why = uki.missing()
    if why:
        raise Skip(why)
    if not have("mcopy"):
        raise Skip("mtools is not installed")
    d, u, k = gap_uki_inputs(s, "gapuki")
    flat = s.path("gapuki-1m.img")
    sparse(flat, 64 * MIB)
    s.anysector("partition", flat, "--label", "mbr")
    s.anysector("install", flat, "--sector-size", "512", "--stages", d, "--backup", flat + ".b")
    s.anysector("add", flat, "--sector-size", "512", "--uki", u, lacks=["legacy-gap"])
    s.anysector("list", flat, "--sector-size", "512", has=["shown    BIOS and UEFI"],
                lacks=["legacy-gap"])
    j = s.json("list", flat, "--sector-size", "512")
    s.eq((j.get("stage2_gap_build"), [e["firmware"] for e in j.get("entries", [])]),
         (False, [["bios", "uefi"]]), "stage2.bin: list --json")
    img = s.path("gapuki.img")
    sparse(img, 64 * MIB)
    topo = ("--sector-size", "512")
    s.anysector("partition", img, "--label", "mbr", "--dos-compat")
    s.anysector("install", img, *topo, "--stages", d, "--backup", img + ".b")
    s.anysector("add", img, *topo, "--kernel", k, "--name", "g")
    s.anysector("check", img, *topo, rc=None, lacks=["boot.gap_uki"])
    # an uki entry beside g: g boots by default under BIOS
    others = GAP_UKI + ("its menu shows anysector.cfg's 1 uki entry as UEFI only, and it boots "
                        "'g' by default")
    s.anysector("add", img, *topo, "--uki", u, has=[others])
    # installing the stages again (an upgrade) puts the gap build back: the same sentence
    s.anysector("install", img, *topo, "--stages", d, "--backup", img + ".b2",
                has=["warning: " + others])
    out, _ = s.anysector("list", img, *topo, has=["shown    " + GAP_ONLY,
                                                  "warning " + others])
    s.check(out.count("shown    BIOS and UEFI") == 1, "list: g under both firmwares:\n" + out)
    j = s.json("list", img, *topo)
    s.eq((j.get("stage2_gap_build"), [(e["name"], e["firmware"]) for e in j.get("entries", [])],
          [(p["level"], p["code"], p["message"]) for p in j.get("problems", [])]),
         (True, [("g", ["bios", "uefi"]), ("tiny", ["uefi"])],
          [("warning", "boot.gap_uki", others)]), "list --json on the legacy-gap disk")
    s.anysector("check", img, *topo, rc=1, has=["boot.gap_uki", others])
    # and a Type #2 entry, which that stage2 does not even list
    at = "%s@@%d" % (img, esp_offset(s, img, *topo))
    subprocess.run(["mcopy", "-i", at, u, "::/EFI/Linux/drop.efi"], env=mtools_env(),
                   check=True, capture_output=True)
    s.anysector("list", img, *topo, has=[GAP_UKI + "its menu leaves out the 1 entry of "
                                         "/EFI/Linux and shows anysector.cfg's 1 uki entry as "
                                         "UEFI only, and it boots 'g' by default"])
    # the uki entry the default: that stage2 waits for a key
    waits = GAP_UKI + ("its menu leaves out the 1 entry of /EFI/Linux and shows "
                       "anysector.cfg's 1 uki entry as UEFI only, and it waits at the menu for "
                       "a key, its default 'tiny' being one of them")
    s.anysector("set-default", img, *topo, "tiny", has=[waits])
    s.anysector("check", img, *topo, rc=1, has=[waits])
    # only /EFI/Linux left: nothing to boot under BIOS (list and check exit 2)
    s.anysector("remove", img, *topo, "g")
    s.anysector("remove", img, *topo, "tiny")
    nothing = GAP_UKI + ("its menu leaves out the 1 entry of /EFI/Linux, so it has no entry to "
                         "boot there")
    s.anysector("list", img, *topo, rc=2, has=["error   " + nothing, "shown    " + GAP_ONLY])
    s.eq(s.json("list", img, *topo, rc=2).get("status"), 2, "list --json status")
    s.anysector("check", img, *topo, rc=2, has=[nothing])


def t_mkimage_gap_uki(s):
    """mkimage --dos-compat puts the legacy-gap stage2 in the 62-sector gap and, with --uki,
    says boot.gap_uki's sentence as add --uki does on such a disk: 'g' boots by default beside
    the uki entry; with the uki entry alone that stage2 waits for a key. Without --dos-compat
    (stage2.bin in the 1 MiB gap) not a word. --dos-compat measures the stage2 of --stages."""
    why = uki.missing()
    if why:
        raise Skip(why)
    d, u, k = gap_uki_inputs(s, "mkgap")
    img = s.path("mkgap.img")
    topo = ("--sector-size", "512")
    gap = "holds the legacy-gap build of stage2 (24576 bytes) but not stage2.bin (40000 bytes)"
    others = GAP_UKI + ("its menu shows anysector.cfg's 1 uki entry as UEFI only, and it boots "
                        "'g' by default")
    s.anysector("mkimage", img, "--size", "64M", "--label", "mbr", "--dos-compat", "--stages", d,
                "--kernel", k, "--name", "g", "--uki", u, has=[gap, "warning: " + others])
    s.anysector("list", img, *topo, has=["warning " + others])
    waits = GAP_UKI + ("its menu shows anysector.cfg's 1 uki entry as UEFI only, and it waits at "
                       "the menu for a key, its default 'tiny' being one of them")
    s.anysector("mkimage", img, "--size", "64M", "--label", "mbr", "--dos-compat", "--stages", d,
                "--uki", u, "--force", has=[gap, "warning: " + waits])
    s.anysector("check", img, *topo, rc=1, has=[waits])
    s.anysector("mkimage", img, "--size", "64M", "--label", "mbr", "--stages", d, "--kernel", k,
                "--name", "g", "--uki", u, "--force", lacks=["legacy-gap"])
    # the gap build of --stages (not the default directory's) measured: 31745 bytes do not fit
    big, _, _ = gap_uki_inputs(s, "mkgap-big", gap_size=31745)
    s.anysector("mkimage", img, "--size", "64M", "--label", "mbr", "--dos-compat", "--stages",
                big, "--uki", u, "--force", rc=3,
                has=["--dos-compat: stage2 (31745 bytes, %s/stage2-gap.bin) does not fit the 31744 "
                     "bytes between the MBR and partition 1 at LBA 63" % big])


def state_copies(img, off):
    """The two 4096-byte copies of the boot state block at byte off."""
    data = read_at(img, off, 8192)
    return data[:4096], data[4096:]


def t_set_default_once(s):
    """set-default --once writes a one-shot into the copy of the boot state block that does not
    hold the state, with the next sequence number, and nothing else; check names it; a second
    one goes to the other copy; --dry-run, an unknown name and remove --once change nothing;
    restore of its backup gives back the image."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    k = s.path("once-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("once.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    s.anysector("add", img, "--kernel", k, "--name", "other")
    j = s.json("check", img, rc=0)
    line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
    s.eq(len(line), 1, "check's boot.state lines")
    off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
    c0, c1 = state_copies(img, off)
    s.eq((c0[:8], c0[0x10:0x18], c1[:8]), (b"ANYSTATE", bytes(8), b"ANYSTATE"),
         "install's empty state: copy 0 sequence 0")
    before = sha(img)
    s.anysector("set-default", "--once", "--dry-run", img, "other",
                has=["boot state block, copy 1 (sequence 1): one-shot 'other'"])
    s.anysector("set-default", "--once", img, "nosuch", rc=3, has=["no entry named 'nosuch'"])
    s.anysector("remove", "--once", img, "other", rc=64, has=["--once is for set-default only"])
    s.eq(sha(img), before, "dry run, unknown name, remove --once changed the image")
    s.anysector("set-default", "--once", "--backup", img + ".b", img, "other",
                has=["'other' boots next time only"])
    n0, n1 = state_copies(img, off)
    s.eq(n0, c0, "--once wrote copy 0, which held the state")
    s.check(b"other" in n1 and struct.unpack_from("<Q", n1, 0x10)[0] == 1,
            "copy 1 holds no one-shot 'other' with sequence 1")
    s.anysector("check", img, rc=0, has=["copy 1 (sequence 1) holds it: one-shot 'other'"])
    s.anysector("set-default", "--once", img, "good")
    m0, m1 = state_copies(img, off)
    s.eq(m1, n1, "the second --once wrote copy 1, which held the state")
    s.anysector("check", img, rc=0, has=["copy 0 (sequence 2) holds it: one-shot 'good'"])
    # the first --once's backup holds copy 1 as install left it (copy 0 is the second's)
    s.anysector("restore", img, img + ".b", "--force")
    s.check(state_copies(img, off) == (m0, c1), "restore of the first --once's backup did not "
            "give back copy 1 alone")


def state_crc(copy):
    """(the CRC32 a copy of the boot state block carries, the one its bytes give)."""
    z = bytearray(copy)
    z[0x18:0x1C] = bytes(4)
    return struct.unpack_from("<I", copy, 0x18)[0], zlib.crc32(bytes(z))


def t_state_damage(s):
    """check names a copy of the boot state block that is not whole, and why: a CRC that does
    not match (one copy: boot.state_copy, the other named as holding the state, whose records it
    shows; both: boot.state_damaged naming both reasons), only zeros, another magic, another
    format version or size, a record of an unknown type; each is a warning (exit 1), and the
    next set-default --once rewrites a damaged copy."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    k = s.path("damage-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("damage.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    s.anysector("add", img, "--kernel", k, "--name", "other")
    s.anysector("set-default", "--once", img, "other")
    j = s.json("check", img, rc=0)
    line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
    off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
    c0, c1 = state_copies(img, off)
    # copy 0 (install's empty one, sequence 0) with one byte of its records changed
    bad0 = bytearray(c0)
    bad0[0x40] ^= 0x5A
    write_at(img, off, bytes(bad0))
    got, want = state_crc(bad0)
    s.anysector("check", img, rc=1, has=[
        "copy 1 (sequence 1) holds it: one-shot 'other'",
        "copy 0 of the boot state block (byte %d) is not whole: its CRC32 field is 0x%08x but "
        "its bytes give 0x%08x (a write cut short?); copy 1 holds the state, and the next "
        "change rewrites copy 0" % (off, got, want)], lacks=["boot.state_damaged"])
    # and copy 1 torn after its 32-byte head: its records as install left them (none)
    bad1 = c1[:32] + bytes(4096 - 32)
    write_at(img, off + 4096, bad1)
    g1, w1 = state_crc(bad1)
    s.anysector("check", img, rc=1, has=[
        "the boot state block at byte %d has no whole copy (copy 0: its CRC32 field is 0x%08x "
        "but its bytes give 0x%08x (a write cut short?); copy 1: its CRC32 field is 0x%08x but "
        "its bytes give 0x%08x (a write cut short?)): the loaders boot with no one-shot and no "
        "boot counts until the next change rewrites it" % (off, got, want, g1, w1)],
        lacks=["boot.state_copy", "holds it"])
    # the other ways a copy is not one; copy 1 is whole again
    write_at(img, off + 4096, c1)
    other = state_copy(3, [(9, "x", 0, 0)])
    for copy, why in ((bytes(4096), "it holds only zeros"),
                      (b"NOTSTATE" + c0[8:], "it does not start with \"ANYSTATE\""),
                      (state_copy(3, [])[:8] + struct.pack("<I", 2) + c0[12:],
                       "its format version is 2, not 1"),
                      (c0[:12] + struct.pack("<I", 512) + c0[16:], "it says it is 512 bytes, "
                       "not 4096"),
                      (other, "a record in it runs past its end or is of an unknown type")):
        write_at(img, off, copy)
        s.anysector("check", img, rc=1, has=["copy 0 of the boot state block (byte %d) is not "
                                             "whole: %s" % (off, why), "copy 1 holds the state"])
    # the next change writes the damaged copy
    s.anysector("set-default", "--once", img, "good")
    s.anysector("check", img, rc=0, has=["copy 0 (sequence 2) holds it: one-shot 'good'"],
                lacks=["boot.state_copy"])


def state_copy(seq, records):
    """A boot state block copy (common/bootstate.h): records [(type, name, a, b)], sealed."""
    body = b"".join(bytes([t, len(n), a, b]) + n.encode() for t, n, a, b in records)
    c = bytearray(4096)
    c[0:32] = b"ANYSTATE" + struct.pack("<IIQII", 1, 4096, seq, 0, 0)
    c[32:32 + len(body)] = body
    struct.pack_into("<I", c, 0x18, zlib.crc32(bytes(c)))
    return bytes(c)


def mtools_env():
    return dict(os.environ, MTOOLS_SKIP_CHECK="1")


def t_bless(s):
    """bless marks the counted boot good. BIOS: the state block's counted boot (BOOTED, flag
    counted) names new+2.conf: the file becomes new.conf (same bytes) and its TRIES and BOOTED
    records go, in the copy that did not hold the state; then nothing is left to do. UEFI:
    LoaderBootCountPath (a test efivars directory) names fine+0-1.conf: it becomes fine.conf.
    --dry-run changes nothing; a boot that was not counted changes nothing."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    if not have("mcopy"):
        raise Skip("mtools is not installed")
    ev = s.path("bless-efivars")
    os.makedirs(ev, exist_ok=True)
    os.environ["ANYSECTOR_TEST_EFIVARS"] = ev
    try:
        bless_cases(s, ev)
    finally:
        del os.environ["ANYSECTOR_TEST_EFIVARS"]


def bless_cases(s, ev):
    k = s.path("bless-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("bless.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    esp = esp_offset(s, img)
    ent = s.path("bless-entry")
    text = b"title New\nversion 2\nlinux /good/bless-k\n"
    open(ent, "wb").write(text)
    at = "%s@@%d" % (img, esp)
    for cmd in (["mmd", "-i", at, "::/loader", "::/loader/entries"],
                ["mcopy", "-i", at, ent, "::/loader/entries/new+2.conf"],
                ["mcopy", "-i", at, ent, "::/loader/entries/fine+0-1.conf"]):
        subprocess.run(cmd, env=mtools_env(), check=True, capture_output=True)
    j = s.json("check", img, rc=0)
    line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
    off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
    c0 = read_at(img, off, 4096)
    write_at(img, off + 4096, state_copy(1, [(2, "new+2.conf", 1, 1), (2, "old+1.conf", 1, 0),
                                              (3, "new+2.conf", 1, 1)]))
    s.anysector("check", img, rc=0, has=["copy 1 (sequence 1) holds it: 'new+2.conf' 1 tries "
                                         "left, 1 done", "'new+2.conf' started last by stage2, "
                                         "counted"])
    # list shows both counters: the file's (UEFI) and the block's (BIOS); +0 is bad
    j = s.json("list", img, rc=0)
    got = {e["name"]: (e.get("tries_left"), e.get("tries_done"), e.get("bad"),
                       e.get("bios_tries_left"), e.get("bios_tries_done"))
           for e in j.get("entries", [])}
    s.eq(got, {"good": (None, None, False, None, None), "new": (2, 0, False, 1, 1),
               "fine": (0, 1, True, None, None)}, "list --json tries")
    s.anysector("list", img, has=["tries    2 left, 0 done (its file name); under BIOS 1 left, "
                                  "1 done (boot state block)",
                                  "tries    0 left, 1 done (its file name): failed, sorts last"])
    before = sha(img)
    s.anysector("bless", "--dry-run", img, has=["copy 0 (sequence 2): 'new+2.conf' good",
                                                "files on partition 2"])
    s.eq(sha(img), before, "bless --dry-run changed the image")
    s.anysector("bless", "--backup", img + ".b", img,
                has=["/loader/entries/new+2.conf is now /loader/entries/new.conf"])
    r = subprocess.run(["mdir", "-b", "-i", at, "::/loader/entries"], env=mtools_env(),
                       capture_output=True, text=True)
    names = sorted(os.path.basename(n.strip()) for n in r.stdout.splitlines() if n.strip())
    s.eq(names, ["fine+0-1.conf", "new.conf"], "/loader/entries after bless")
    r = subprocess.run(["mtype", "-i", at, "::/loader/entries/new.conf"], env=mtools_env(),
                       capture_output=True)
    s.eq(r.stdout, text, "new.conf's bytes")
    s.anysector("check", img, rc=0, has=["copy 0 (sequence 2) holds it: 'old+1.conf' 1 tries "
                                         "left, 0 done"],
                lacks=["new+2.conf"])
    s.check(read_at(img, off, 4096) != c0 and read_at(img, off + 4096, 4096)[:8] == b"ANYSTATE",
            "bless did not write copy 0 alone")
    before = sha(img)
    s.anysector("bless", img, has=["this boot was not counted"])
    s.eq(sha(img), before, "a second bless changed the image")
    # UEFI: the file LoaderBootCountPath names
    var = os.path.join(ev, "LoaderBootCountPath-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f")
    with open(var, "wb") as f:
        f.write(struct.pack("<I", 6) + "\\loader\\entries\\fine+0-1.conf\0".encode("utf-16-le"))
    s.anysector("bless", img, has=["/loader/entries/fine+0-1.conf is now "
                                   "/loader/entries/fine.conf"])
    r = subprocess.run(["mdir", "-b", "-i", at, "::/loader/entries"], env=mtools_env(),
                       capture_output=True, text=True)
    names = sorted(os.path.basename(n.strip()) for n in r.stdout.splitlines() if n.strip())
    s.eq(names, ["fine.conf", "new.conf"], "/loader/entries after the UEFI bless")
    s.anysector("bless", img, has=["is not there (marked good already?)"])
    os.unlink(var)


def t_bless_uki(s):
    """bless of a counted unified kernel image in /EFI/Linux (issue 25): the file is renamed in
    /EFI/Linux keeping .efi, its bytes unchanged, as systemd-bless-boot would. BIOS: the state
    block's counted boot names new+2.efi (its TRIES and BOOTED records go); UEFI:
    LoaderBootCountPath names \\EFI\\Linux\\fine+0-1.efi. A path whose directory does not
    go with its suffix is left alone."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    if not have("mcopy"):
        raise Skip("mtools is not installed")
    why = uki.missing()
    if why:
        raise Skip(why)
    u = s.path("bless-uki.efi")
    uki.build(u, paths.BIOS_PAYLOAD, "console=ttyS0 blessed\n",
              'PRETTY_NAME="Bless UKI"\nID=bless\nVERSION_ID=2\n', initrd=os.urandom(3000))
    data = open(u, "rb").read()
    k = s.path("bless-uki-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("bless-uki.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    at = "%s@@%d" % (img, esp_offset(s, img))
    for cmd in (["mmd", "-i", at, "::/EFI/Linux"],
                ["mcopy", "-i", at, u, "::/EFI/Linux/new+2.efi"],
                ["mcopy", "-i", at, u, "::/EFI/Linux/fine+0-1.efi"]):
        subprocess.run(cmd, env=mtools_env(), check=True, capture_output=True)
    j = s.json("check", img, rc=0)
    line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
    off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
    write_at(img, off + 4096, state_copy(1, [(2, "new+2.efi", 1, 1), (3, "new+2.efi", 1, 1)]))
    s.anysector("list", img, has=["tries    2 left, 0 done (its file name); under BIOS 1 left, "
                                  "1 done (boot state block)"])

    def linux_dir():
        r = subprocess.run(["mdir", "-b", "-i", at, "::/EFI/Linux"], env=mtools_env(),
                           capture_output=True, text=True)
        return sorted(os.path.basename(n.strip()) for n in r.stdout.splitlines() if n.strip())

    ev = s.path("bless-uki-efivars")
    os.makedirs(ev, exist_ok=True)
    os.environ["ANYSECTOR_TEST_EFIVARS"] = ev
    try:
        s.anysector("bless", "--backup", img + ".b", img,
                    has=["/EFI/Linux/new+2.efi is now /EFI/Linux/new.efi: the boot counts as "
                         "good"])
        s.eq(linux_dir(), ["fine+0-1.efi", "new.efi"], "/EFI/Linux after the BIOS bless")
        s.eq(mtools_read(at, "/EFI/Linux/new.efi"), data, "new.efi's bytes")
        s.anysector("check", img, rc=0, has=["copy 0 (sequence 2) holds it: empty"],
                    lacks=["new+2.efi"])
        efivar_file(ev, "LoaderBootCountPath", "\\loader\\entries\\fine+0-1.efi")
        before = sha(img)
        s.anysector("bless", img, has=["LoaderBootCountPath names /loader/entries/fine+0-1.efi, "
                                       "not a file of /loader/entries or /EFI/Linux"])
        s.eq(sha(img), before, "bless of a .efi in /loader/entries changed the image")
        efivar_file(ev, "LoaderBootCountPath", "\\EFI\\Linux\\fine+0-1.efi")
        s.anysector("bless", img, has=["/EFI/Linux/fine+0-1.efi is now /EFI/Linux/fine.efi"])
        s.eq(linux_dir(), ["fine.efi", "new.efi"], "/EFI/Linux after the UEFI bless")
        s.eq(mtools_read(at, "/EFI/Linux/fine.efi"), data, "fine.efi's bytes")
        s.anysector("bless", img, has=["is not there (marked good already?)"])
        e = {x["name"]: (x["file"], x["tries_left"]) for x in s.json("list", img)["entries"]}
        s.eq((e.get("new"), e.get("fine")), (("/EFI/Linux/new.efi", None),
                                             ("/EFI/Linux/fine.efi", None)),
             "list after bless: uncounted")
    finally:
        del os.environ["ANYSECTOR_TEST_EFIVARS"]


def mtools_read(at, path):
    r = subprocess.run(["mtype", "-i", at, "::" + path], env=mtools_env(), capture_output=True)
    return r.stdout


def efivar_file(ev, name, text):
    """A Boot Loader Interface string variable in a test efivars directory."""
    with open(os.path.join(ev, name + "-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"), "wb") as f:
        f.write(struct.pack("<I", 6) + (text + "\0").encode("utf-16-le"))


def t_status(s):
    """status: under UEFI the Boot Loader Interface's variables (a test efivars directory):
    firmware, loader, entry, the counted file's tries, the OS's one-shot, the two times; under
    BIOS (ANYSECTOR_TEST_EFIVARS naming no directory) the boot state block: the boot stage2
    recorded, its tries, the pending one-shot; --json the same."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    k = s.path("status-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("status.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    s.anysector("add", img, "--kernel", k, "--name", "other")
    ev = s.path("status-efivars")
    os.makedirs(ev, exist_ok=True)
    for name, text in (("LoaderInfo", "anysector 0.1"), ("LoaderFirmwareType", "UEFI 2.70"),
                       ("LoaderFirmwareInfo", "EDK II 1.00"), ("LoaderEntrySelected", "fine"),
                       ("LoaderEntryOneShot", "other"), ("LoaderTimeInitUSec", "1234567"),
                       ("LoaderTimeExecUSec", "2345678"),
                       ("LoaderBootCountPath", "\\loader\\entries\\fine+2-1.conf")):
        efivar_file(ev, name, text)
    try:
        os.environ["ANYSECTOR_TEST_EFIVARS"] = ev
        s.anysector("status", img, has=["firmware     UEFI (UEFI 2.70, EDK II 1.00)",
                                        "loader       anysector 0.1 (LoaderInfo)",
                                        "entry        fine (LoaderEntrySelected)",
                                        "tries        2 left, 1 done "
                                        "(/loader/entries/fine+2-1.conf)",
                                        "one-shot     none; LoaderEntryOneShot other",
                                        "loader time  1234567 us at start, 2345678 us"])
        j = s.json("status", img)
        s.eq((j.get("firmware"), j.get("loader"), j.get("entry"), j.get("tries_left"),
              j.get("tries_done"), j.get("time_exec_usec")),
             ("uefi", "anysector 0.1", "fine", 2, 1, "2345678"), "status --json (UEFI)")
        # BIOS: no UEFI variables; stage2 recorded a counted boot, and a one-shot waits
        os.environ["ANYSECTOR_TEST_EFIVARS"] = s.path("no-such-dir")
        s.anysector("set-default", "--once", img, "other")
        j = s.json("check", img, rc=0)
        line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
        off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
        write_at(img, off, state_copy(7, [(1, "other", 0, 0), (2, "new+3.conf", 2, 1),
                                          (3, "new+3.conf", 1, 1)]))
        s.anysector("status", img, has=["firmware     BIOS (no UEFI variables)",
                                        "loader       stage2 of anysector (the boot state "
                                        "block)",
                                        "entry        new+3.conf, started last by stage2, "
                                        "counted",
                                        "tries        2 left, 1 done (the boot state block)",
                                        "one-shot     other"])
        j = s.json("status", img)
        s.eq((j.get("firmware"), j.get("booted"), j.get("booted_counted"), j.get("tries_left"),
              j.get("oneshot")), ("bios", "new+3.conf", True, 2, "other"), "status --json (BIOS)")
    finally:
        del os.environ["ANYSECTOR_TEST_EFIVARS"]


def t_cfg_tries(s):
    """add --tries N writes "tries N" into the new entry; list shows it and the tries the boot
    state block counted (failed at 0); bless of a counted anysector.cfg entry takes the line out
    and its records out of the block; --tries is refused on a disk without a block (t_gap_build)
    and out of range."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    k = s.path("tries-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("tries.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    s.anysector("add", img, "--kernel", k, "--name", "new", "--tries", "2", "--default")
    esp = esp_offset(s, img)
    r = subprocess.run(["mtype", "-i", "%s@@%d" % (img, esp), "::/anysector.cfg"],
                       env=mtools_env(), capture_output=True, text=True)
    s.check("entry new\n  title   new\n  kernel  /new/tries-k\n  tries   2\n" in r.stdout,
            "anysector.cfg lacks new's tries line:\n" + r.stdout)
    s.anysector("add", img, "--kernel", k, "--name", "x", "--tries", "0", rc=64,
                has=["--tries 0: give a number of tries from 1 to 255"])
    s.anysector("add", img, "--kernel", k, "--name", "x", "--tries", "256", rc=64)
    j = s.json("check", img, rc=0)
    line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
    off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
    write_at(img, off + 4096, state_copy(5, [(2, "new", 0, 2), (3, "new", 2, 1)]))
    s.anysector("list", img, has=["tries    2 (its tries line); 0 left, 2 done (boot state "
                                  "block): failed, sorts last"])
    got = {e["name"]: (e.get("tries_left"), e.get("bad"), e.get("bios_tries_left"))
           for e in s.json("list", img, rc=0).get("entries", [])}
    s.eq(got, {"good": (None, False, None), "new": (2, True, 0)}, "list --json tries")
    os.environ["ANYSECTOR_TEST_EFIVARS"] = s.path("no-efivars")
    try:
        s.anysector("bless", img, has=["entry 'new' of anysector.cfg has no tries line now"])
    finally:
        del os.environ["ANYSECTOR_TEST_EFIVARS"]
    r = subprocess.run(["mtype", "-i", "%s@@%d" % (img, esp), "::/anysector.cfg"],
                       env=mtools_env(), capture_output=True, text=True)
    s.check("entry new" in r.stdout and "  tries " not in r.stdout,
            "bless left the tries line:\n" + r.stdout)
    s.anysector("check", img, rc=0, has=["copy 0 (sequence 6) holds it: empty"])


def state_records(img, off):
    """The records [(type, name, a, b)] of the copy of the boot state block that holds the
    state (the higher sequence of the whole ones)."""
    best = None
    for c in state_copies(img, off):
        crc, want = state_crc(c)
        if c[:8] != b"ANYSTATE" or crc != want:
            continue
        if best is None or struct.unpack_from("<Q", c, 0x10)[0] > \
                struct.unpack_from("<Q", best, 0x10)[0]:
            best = c
    recs, at = [], 32
    while best is not None and best[at] != 0:
        n = best[at + 1]
        recs.append((best[at], best[at + 4:at + 4 + n].decode(), best[at + 2], best[at + 3]))
        at += 4 + n
    return recs


def t_remove_state(s):
    """remove takes the records naming the removed entry out of the boot state block in the same
    change: its one-shot, its TRIES and a BOOTED of it (an anysector.cfg entry by its name, a
    /loader/entries file by its file's name), written after the boot partition's change; the
    records of other entries stay; an entry the block does not name writes no block."""
    if not os.path.exists(os.path.join(paths.STAGES, "stage2.bin")):
        raise Skip("%s has no stage2.bin yet" % paths.STAGES)
    if not have("mcopy"):
        raise Skip("mtools is not installed")
    k = s.path("rmstate-k")
    open(k, "wb").write(os.urandom(30000))
    img = s.path("rmstate.img")
    s.anysector("mkimage", img, "--size", "32M", "--sector-size", "4096", "--stages",
                paths.STAGES, "--kernel", k, "--name", "good")
    for name, tries in (("new", "2"), ("other", "3")):
        s.anysector("add", img, "--kernel", k, "--name", name, "--tries", tries)
    at = "%s@@%d" % (img, esp_offset(s, img))
    ent = s.path("rmstate-entry")
    open(ent, "wb").write(b"title X\nlinux /good/rmstate-k\n")
    for cmd in (["mmd", "-i", at, "::/loader", "::/loader/entries"],
                ["mcopy", "-i", at, ent, "::/loader/entries/x+2.conf"]):
        subprocess.run(cmd, env=mtools_env(), check=True, capture_output=True)
    j = s.json("check", img, rc=0)
    line = [p["message"] for p in j.get("problems", []) if p.get("code") == "boot.state"]
    off = int(line[0].split("byte ")[1].split(":")[0]) if line else 0
    # stage2 started 'new' counted (its last try) and a one-shot of it waits
    write_at(img, off + 4096, state_copy(4, [(1, "new", 0, 0), (2, "new", 0, 2),
                                              (2, "other", 2, 1), (2, "x+2.conf", 1, 1),
                                              (3, "new", 1, 3)]))
    s.anysector("check", img, rc=0, has=["one-shot 'new'", "'new' 0 tries left, 2 done"])
    before = sha(img)
    s.anysector("remove", "--dry-run", img, "new",
                has=["boot state block, copy 0 (sequence 5): 3 records of the removed entry "
                     "dropped"])
    s.eq(sha(img), before, "remove --dry-run changed the image")
    s.anysector("remove", "--backup", img + ".b", img, "new",
                has=["the boot state block drops what it held for the removed entry 'new' "
                     "(copy 0, sequence 5)"])
    s.eq(state_records(img, off), [(2, "other", 2, 1), (2, "x+2.conf", 1, 1)],
         "the block's records after remove new")
    s.anysector("check", img, rc=0, lacks=["'new'"])
    s.eq(read_at(img, off + 4096, 4096)[:0x18], state_copy(4, [])[:0x18],
         "remove wrote copy 1, which held the state")
    # a file of /loader/entries: its tries and counted boot by the file's name, its one-shot by
    # the entry's name
    write_at(img, off + 4096, state_copy(6, [(1, "x", 0, 0), (2, "other", 2, 1),
                                              (2, "x+2.conf", 1, 1), (3, "x+2.conf", 1, 1)]))
    s.anysector("remove", img, "x", has=["removed entry 'x'"])
    s.eq(state_records(img, off), [(2, "other", 2, 1)], "the block's records after remove x")
    # nothing of 'good' in the block: no write of it
    before = state_copies(img, off)
    s.anysector("remove", "--dry-run", img, "good", lacks=["boot state block"])
    s.anysector("remove", img, "good", lacks=["boot state block"])
    s.eq(state_copies(img, off), before, "remove of an entry the block does not name wrote it")


def sfdisk_image(s, name, script, size=64 * MIB):
    """An image partitioned by sfdisk (512-byte sectors) for layouts we would never make."""
    if not have("sfdisk"):
        raise Skip("sfdisk is not installed")
    img = s.path(name)
    sparse(img, size)
    r = subprocess.run(["sfdisk", "-q", "--no-reread", img], input=script, text=True,
                       capture_output=True)
    if r.returncode:
        s.fail("sfdisk failed: " + r.stderr)
    return img


def t_refusals(s):
    """Every refusal: its message, exit 3 (2 for damaged input), and the image untouched."""
    img = s.path("ref.img")
    sparse(img, 64 * MIB)
    s.anysector("install", img, rc=3, has=["has no partition table", "anysector partition"])
    s.anysector("partition", img)
    before = sha(img)
    s.anysector("partition", img, rc=3, has=["already holds a gpt partition table (at byte 512)",
                                             "already holds a PMBR partition table (at byte 510)",
                                             "use --force"])
    s.eq(sha(img), before, "refused partition changed the image")
    s.anysector("partition", img, "--force", "--label", "mbr")
    s.anysector("partition", img, "--sector-size", "512", rc=3,
                has=["already holds a dos partition table (at byte 510)"])
    s.anysector("mkimage", img, "--size", "64M", rc=3, has=["exists already", "--force"])

    # stage2 too big for the legacy gap of a --dos-compat disk on 4 KiB physical sectors
    # (LBA 8..62 = 28,160 bytes)
    big = s.path("stages-big")
    stages.write_placeholders(big, stage2_size=30000)
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--label", "mbr", "--dos-compat", "--physical-size", "4096")
    s.anysector("install", img, "--sector-size", "512", "--physical-size", "4096", "--stages",
                big, rc=3, has=["stage2 (30000 bytes) does not fit the gap between the MBR and "
                                "the first partition (LBA 1..62): 28160 bytes are free from byte "
                                "4096"])
    # a BIOS boot partition too small for stage2
    img2 = sfdisk_image(s, "small-bb.img", "label: gpt\nstart=2048,size=16,type=21686148-6449-6E6F-"
                        "744E-656564454649\nstart=4096,size=8192,type=U\n")
    s.anysector("install", img2, rc=3, has=["does not fit the BIOS boot partition"])
    img3 = sfdisk_image(s, "no-bb.img", "label: gpt\nstart=2048,size=8192,type=U\n")
    s.anysector("install", img3, rc=3, has=["has no BIOS boot partition"])
    img4 = sfdisk_image(s, "no-esp.img", "label: gpt\nstart=2048,size=2048,type=21686148-6449-"
                        "6E6F-744E-656564454649\nstart=4096,size=8192,type=L\n")
    s.anysector("install", img4, rc=3, has=["has no EFI system partition"])
    img5 = sfdisk_image(s, "raw-esp.img", "label: gpt\nstart=2048,size=2048,type=21686148-6449-"
                        "6E6F-744E-656564454649\nstart=4096,size=8192,type=U\n")
    before = sha(img5)
    s.anysector("install", img5, "--backup", img5 + ".b", rc=2,
                has=["holds no valid FAT filesystem"])
    s.eq(sha(img5), before, "refused install (no FAT) changed the image")

    # a corrupted GPT: install says why and writes nothing
    img6 = new_gpt(s, "corrupt.img", install=False)
    write_at(img6, 512 + 40, b"\x07")  # FirstUsable changes: header CRC no longer matches
    before = sha(img6)
    s.anysector("install", img6, "--backup", img6 + ".b", rc=2,
                has=["cannot validate the partition table", "header CRC"])
    s.eq(sha(img6), before, "install on a corrupted GPT changed it")
    img7 = new_gpt(s, "corrupt2.img", install=False)
    write_at(img7, (32768 - 1) * 512 + 16, b"\0\0\0\0")  # the backup header's CRC
    s.anysector("install", img7, "--backup", img7 + ".b", rc=2,
                has=["cannot validate the partition table", "backup GPT header"])

    # stages that are not ours
    bad = s.path("stages-bad")
    stages.write_placeholders(bad)
    write_at(os.path.join(bad, "stage2.bin"), 500, b"x")
    s.anysector("install", img7, "--stages", bad, rc=2, has=["is not a sealed anysector stage2"])
    s.anysector("install", img7, "--stages", s.path("nowhere"), rc=2, has=["stage1.bin"])
    # a directory or character device is not a target
    s.anysector("info", s.work, rc=64, has=["neither an image file nor a block device"])


def t_restore_safety(s):
    img = new_gpt(s, "rs.img")
    bak = img + ".bak"
    other = s.path("other.img")
    sparse(other, 32 * MIB)
    s.anysector("restore", other, bak, rc=3, has=["was made for a disk of 16777216 bytes"])
    # the disk changed after the install: restore refuses, --force restores anyway
    off = stages.stage1_target(read_at(img, 0, B.MBR_RECORD_SIZE))[0]
    write_at(img, off + 200, b"changed")
    s.anysector("restore", img, bak, "--dry-run", rc=3, has=["changed since the backup"])
    s.anysector("restore", img, bak, rc=3, has=["no longer hold what the install wrote",
                                                "--force"])
    s.anysector("restore", img, bak, "--force")
    s.anysector("restore", img, bak, has=["nothing to restore"])
    # damaged backups
    data = bytearray(open(bak, "rb").read())
    data[100] ^= 1
    open(bak + ".x", "wb").write(bytes(data))
    s.anysector("restore", img, bak + ".x", rc=2, has=["not a usable anysector backup"])
    open(bak + ".t", "wb").write(bytes(data[:len(data) // 2]))
    s.anysector("restore", img, bak + ".t", rc=2, has=["truncated"])


def t_stage2_damage(s):
    img = new_gpt(s, "torn.img")
    off = stages.stage1_target(read_at(img, 0, B.MBR_RECORD_SIZE))[0]
    write_at(img, off + 5000, b"\xff")
    s.anysector("check", img, rc=2, has=["boot.stage2_crc", "is damaged"])
    write_at(img, off + B.STAGE2_MAGIC_OFF, b"XXXXXXXX")
    s.anysector("check", img, rc=2, has=["no stage2 header is there"])


def mtype(img, off, path):
    r = subprocess.run(["mtype", "-i", "%s@@%d" % (img, off), "::" + path], capture_output=True,
                       env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    return r.stdout.decode("latin-1") if r.returncode == 0 else None


def root_dir_entries(img, esp_off):
    """(byte offset, size) of the ESP's root directory and {8.3 name: entry offset}."""
    bs = read_at(img, esp_off, 512)
    bps, spc, rsvd, nfats, nroot, tot16 = struct.unpack_from("<HBHBHH", bs, 11)
    fatsz = struct.unpack_from("<H", bs, 22)[0] or struct.unpack_from("<I", bs, 36)[0]
    meta = rsvd + nfats * fatsz
    if nroot:
        off, size = esp_off + meta * bps, nroot * 32
    else:  # FAT32: the root's first cluster
        root = struct.unpack_from("<I", bs, 44)[0]
        off, size = esp_off + (meta + (root - 2) * spc) * bps, spc * bps
    d = read_at(img, off, size)
    names = {bytes(d[i:i + 11]): off + i for i in range(0, size, 32)
             if d[i] not in (0, 0xE5) and d[i + 11] != 0x0F}
    return names


def t_esp_chains(s):
    """FAT chains mtools would build on must be sound: a cross-linked file or one longer than
    its chain makes install and add exit 2 (esp.fat_chains) with the image unchanged."""
    img = new_gpt(s, "chains.img")
    k = s.path("vmlinuz-chains")
    open(k, "wb").write(os.urandom(9000))
    s.anysector("add", img, "--kernel", k, "--backup", img + ".b0")
    esp_off = 4096 * 512
    names = root_dir_entries(img, esp_off)
    cfg, kdir = names[b"ANYSEC~1CFG"], names[b"CHAINS     "]
    saved = read_at(img, cfg, 32)
    for what, patch, said in (
            ("cross-linked", lambda e: e[:20] + read_at(img, kdir + 20, 2) + e[22:26] +
             read_at(img, kdir + 26, 2) + e[28:], "belongs to another file or directory"),
            ("too long", lambda e: e[:28] + struct.pack("<I", 1 << 20), "its chain of")):
        write_at(img, cfg, patch(saved))
        before = sha(img)
        for op in (["install"], ["add", "--kernel", k, "--name", "again"]):
            s.anysector(op[0], img, *op[1:], "--backup", img + ".b1", rc=2,
                        has=["has FAT errors", "/anysector.cfg", said])
            s.eq(sha(img), before, "%s: %s changed the image" % (what, op[0]))
            s.check(not os.path.exists(img + ".b1"), "%s: %s left a backup" % (what, op[0]))
        write_at(img, cfg, saved)
    s.anysector("install", img, "--backup", img + ".b2")


def t_add(s):
    img = new_gpt(s, "add.img")
    k = s.path("vmlinuz-6.1.0-test")
    i1, i2 = s.path("initrd-a.img"), s.path("initrd-b.img")
    for f, n in ((k, 70000), (i1, 5000), (i2, 123457)):
        open(f, "wb").write(os.urandom(n))
    before = sha(img)
    s.anysector("add", img, "--kernel", k, "--dry-run", has=["dry run:"])
    s.eq(sha(img), before, "add --dry-run changed the image")
    s.anysector("add", img, "--kernel", k, "--initrd", i1, "--initrd", i2, "--cmdline",
                "console=ttyS0 root=/dev/sda3", "--title", "Test kernel", "--backup",
                img + ".addbak", has=["entry '6.1.0-test'", "no PE header", "not a kernel the "
                                      "BIOS loader can start"])
    esp_off = 4096 * 512
    cfg = mtype(img, esp_off, "/anysector.cfg")
    s.check(cfg is not None and "entry 6.1.0-test" in cfg and
            "initrd  /6.1.0-test/initrd-b.img" in cfg and
            "cmdline console=ttyS0 root=/dev/sda3" in cfg, "config: %r" % cfg)
    s.check(mtype(img, esp_off, "/6.1.0-test/initrd-b.img") is not None, "initrd not copied")
    r = subprocess.run(["mcopy", "-n", "-i", "%s@@%d" % (img, esp_off), "::/6.1.0-test/vmlinuz-6.1.0-test",
                        s.path("back")], capture_output=True, env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    s.check(r.returncode == 0 and open(s.path("back"), "rb").read() == open(k, "rb").read(),
            "kernel bytes differ on the ESP")
    s.anysector("check", img, rc=0, has=["boot menu: 1 entry"])
    # the same kernel again: a new name; --default moves the default
    s.anysector("add", img, "--kernel", k, "--default", has=["entry '6.1.0-test-2'"])
    cfg = mtype(img, esp_off, "/anysector.cfg")
    s.check(cfg and "default 6.1.0-test-2" in cfg, "default not set: %r" % cfg)
    s.anysector("add", img, "--kernel", k, "--name", "6.1.0-test", rc=3,
                has=["already has an entry named '6.1.0-test'"])
    s.anysector("add", img, "--kernel", k, "--cmdline", "x" * 1100, rc=64,
                has=["--cmdline is 1100 bytes long; anysector.cfg holds at most 1023"])
    s.anysector("check", img, rc=0, has=["2 entries, default '6.1.0-test-2'"])
    # restore of the first add's backup is refused: the ESP changed since
    s.anysector("restore", img, img + ".addbak", rc=3)


def t_add_invalid_config(s):
    img = new_gpt(s, "badcfg.img")
    k = s.path("kernel")
    open(k, "wb").write(b"MZ" + bytes(1000))
    cfgfile = s.path("anysector.cfg")
    open(cfgfile, "w").write("timeout 3\nfrobnicate yes\n")
    subprocess.run(["mcopy", "-i", "%s@@%d" % (img, 4096 * 512), cfgfile, "::/anysector.cfg"],
                   check=True, env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    s.anysector("check", img, rc=2, has=["line 2"])
    s.anysector("add", img, "--kernel", k, rc=2, has=["is not valid", "fix it before changing"])


def t_mkimage(s):
    k = s.path("bzImage")
    open(k, "wb").write(os.urandom(50000))
    ini = s.path("initrd")
    open(ini, "wb").write(os.urandom(300000))
    for label, lss in (("gpt", 512), ("gpt", 4096), ("mbr", 512), ("mbr", 4096)):
        img = s.path("mk-%s-%d.img" % (label, lss))
        s.anysector("mkimage", img, "--size", "32M", "--label", label, "--sector-size", lss,
                    "--kernel", k, "--initrd", ini, "--cmdline", "console=ttyS0",
                    "--kernel", k, "--title", "second", has=["bootable"])
        flags = [] if label == "gpt" else ["--sector-size", lss]
        j = s.json("check", img, *flags, rc=0)
        s.eq((j.get("label"), j.get("topology", {}).get("logical_sector_size")), (label, lss),
             "mkimage %s %d" % (label, lss))
        s.check(os.stat(img).st_blocks * 512 < 16 * MIB, "mkimage image is not sparse")
    # a failed mkimage leaves nothing behind
    s.anysector("mkimage", s.path("fail.img"), "--size", "4M", "--esp-size", "100M", "--kernel",
                k, rc=2, has=["was not made"])
    s.check(not os.path.exists(s.path("fail.img")), "failed mkimage left its image")


def esp_offset(s, img, *flags):
    """Byte offset of the boot partition (the ESP), from info --json."""
    j = s.json("info", img, *flags, rc=0)
    esp = [p for p in j.get("partitions", []) if p.get("boot_partition")]
    s.eq(len(esp), 1, "%s: boot partitions" % img)
    return esp[0]["start"] * j["topology"]["logical_sector_size"] if esp else 0


def t_mkimage_timeout(s):
    """--timeout SECONDS is the timeout line of the new anysector.cfg; 3 without it."""
    k = s.path("tk")
    open(k, "wb").write(os.urandom(20000))
    for label, lss, timeout in (("gpt", 512, None), ("gpt", 4096, "0"), ("mbr", 512, "17"),
                                ("mbr", 4096, "3600")):
        img = s.path("to-%s-%d.img" % (label, lss))
        opt = ["--timeout", timeout] if timeout is not None else []
        s.anysector("mkimage", img, "--size", "16M", "--label", label, "--sector-size", lss,
                    "--kernel", k, *opt, has=["bootable"])
        cfg = mtype(img, esp_offset(s, img, "--sector-size", str(lss)), "/anysector.cfg")
        want = "timeout %s" % (timeout if timeout is not None else 3)
        s.check(cfg is not None and [ln for ln in cfg.splitlines() if ln.startswith("timeout")]
                == [want], "mkimage %s: anysector.cfg %r has no line %r" % (opt, cfg, want))
        s.anysector("check", img, "--sector-size", lss, rc=0, has=["boot menu: 1 entry"])
    # bad values and a timeout with no entry to boot are usage errors; nothing is made
    for bad in ("3601", "-1", "1.5", "0x10", "", "soon"):
        s.anysector("mkimage", s.path("tbad.img"), "--size", "16M", "--kernel", k, "--timeout",
                    bad, rc=64, has=["--timeout %s: not a number of seconds" % bad])
    s.anysector("mkimage", s.path("tbad.img"), "--size", "16M", "--timeout", "5", rc=64,
                has=["--timeout needs a --kernel"])
    s.check(not os.path.exists(s.path("tbad.img")), "a refused mkimage made its image")


def t_garbage(s):
    """check, info and install on randomly damaged images: an exit status, never a crash, a hang
    or a sanitizer report (the harness fails on those)."""
    import random
    rnd = random.Random(1234)
    base = s.path("garbage-base.img")
    k = s.path("gk")
    open(k, "wb").write(os.urandom(20000))
    s.anysector("mkimage", base, "--size", "8M", "--kernel", k, "--label", "gpt")
    mbr = s.path("garbage-mbr.img")
    s.anysector("mkimage", mbr, "--size", "8M", "--kernel", k, "--label", "mbr")
    for i in range(60):
        src = base if i % 2 == 0 else mbr
        img = s.path("garbage.img")
        data = bytearray(open(src, "rb").read())
        # hit LBA 0 and the GPT, stage2 (GPT: 1 MiB), the FAT metadata (2 MiB; MBR: 1 MiB)
        # and the backup GPT
        regions = [(0, 17408), (MIB, MIB + 32768), (2 * MIB, 2 * MIB + 65536),
                   (len(data) - 17408, len(data))]
        for _ in range(rnd.choice((1, 4, 32))):
            lo, hi = rnd.choice(regions)
            data[rnd.randrange(lo, hi)] = rnd.randrange(256)
        open(img, "wb").write(bytes(data))
        flags = ["--sector-size", "512"]
        s.anysector("check", img, *flags, rc=None)
        s.anysector("info", img, "--json", *flags, rc=None)
        s.anysector("install", img, "--dry-run", *flags, rc=None)


def t_real_stages(s):
    """The real stage1/stage2/BOOTX64.EFI from $BUILD/stages (once their builds exist) install and
    check clean on every label and sector size, and restore byte for byte."""
    real = paths.STAGES
    names = ("stage1.bin", "stage2.bin", "BOOTX64.EFI")
    if not all(os.path.exists(os.path.join(real, n)) for n in names):
        raise Skip("%s does not hold all of %s yet" % (real, ", ".join(names)))
    k = s.path("rk")
    open(k, "wb").write(b"MZ" + os.urandom(30000))
    for label in ("gpt", "mbr"):
        for lss in (512, 4096):
            img = s.path("real-%s-%d.img" % (label, lss))
            s.anysector("mkimage", img, "--size", "32M", "--label", label, "--sector-size", lss,
                        "--stages", real, "--kernel", k)
            s.anysector("check", img, "--sector-size", lss, rc=0, has=["stage2 intact"])
            s1 = open(os.path.join(real, "stage1.bin"), "rb").read()
            s.eq(read_at(img, 0, B.MBR_TIMESTAMP_OFF), s1[:B.MBR_TIMESTAMP_OFF],
                 "real stage1 in LBA 0")
            plain = s.path("plain-%s-%d.img" % (label, lss))
            sparse(plain, 32 * MIB)
            s.anysector("partition", plain, "--label", label, "--sector-size", lss)
            before = sha(plain)
            s.anysector("install", plain, "--sector-size", lss, "--stages", real, "--backup",
                        plain + ".b")
            s.anysector("restore", plain, plain + ".b")
            s.eq(sha(plain), before, "real stages: restore %s %d" % (label, lss))


def main():
    # two at a time, t_garbage (a quarter of the time) first so that it does not end alone
    return Suite("tools").run([
        t_garbage, t_cli, t_mocked_topologies, t_gpt_worked_numbers, t_mbr_limit, t_fat_types,
        t_dos_compat, t_gap_build, t_gap_uki, t_mkimage_gap_uki, t_check_misaligned,
        t_gpt_rules, t_mbr_rules, t_detection, t_install_layouts, t_reinstall_and_backups,
        t_backup_durable, t_foreign_gap, t_stage2_slots, t_refusals, t_restore_safety,
        t_stage2_damage, t_add, t_esp_chains, t_add_invalid_config, t_set_default_once,
        t_state_damage, t_bless, t_bless_uki, t_status, t_cfg_tries, t_remove_state, t_mkimage,
        t_mkimage_timeout, t_real_stages], jobs=2)


if __name__ == "__main__":
    sys.exit(main())
