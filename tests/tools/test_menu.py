#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The boot-menu commands on image files (no root): list (--json and text), set-default, remove,
add --replace and --timeout, check of /loader/entries, info's partition GUIDs and offsets.
Every outcome is asserted as bytes on the boot partition (read back with mtools), exit codes
and the image's SHA-256 where nothing may change. The ASan+UBSan anysector, placeholder stages.
"""
import hashlib
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import mtools  # noqa: E402
from lib.disk import sha256  # noqa: E402
from lib.suite import Suite  # noqa: E402

MID = "0123456789abcdef0123456789abcdef"


def kernel(s, name="vmlinuz-6.1.0-test", size=30000):
    k = s.path(name)
    with open(k, "wb") as f:
        f.write(b"MZ" + bytes(range(256)) * (size // 256))
    return k


def make(s, name, *entries, label="gpt", lss=512):
    """A 32 MiB image from mkimage with one anysector.cfg entry per (name, cmdline) pair."""
    img = s.path(name)
    if os.path.exists(img):
        os.unlink(img)
    args = ["mkimage", img, "--size", "32M", "--label", label, "--sector-size", lss]
    ini = s.path("initrd-shared.img")
    with open(ini, "wb") as f:
        f.write(os.urandom(5000))
    for n, cmd in entries:
        args += ["--kernel", kernel(s), "--name", n, "--cmdline", cmd, "--initrd", ini]
    s.anysector(*args)
    return img


def esp(s, img, *flags):
    j = s.json("info", img, *flags, rc=0)
    bp = [p for p in j.get("partitions", []) if p.get("boot_partition")]
    return bp[0]["start"] * j["topology"]["logical_sector_size"] if bp else 0


def put(s, img, off, path, data):
    src = s.path("put.tmp")
    with open(src, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    r = mtools.run(["mcopy", "-o", src, "::" + path], img, off)
    s.check(r.returncode == 0, "mcopy %s: %r" % (path, r.stderr))


def mkdir(img, off, *dirs):
    for d in dirs:
        mtools.run(["mmd", "::" + d], img, off)


def text(img, off, path):
    return mtools.read_text(img, off, path)


def bls_entry(version, options, initrd="/%s/shared.img" % MID, sort_key="debian"):
    return ("title Debian GNU/Linux 12 (bookworm)\nversion %s\nmachine-id %s\nsort-key %s\n"
            "options %s\nlinux /%s/%s/linux\ninitrd %s\n" % (version, MID, sort_key, options,
                                                             MID, version, initrd))


def add_bls(s, img, off, versions=("6.1.0-9-amd64", "6.1.0-18-amd64")):
    """kernel-install's layout: /MID/VERSION/linux, one initrd shared by all (to see it kept)."""
    mkdir(img, off, "/loader", "/loader/entries", "/" + MID)
    put(s, img, off, "/%s/shared.img" % MID, os.urandom(3000))
    for v in versions:
        mkdir(img, off, "/%s/%s" % (MID, v))
        put(s, img, off, "/%s/%s/linux" % (MID, v), b"MZ" + os.urandom(5000))
        put(s, img, off, "/loader/entries/%s-%s.conf" % (MID, v), bls_entry(v, "v=" + v))


def t_list(s):
    """list --json: anysector.cfg's entries, then the BLS ones newest first, every field, the
    broken file named; the text form; exit 2 for a menu the loaders refuse."""
    img = make(s, "list.img", ("rescue", "single"), ("main", "root=/dev/sda3"))
    off = esp(s, img)
    add_bls(s, img, off)
    put(s, img, off, "/loader/entries/broken.conf", "title no kernel\n")
    put(s, img, off, "/loader/loader.conf", "timeout 9\ndefault *-6.1.0-9-*\n")
    before = sha256(img)
    j = s.json("list", img, rc=0)
    names = [e.get("name") for e in j.get("entries", [])]
    s.eq(names, ["rescue", "main", MID + "-6.1.0-18-amd64", MID + "-6.1.0-9-amd64"], "order")
    # anysector.cfg (mkimage's) sets a timeout but no default: loader.conf's default counts
    s.eq(j.get("default"), MID + "-6.1.0-9-amd64", "loader.conf's default")
    s.eq((j.get("timeout"), j.get("timeout_from")), (3, "anysector.cfg"), "timeout")
    e = j["entries"][2]
    s.eq((e["title"], e["menu_title"], e["version"], e["machine_id"], e["sort_key"]),
         ("Debian GNU/Linux 12 (bookworm)", "Debian GNU/Linux 12 (bookworm) (6.1.0-18-amd64)",
          "6.1.0-18-amd64", MID, "debian"), "BLS fields")
    s.eq((e["kernel"], e["initrds"], e["cmdline"], e["source"], e["file"], e["default"]),
         ("/%s/6.1.0-18-amd64/linux" % MID, ["/%s/shared.img" % MID], "v=6.1.0-18-amd64", "bls",
          "/loader/entries/%s-6.1.0-18-amd64.conf" % MID, False), "BLS entry")
    e = j["entries"][1]
    s.eq((e["kernel"], e["cmdline"], e["source"], e["file"], e["kind"]),
         ("/main/vmlinuz-6.1.0-test", "root=/dev/sda3", "anysector.cfg", "/anysector.cfg",
          "linux"), "cfg entry")
    s.check(any(p["code"] == "bls.no_linux" and "/loader/entries/broken.conf" in p["message"]
                for p in j.get("problems", [])), "broken entry not named: %r" % j.get("problems"))
    out, _ = s.anysector("list", img, has=["  1) rescue", "* 4) %s-6.1.0-9-amd64" % MID,
                                           "from     /loader/entries/%s-6.1.0-9-amd64.conf" % MID,
                                           "/loader/entries/broken.conf: no linux line"])
    s.eq(sha256(img), before, "list changed the image")
    # without anysector.cfg: loader.conf's default and timeout count
    mtools.run(["mdel", "::/anysector.cfg"], img, off)
    j = s.json("list", img, rc=0)
    s.eq((j.get("default"), j.get("timeout"), j.get("timeout_from"), j.get("config")),
         (MID + "-6.1.0-9-amd64", 9, "loader.conf", False), "loader.conf's default and timeout")
    # a default naming nothing: a warning saying which entry boots instead, not a refusal
    put(s, img, off, "/anysector.cfg", "timeout 3\ndefault nothing-of-that-name\n")
    j = s.json("list", img, rc=0)
    s.check(any(p["code"] == "cfg.default" and p["level"] == "warning" and
                "default 'nothing-of-that-name' names no entry; 1) %s-6.1.0-18-amd64 boots by "
                "default" % MID in p["message"] for p in j.get("problems", [])),
            "default not named: %r" % j.get("problems"))
    s.eq(j.get("default"), MID + "-6.1.0-18-amd64", "the newest kernel boots instead")
    # an anysector.cfg the loaders refuse: exit 2, said
    put(s, img, off, "/anysector.cfg", "timeout x\n")
    s.anysector("list", img, rc=2, has=["timeout 'x'"])
    # no boot partition, no image: exit 2 (JSON too)
    blank = s.path("blank.img")
    with open(blank, "wb") as f:
        f.truncate(16 << 20)
    j = s.json("list", blank, rc=2)
    s.eq(j.get("status"), 2, "blank image status")
    j = s.json("list", s.path("missing.img"), rc=2)
    s.check(j.get("problems"), "missing image: no problem named")


def t_set_default(s):
    """set-default writes 'default NAME' (a BLS entry's name too), replacing the line there;
    refuses an unknown name with the image unchanged; --dry-run and --backup as add's."""
    img = make(s, "def.img", ("a", "one"), ("b", "two"))
    off = esp(s, img)
    add_bls(s, img, off)
    before = sha256(img)
    s.anysector("set-default", img, "nothing", rc=3, has=["has no entry named 'nothing'"])
    s.anysector("set-default", img, "b", "--dry-run", has=["dry run:"])
    s.eq(sha256(img), before, "refused/dry-run set-default changed the image")
    s.anysector("set-default", img, MID.upper() + "-6.1.0-9-AMD64", "--backup", img + ".b1",
                has=["default '%s-6.1.0-9-amd64'" % MID])
    cfg = text(img, off, "/anysector.cfg")
    s.check(cfg and ("\ndefault %s-6.1.0-9-amd64\n" % MID) in cfg, "default line: %r" % cfg)
    s.eq(s.json("list", img).get("default"), MID + "-6.1.0-9-amd64", "list's default")
    s.anysector("set-default", img, "b")
    cfg = text(img, off, "/anysector.cfg")
    s.check(cfg.count("default ") == 1 and "default b\n" in cfg, "one default line: %r" % cfg)
    s.anysector("restore", img, img + ".b1", rc=3)      # the ESP changed since
    # the backup of one set-default restores it
    img2 = make(s, "def2.img", ("a", "one"), ("b", "two"))
    before = sha256(img2)
    s.anysector("set-default", img2, "b", "--backup", img2 + ".b")
    s.check(sha256(img2) != before, "set-default changed nothing")
    s.anysector("restore", img2, img2 + ".b")
    s.eq(sha256(img2), before, "restore after set-default")
    # no anysector.cfg: one is made, with the default alone (loader.conf's timeout still counts)
    off2 = esp(s, img2)
    add_bls(s, img2, off2)
    mtools.run(["mdel", "::/anysector.cfg"], img2, off2)
    s.anysector("set-default", img2, MID + "-6.1.0-9-amd64")
    cfg = text(img2, off2, "/anysector.cfg")
    s.check(cfg and "default %s-6.1.0-9-amd64\n" % MID in cfg and "timeout" not in cfg
            and "entry" not in cfg, "made anysector.cfg: %r" % cfg)


def t_remove(s):
    """remove: the entry's lines or file, its files unless another entry uses them, emptied
    directories, a default naming it; refuses an unknown name and the last entry."""
    img = make(s, "rm.img", ("a", "one"), ("b", "two"), ("c", "three"))
    off = esp(s, img)
    add_bls(s, img, off)
    s.anysector("set-default", img, "b")
    before = sha256(img)
    s.anysector("remove", img, "zz", rc=3, has=["has no entry named 'zz'"])
    s.anysector("remove", img, "b", "--dry-run", has=["dry run:"])
    s.eq(sha256(img), before, "refused/dry-run remove changed the image")
    s.anysector("remove", img, "b", has=["entry 'b' removed", "deleted /b/vmlinuz-6.1.0-test",
                                         "removed the empty directory /b",
                                         "'b' was the default"])
    cfg = text(img, off, "/anysector.cfg")
    s.check("entry b" not in cfg and "default" not in cfg and "entry a" in cfg and
            "entry c" in cfg and "cmdline three" in cfg, "cfg after remove: %r" % cfg)
    s.eq(text(img, off, "/b/vmlinuz-6.1.0-test"), None, "b's kernel still there")
    s.check(text(img, off, "/a/vmlinuz-6.1.0-test") is not None, "a's kernel gone")
    # a BLS entry: its file goes (the entry), its kernel and initrds stay: kernel-install wrote
    # them, not anysector (tools/ops/owned.h); the initrd the other BLS entry uses is named so
    s.anysector("remove", img, MID + "-6.1.0-18-amd64",
                has=["kept /%s/6.1.0-18-amd64/linux: anysector did not write it" % MID,
                     "kept /%s/shared.img: entry '%s-6.1.0-9-amd64' uses it" % (MID, MID)])
    s.eq(text(img, off, "/loader/entries/%s-6.1.0-18-amd64.conf" % MID), None, "conf stays")
    s.check(text(img, off, "/%s/6.1.0-18-amd64/linux" % MID) is not None, "BLS kernel deleted")
    s.check(text(img, off, "/%s/shared.img" % MID) is not None, "shared initrd deleted")
    s.anysector("remove", img, MID + "-6.1.0-9-amd64",
                has=["kept /%s/shared.img: anysector did not write it" % MID],
                lacks=["deleted", "removed the empty directory"])
    s.check(text(img, off, "/%s/shared.img" % MID) is not None, "BLS initrd deleted")
    r = mtools.run(["mdir", "-b", "::/loader/entries"], img, off, text=True)
    s.check(r.returncode == 0, "/loader/entries removed with its last entry")
    j = s.json("list", img)
    s.eq([e["name"] for e in j.get("entries", [])], ["a", "c"], "menu after removes")
    s.anysector("remove", img, "a")
    before = sha256(img)
    s.anysector("remove", img, "c", rc=3, has=["the only entry"])
    s.eq(sha256(img), before, "refused last remove changed the image")
    s.anysector("remove", img, "c", "--force")
    j = s.json("list", img, rc=2)
    s.eq((j.get("entries"), [p["code"] for p in j.get("problems", [])]), ([], ["cfg.no_entry"]),
         "menu after --force: empty, and the loaders would say so")
    s.anysector("check", img, rc=2, has=["no entry to boot"])


def own(s, img, off, *paths):
    """Lists the files at paths in /anysector.own as anysector's (tools/ops/owned.h), with the
    SHA-256 they have: as if anysector had written them."""
    lines = text(img, off, "/anysector.own")
    for p in paths:
        lines += "%s  %s\n" % (hashlib.sha256(mtools.read(img, off, p)).hexdigest(), p)
    put(s, img, off, "/anysector.own", lines)


def t_remove_path_spelling(s):
    """remove keeps a file another entry names in another spelling the loaders open as the same
    file (common/fat_path.h: "." parts, '\\', case); the last user's remove deletes it, the list
    of anysector's files naming it in yet another spelling."""
    img = make(s, "rmsp.img", ("a", "one"))
    off = esp(s, img)
    add_bls(s, img, off)
    put(s, img, off, "/loader/entries/%s-6.1.0-9-amd64.conf" % MID,
        bls_entry("6.1.0-9-amd64", "v=9", initrd="/%s/./\\SHARED.img" % MID.upper()))
    # kernel-install's files are not anysector's (t_remove): these are
    own(s, img, off, "/%s/shared.img" % MID,
        *("/%s/%s/linux" % (MID, v) for v in ("6.1.0-9-amd64", "6.1.0-18-amd64")))
    s.anysector("check", img, lacks=["initrd"])
    s.anysector("remove", img, MID + "-6.1.0-18-amd64",
                has=["kept /%s/shared.img: entry '%s-6.1.0-9-amd64' uses it" % (MID, MID)],
                lacks=["deleted /%s/shared.img" % MID])
    s.check(text(img, off, "/%s/shared.img" % MID) is not None, "shared initrd deleted")
    s.anysector("remove", img, MID + "-6.1.0-9-amd64",
                has=["deleted /%s/./\\SHARED.img" % MID.upper()])
    s.eq(text(img, off, "/%s/shared.img" % MID), None, "shared initrd kept after its last user")


def t_kinds(s):
    """list names each entry's kind, partition and firmware (a BLS entry: UEFI only while stage2
    reads no /loader/entries); remove of an efi entry whose file is on another partition, or
    of a chainload entry, deletes nothing on the boot partition (here the path is
    /EFI/BOOT/BOOTX64.EFI, which must stay)."""
    img = make(s, "kinds.img", ("main", "root=/dev/sda3"))
    off = esp(s, img)
    add_bls(s, img, off, versions=("6.1.0-9-amd64",))
    cfg = text(img, off, "/anysector.cfg")
    put(s, img, off, "/anysector.cfg", cfg + "entry shell\n  efi /EFI/BOOT/BOOTX64.EFI\n"
        "  partition 3\nentry win\n  chainload 2\nentry other\n  chainload hd1\n")
    j = s.json("list", img, rc=0)
    got = [(e["name"], e["kind"], e["partition"], e.get("bios_disk"), e["firmware"])
           for e in j.get("entries", [])]
    s.eq(got, [("main", "linux", None, None, ["bios", "uefi"]),
               ("shell", "efi", 3, None, ["uefi"]),
               ("win", "chainload", 2, None, ["bios"]),
               ("other", "chainload", None, 1, ["bios"]),
               (MID + "-6.1.0-9-amd64", "linux", None, None, ["bios", "uefi"])], "kinds")
    s.anysector("list", img, has=["efi      /EFI/BOOT/BOOTX64.EFI on partition 3",
                                  "chainload partition 2", "chainload hd1", "shown    UEFI only",
                                  "shown    BIOS only", "shown    BIOS and UEFI"])
    efi = text(img, off, "/EFI/BOOT/BOOTX64.EFI")
    s.check(efi is not None, "mkimage put no BOOTX64.EFI")
    out, _ = s.anysector("remove", img, "shell", has=["entry 'shell' removed"])
    s.check("deleted" not in out, "remove of an efi entry on partition 3 deleted: " + out)
    s.eq(text(img, off, "/EFI/BOOT/BOOTX64.EFI"), efi, "BOOTX64.EFI after removing 'shell'")
    out, _ = s.anysector("remove", img, "win", has=["entry 'win' removed"])
    s.check("deleted" not in out, "remove of a chainload entry deleted: " + out)
    s.eq([e["name"] for e in s.json("list", img).get("entries", [])],
         ["main", "other", MID + "-6.1.0-9-amd64"], "menu after the removes")


def t_replace_and_timeout(s):
    """add refuses a taken name (anysector.cfg's or a BLS entry's) unless --replace, which
    swaps the lines and deletes the old files nothing uses; --timeout sets the one timeout."""
    img = make(s, "rep.img", ("k", "old"))
    off = esp(s, img)
    add_bls(s, img, off, versions=("6.1.0-9-amd64",))
    k2 = kernel(s, "other-kernel", 9000)
    before = sha256(img)
    s.anysector("add", img, "--kernel", k2, "--name", "k", rc=3, has=["already has an entry"])
    s.anysector("add", img, "--kernel", k2, "--name", MID + "-6.1.0-9-amd64", rc=3,
                has=["is the Boot Loader Specification entry"])
    s.anysector("add", img, "--kernel", k2, "--name", MID + "-6.1.0-9-amd64", "--replace",
                rc=3, has=["is the Boot Loader Specification entry"])
    s.eq(sha256(img), before, "refused add changed the image")
    s.anysector("add", img, "--kernel", k2, "--name", "k", "--cmdline", "new", "--replace",
                "--timeout", "11", has=["entry 'k' (kernel", "replaced in anysector.cfg",
                                        "deleted /k/vmlinuz-6.1.0-test", "deleted /k/initrd-shared.img",
                                        "timeout 11 s"])
    cfg = text(img, off, "/anysector.cfg")
    s.check(cfg.count("entry k") == 1 and "cmdline new" in cfg and "cmdline old" not in cfg and
            cfg.count("timeout") == 1 and "timeout 11\n" in cfg, "cfg after --replace: %r" % cfg)
    s.check(text(img, off, "/k/other-kernel") is not None, "new kernel missing")
    s.eq(text(img, off, "/k/vmlinuz-6.1.0-test"), None, "old kernel kept")
    # a derived name that is a BLS entry's steps past it
    k3 = kernel(s, "vmlinuz-%s-6.1.0-9-amd64" % MID, 4000)
    s.anysector("add", img, "--kernel", k3, has=["entry '%s-6.1.0-9-amd64-2'" % MID])
    s.anysector("add", img, "--kernel", k2, "--timeout", "3601", rc=64)


def t_check_bls(s):
    """check reads /loader/entries as the loaders do: a broken file is an error with its file
    and line, an unsupported one a warning, a kernel that is not there an error."""
    img = make(s, "chk.img", ("k", "x"))
    off = esp(s, img)
    add_bls(s, img, off, versions=("6.1.0-9-amd64",))
    s.anysector("check", img, rc=0, has=["boot menu: 2 entries, default '%s-6.1.0-9-amd64'"
                                         % MID, "1 from /loader/entries and /EFI/Linux"])
    put(s, img, off, "/loader/entries/long.conf", "linux /k\ntitle " + "t" * 300 + "\n")
    s.anysector("check", img, rc=2, has=["/loader/entries/long.conf line 2: title is cut to "
                                         "255 bytes", "long.conf entry 'long': kernel /k is "
                                         "not on the boot partition"])
    mtools.run(["mdel", "::/loader/entries/long.conf"], img, off)
    put(s, img, off, "/loader/entries/efi.conf", "title tool\nefi /EFI/tool.efi\n")
    s.anysector("check", img, rc=1, has=["efi.conf line 2: anysector does not support 'efi'"])
    mtools.run(["mdel", "::/loader/entries/efi.conf"], img, off)
    put(s, img, off, "/loader/entries/gone.conf", "linux /no/such/kernel\n")
    s.anysector("check", img, rc=2, has=["loader/entries/gone.conf entry 'gone': kernel "
                                         "/no/such/kernel is not on the boot partition"])


def t_info_partitions(s):
    """info names each GPT partition's unique GUID and byte offset, as info --json has them."""
    for lss in (512, 4096):
        img = make(s, "info-%d.img" % lss, ("k", "x"), lss=lss)
        j = s.json("info", img)
        out, _ = s.anysector("info", img)
        for p in j.get("partitions", []):
            s.check("at byte %d, unique GUID %s" % (p["start"] * lss, p["uuid"]) in out,
                    "partition %s not shown: %s" % (p.get("number"), out))
    img = make(s, "info-mbr.img", ("k", "x"), label="mbr")
    out, _ = s.anysector("info", img, "--sector-size", "512", has=["     at byte 1048576"])


def main():
    if not all(subprocess.run(["which", p], capture_output=True).returncode == 0
               for p in ("mcopy", "mkfs.fat")):
        print("tools-menu: mtools and dosfstools are needed")
        return 1
    s = Suite("tools-menu")
    return s.run([t_list, t_set_default, t_remove, t_remove_path_spelling, t_kinds,
                  t_replace_and_timeout, t_check_bls, t_info_partitions], jobs=2)


if __name__ == "__main__":
    sys.exit(main())
