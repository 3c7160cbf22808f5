#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Ownership on the ESP (tools/ops/owned.h) on image files, no root: anysector replaces and
deletes only the files it wrote, listed with their SHA-256 in /anysector.own. A Windows-like GPT
disk (tests/lib/windisk.py: ESP with \\EFI\\Microsoft\\Boot\\bootmgfw.efi, MSR, NTFS, no BIOS
boot partition) keeps every foreign file's SHA-256 through add, remove, set-default and install;
a foreign \\EFI\\BOOT\\BOOTX64.EFI is refused without --force; the migration rule of a disk
installed before the list. The real stages (build/stages) and the EFI test payload as the
"Windows" boot manager; the ASan+UBSan anysector."""
import hashlib
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import efivars, gpt, mtools, paths, windisk  # noqa: E402
from lib.disk import read_at, sha256  # noqa: E402
from lib.suite import Suite  # noqa: E402

OWN = "/anysector.own"


def kernel(s, name="vmlinuz-6.1.0-test", size=30000, seed=1):
    k = s.path(name)
    with open(k, "wb") as f:
        f.write(b"MZ" + bytes((i * seed + 7) & 0xFF for i in range(size)))
    return k


def put(s, img, off, path, data):
    src = s.path("put.tmp")
    with open(src, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    r = mtools.run(["mcopy", "-o", src, "::" + path], img, off)
    s.check(r.returncode == 0, "mcopy %s: %r" % (path, r.stderr))


def own_list(img, off):
    """{path: sha256} of /anysector.own, or None without it."""
    text = mtools.read_text(img, off, OWN)
    if text is None:
        return None
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            h, p = line.split(None, 1)
            out[p] = h
    return out


def file_sha(img, off, path):
    data = mtools.read(img, off, path)
    return hashlib.sha256(data).hexdigest() if data is not None else None


def windows(s, name="win.img"):
    """The Windows-like disk; returns (image, ESP offset, {foreign path: sha256})."""
    img = s.path(name)
    off, files = windisk.make(img, paths.EFI_PAYLOAD, work=s.work)
    return img, off, {p: hashlib.sha256(d).hexdigest() for p, d in files.items()}


def foreign_intact(s, img, off, want, what):
    got = windisk.sha256_files(img, off, want)
    s.eq(got, want, "foreign files after " + what)


def t_windows_gpt(s):
    """add, remove, set-default and install on Windows' GPT disk: every foreign file keeps its
    SHA-256; a hand-written entry naming bootmgfw.efi loses its lines, not the file."""
    img, off, foreign = windows(s)
    before = sha256(img)
    s.anysector("install", img, rc=3, has=["has no BIOS boot partition"])
    s.eq(sha256(img), before, "refused install changed the image")
    k = kernel(s)
    s.anysector("add", img, "--kernel", k, "--name", "linux", "--cmdline", "root=/dev/sda4",
                has=["entry 'linux'"])
    foreign_intact(s, img, off, foreign, "add")
    s.eq(own_list(img, off), {"/linux/vmlinuz-6.1.0-test": file_sha(img, off,
                                                                     "/linux/vmlinuz-6.1.0-test")},
         "the list after add")
    # Windows' boot manager as an entry: nothing copied, the file stays Windows'
    s.anysector("add", img, "--efi", "/EFI/Microsoft/Boot/bootmgfw.efi", "--partition", "1",
                "--name", "windows", "--title", "Windows Boot Manager")
    s.anysector("set-default", img, "windows")
    foreign_intact(s, img, off, foreign, "set-default")
    s.anysector("remove", img, "windows", lacks=["deleted"])
    foreign_intact(s, img, off, foreign, "remove of the --partition entry")
    # a hand-written entry naming the same file on this partition: remove keeps the file
    cfg = mtools.read_text(img, off, "/anysector.cfg")
    put(s, img, off, "/anysector.cfg",
        cfg + "\nentry hand\n  efi /EFI/Microsoft/Boot/bootmgfw.efi\nentry boot\n"
        "  efi /EFI/Boot/bootx64.efi\n")
    for name, path in (("hand", "/EFI/Microsoft/Boot/bootmgfw.efi"),
                       ("boot", "/EFI/Boot/bootx64.efi")):
        s.anysector("remove", img, name,
                    has=["entry '%s' removed" % name, "kept %s: anysector did not write it" % path],
                    lacks=["deleted", "removed the empty directory"])
    foreign_intact(s, img, off, foreign, "remove of hand-written entries")
    cfg = mtools.read_text(img, off, "/anysector.cfg")
    s.check("entry hand" not in cfg and "entry boot" not in cfg, "lines stay: %r" % cfg)
    # the anysector entry's own files go, and the list with them
    s.anysector("add", img, "--kernel", kernel(s, "other", seed=3), "--name", "two")
    s.anysector("remove", img, "linux", has=["deleted /linux/vmlinuz-6.1.0-test",
                                             "removed the empty directory /linux"])
    s.eq(sorted(own_list(img, off) or {}), ["/two/other"], "the list after remove")
    foreign_intact(s, img, off, foreign, "remove")


def t_add_foreign(s):
    """add never replaces a file it did not write: exit 3, one sentence, nothing written; a file
    it wrote whose bytes changed since is no longer its own (remove keeps it); --replace may
    take the replaced entry's own files."""
    img, off, foreign = windows(s, "addf.img")
    mtools.run(["mmd", "::/tools"], img, off)
    put(s, img, off, "/tools/vmlinuz", b"MZ hand-copied kernel")
    before = sha256(img)
    k = kernel(s, "vmlinuz")
    s.anysector("add", img, "--kernel", k, "--name", "tools", rc=3,
                has=["/tools/vmlinuz on partition 1 would be replaced, but anysector did not "
                     "write it; nothing was written"])
    s.eq(sha256(img), before, "refused add changed the image")
    s.anysector("add", img, "--kernel", k, "--name", "mine")
    s.anysector("add", img, "--kernel", k, "--name", "mine2")
    put(s, img, off, "/mine/vmlinuz", b"MZ changed by someone else")
    s.anysector("remove", img, "mine", has=["kept /mine/vmlinuz: it changed since anysector "
                                            "wrote it"], lacks=["deleted"])
    s.eq(mtools.read(img, off, "/mine/vmlinuz"), b"MZ changed by someone else", "changed file")
    # a hand-written entry whose files are where add puts them: --replace takes them
    cfg = mtools.read_text(img, off, "/anysector.cfg")
    put(s, img, off, "/anysector.cfg", cfg + "\nentry tools\n  kernel /tools/vmlinuz\n")
    s.anysector("add", img, "--kernel", k, "--name", "tools", "--replace",
                has=["entry 'tools'"])
    s.eq(file_sha(img, off, "/tools/vmlinuz"), hashlib.sha256(open(k, "rb").read()).hexdigest(),
         "replaced entry's file")
    s.check("/tools/vmlinuz" in (own_list(img, off) or {}), "replaced file not listed")
    foreign_intact(s, img, off, foreign, "add")


def t_install_foreign_efi(s):
    """A foreign \\EFI\\BOOT\\BOOTX64.EFI is refused like foreign boot code, naming what it is;
    --force replaces it with the backup holding its sectors (restore gives it back)."""
    img = s.path("fb.img")
    s.anysector("mkimage", img, "--size", "64M", "--kernel", kernel(s), "--name", "lin")
    j = s.json("info", img)
    off = [p for p in j["partitions"] if p.get("boot_partition")][0]["start"] * 512
    s.check(own_list(img, off) and "/EFI/BOOT/BOOTX64.EFI" in own_list(img, off),
            "mkimage's loader not listed: %r" % own_list(img, off))
    with open(paths.EFI_PAYLOAD, "rb") as f:
        payload = f.read()
    put(s, img, off, "/EFI/BOOT/BOOTX64.EFI", payload)
    before = sha256(img)
    s.anysector("install", img, rc=3,
                has=["\\EFI\\BOOT\\BOOTX64.EFI on partition 2 holds a program",
                     "it changed since anysector wrote it", "use --force"])
    s.eq(sha256(img), before, "refused install changed the image")
    bk = s.path("fb.backup")
    s.anysector("install", img, "--force", "--backup", bk,
                has=["--force: replacing \\EFI\\BOOT\\BOOTX64.EFI",
                     "replaced \\EFI\\BOOT\\BOOTX64.EFI"])
    with open(os.path.join(s.stages, "BOOTX64.EFI"), "rb") as f:
        s.eq(mtools.read(img, off, "/EFI/BOOT/BOOTX64.EFI") == f.read(), True, "loader in place")
    s.anysector("restore", img, bk)
    s.eq(sha256(img), before, "restore after install --force")
    s.eq(mtools.read(img, off, "/EFI/BOOT/BOOTX64.EFI") == payload, True, "foreign file back")


def t_migration(s):
    """A disk without /anysector.own: anysector's loader (by its SBAT) and the files of
    anysector.cfg entries lying in /NAME/ are taken as anysector's; other files are not."""
    img = s.path("mig.img")
    s.anysector("mkimage", img, "--size", "64M", "--kernel", kernel(s), "--name", "lin",
                "--kernel", kernel(s, "k2", seed=5), "--name", "two")
    j = s.json("info", img)
    off = [p for p in j["partitions"] if p.get("boot_partition")][0]["start"] * 512
    mtools.run(["mdel", "::" + OWN], img, off)
    cfg = mtools.read_text(img, off, "/anysector.cfg")
    mtools.run(["mmd", "::/hand"], img, off)
    put(s, img, off, "/hand/shell.efi", b"MZ hand")
    put(s, img, off, "/loose.efi", b"MZ loose")
    put(s, img, off, "/anysector.cfg", cfg + "\nentry hand\n  efi /hand/shell.efi\n"
        "entry loose\n  efi /loose.efi\nentry x\n  efi /hand/shell.efi\n")
    s.anysector("set-default", img, "two", has=["anysector.own on partition 2: 4 files"])
    got = own_list(img, off) or {}
    s.eq(sorted(got), ["/EFI/BOOT/BOOTX64.EFI", "/hand/shell.efi", "/lin/vmlinuz-6.1.0-test",
                       "/two/k2"], "migrated list")
    s.anysector("remove", img, "loose", has=["kept /loose.efi: anysector did not write it"])
    s.check(mtools.read(img, off, "/loose.efi") is not None, "loose file deleted")
    # a list that does not parse: exit 2 naming the line, nothing written
    put(s, img, off, OWN, "# comment\nnot a hash  /x\n")
    before = sha256(img)
    s.anysector("remove", img, "hand", rc=2, has=["anysector.own line 2 is not 'SHA256 /PATH'"])
    s.anysector("install", img, rc=2, has=["anysector.own line 2 is not 'SHA256 /PATH'"])
    s.eq(sha256(img), before, "refused remove and install changed the image")
    # check says so, a warning only: the loaders never read the list
    s.anysector("check", img, rc=1,
                has=["warning boot.owned               partition 2: anysector.own line 2 is not 'SHA256 /PATH': install, "
                     "add and remove change nothing on it until the list is fixed or deleted "
                     "(the loaders do not read it)"])
    mtools.run(["mdel", "::" + OWN], img, off)
    s.anysector("check", img, rc=0, lacks=["anysector.own"])


def t_uefi_only(s):
    """install --uefi-only beside Windows: no BIOS boot partition needed, LBA 0 and the gap
    untouched, the loader in \\EFI\\anysector\\, the fallback path kept (it is Windows'), a
    Boot#### entry (HD + File, as efibootmgr writes it) first in BootOrder through an
    efivarfs-like directory; a second install reuses the entry; --no-nvram and --dry-run write
    no variable; check names the firmware paths that start anysector."""
    img, off, foreign = windows(s, "uefi.img")
    head = read_at(img, 0, off)
    ev = s.path("efivars")
    os.makedirs(ev, exist_ok=True)
    esp_sectors = windisk.ESP_MIB * windisk.MIB // 512
    win = efivars.load_option("Windows Boot Manager", 1, off // 512, esp_sectors,
                              gpt.part_guid(1), "/EFI/Microsoft/Boot/bootmgfw.efi")
    efivars.write_var(ev, "Boot0000", win)
    efivars.write_var(ev, "BootOrder", efivars.boot_order([0]))
    env = dict(os.environ, ANYSECTOR_TEST_EFIVARS=ev)
    os.environ["ANYSECTOR_TEST_EFIVARS"] = ev
    try:
        before = sha256(img)
        s.anysector("install", "--uefi-only", "--dry-run", img,
                    has=["would write the firmware boot entry Boot0001 (\"anysector\", "
                         "\\EFI\\anysector\\anysectorx64.efi on partition 1)",
                         "would set BootOrder 0001,0000 (now 0000)"])
        s.eq((sha256(img), sorted(os.listdir(ev))),
             (before, sorted(["Boot0000-" + efivars.GLOBAL, "BootOrder-" + efivars.GLOBAL])),
             "dry run changed the image or the variables")
        s.anysector("install", "--uefi-only", img,
                    has=["\\EFI\\anysector\\anysectorx64.efi on partition 1",
                         "kept \\EFI\\BOOT\\BOOTX64.EFI (a program",
                         'firmware boot entry Boot0001 "anysector" starts '
                         "\\EFI\\anysector\\anysectorx64.efi on partition 1",
                         "BootOrder 0001,0000 (was 0000)"])
        s.eq(read_at(img, 0, off) == head, True, "LBA 0 or the gap changed")
        foreign_intact(s, img, off, foreign, "install --uefi-only")
        with open(os.path.join(s.stages, "BOOTX64.EFI"), "rb") as f:
            s.eq(mtools.read(img, off, "/EFI/anysector/anysectorx64.efi") == f.read(), True,
                 "the loader in \\EFI\\anysector\\")
        attr, data = efivars.read_var(ev, "Boot0001")
        got = efivars.parse_option(data)
        s.eq((attr, got[0], got[1], got[2], got[3]),
             (7, 1, "anysector", {"number": 1, "start": off // 512, "size": esp_sectors,
                                  "signature": gpt.part_guid(1), "gpt": True},
              "\\EFI\\anysector\\anysectorx64.efi"), "Boot0001")
        s.eq(data, efivars.load_option("anysector", 1, off // 512, esp_sectors, gpt.part_guid(1),
                                       "/EFI/anysector/anysectorx64.efi"), "Boot0001's bytes")
        s.eq(efivars.read_boot_order(ev), [1, 0], "BootOrder")
        s.eq(efivars.read_var(ev, "Boot0000"), (7, win), "Windows' entry")
        # exit 1: the menu is empty yet (boot.no_config)
        s.anysector("check", img, rc=1, has=['firmware boot entry Boot0001 "anysector", position 1 in '
                                       "BootOrder starts",
                                       'Boot0000 "Windows Boot Manager", position 2 in BootOrder '
                                       "starts \\EFI\\Microsoft\\Boot\\bootmgfw.efi on "
                                       "partition 1: not anysector",
                                       "firmware paths that start anysector: Boot0001"])
        # again: the same entry, nothing new in the firmware
        efivars.write_var(ev, "BootOrder", efivars.boot_order([0, 1]))
        s.anysector("install", "--uefi-only", img, has=["Boot0001 \"anysector\" starts",
                                                         "(unchanged)",
                                                         "BootOrder 0001,0000 (was 0000,0001)"])
        s.eq(sorted(os.listdir(ev)), sorted(["Boot0000-" + efivars.GLOBAL,
                                             "Boot0001-" + efivars.GLOBAL,
                                             "BootOrder-" + efivars.GLOBAL]), "variables")
        os.unlink(efivars.var_file(ev, "Boot0001"))
        s.anysector("install", "--uefi-only", "--no-nvram", img,
                    has=["no firmware path starts anysector yet"], lacks=["Boot0001"])
        s.eq(efivars.read_var(ev, "Boot0001"), None, "--no-nvram wrote an entry")
    finally:
        del os.environ["ANYSECTOR_TEST_EFIVARS"]
    del env
    # without a firmware that sees the image, check says what only a boot entry can do
    s.anysector("check", img, rc=1, has=["\\EFI\\anysector\\anysectorx64.efi starts anysector",
                                   "only a firmware boot entry of the machine"])
    foreign_intact(s, img, off, foreign, "the installs")


if __name__ == "__main__":
    s = Suite("tools-owned")
    os.environ["ANYSECTOR_STAGES"] = s.stages = paths.STAGES
    sys.exit(s.run([t_windows_gpt, t_add_foreign, t_install_foreign_efi, t_migration,
                    t_uefi_only]))
