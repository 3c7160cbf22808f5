#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Existing content the installer must not write over (suite 46, `make test-hostile-foreign`):
disks holding every partition table util-linux's libfdisk recognises (dos, gpt, sun and sgi
written by sfdisk; a whole-disk BSD disklabel, which libblkid's low-level probe does not report,
written by libfdisk itself: tests/lib/fdisk.py) and the filesystems and containers their own
tools make (ext4, xfs, btrfs, vfat, ntfs, swap, LUKS2, an LVM physical
volume, an md RAID superblock, iso9660), run through the ASan+UBSan anysector.

- whole disk: partition, mkimage onto the file and install refuse (exit 3, the image's SHA-256
  unchanged, no backup file), each naming what libblkid found and where; check names it too;
  `partition --force` and `mkimage --force` proceed and name what they erased, and afterwards
  wipefs finds only the table anysector wrote and libfdisk reads it as gpt;
- inside the region install writes (the start of the BIOS boot partition of a GPT disk, the gap
  after an MBR, LBA 0's boot code): install refuses the same way; `install --force` erases it
  (journalled: restore gives back the image's SHA-256), and afterwards wipefs and blkid on the
  region find only what anysector wrote; libfdisk finds the table on a copy of the region
  before, and nothing after.

The source images are made once by their tools and kept in $BUILD/test-data/foreign (sparse).
mdadm cannot write a superblock here: `mdadm --create` needs the md driver, which this kernel
lacks (no /proc/mdstat); the md superblocks (1.2 at 4 KiB, 1.0 at the end) are written by
md_superblock() below from the kernel's struct mdp_superblock_1, and `mdadm --examine` must
accept each, checksum included, before it is used.

usage: foreign.py [NAME...]   NAMEs pick sources (ext4, md-1.0, ...)."""
import json
import os
import struct
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import disk, fdisk, paths  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

MIB = 1 << 20
CACHE = paths.build("test-data", "foreign")
RECIPE = "1"        # bump when a source's recipe changes: the cached images are made again

# A source: (name, blkid's TYPE, what anysector calls it, the byte of its first magic, the
# programs its recipe needs). The names are blkid's, so the sentences can be matched with
# wipefs/blkid output.
SOURCES = [
    ("dos", "dos", "a dos partition table", 510, ["sfdisk"]),
    ("gpt", "gpt", "a gpt partition table", 512, ["sfdisk"]),
    ("sun", "sun", "a sun partition table", 508, ["sfdisk"]),
    ("sgi", "sgi", "a sgi partition table", 0, ["sfdisk"]),
    ("bsd", "bsd", "a bsd partition table", 512, []),
    ("ext4", "ext4", "an ext4 filesystem", 1080, ["mkfs.ext4"]),
    ("xfs", "xfs", "an xfs filesystem", 0, ["mkfs.xfs"]),
    ("btrfs", "btrfs", "a btrfs filesystem", 65600, ["mkfs.btrfs"]),
    ("vfat", "vfat", "a vfat filesystem", 54, ["mkfs.vfat"]),
    ("ntfs", "ntfs", "a ntfs filesystem", 3, ["mkntfs"]),
    ("swap", "swap", "a swap signature", 4086, ["mkswap"]),
    ("luks2", "crypto_LUKS", "a crypto_LUKS signature", 0, ["cryptsetup"]),
    ("lvm", "LVM2_member", "an LVM2_member signature", 536, ["pvcreate", "losetup"]),
    ("md-1.2", "linux_raid_member", "a linux_raid_member signature", 4096, ["mdadm"]),
    ("md-1.0", "linux_raid_member", "a linux_raid_member signature", None, ["mdadm"]),
    ("iso9660", "iso9660", "an iso9660 filesystem", 32769, ["xorriso"]),
]

# The partition tables among the sources: every label libfdisk knows.
TABLES = ["dos", "gpt", "sun", "sgi", "bsd"]

# LBA 0's boot code (bytes 0..439) taken from these: blkid still finds them there.
LBA0_SOURCES = ["xfs", "luks2", "vfat"]

SIZE = 16 * MIB     # every source but those whose tools want more (xfs, btrfs, luks2)


class Parallel(Suite):
    """The Suite, counting from two threads at once (each case works on its own files)."""

    def __init__(self, name):
        super().__init__(name)
        self.lock = threading.RLock()

    def check(self, cond, msg):
        with self.lock:
            return super().check(cond, msg)

    def fail(self, msg):
        with self.lock:
            super().fail(msg)

    def each(self, cases, job):
        """job(case) for every case, two at a time; an exception fails its case only."""
        def guarded(case):
            try:
                job(case)
            except Skip as e:
                print("     %s skipped: %s" % (case[0], e))
            except Exception as e:  # a broken case fails, the others still run
                self.fail("%s: %r" % (case[0], e))
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(guarded, cases))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def md_superblock(sectors, sb_sector, data_offset, data_size):
    """An md v1.x superblock (the kernel's struct mdp_superblock_1, 256 bytes + 2 roles) for a
    2-disk RAID1 member of `sectors` 512-byte sectors, itself at sector sb_sector."""
    max_dev = 2
    sb = bytearray(256 + 2 * max_dev)
    struct.pack_into("<IIII", sb, 0, 0xA92B4EFC, 1, 0, 0)       # magic, major 1, features
    sb[16:32] = bytes(range(16))                                 # set_uuid
    sb[32:43] = b"anysector:0"                                   # set_name
    struct.pack_into("<QiiQIi", sb, 64, 1700000000, 1, 0, data_size, 0, 2)  # ctime level=1 ...
    struct.pack_into("<QQQQII", sb, 128, data_offset, data_size, sb_sector, 0, 0, 0)
    sb[168:184] = bytes(range(16, 32))                           # device_uuid
    struct.pack_into("<QQQ", sb, 192, 1700000000, 1, 0xFFFFFFFFFFFFFFFF)  # utime events resync
    struct.pack_into("<I", sb, 220, max_dev)
    struct.pack_into("<HH", sb, 256, 0, 1)                       # roles: devices 0 and 1
    csum = sum(struct.unpack_from("<%dI" % (len(sb) // 4), sb))   # calc_sb_1_csum
    struct.pack_into("<I", sb, 216, ((csum & 0xFFFFFFFF) + (csum >> 32)) & 0xFFFFFFFF)
    return bytes(sb)


def make_md(path, version):
    disk.sparse(path, SIZE)
    sectors = SIZE // 512
    if version == "1.2":       # 4 KiB from the start, data after 1 MiB
        at, data_offset, data_size = 8, 2048, sectors - 2048
    else:                      # 1.0: 8 KiB before the end, rounded down to 4 KiB; data first
        at, data_offset, data_size = (sectors - 16) & ~7, 0, (sectors - 16) & ~7
    disk.write_at(path, at * 512, md_superblock(sectors, at, data_offset, data_size))
    ex = run(["mdadm", "--examine", path])
    if ex.returncode or "Version : " + version not in ex.stdout or "- correct" not in ex.stdout:
        raise RuntimeError("mdadm --examine does not accept the %s superblock:\n%s%s"
                           % (version, ex.stdout, ex.stderr))


def make_lvm(path):
    if os.geteuid():
        raise Skip("pvcreate needs a loop device (root)")
    disk.sparse(path, SIZE)
    env = dict(os.environ, LVM_SUPPRESS_FD_WARNINGS="1")
    with disk.Loop(path, 512) as loop:
        # --devices: this PV only, whatever the host's LVM devices file says
        p = run(["pvcreate", "-q", "-y", "--devices", loop.dev, loop.dev], env=env)
    if p.returncode:
        raise RuntimeError("pvcreate: " + p.stderr)


def make_source(name, path):
    """The source image made by its own tool (sfdisk, mkfs.*, cryptsetup, pvcreate, xorriso)."""
    tables = {"dos": "label: dos\nstart=2048, size=8192, type=83\n",
              "gpt": "label: gpt\nstart=2048, size=8192\n",
              "sun": "label: sun\n", "sgi": "label: sgi\n"}
    if name == "bsd":     # libfdisk's own BSD disklabel over the whole disk (as util-linux's bsd.img)
        disk.sparse(path, SIZE)
        fdisk.create_label(path, "bsd")
        return
    if name in tables:
        disk.sparse(path, SIZE)
        p = run(["sfdisk", "-q", "--no-reread", path], input=tables[name])
        if p.returncode:
            raise RuntimeError("sfdisk %s: %s" % (name, p.stderr))
        return
    if name.startswith("md-"):
        return make_md(path, name[3:])
    if name == "lvm":
        return make_lvm(path)
    if name == "iso9660":
        tree = path + ".tree"  # (a name ending in .d is a make dependency file)
        os.makedirs(tree, exist_ok=True)
        with open(os.path.join(tree, "README"), "w") as f:
            f.write("an iso9660 image made by xorriso\n")
        p = run(["xorriso", "-as", "mkisofs", "-quiet", "-o", path, tree])
        if p.returncode:
            raise RuntimeError("xorriso: " + p.stderr)
        os.truncate(path, SIZE)   # room for a layout: the disk is the image, grown
        return
    size = {"xfs": 300 * MIB, "btrfs": 128 * MIB, "luks2": 32 * MIB}.get(name, SIZE)
    disk.sparse(path, size)
    key = path + ".key"
    cmds = {
        "ext4": ["mkfs.ext4", "-q", "-F", path],
        "xfs": ["mkfs.xfs", "-q", "-f", path],
        "btrfs": ["mkfs.btrfs", "-q", "-f", path],
        "vfat": ["mkfs.vfat", path],
        "ntfs": ["mkntfs", "-q", "-F", "-Q", path],
        "swap": ["mkswap", path],
        # a fast key derivation: the test is about the header, not its strength
        "luks2": ["cryptsetup", "luksFormat", "-q", "--type", "luks2", "--pbkdf", "pbkdf2",
                  "--pbkdf-force-iterations", "1000", "--key-file", key, path],
    }
    if name == "luks2":
        with open(key, "wb") as f:
            f.write(b"anysector test key")
    p = run(cmds[name])
    if p.returncode:
        raise RuntimeError("%s: %s" % (cmds[name][0], p.stdout + p.stderr))


UNAVAILABLE = {}     # source name -> why it could not be made here (a Skip)


def source(name, tools):
    """The cached source image (made when missing), stored sparse. Made by make_sources() before
    the cases run two at a time; raises Skip when it cannot be made here."""
    if name in UNAVAILABLE:
        raise Skip(UNAVAILABLE[name])
    path = os.path.join(CACHE, "%s.r%s.img" % (name, RECIPE))
    if os.path.exists(path):
        return path
    missing = [t for t in tools if not have(t)]
    if missing:
        raise Skip("%s is not installed (tools/deps.sh)" % ", ".join(missing))
    os.makedirs(CACHE, exist_ok=True)
    tmp = path + ".new"
    make_source(name, tmp)
    disk.copy_sparse(tmp, path)   # zero blocks the tool wrote become holes
    os.unlink(tmp)
    return path


def make_sources(s):
    """Every selected source, one after the other (a missing tool is a SKIP with the reason)."""
    for name, _, _, _, tools in selected(sys.argv[1:]):
        try:
            source(name, tools)
        except Skip as e:
            UNAVAILABLE[name] = str(e)
            s.skipped += 1
            print("SKIP %s: %s" % (name, e))


def signatures(img):
    """(type, offset) of every signature wipefs lists on the whole disk (all of them)."""
    p = run(["wipefs", "--no-act", "--json", img])
    if p.returncode or not p.stdout.strip():
        return []
    return [(s["type"], int(s["offset"], 16)) for s in json.loads(p.stdout)["signatures"]]


def blkid_at(img, offset):
    """The types blkid's low-level probe finds from byte offset on (what starts there)."""
    p = run(["blkid", "-p", "-O", str(offset), "-o", "export", img])
    return [line.split("=", 1)[1] for line in p.stdout.splitlines()
            if line.startswith(("TYPE=", "PTTYPE="))]


def first_offset(name, src):
    """Where the source's first magic is (md 1.0: 8 KiB before the end, 4 KiB aligned)."""
    for n, _, _, off, _ in SOURCES:
        if n == name:
            return off if off is not None else ((os.path.getsize(src) // 512 - 16) & ~7) * 512


def refused(s, img, *args, has=(), backup=None):
    """A refusal: exit 3, the sentences, the image unchanged, no backup file left."""
    before = disk.sha256(img)
    s.anysector(*args, rc=3, has=has)
    s.eq(disk.sha256(img), before, "%s changed the image" % " ".join(map(str, args[:1])))
    if backup:
        s.check(not os.path.exists(backup), "a refused %s left its backup file" % args[0])


def only_ours(s, img, want, what):
    """wipefs finds exactly the table anysector wrote: want is the sorted list of its types."""
    got = sorted(t for t, _ in signatures(img))
    s.eq(got, want, what + ": signatures wipefs finds afterwards")


def selected(argv):
    names = [a for a in argv if not a.startswith("-")]
    return [x for x in SOURCES if not names or x[0] in names]


MKIMAGE_FORCE = ["sun", "ext4", "luks2"]   # mkimage --force replaces a file whole: a few do


def whole_disk(s, case):
    name, btype, label, _, tools = case
    src = source(name, tools)
    img, bak = s.path("w-%s.img" % name), s.path("w-%s.bak" % name)
    disk.copy_sparse(src, img)
    flags = ["--sector-size", "512"] if name == "dos" else []  # an MBR's size is not guessed
    at = first_offset(name, src)
    sentence = "%s (at byte %d)" % (label, at)
    refused(s, img, "partition", img, *flags, "--backup", bak,
            has=["already holds " + sentence, "use --force"], backup=bak)
    refused(s, img, "mkimage", img, "--size", str(SIZE),
            has=["exists already and holds " + sentence, "use --force"])
    refused(s, img, "install", img, *flags, "--backup", bak, backup=bak,
            has=[] if name in ("dos", "gpt") else ["holds " + sentence])
    if name not in ("dos", "gpt"):   # tables anysector reads are check's own business
        tail = ", which anysector does not read" if label.endswith("table") else \
            " and no partition table"
        j = s.json("check", img, rc=2)
        s.check(any(p["message"] == img + " holds " + sentence + tail
                    for p in j.get("problems", [])),
                "%s: check does not say '%s holds %s%s'" % (name, img, sentence, tail))
        s.check("it holds " + sentence in j.get("topology", {}).get("source", ""),
                "%s: the topology source does not name it: %r" % (name, j.get("topology")))
        s.check({"type": btype, "offset": at} in
                [{"type": x["type"], "offset": x["offset"]} for x in j.get("signatures", [])],
                "%s: check --json lists no %s at byte %d" % (name, btype, at))
    before = disk.sha256(img)
    s.anysector("partition", "--force", "--dry-run", img, *flags, has=["erase ", btype])
    s.eq(disk.sha256(img), before, name + ": partition --force --dry-run changed the image")
    out, _ = s.anysector("partition", "--force", img, *flags, "--backup", bak,
                         has=["erased ", "(%s %s)" % (btype, label.split(" ", 2)[2])])
    s.check("at byte 0x%x (%s" % (at, btype) in out, "%s: no 'erased ... at byte 0x%x' in\n%s"
            % (name, at, out))
    only_ours(s, img, ["PMBR", "gpt", "gpt"], name + ": partition --force")
    s.eq(fdisk.label(img), "gpt", name + ": the label libfdisk reads after partition --force")
    s.check(os.path.exists(bak), name + ": partition --force left no backup of what it erased")
    os.unlink(img)
    os.unlink(bak)
    if name in MKIMAGE_FORCE:
        disk.copy_sparse(src, img)
        s.anysector("mkimage", img, "--size", str(SIZE), "--force",
                    has=["replaced %s, which held %s" % (img, sentence)])
        only_ours(s, img, ["PMBR", "gpt", "gpt"], name + ": mkimage --force")
        os.unlink(img)


def t_whole_disk(s):
    """Each source as the whole disk: refused by partition, mkimage and install, named by check;
    partition --force (and mkimage --force) erase it and say so."""
    s.each(selected(sys.argv[1:]), lambda case: whole_disk(s, case))


def base_disk(s, label):
    """An empty disk partitioned by anysector: 64 MiB, 512-byte sectors."""
    img = s.path("base-%s.img" % label)
    if not os.path.exists(img):
        disk.sparse(img, 64 * MIB)
        s.anysector("partition", img, "--label", label)
    return img


def region_label(img, region, length):
    """The label libfdisk reads on a copy of the region's bytes, as if it were a disk."""
    copy = img + ".region"
    disk.sparse(copy, length)
    disk.write_at(copy, 0, disk.read_at(img, region, length))
    try:
        return fdisk.label(copy)
    finally:
        os.unlink(copy)


def install_cycle(s, name, img, place, sentence, btype, ours, region=None, length=None):
    """install refuses what was placed, --force erases it (blkid then finds nothing at the
    region's start, nor libfdisk on a copy of the region), restore undoes the install."""
    bak = img + ".bak"
    table = region is not None and name in TABLES
    if table:   # (a GPT cut to the region's MiB reaches past it: libfdisk reads its PMBR)
        s.eq(region_label(img, region, length), "dos" if name == "gpt" else name,
             "%s in the %s: the label libfdisk reads on the region before install"
             % (name, place))
    refused(s, img, "install", img, "--sector-size", "512", "--backup", bak, backup=bak,
            has=[sentence, "use --force"])
    before = disk.sha256(img)
    out, _ = s.anysector("install", img, "--sector-size", "512", "--force", "--backup", bak,
                         has=["erased ", "--force: erasing "])
    s.check("(%s" % btype in out, "%s in %s: the erasure is not named:\n%s" % (name, place, out))
    only_ours(s, img, ours, "%s in %s: install --force" % (name, place))
    if region is not None:
        s.eq(blkid_at(img, region), [], "%s in the %s: blkid on the region afterwards"
             % (name, place))
    if table:
        s.eq(region_label(img, region, length), None, "%s in the %s: libfdisk on the region "
             "after install --force" % (name, place))
    s.anysector("restore", img, bak, has=["restored"])
    s.eq(disk.sha256(img), before, "%s in %s: restore after install --force" % (name, place))


def t_install_region(s):
    """Each source at the start of the region install writes stage2 to: the BIOS boot partition
    (LBA 2048..4095) of a GPT disk, the gap after an MBR (LBA 1..2047)."""
    cases = []
    for label, start, length, ours in (("gpt", MIB, MIB, ["PMBR", "gpt", "gpt"]),
                                       ("mbr", 512, MIB - 512, ["dos"])):
        base = base_disk(s, label)
        for src in selected(sys.argv[1:]):
            cases.append((src[0], src, label, base, start, length, ours))

    def job(case):
        name, (_, btype, what, _, tools), label, base, start, length, ours = case
        src = source(name, tools)
        at = first_offset(name, src)
        if at >= length:
            return    # md 1.0 lives at the end of its device, not at the region's start
        place = "BIOS boot partition" if label == "gpt" else "gap between the MBR"
        img = s.path("r-%s-%s.img" % (label, name))
        disk.copy_sparse(base, img)
        disk.write_at(img, start, disk.read_at(src, 0, length))
        install_cycle(s, name, img, place, "holds %s (at byte %d), where install writes stage2"
                      % (what, start + at), btype, ours, region=start, length=length)
        os.unlink(img)
    s.each(cases, job)


def t_lba0(s):
    """LBA 0's boot code taken from a filesystem that keeps its magic there: install writes
    stage1 over it only with --force."""
    for label, ours in (("gpt", ["PMBR", "gpt", "gpt"]), ("mbr", ["dos"])):
        base = base_disk(s, label)
        for name, btype, what, at, tools in SOURCES:
            if name not in LBA0_SOURCES or (sys.argv[1:] and name not in sys.argv[1:]):
                continue
            src = source(name, tools)
            img = s.path("z-%s-%s.img" % (label, name))
            disk.copy_sparse(base, img)
            disk.write_at(img, 0, disk.read_at(src, 0, 440))
            install_cycle(s, name, img, "LBA 0", "LBA 0 holds %s (at byte %d), where install "
                          "writes stage1" % (what, at), btype, ours)
            os.unlink(img)


def t_beside_table(s):
    """A table written over a filesystem without wiping it (sfdisk keeps the btrfs superblock at
    64 KiB): check warns, partition names both, --force erases both."""
    src = source("btrfs", ["mkfs.btrfs"])
    if not have("sfdisk"):
        raise Skip("sfdisk is not installed")
    img = s.path("beside.img")
    disk.copy_sparse(src, img)
    run(["sfdisk", "-q", "--no-reread", "--wipe", "never", img],
        input="label: dos\nstart=2048, size=8192, type=83\n")
    s.eq(sorted(t for t, _ in signatures(img)), ["btrfs", "dos"], "sfdisk over btrfs")
    s.anysector("check", img, "--sector-size", "512", rc=None,
                has=["label.foreign_signature", "holds a btrfs filesystem (at byte 65600)"])
    refused(s, img, "partition", img, "--sector-size", "512",
            has=["already holds a dos partition table (at byte 510)",
                 "already holds a btrfs filesystem (at byte 65600)"])
    s.anysector("partition", img, "--sector-size", "512", "--force", "--label", "mbr",
                "--backup", img + ".bak",
                has=["erased 2 bytes at byte 0x1fe (dos partition table)",
                     "erased 8 bytes at byte 0x10040 (btrfs filesystem)"])
    only_ours(s, img, ["dos"], "partition --force over dos + btrfs")


def main():
    if not have("wipefs"):
        print("SKIP hostile-foreign: wipefs is not installed")
        return 0
    s = Parallel("hostile-foreign")
    return s.run([make_sources, t_whole_disk, t_install_region, t_lba0, t_beside_table])


if __name__ == "__main__":
    sys.exit(main())
