#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""One image for every sector size (`--sector-size any`, a dual GPT: tools/disk/dual.h), on the
installer's side: the byte map of what mkimage writes, read back here independently
(lib.gpt, lib.dual); install and add on it without --sector-size; on loop devices of 512 and
4096-byte sectors (root) partx finds the same byte ranges and GUIDs, sgdisk -v, sfdisk --verify
and fsck.fat -n are clean; the ways other tools and firmware break one half (real sgdisk and
parted edits, edk2's restores as lib.dual does them), each named by check and undone by
`anysector repair` to the very bytes mkimage wrote; repair's refusals. Run by `make test-dual`
(suite 52); the loop-device tests say SKIP without root."""
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import dual as D  # noqa: E402
from lib import gpt as G  # noqa: E402
from lib import stages  # noqa: E402
from lib.disk import MIB, Loop, copy_sparse, read_at, sha256 as sha  # noqa: E402
from lib.fat import read_bpb  # noqa: E402
from lib.mbr import read_entries as mbr_entries  # noqa: E402
from lib.suite import Suite, have, need_loop  # noqa: E402

SIZE = 64 * MIB
GEO = D.geometry(SIZE)


def kernel(s):
    path = s.path("vmlinuz")
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(b"MZ" + bytes(8000))
    return path


def base(s):
    """The suite's one dual image made by mkimage (placeholder stages, one entry; a 32 MiB ESP
    and free space after it for the partition editors), copied by a test that changes it."""
    img = s.path("base.img")
    if not os.path.exists(img):
        s.anysector("mkimage", img, "--size", SIZE, "--sector-size", "any", "--esp-size", "32M",
                    "--no-rest", "--kernel", kernel(s), "--timeout", 0,
                    has=["bootable dual-GPT image"])
    return img


def copy(s, name):
    dst = s.path(name)
    copy_sparse(base(s), dst)
    return dst


def regions(path):
    """The bytes of the two GPT regions: [0, first usable byte) and [end usable byte, N)."""
    return (read_at(path, 0, GEO["first_usable_byte"]),
            read_at(path, GEO["end_usable_byte"], SIZE - GEO["end_usable_byte"]))


def tables(path):
    """{lss: (primary header, backup header, primary entries, backup entries)}."""
    out = {}
    for lss in D.SIZES:
        p = G.read_header(path, lss, 1)
        b = G.read_header(path, lss, SIZE // lss - 1)
        out[lss] = (p, b, G.read_entries(path, lss, p), G.read_entries(path, lss, b))
    return out


def t_byte_map(s):
    """What mkimage --sector-size any writes, field by field, against tools/disk/dual.h's map."""
    img = base(s)
    t = tables(img)
    for lss in D.SIZES:
        p, b, (pe, pok), (be, bok) = t[lss]
        g, what = GEO[lss], "%d-byte GPT" % lss
        s.check(p["sig"] == G.SIGNATURE and p["crc_ok"] and b["sig"] == G.SIGNATURE and
                b["crc_ok"], what + ": both headers there with good CRCs")
        s.check(pok and bok, what + ": both arrays' CRCs good")
        s.eq((p["entries_lba"], b["entries_lba"]), (g["primary_array"], g["backup_array"]),
             what + ": array LBAs")
        s.eq((p["first_usable"], p["last_usable"]), (g["first_usable"], g["last_usable"]),
             what + ": usable range")
        s.eq((p["alt"], b["my"]), (SIZE // lss - 1, SIZE // lss - 1), what + ": backup at the end")
        s.eq(pe, be, what + ": primary and backup entries")
    small, large = t[D.SMALL][2][0], t[D.LARGE][2][0]
    s.eq([(e["unique"], e["type"], e["first"] * D.SMALL, (e["last"] + 1) * D.SMALL) for e in small],
         [(e["unique"], e["type"], e["first"] * D.LARGE, (e["last"] + 1) * D.LARGE) for e in large],
         "the same GUIDs and byte ranges at both sizes")
    s.eq(t[D.SMALL][0]["disk_guid"], t[D.LARGE][0]["disk_guid"], "one disk GUID")
    for e in small:
        s.check(e["first"] * D.SMALL % MIB == 0 and (e["last"] + 1) * D.SMALL % D.BLOCK == 0,
                "partition %d on 1 MiB / 4 KiB boundaries" % e["number"])
    ents, _ = mbr_entries(img)
    s.eq([(e["type"], e["first"], e["size"], bytes(e["chs_last"])) for e in ents],
         [(0xEE, 1, 0xFFFFFFFF, b"\xFF\xFF\xFF")], "protective MBR: one 0xEE entry, size 0xFFFFFFFF")
    # The reserved bytes of the 4096-byte blocks that hold the 512-byte headers stay zero.
    s.check(read_at(img, 512 + G.HEADER_SIZE, D.LARGE - 512 - G.HEADER_SIZE) == bytes(
        D.LARGE - 512 - G.HEADER_SIZE), "LBA 0 past the 512-byte header is zero")
    s.check(read_at(img, SIZE - D.LARGE + G.HEADER_SIZE, D.LARGE - 512 - G.HEADER_SIZE) == bytes(
        D.LARGE - 512 - G.HEADER_SIZE), "the 4096-byte backup header's block is zero to the "
        "512-byte backup header")
    esp = [e for e in small if e["type"] == G.ESP_TYPE][0]
    bpb = read_bpb(img, esp["first"] * D.SMALL)
    s.eq(bpb["bps"], D.LARGE, "the ESP's FAT has 4096-byte sectors")
    offset, _ = stages.stage1_target(read_at(img, 0, 512))
    s.eq(offset % D.BLOCK, 0, "stage2 at byte %d: on a 4 KiB boundary" % offset)
    j = s.json("check", img, rc=0)
    s.check(j.get("dual") and j["dual"]["clean"], "check --json: a clean dual GPT")
    s.eq([(h["sector_size"], h["first_usable"], h["last_usable"], h["entries_lba"],
           h["backup_entries_lba"]) for h in j["dual"]["halves"]],
         [(lss, GEO[lss]["first_usable"], GEO[lss]["last_usable"], GEO[lss]["primary_array"],
           GEO[lss]["backup_array"]) for lss in D.SIZES], "check --json: both halves")
    s.eq(j["topology"]["logical_sector_size"], D.LARGE, "viewed at 4096 without --sector-size")
    for flags in ([], ["--sector-size", "512"], ["--sector-size", "4096"]):
        s.anysector("check", img, *flags, rc=0, lacks=["pmbr.size", "\nwarning "])


def t_install_add(s):
    """install and add on the dual image need no --sector-size and keep both GPTs."""
    img = copy(s, "ia.img")
    before = sha(img)
    s.anysector("install", img, "--backup", s.path("ia.bak1"), has=["slot B of 2"])
    s.anysector("add", img, "--kernel", kernel(s), "--name", "second", "--backup",
                s.path("ia.bak2"))
    s.anysector("check", img, rc=0, has=["both GPTs valid and agreeing", "2 entries"])
    offset, _ = stages.stage1_target(read_at(img, 0, 512))
    s.eq(offset % D.BLOCK, 0, "the new stage2 at byte %d: on a 4 KiB boundary" % offset)
    s.eq(regions(img)[1], regions(base(s))[1], "the GPTs' tail unchanged")
    s.anysector("restore", img, s.path("ia.bak2"))
    s.anysector("restore", img, s.path("ia.bak1"))
    s.eq(sha(img), before, "restore gives the image back")


def t_usage(s):
    """--sector-size any only where a new layout is made, and only as a GPT."""
    img = base(s)
    for cmd in (["check", img], ["install", img, "--dry-run"], ["info", img]):
        s.anysector(*cmd, "--sector-size", "any", rc=64, has=["is for partition and mkimage"])
    s.anysector("mkimage", s.path("u.img"), "--size", "64M", "--sector-size", "any", "--label",
                "mbr", rc=64, has=["makes a GPT"])
    s.anysector("mkimage", s.path("u.img"), "--size", SIZE + 512, "--sector-size", "any",
                rc=64, has=["whole number of 4096-byte sectors"])
    s.anysector("repair", img, "--from", "1024", rc=64, has=["give 512 or 4096"])


def damage_and_repair(s, name, damage, has):
    """A copy of the base image, damaged; check names it; repair rebuilds exactly the bytes
    mkimage wrote (--dry-run first, which changes nothing); restore puts the damage back."""
    img = copy(s, name + ".img")
    damage(D.File(img, SIZE))
    hurt = sha(img)
    s.anysector("check", img, rc=2, has=has)
    s.anysector("install", img, "--dry-run", rc=2, has=["anysector repair"])
    s.anysector("repair", img, "--dry-run", "--backup", s.path(name + ".bak"), has=["dry run"])
    s.eq(sha(img), hurt, name + ": --dry-run changed nothing")
    s.anysector("repair", img, "--backup", s.path(name + ".bak"),
                has=["both GPTs valid and agreeing"])
    s.anysector("check", img, rc=0)
    s.eq(regions(img), regions(base(s)), name + ": repair gives back mkimage's GPT regions")
    s.anysector("restore", img, s.path(name + ".bak"))
    s.eq(sha(img), hurt, name + ": restore undoes the repair")


def t_repairs(s):
    """Each way of lib.dual to break a half, named by check, mended by repair."""
    N = SIZE
    damage_and_repair(s, "ovmf-512-primary", lambda d: (
        D.break_header(d, N, D.SMALL, "primary"), D.edk2_restore(d, N, D.SMALL, "primary")),
        ["dual.overlap", "bytes 1024..17407", "the 4096-byte GPT's primary header at byte 4096"])
    damage_and_repair(s, "ovmf-4k-backup", lambda d: (
        D.break_header(d, N, D.LARGE, "backup"), D.edk2_restore(d, N, D.LARGE, "backup")),
        ["the 512-byte GPT's backup header at byte %d is invalid" % (N - D.SMALL)])
    damage_and_repair(s, "sgdisk-4k", lambda d: D.drop_small_headers(d, N),
                      ["dual.half_gone", "dual.pmbr_size"])
    damage_and_repair(s, "512-primary-crc", lambda d: D.break_header(d, N, D.SMALL, "primary"),
                      ["dual.header"])
    damage_and_repair(s, "4k-primary-zero", lambda d: d.put(D.LARGE, bytes(D.LARGE)),
                      ["the 4096-byte GPT's primary header at byte 4096 is invalid"])


def t_grown(s):
    """An image that grew (a cloud disk resized): both backups are missing at the new end;
    repair moves them there and the usable range grows with them."""
    img = copy(s, "grown.img")
    grown = 2 * SIZE
    with open(img, "r+b") as f:
        f.truncate(grown)
    s.anysector("check", img, rc=2, has=[
        "the %d-byte GPT's backup header at byte %d is invalid" % (lss, grown - lss)
        for lss in D.SIZES])
    s.anysector("repair", img, "--backup", s.path("grown.bak"),
                has=["both GPTs valid and agreeing"])
    geo = D.geometry(grown)
    j = s.json("check", img, rc=0)
    s.eq([(h["sector_size"], h["last_usable"], h["backup_entries_lba"])
          for h in j["dual"]["halves"]],
         [(lss, geo[lss]["last_usable"], geo[lss]["backup_array"]) for lss in D.SIZES],
         "the backups at the new end")


def t_repair_refusals(s):
    """What repair will not do: a disk without a dual GPT, an intact one, tables that disagree
    without --from, a partition the dual layout cannot hold."""
    plain = s.path("plain.img")
    s.anysector("mkimage", plain, "--size", SIZE, "--sector-size", "4096")
    s.anysector("repair", plain, rc=2, has=["holds no dual GPT"])
    img = copy(s, "ok.img")
    before = sha(img)
    s.anysector("repair", img, rc=0, has=["nothing to repair"])
    s.eq(sha(img), before, "repair of an intact disk writes nothing")
    # partition 2 renamed at 512 only: both halves valid, disagreeing
    img = copy(s, "renamed.img")
    d = D.File(img, SIZE)
    for lba in (1, SIZE // D.SMALL - 1):
        _, h = D.header_at(d, D.SMALL, lba)
        at = h["entries_lba"] * D.SMALL + 128 + 56
        d.put(at, "renamed".encode("utf-16-le").ljust(72, b"\0"))
        G.rewrite_crcs(img, D.SMALL, lba)
    before = sha(img)
    s.anysector("check", img, rc=2, has=["partition 2 is named 'renamed' in one and"])
    s.anysector("repair", img, rc=2, has=["disagree", "--from 512 or --from 4096"])
    s.eq(sha(img), before, "a refused repair writes nothing")
    s.anysector("repair", img, "--from", "512", "--backup", s.path("renamed.bak"))
    s.anysector("check", img, rc=0)
    s.check(all(p["name"] != "EFI system" for p in s.json("info", img)["partitions"]
                if p["number"] == 2), "--from 512 kept the new name")
    # partition 2 ending 512 bytes into a 4 KiB block in the 512-byte GPT: no 4096-byte GPT
    # can hold that
    img = copy(s, "odd.img")
    d = D.File(img, SIZE)
    for lba in (1, SIZE // D.SMALL - 1):
        _, h = D.header_at(d, D.SMALL, lba)
        at = h["entries_lba"] * D.SMALL + 128 + G.ENTRY_LAST_OFF
        last = struct.unpack("<Q", bytes(d.get(at, 8)))[0]
        d.put(at, struct.pack("<Q", last - 1))
        G.rewrite_crcs(img, D.SMALL, lba)
    s.anysector("repair", img, "--from", "512", rc=2,
                has=["partition 2 (bytes", "does not fit the dual layout"])


def t_slot_grain(s):
    """install on a 512-byte device puts stage2 slot B on a 4 KiB boundary even where half the
    BIOS boot partition is not one (132 KiB: the midpoint is 66 KiB in), so stage1 at 4096-byte
    sectors can still load it."""
    need_loop()
    img = copy(s, "slot.img")
    d = D.File(img, SIZE)
    end = MIB + 132 * 1024
    for lss in D.SIZES:
        for lba in (1, SIZE // lss - 1):
            _, h = D.header_at(d, lss, lba)
            d.put(h["entries_lba"] * lss + G.ENTRY_LAST_OFF, struct.pack("<Q", end // lss - 1))
            G.rewrite_crcs(img, lss, lba)
    # mkimage's stage2 keeps its boot state block at the end of the 1 MiB partition: cut to
    # 132 KiB, that place is outside it, and check must say so until install places it again.
    s.anysector("check", img, rc=2, has=["both GPTs valid and agreeing", "boot.state_place",
                                         "boot state block at byte %d" % (2 * MIB - 8192)])
    with Loop(img, D.SMALL) as lo:
        s.anysector("install", lo.dev, "--backup", s.path("slot.bak"), has=["slot B of 2"])
    offset, _ = stages.stage1_target(read_at(img, 0, 512))
    s.eq(offset, MIB + 68 * 1024, "slot B: the midpoint rounded up to 4 KiB")
    s.anysector("check", img, rc=0, has=["both GPTs valid and agreeing"])


PARTX_UNIT = 512   # partx counts START and END in 512-byte units whatever the device's sectors


def partx(dev):
    """[(byte start, byte end, PARTUUID)] as partx reads the device's table."""
    out = subprocess.run(["partx", "-g", "-b", "-o", "START,END,UUID", dev], capture_output=True,
                         text=True).stdout
    return [(int(a) * PARTX_UNIT, (int(b) + 1) * PARTX_UNIT, c.upper()) for a, b, c in
            (line.split() for line in out.splitlines() if line.strip())]


def peers_clean(s, img, what):
    """At each sector size: partx's byte ranges and GUIDs, sgdisk -v, sfdisk --verify, fsck.fat
    -n of the ESP, and check on the device."""
    seen = {}
    for lss in D.SIZES:
        w = "%s at %d" % (what, lss)
        with Loop(img, lss) as lo:
            seen[lss] = partx(lo.dev)
            s.table_clean(lo.dev, w)
            lo.scan()
            s.fat_clean("%sp2" % lo.dev, w)
            s.anysector("check", lo.dev, rc=0, has=["both GPTs valid and agreeing"])
            s.anysector("info", lo.dev, has=["both GPTs valid and agreeing",
                                             "512-byte GPT: usable LBA %d..%d" %
                                             (GEO[D.SMALL]["first_usable"],
                                              GEO[D.SMALL]["last_usable"]),
                                             "4096-byte GPT: usable LBA %d..%d" %
                                             (GEO[D.LARGE]["first_usable"],
                                              GEO[D.LARGE]["last_usable"])])
    s.check(len(seen[D.SMALL]) >= 2, what + ": partx finds the partitions: %r" % seen)
    s.eq(seen[D.SMALL], seen[D.LARGE], what + ": partx's byte ranges and GUIDs at 512 and 4096")


def t_loop_peers(s):
    """The image on loop devices of both sizes, as the peers see it; install on a 512-byte device
    and add on a 4096-byte one keep it so; and partition --sector-size any on a device of each
    size making the same layout."""
    need_loop()
    peers_clean(s, base(s), "mkimage's image")
    img = copy(s, "loop-ia.img")
    with Loop(img, D.SMALL) as lo:
        s.anysector("install", lo.dev, "--backup", s.path("loop-ia.bak1"), has=["slot B of 2"])
    offset, _ = stages.stage1_target(read_at(img, 0, 512))
    s.eq(offset % D.BLOCK, 0, "install at 512: stage2 at byte %d, on a 4 KiB boundary" % offset)
    with Loop(img, D.LARGE) as lo:
        s.anysector("add", lo.dev, "--kernel", kernel(s), "--name", "second", "--backup",
                    s.path("loop-ia.bak2"))
    s.eq(regions(img)[1], regions(base(s))[1], "install and add on devices: the GPTs' tail")
    peers_clean(s, img, "install at 512, add at 4096")
    for lss in D.SIZES:
        img = s.path("dev-%d.img" % lss)
        with open(img, "wb") as f:
            f.truncate(SIZE)
        with Loop(img, lss) as lo:
            s.anysector("partition", lo.dev, "--sector-size", "any",
                        has=["dual GPT (512 and 4096-byte sectors) layout, %d-byte sectors" % lss])
        s.anysector("check", img, rc=0, has=["both GPTs valid and agreeing"])
        s.eq(tables(img)[D.LARGE][0]["entries_lba"], 2, "partition on a %d-byte device" % lss)


def edit_then_repair(s, name, lss, cmd, has, from_lss=None, keep=None):
    """A partition editor run on a loop device of lss-byte sectors over a copy of the image;
    check must name what it did to the dual GPT; repair (--from lss when given) makes it whole,
    and the peers are clean at both sizes again, the edit (keep: partx's view) kept."""
    name = "edit-" + name
    img = copy(s, name + ".img")
    with Loop(img, lss) as lo:
        r = subprocess.run([c.replace("{dev}", lo.dev) for c in cmd], capture_output=True,
                           text=True)
        s.check(r.returncode == 0, "%s: %s failed:\n%s" % (name, cmd[0], r.stdout + r.stderr))
        edited = partx(lo.dev)
    s.anysector("check", img, rc=2, has=has)
    args = ["--from", str(from_lss)] if from_lss else []
    s.anysector("repair", img, *args, "--backup", s.path(name + ".bak"),
                has=["both GPTs valid and agreeing"])
    peers_clean(s, img, name + " repaired")
    other = D.SMALL if lss == D.LARGE else D.LARGE
    with Loop(img, other) as lo:
        s.eq(partx(lo.dev), edited, name + ": the other size sees the edit")


def t_editors(s):
    """sgdisk at 4096 drops the 512-byte GPT; sgdisk at 512 edits one half; parted at 512 moves
    its arrays over the 4096-byte GPT: check names each, repair mends each."""
    need_loop()
    edit_then_repair(s, "sgdisk-4k", D.LARGE, ["sgdisk", "-n", "3:0:0", "{dev}"],
                     ["dual.half_gone", "the 512-byte GPT of this dual-GPT disk is gone"])
    edit_then_repair(s, "sgdisk-512", D.SMALL, ["sgdisk", "-c", "2:renamed", "{dev}"],
                     ["dual.mismatch", "partition 2 is named 'renamed'"], from_lss=D.SMALL)
    if not have("parted"):
        print("note t_editors: parted is not installed; its case is left out")
        return
    edit_then_repair(s, "parted-512", D.SMALL,
                     ["parted", "-s", "{dev}", "mkpart", "data", "40MiB", "50MiB"],
                     ["the 4096-byte GPT of this dual-GPT disk is gone", "dual.overlap"])


TESTS = [t_byte_map, t_install_add, t_usage, t_repairs, t_grown, t_repair_refusals,
         t_loop_peers, t_slot_grain, t_editors]

if __name__ == "__main__":
    only = sys.argv[1:]
    suite = Suite("dual")
    sys.exit(suite.run([t for t in TESTS if not only or t.__name__ in only]))
