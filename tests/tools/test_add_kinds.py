#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The entry kinds of `anysector add` on image files: --efi (copied to the ESP), --efi with
--partition N (a file already on FAT partition N: nothing copied, the partition and the file
must exist), --chainload PART|hdN, their usage errors and refusals, and `check` naming an efi
entry whose file is missing from its partition; --pin (sha256 lines equal to sha256sum's, list
shows them, check refuses a file changed on the FAT, or a hand-pinned application on partition
N, with the loaders' sentence); --uki (a unified kernel image built here from systemd-boot-efi's
stub, tests/lib/uki.py: copied to /EFI/Linux/NAME.efi, an uki entry, pinned as one file, its
title and command line from the file; what is not one refused; list, set-default and remove of
uki entries and of Type #2 entries that only are files in /EFI/Linux). The boots themselves are
in tests/qemu/chain.py, tests/qemu/damaged.py (pins) and tests/qemu/uki.py. Run by
`make test-add-kinds` (suite 42)."""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import mtools, paths, uki  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.disk import sha256 as sha, sparse  # noqa: E402
from lib.suite import Suite  # noqa: E402

MIB = 1 << 20
APP = "/EFI/tools/app.efi"


def new_disk(s, name, lss):
    img = s.path(name)
    sparse(img, 64 * MIB)
    s.anysector("partition", img, "--sector-size", lss, "--esp-size", "16M")
    s.anysector("install", img, "--backup", img + ".bak")
    out, _ = s.anysector("info", "--json", img)
    parts = {p["number"]: (p["start"], p["sectors"]) for p in json.loads(out)["partitions"]}
    return img, parts


def format_fat(s, img, lss, start, sectors):
    """Partition (start, sectors) becomes a FAT made by mkfs.fat; returns its byte offset."""
    fs = s.path("part.fat")
    with open(fs, "wb") as f:
        f.truncate(sectors * lss)
    subprocess.run(["mkfs.fat", "-S", str(lss), "-h", str(start), fs], check=True,
                   capture_output=True)
    with open(fs, "rb") as f, open(img, "r+b") as out:
        out.seek(start * lss)
        out.write(f.read())
    os.unlink(fs)
    return start * lss


def config(img, esp_off):
    return mtools.read_text(img, esp_off, "/anysector.cfg") or ""


def t_efi_copied(s):
    img, parts = new_disk(s, "efi.img", 512)
    esp_off = parts[2][0] * 512
    app = s.path("tool.efi")
    data = b"MZ" + os.urandom(3000)
    open(app, "wb").write(data)
    s.anysector("add", img, "--efi", app, "--cmdline", "-nostartup", has=["entry 'tool.efi'"])
    cfg = config(img, esp_off)
    s.check("  efi     /tool.efi/tool.efi\n" in cfg and "  cmdline -nostartup\n" in cfg and
            "partition" not in cfg, "config: %r" % cfg)
    s.eq(mtools.read(img, esp_off, "/tool.efi/tool.efi"), data, "the application on the ESP")
    s.anysector("add", img, "--efi", app, "--initrd", app, rc=64,
                has=["--initrd goes with --kernel, not with --efi"])
    s.anysector("check", img, rc=0, has=["boot menu: 1 entry"])


def t_chainload(s):
    img, parts = new_disk(s, "chain.img", 4096)
    esp_off = parts[2][0] * 4096
    s.anysector("add", img, "--chainload", "3", has=["entry 'chainload-3'"])
    s.anysector("add", img, "--chainload", "hd1", "--title", "Second disk")
    cfg = config(img, esp_off)
    s.check("  chainload 3\n" in cfg and "  chainload hd1\n" in cfg, "config: %r" % cfg)
    before = sha(img)
    s.anysector("add", img, "--chainload", "9", rc=3, has=["has no partition 9"])
    s.anysector("add", img, "--chainload", "x", rc=64, has=["--chainload x: give a partition"])
    s.anysector("add", img, "--chainload", "hd16", rc=64, has=["hd0 to hd15"])
    s.anysector("add", img, "--chainload", "3", "--cmdline", "x", rc=64,
                has=["--cmdline does not go with --chainload"])
    s.eq(sha(img), before, "a refused add changed the image")
    s.anysector("check", img, rc=0, has=["boot menu: 2 entries"])


def pin_by_hand(s, img, esp_off, app, cfg):
    """A hand-written sha256 line under the efi line of a partition-3 entry: check hashes the
    application on partition 3 as BOOTX64.EFI does, and refuses another one with its sentence."""
    other = s.path("other.efi")
    open(other, "wb").write(b"MZ" + bytes(499) + b"\x01")
    efi = "  efi     %s\n" % APP
    for pinned, rc in ((sha256sum(app), 0), (sha256sum(other), 2)):
        new = s.path("pinned.cfg")
        open(new, "w").write(cfg.replace(efi, efi + "  sha256  %s\n" % pinned))
        mtools.run(["mcopy", "-o", new, "::/anysector.cfg"], img, esp_off, check=True)
        if rc:
            s.anysector("check", img, rc=2, has=[mismatch("app.efi", APP, sha256sum(app),
                                                          pinned)])
        else:
            s.anysector("check", img, rc=0, lacks=["SHA-256"])
    open(new, "w").write(cfg)
    mtools.run(["mcopy", "-o", new, "::/anysector.cfg"], img, esp_off, check=True)


def t_efi_on_partition(s):
    for lss in (512, 4096):
        img, parts = new_disk(s, "part%d.img" % lss, lss)
        esp_off = parts[2][0] * lss
        before = sha(img)
        add = ["add", img, "--efi", APP, "--partition", "3"]
        s.anysector(*add, rc=3, has=["--efi %s --partition 3: partition 3 of %s holds no FAT "
                                     "filesystem" % (APP, img)])
        off3 = format_fat(s, img, lss, *parts[3])
        before = sha(img)
        s.anysector(*add, rc=3, has=["partition 3 of %s has no file %s" % (img, APP)])
        app = s.path("app.efi")
        open(app, "wb").write(b"MZ" + bytes(500))
        mtools.run(["mmd", "::/EFI", "::/EFI/tools"], img, off3, check=True)
        s.anysector("add", img, "--efi", "/EFI/tools", "--partition", "3", rc=3,
                    has=["(it is a directory)"])
        mtools.run(["mcopy", app, "::" + APP], img, off3, check=True)
        before = sha(img)
        s.anysector("add", img, "--efi", APP, "--partition", "9", rc=3,
                    has=["has no partition 9"])
        s.anysector("add", img, "--efi", "EFI/tools/app.efi", "--partition", "3", rc=64,
                    has=["give the application's absolute path on that partition"])
        s.anysector("add", img, "--kernel", app, "--partition", "3", rc=64,
                    has=["--partition goes with --efi", "not with --kernel"])
        s.anysector("add", img, "--chainload", "3", "--partition", "3", rc=64,
                    has=["not with --chainload"])
        for bad in ("0", "129", "-1", "3x"):
            s.anysector(*add[:-1], bad, rc=64, has=["--partition %s: give a partition number "
                                                    "from 1 to 128" % bad])
        s.anysector(*add, "--partition", "4", rc=64, has=["--partition given twice"])
        s.eq(sha(img), before, "a refused add changed the image")
        s.anysector(*add, "--cmdline", "-x", "--title", "Tool", "--default",
                    has=["entry 'app.efi' (EFI application %s on partition 3)" % APP])
        cfg = config(img, esp_off)
        s.check("entry app.efi\n  title   Tool\n  efi     %s\n  partition 3\n  cmdline -x\n" % APP
                in cfg and "default app.efi" in cfg, "config: %r" % cfg)
        r = mtools.run(["mdir", "-b", "::/"], img, esp_off, text=True)
        s.check("app.efi" not in r.stdout.lower(), "the application was copied to the ESP:\n"
                + r.stdout)
        s.anysector("check", img, rc=0, has=["boot menu: 1 entry, default 'app.efi'"])
        pin_by_hand(s, img, esp_off, app, cfg)
        mtools.run(["mdel", "::" + APP], img, off3, check=True)
        s.anysector("check", img, rc=2, has=["entry 'app.efi': EFI application %s: partition 3 "
                                             "of %s has no file %s" % (APP, img, APP)])


def sha256sum(path):
    return subprocess.run(["sha256sum", path], check=True, capture_output=True,
                          text=True).stdout.split()[0]


def mismatch(entry, path, got, pinned):
    return ("entry '%s': the SHA-256 of %s (%s...) differs from the pinned one (%s...), so it "
            "is not booted" % (entry, path, got[:8], pinned[:8]))


def t_pin(s):
    img, parts = new_disk(s, "pin.img", 512)
    esp_off = parts[2][0] * 512
    files = {}
    for name, size in (("vmlinuz", 40000), ("one.img", 5000), ("two.img", 70000)):
        files[name] = s.path(name)
        open(files[name], "wb").write(os.urandom(size))
    k, r1, r2 = files["vmlinuz"], files["one.img"], files["two.img"]
    s.anysector("add", img, "--chainload", "3", "--pin", rc=64,
                has=["--pin pins the files add copies", "--chainload copies none"])
    s.anysector("add", img, "--pin", rc=64, has=["--kernel is required"])
    s.anysector("add", img, "--kernel", k, "--initrd", r1, "--initrd", r2, "--name", "p",
                "--pin", has=["entry 'p' (kernel %s and initrd, pinned by SHA-256)" % k])
    hk, h1, h2 = sha256sum(k), sha256sum(r1), sha256sum(r2)
    cfg = config(img, esp_off)
    s.check("  kernel  /p/vmlinuz\n  sha256  %s\n  initrd  /p/one.img\n  sha256  %s\n"
            "  initrd  /p/two.img\n  sha256  %s\n" % (hk, h1, h2) in cfg, "config: %r" % cfg)
    # an unpinned entry next to it: no sha256 lines, nulls in the JSON
    s.anysector("add", img, "--kernel", k, "--name", "plain")
    e = {x["name"]: x for x in s.json("list", img)["entries"]}
    s.eq((e["p"]["kernel_sha256"], e["p"]["initrd_sha256"]), (hk, [h1, h2]), "list's pins")
    s.eq((e["plain"]["kernel_sha256"], e["plain"]["initrd_sha256"]), (None, []),
         "list of an unpinned entry")
    s.anysector("list", img, has=["     kernel   /p/vmlinuz\n     sha256   " + hk])
    s.anysector("check", img, rc=0, has=["boot menu: 2 entries"])
    # one byte of the kernel changed on the FAT, then of the second initrd
    for name, path, pinned in (("vmlinuz", "/p/vmlinuz", hk), ("two.img", "/p/two.img", h2)):
        data = bytearray(open(files[name], "rb").read())
        data[len(data) // 2] ^= 0x01
        bad = s.path("bad-" + name)
        open(bad, "wb").write(data)
        mtools.run(["mcopy", "-o", bad, "::" + path], img, esp_off, check=True)
        s.anysector("check", img, rc=2, has=[mismatch("p", path, sha256sum(bad), pinned)])
        mtools.run(["mcopy", "-o", files[name], "::" + path], img, esp_off, check=True)
        s.anysector("check", img, rc=0, lacks=["SHA-256"])
    # remove takes the sha256 lines with the entry
    s.anysector("remove", img, "p")
    cfg = config(img, esp_off)
    s.check("sha256" not in cfg and "entry plain" in cfg, "config after remove: %r" % cfg)


OSREL = 'NAME=Tiny\nPRETTY_NAME="Tiny UKI 1.0"\nVERSION_ID=1.0\nID=tiny\n'


def make_uki(s, name, cmdline="console=ttyS0 tiny"):
    why = uki.missing()
    if why:
        raise Skip(why)
    out = s.path(name)
    uki.build(out, paths.BIOS_PAYLOAD, cmdline + "\n", OSREL, initrd=os.urandom(5000))
    return out


def t_uki(s):
    img, parts = new_disk(s, "uki.img", 4096)
    esp_off = parts[2][0] * 4096
    u = make_uki(s, "tiny-1.0.efi")
    s.anysector("add", img, "--uki", u, "--pin", "--default",
                has=["entry 'tiny-1.0' (unified kernel image %s, pinned by SHA-256)" % u])
    cfg = config(img, esp_off)
    s.check("\nentry tiny-1.0\n  uki     /EFI/Linux/tiny-1.0.efi\n  sha256  %s\n"
            % sha256sum(u) in cfg and "title" not in cfg.split("entry tiny-1.0")[1],
            "config: %r" % cfg)
    s.eq(mtools.read(img, esp_off, "/EFI/Linux/tiny-1.0.efi"), open(u, "rb").read(),
         "the UKI on the ESP, byte for byte")
    e = s.json("list", img)["entries"]
    s.eq([(x["name"], x["kind"], x["title"], x["cmdline"], x["kernel_sha256"], x["source"],
           x["default"]) for x in e if x["kind"] == "uki"],
         [("tiny-1.0", "uki", "Tiny UKI 1.0", "console=ttyS0 tiny", sha256sum(u),
           "anysector.cfg", True)], "list of the uki entry")
    s.anysector("check", img, rc=0, has=["boot menu: 1 entry, default 'tiny-1.0'"])
    # a titled one; and one more only dropped into /EFI/Linux, as kernel-install would
    u2 = make_uki(s, "other.efi", "console=ttyS0 other")
    s.anysector("add", img, "--uki", u2, "--title", "My UKI", "--name", "mine")
    mtools.run(["mcopy", u2, "::/EFI/Linux/dropped+2-1.efi"], img, esp_off, check=True)
    e = {x["name"]: x for x in s.json("list", img)["entries"]}
    s.eq((e["mine"]["title"], e["dropped"]["source"], e["dropped"]["title"],
          e["dropped"]["file"], e["dropped"]["cmdline"]),
         ("My UKI", "uki", "Tiny UKI 1.0", "/EFI/Linux/dropped+2-1.efi", "console=ttyS0 other"),
         "a titled uki entry and a Type #2 entry")
    s.anysector("set-default", img, "dropped")
    s.check("default dropped\n" in config(img, esp_off), "set-default of a Type #2 entry")
    # pins cover the whole file: a byte of .osrel, which no loader runs
    data = bytearray(open(u, "rb").read())
    data[data.index(b"Tiny UKI")] ^= 0x20
    bad = s.path("bad.efi")
    open(bad, "wb").write(data)
    mtools.run(["mcopy", "-o", bad, "::/EFI/Linux/tiny-1.0.efi"], img, esp_off, check=True)
    s.anysector("check", img, rc=2, has=[mismatch("tiny-1.0", "/EFI/Linux/tiny-1.0.efi",
                                                  sha256sum(bad), sha256sum(u))])
    mtools.run(["mcopy", "-o", u, "::/EFI/Linux/tiny-1.0.efi"], img, esp_off, check=True)
    # refused: what is not a UKI (exit 2, nothing written), options that do not go with it
    before = sha(img)
    s.anysector("add", img, "--uki", paths.BIOS_PAYLOAD, rc=2,
                has=["--uki %s: %s is not an EFI executable" % (paths.BIOS_PAYLOAD,
                                                                 paths.BIOS_PAYLOAD)])
    cut = s.path("cut.efi")
    uki.truncate(u, cut, uki.sections(u)[".linux"][0] + 100)
    s.anysector("add", img, "--uki", cut, rc=2, has=["runs past the end", "cut short"])
    s.anysector("add", img, "--uki", u, "--cmdline", "x", rc=64,
                has=["--cmdline does not go with --uki"])
    s.anysector("add", img, "--uki", u, "--initrd", u, rc=64,
                has=["--initrd goes with --kernel, not with --uki"])
    s.eq(sha(img), before, "the image after the refusals")
    # remove: the uki entry and its file (anysector's); the Type #2 entry is its file
    s.anysector("remove", img, "tiny-1.0", has=["deleted /EFI/Linux/tiny-1.0.efi"])
    s.anysector("remove", img, "dropped", has=["removed from /EFI/Linux/dropped+2-1.efi"])
    r = mtools.run(["mdir", "-b", "::/EFI/Linux"], img, esp_off, text=True)
    s.eq(sorted(os.path.basename(x).lower() for x in r.stdout.split()), ["mine.efi"],
         "/EFI/Linux after the removals")
    s.check("tiny" not in config(img, esp_off) and "default" not in config(img, esp_off),
            "config after remove: %r" % config(img, esp_off))
    s.anysector("check", img, rc=0, has=["boot menu: 1 entry, default 'mine'"])


def main():
    s = Suite("add-kinds")
    return s.run([t_efi_on_partition, t_efi_copied, t_chainload, t_pin, t_uki], jobs=2)


if __name__ == "__main__":
    sys.exit(main())
