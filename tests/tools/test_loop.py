#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The installer on real block devices (loop devices at 512 and 4096 bytes per sector, root
only): layouts pass sgdisk -v, sfdisk --verify and fsck.fat -n, the kernel sees every partition
with alignment_offset 0, partition starts equal what sfdisk chooses (or are better for a stated
reason on mocked drives), install -> restore on a device, and the mounted-target refusal of
the commands that may write anywhere (partition, restore, mkimage).
Run by `make test-loop-tools` (suite 51). Without root or loop devices every test says SKIP."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib.disk import Loop, sha256 as sha, sparse  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have, need_loop  # noqa: E402
from test_tools import MIB, MOCKS, flags_for  # noqa: E402

BIOS = "21686148-6449-6E6F-744E-656564454649"


def sfdisk_starts(dev):
    out = subprocess.run(["sfdisk", "-d", dev], capture_output=True, text=True).stdout
    res = []
    for line in out.splitlines():
        if "start=" in line:
            f = dict(x.strip().split("=", 1) for x in line.split(":", 1)[1].split(",") if "=" in x)
            res.append((int(f["start"]), int(f["size"])))
    return res


def sfdisk_layout(s, lss, label, size=300 * MIB):
    """What sfdisk chooses for our layout's sizes on a fresh loop device of this sector size."""
    img = s.path("sf-%d-%s.img" % (lss, label))
    sparse(img, size)
    script = ("label: gpt\n,1M,%s\n,260M,U\n,,L\n" % BIOS) if label == "gpt" else \
        "label: dos\n,260M,ef,*\n,,L\n"
    with Loop(img, lss) as lo:
        r = subprocess.run(["sfdisk", "-q", "--no-reread", lo.dev], input=script, text=True,
                           capture_output=True)
        if r.returncode:
            s.fail("sfdisk: " + r.stderr)
        return sfdisk_starts(lo.dev)


def ours(s, j):
    return [(p["start"], p["sectors"]) for p in j["partitions"]]


def t_loop_layouts(s):
    """Our layouts on real devices: validators, the kernel's view, and sfdisk's own choices."""
    need_loop()
    for lss in (512, 4096):
        for label in ("gpt", "mbr"):
            what = "%s at %d" % (label, lss)
            img = s.path("lay.img")
            sparse(img, 300 * MIB)
            with Loop(img, lss) as lo:
                s.anysector("partition", lo.dev, "--label", label)
                j = s.json("check", lo.dev, rc=0)
                s.check("kernel" in j["topology"]["source"], what + ": topology not from the kernel")
                s.eq(j["topology"]["logical_sector_size"], lss, what + ": LSS from the device")
                s.table_clean(lo.dev, what, gpt=label == "gpt")
                lo.scan()
                for p in j["partitions"]:
                    sysdir = "/sys/block/%s/%sp%d" % (lo.name, lo.name, p["number"])
                    if not s.check(os.path.isdir(sysdir), what + ": kernel lacks " + sysdir):
                        continue
                    s.eq(open(sysdir + "/alignment_offset").read().strip(), "0",
                         what + ": alignment_offset of partition %d" % p["number"])
                    s.eq(int(open(sysdir + "/start").read()), p["start"] * lss // 512,
                         what + ": kernel's start of partition %d" % p["number"])
                    if p["boot_partition"]:
                        s.fat_clean("%sp%d" % (lo.dev, p["number"]), what)
                got = ours(s, j)
            want = sfdisk_layout(s, lss, label)
            s.eq(got, want, what + ": our layout vs sfdisk's")
            print("     %s: ours %s, sfdisk %s: equal" % (what, got, want))


def t_mocks_vs_sfdisk(s):
    """Mocked drives (docs/FIRMWARE.md "Loop devices": no 512e or offset emulation here) against
    what sfdisk picks on a loop device of the same logical sector size: equal, or better for the
    stated reason."""
    need_loop()
    sf = {512: sfdisk_layout(s, 512, "gpt"), 4096: sfdisk_layout(s, 4096, "gpt")}
    img = s.path("mock.img")
    for name, (extra, lss, aoff, grain, _, _) in MOCKS.items():
        sparse(img, 300 * MIB)
        flags = flags_for(lss, extra)
        s.anysector("partition", img, *flags)
        got = [st for st, _ in ours(s, s.json("info", img, *flags))]
        theirs = [st for st, _ in sf[lss]]
        pss = 4096 if "4096" in extra else lss
        if got == theirs:
            print("     %-14s ours %s = sfdisk %s" % (name, got, theirs))
            continue
        # Not equal: ours must be aligned where sfdisk's are not, and the reason must hold.
        phys_ok = all((st * lss - aoff) % pss == 0 for st in got)
        theirs_phys = all((st * lss - aoff) % pss == 0 for st in theirs)
        grain_ok = all((st * lss - aoff) % (grain * lss) == 0 for st in got)
        theirs_grain = all((st * lss - aoff) % (grain * lss) == 0 for st in theirs)
        if name == "offset-by-one":
            reason = "sfdisk's starts are %d bytes into a physical sector; ours are aligned" % (
                (theirs[0] * lss - aoff) % pss)
            s.check(phys_ok and not theirs_phys, name + ": " + reason)
        elif name == "io_opt-196608":
            reason = "ours are whole 196608-byte optimal I/O units and 1 MiB (grain 3 MiB)"
            s.check(grain_ok and not theirs_grain, name + ": " + reason)
        else:
            s.fail("%s: ours %s differ from sfdisk %s" % (name, got, theirs))
            continue
        print("     %-14s ours %s, sfdisk %s: better, %s" % (name, got, theirs, reason))


def t_loop_install_restore(s):
    """install on a block device, check it, restore it byte for byte; the default backup path."""
    need_loop()
    for lss in (512, 4096):
        img = s.path("ir-%d.img" % lss)
        sparse(img, 32 * MIB)
        with Loop(img, lss) as lo:
            s.anysector("partition", lo.dev)
            subprocess.run(["sync"])
            before = sha(lo.dev)
            cwd = os.getcwd()
            os.chdir(s.work)
            try:
                backup = os.path.join(s.work, "anysector-backup-" + lo.name)
                if os.path.exists(backup):
                    os.unlink(backup)
                s.anysector("install", lo.dev, "--dry-run", has=["nothing was written"])
                s.eq(sha(lo.dev), before, "dry run on a device")
                s.anysector("install", lo.dev, has=["anysector-backup-" + lo.name])
                s.anysector("check", lo.dev, rc=1, has=["stage2 intact"])
                s.anysector("restore", lo.dev, backup, has=["restored"])
                s.eq(sha(lo.dev), before, "restore on a %d-byte device" % lss)
                os.unlink(backup)
                # mkimage makes files only; a backup for other sectors does not fit this disk
                s.anysector("mkimage", lo.dev, "--size", "32M", "--force", rc=3,
                            has=["is not a regular file: mkimage only makes image files"])
                other = s.path("other-%d.img" % lss)
                sparse(other, 32 * MIB)
                s.anysector("partition", other, "--sector-size", 4608 - lss)
                s.anysector("install", other, "--sector-size", 4608 - lss, "--backup",
                            other + ".bak")
                s.anysector("restore", lo.dev, other + ".bak", rc=3,
                            has=["was made for %d-byte sectors; %s has %d-byte sectors" %
                                 (4608 - lss, lo.dev, lss)])
                s.eq(sha(lo.dev), before, "refused restore changed the device")
            finally:
                os.chdir(cwd)


def t_mounted_refusal(s):
    """A mounted partition of the target, or of a loop device over the target image: refused."""
    need_loop()
    if not have("mkfs.ext2"):
        raise Skip("mkfs.ext2 is not installed")
    img = s.path("mnt.img")
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--esp-size", "8M")
    mnt = s.path("mnt")
    os.makedirs(mnt, exist_ok=True)
    with Loop(img, 512) as lo:
        lo.scan()
        part = lo.dev + "p3"
        subprocess.run(["mkfs.ext2", "-q", part], check=True, capture_output=True)
        r = subprocess.run(["mount", part, mnt], capture_output=True, text=True)
        if r.returncode:
            raise Skip("cannot mount ext2 here: " + r.stderr.strip())
        try:
            before = sha(img)
            msg = ["%s is mounted on %s" % (part, mnt)]
            # (install, add, remove and set-default may work beside it: test_live.py)
            s.anysector("partition", lo.dev, "--force", rc=3, has=msg)
            s.anysector("restore", lo.dev, img, rc=3, has=msg)
            s.anysector("partition", img, "--force", rc=3,
                        has=msg[:1] + ["(a loop device backed by this image)"])
            s.anysector("mkimage", img, "--size", "64M", "--force", rc=3, has=msg)
            s.anysector("info", part, rc=64, has=["is a partition", "give the disk"])
            s.eq(sha(img), before, "refusals changed the image")
        finally:
            subprocess.run(["umount", mnt], capture_output=True)


def main():
    s = Suite("loop-tools")
    return s.run([t_loop_layouts, t_mocks_vs_sfdisk, t_loop_install_restore, t_mounted_refusal])


if __name__ == "__main__":
    sys.exit(main())
