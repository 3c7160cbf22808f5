#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Changes from a running system (loop devices, root only): install, add, set-default, remove and
list work while partitions they do not write are mounted (a real ext4 mounted from the loop
device's third partition, its files intact afterwards); a write into a mounted partition, or one
another program holds with O_EXCL, is refused with nothing written; a mounted boot partition is
changed through its filesystem and never as raw sectors. vfat cannot be mounted on every test
machine, so the mounted ESP is declared in a mountinfo file (ANYSECTOR_TEST_MOUNTINFO) whose
mount point is a plain directory holding the ESP's files; strace shows the order of the durable
steps there (temporary file, write, fsync, rename, fsync of the directory). Run by
`make test-live-tools` (suite 53); without root or loop devices every test says SKIP."""
import hashlib
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import keys, mtools, strace  # noqa: E402
from lib.live import declare_mounted, esp_mounted  # noqa: E402
from lib.disk import Loop, sha256 as sha, sparse  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

MIB = 1 << 20


def need_loop():
    if os.geteuid() != 0:
        raise Skip("needs root for loop devices")
    for prog in ("losetup", "partx", "mkfs.ext4", "mount", "mcopy"):
        if not have(prog):
            raise Skip("%s is not installed" % prog)
    if not os.path.exists("/dev/loop-control"):
        raise Skip("no /dev/loop-control: loop devices unavailable")


def kernel(s, name="vmlinuz-6.1.0-live"):
    k = s.path(name)
    with open(k, "wb") as f:
        f.write(b"MZ" + os.urandom(20000))
    return k


def part_sha(dev):
    h = hashlib.sha256()
    with open(dev, "rb") as f:
        for block in iter(lambda: f.read(MIB), b""):
            h.update(block)
    return h.hexdigest()


class Mounted:
    """mkfs.ext4 on a partition node and mount it; always unmounted on leaving."""

    def __init__(self, s, part, name, block=4096):
        self.mnt = s.path(name)
        os.makedirs(self.mnt, exist_ok=True)
        subprocess.run(["mkfs.ext4", "-q", "-F", "-b", str(block), part], check=True,
                       capture_output=True)
        r = subprocess.run(["mount", part, self.mnt], capture_output=True, text=True)
        if r.returncode:
            raise Skip("cannot mount ext4 here: " + r.stderr.strip())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        subprocess.run(["umount", self.mnt], capture_output=True)


def layout(s, name, lss, label="gpt"):
    img = s.path(name)
    sparse(img, 96 * MIB)
    s.anysector("partition", img, "--sector-size", lss, "--label", label, "--esp-size", "32M")
    return img


def t_root_mounted(s):
    """With partition 3 mounted (a running system's root), install, add, set-default, remove and
    list on the disk work at 512 and 4096 bytes per sector; the mounted filesystem's files are
    intact; partition and restore, which may write anywhere, are still refused."""
    need_loop()
    for lss in (512, 4096):
        img = layout(s, "root-%d.img" % lss, lss)
        with Loop(img, lss) as lo:
            lo.scan()
            with Mounted(s, lo.dev + "p3", "root-%d" % lss) as m:
                with open(os.path.join(m.mnt, "etc-hostname"), "w") as f:
                    f.write("still here\n")
                os.sync()
                root_before = subprocess.run(["sha256sum", os.path.join(m.mnt, "etc-hostname")],
                                             capture_output=True, text=True).stdout.split()[0]
                k = kernel(s)
                s.anysector("install", lo.dev, "--dry-run", has=["dry run:"])
                s.anysector("install", lo.dev, "--backup", s.path("i-%d.bak" % lss),
                            has=["stage1 in LBA 0"])
                s.anysector("add", lo.dev, "--kernel", k, "--cmdline", "root=/dev/x",
                            has=["entry '6.1.0-live'"])
                s.anysector("add", lo.dev, "--kernel", k, "--name", "second", "--dry-run",
                            has=["dry run:"])
                s.anysector("add", lo.dev, "--kernel", k, "--name", "second")
                s.anysector("set-default", lo.dev, "second")
                s.anysector("remove", lo.dev, "6.1.0-live", has=["deleted /6.1.0-live/"])
                j = s.json("list", lo.dev)
                s.eq([(e["name"], e["default"]) for e in j.get("entries", [])],
                     [("second", True)], "menu on the live disk (%d)" % lss)
                s.anysector("check", lo.dev, rc=0, has=["stage2 intact"])
                msg = ["%sp3 is mounted on %s" % (lo.dev, m.mnt)]
                s.anysector("partition", lo.dev, "--force", rc=3, has=msg)
                s.anysector("restore", lo.dev, s.path("i-%d.bak" % lss), rc=3, has=msg)
                # the image file itself, with a loop device over it mounted: the same rules
                s.anysector("add", img, "--kernel", k, "--name", "third", "--sector-size", lss)
                s.anysector("mkimage", img, "--size", "96M", "--force", rc=3, has=msg)
                after = subprocess.run(["sha256sum", os.path.join(m.mnt, "etc-hostname")],
                                       capture_output=True, text=True).stdout.split()[0]
                s.eq(after, root_before, "the mounted root's file")
            # the ESP's sectors hold what was written (read without any mount)
            cfg = mtools.read_text(lo.dev + "p2", 0, "/anysector.cfg")
            s.check(cfg and "entry second" in cfg and "entry third" in cfg and
                    "entry 6.1.0-live" not in cfg, "anysector.cfg on the disk: %r" % cfg)
            r = subprocess.run(["fsck.ext4", "-n", "-f", lo.dev + "p3"], capture_output=True,
                               text=True)
            s.eq(r.returncode, 0, "fsck.ext4 of the root after the changes: " + r.stdout[-300:])


def t_mbr_gap_root_mounted(s):
    """MBR: stage2 goes into the gap before partition 1, which no partition holds; with the root
    partition mounted the install goes through."""
    need_loop()
    img = layout(s, "mbr.img", 512, "mbr")
    with Loop(img, 512) as lo:
        lo.scan()
        with Mounted(s, lo.dev + "p2", "mbr-root"):
            s.anysector("install", lo.dev, "--backup", s.path("mbr.bak"),
                        has=["gap between the MBR and the first partition"])
            s.anysector("check", lo.dev, rc=None, has=["stage2 intact"])


def t_write_into_mounted(s):
    """A write into a mounted partition is refused, and so is one into a partition another
    program holds with O_EXCL; the dry run says the same; nothing is written. (--force: the
    file system made there for the test is foreign content install would otherwise refuse.)"""
    need_loop()
    img = layout(s, "busy.img", 512)
    with Loop(img, 512) as lo:
        lo.scan()
        before = sha(img)
        with Mounted(s, lo.dev + "p1", "bios-boot", block=1024) as m:
            msg = ["LBA 2048..", "is refused: %sp1 is mounted on %s" % (lo.dev, m.mnt)]
            s.anysector("install", lo.dev, "--force", rc=3, has=msg)
            s.anysector("install", lo.dev, "--force", "--dry-run", rc=3, has=msg)
        with Mounted(s, lo.dev + "p3", "busy-root"):
            before = sha(img)
            fd = os.open(lo.dev + "p1", os.O_RDONLY | os.O_EXCL)
            try:
                msg = ["another program holds %sp1 open exclusively" % lo.dev]
                s.anysector("install", lo.dev, "--force", rc=3, has=msg)
                s.anysector("install", lo.dev, "--force", "--dry-run", rc=3, has=msg)
            finally:
                os.close(fd)
            s.eq(sha(img), before, "refused installs changed the image")
        # a partition or the disk held by a program, nothing mounted: the disk counts as in use
        for held in (lo.dev + "p1", lo.dev):
            fd = os.open(held, os.O_RDONLY | os.O_EXCL)
            try:
                s.anysector("install", lo.dev, "--force", rc=3, has=["is in use"])
            finally:
                os.close(fd)


def t_mounted_esp(s):
    """The boot partition mounted (as Debian mounts the ESP on /boot/efi): add, set-default,
    remove and install change its files through the mount point (a new file, renamed over the
    old), never its sectors; stage1 and stage2 are written as usual; list reads the mount;
    a read-only mount or a mounted subdirectory is refused."""
    need_loop()
    img = layout(s, "esp.img", 512)
    k = kernel(s)
    with esp_mounted(s, img, k, "boot-efi") as (lo, esp, mnt):
        raw = part_sha(esp)
        lba0 = open(img, "rb").read(512)
        s.anysector("add", lo.dev, "--kernel", k, "--name", "live", "--dry-run",
                    has=["through the filesystem mounted on %s: write /live/" % mnt])
        s.check(not os.path.exists(os.path.join(mnt, "live")), "dry run wrote a file")
        s.anysector("add", lo.dev, "--kernel", k, "--name", "live", "--cmdline", "via mount",
                    has=["is mounted on %s" % mnt])
        cfg = open(os.path.join(mnt, "anysector.cfg")).read()
        s.check("entry live" in cfg and "cmdline via mount" in cfg, "cfg in the mount: " + cfg)
        s.check(os.path.getsize(os.path.join(mnt, "live", os.path.basename(k))) == 20002,
                "kernel in the mount")
        s.check(not [n for n in os.listdir(mnt) if n.startswith(".anysector")],
                "a temporary file was left in the mount")
        s.anysector("set-default", lo.dev, "live")
        s.check("default live\n" in open(os.path.join(mnt, "anysector.cfg")).read(),
                "default in the mount")
        j = s.json("list", lo.dev)
        s.eq([(e["name"], e["default"]) for e in j.get("entries", [])],
             [("first", False), ("live", True)], "list reads the mount")
        s.anysector("remove", lo.dev, "first", has=["deleted /first/"])
        s.check(not os.path.exists(os.path.join(mnt, "first")), "removed dir in the mount")
        efi = os.path.join(mnt, "EFI", "BOOT", "BOOTX64.EFI")
        os.truncate(efi, 100)
        with open(efi, "rb") as f:
            cut = f.read()
        # changed since anysector wrote it: no longer anysector's (anysector(8) OWNERSHIP), so
        # refused as foreign boot code is, and replaced with --force, a copy beside the backup
        bak = s.path("esp-live.bak")
        before = sha(img)
        s.anysector("install", lo.dev, "--backup", bak, rc=3,
                    has=["\\EFI\\BOOT\\BOOTX64.EFI on partition 2 holds a file that is not "
                         "an EFI program", "it changed since anysector wrote it", "use --force"])
        with open(efi, "rb") as f:
            s.eq(f.read(), cut, "refused install: BOOTX64.EFI in the mount")
        s.eq(sha(img), before, "refused install: the image")
        s.anysector("install", lo.dev, "--force", "--backup", bak,
                    has=["not in it", "stage1 in LBA 0",
                         "saved %s to %s.BOOTX64.EFI" % (efi, bak)])
        with open(bak + ".BOOTX64.EFI", "rb") as f:
            s.eq(f.read(), cut, "the replaced BOOTX64.EFI's copy beside the backup")
        with open(os.path.join(s.stages, "BOOTX64.EFI"), "rb") as f, open(efi, "rb") as g:
            s.check(f.read() == g.read(), "install did not replace BOOTX64.EFI in the mount")
        s.eq(part_sha(esp), raw, "the mounted ESP's sectors were written")
        s.check(open(img, "rb").read(512) != lba0, "LBA 0 not written by install")
        # refused: read-only, a subdirectory mounted
        before = sha(img)
        declare_mounted(s, lo, esp, mnt, opts="ro,relatime")
        s.anysector("add", lo.dev, "--kernel", k, "--name", "x", rc=3,
                    has=["is in use: %s is mounted on %s, read-only" % (esp, mnt)])
        s.eq(sha(img), before, "refused add changed the image")


def digest(data):
    return hashlib.sha256(data).hexdigest()


def check_durable(s, what, ops, mnt, puts, removes=(), mkdirs=()):
    """The changes ops made inside mnt are exactly puts (final path -> source file, or None
    when the tool makes the bytes), removes and mkdirs, each made durable in order: a put is a
    new file under a temporary name in the final directory, written, fsync'd after its last
    write, renamed over the final name, then that directory fsync'd; its bytes are the ones
    written (and the source's); a removal or mkdir is followed by an fsync of its directory.
    Every failure names the file and the step missing. Returns {path: op that made it durable}."""
    inside = [o for o in ops if o.path == mnt or o.path.startswith(mnt + "/")]
    # the ESP's lock file (tools/esp/espfs.h ESP_LOCK_FILE) is made empty once, never written
    lock = os.path.join(mnt, "anysector.lock")
    s.eq(sorted({o.kind for o in inside if o.path == lock} - {"create"}), [],
         what + ": what was done to " + lock)
    inside = [o for o in inside if o.path != lock]
    renames = [o for o in inside if o.kind == "rename"]
    s.eq(sorted(o.dst for o in renames), sorted(puts), what + ": files renamed into place")
    done = {}
    for o in renames:
        tmp, dst, parent = o.path, o.dst, os.path.dirname(o.dst)
        s.check(os.path.dirname(tmp) == parent and
                os.path.basename(tmp).startswith(".anysector-new-"),
                "%s: %s was renamed from %s, not from a temporary name beside it"
                % (what, dst, tmp))
        mine = [x for x in inside if x.path == tmp and x.index < o.index]
        made = [x for x in mine if x.kind == "create"]
        if not s.check(made, "%s: %s was not created before its rename (call %d)"
                       % (what, tmp, o.index)):
            continue
        writes = [x for x in mine if x.kind == "write" and x.index > made[-1].index]
        last = writes[-1].index if writes else made[-1].index
        s.check(any(x.kind == "sync" and last < x.index for x in mine),
                "%s: %s: no fsync of the temporary file %s after its last write (call %d) and "
                "before the rename (call %d)" % (what, dst, tmp, last, o.index))
        s.check(not any(w.cut for w in writes), "%s: strace cut a write to %s" % (what, tmp))
        with open(dst, "rb") as f:
            final = digest(f.read())
        s.eq(final, digest(strace.written(writes)),
             "%s: sha256 of %s against the bytes written to %s" % (what, dst, tmp))
        if puts.get(dst):
            with open(puts[dst], "rb") as f:
                s.eq(final, digest(f.read()), "%s: sha256 of %s against its source %s"
                     % (what, dst, puts[dst]))
        d = strace.synced_after(inside, parent, o.index)
        if s.check(d, "%s: %s: no fsync of its directory %s after the rename (call %d)"
                   % (what, dst, parent, o.index)):
            done[dst] = d
    temps = {o.path for o in renames} - set(puts)  # a final name is never a temporary one
    s.eq(sorted({o.path for o in inside if o.kind in ("create", "write")} - temps), [],
         what + ": files created or written in place of a temporary file")
    for kind, want in (("remove", removes), ("mkdir", mkdirs)):
        got = [o for o in inside if o.kind == kind]
        s.eq(sorted(o.path for o in got), sorted(want), "%s: %s calls" % (what, kind))
        for o in got:
            d = strace.synced_after(inside, os.path.dirname(o.path), o.index)
            if s.check(d, "%s: %s of %s: no fsync of its directory after it (call %d)"
                       % (what, kind, o.path, o.index)):
                done[o.path] = d
    return done


def t_mounted_esp_durable(s):
    """The order of the durable steps when add, set-default and remove change a mounted ESP
    (strace of the tool): every file replaced goes temporary name, write, fsync, rename, fsync
    of its directory; removals and new directories are followed by their directory's fsync;
    the bytes in place are the ones written and the sources'. anysector.cfg names a new
    entry's files only once they are durable, and stops naming a removed entry's files before
    they go."""
    need_loop()
    if not have("strace"):
        raise Skip("strace is not installed")
    img = layout(s, "durable.img", 512)
    k = kernel(s)
    initrd = s.path("initrd.img-6.1.0-live")
    with open(initrd, "wb") as f:
        f.write(os.urandom(30000))
    with esp_mounted(s, img, k, "durable-efi") as (lo, esp, mnt):
        cfg = os.path.join(mnt, "anysector.cfg")
        live = os.path.join(mnt, "live")
        files = [os.path.join(live, os.path.basename(p)) for p in (k, initrd)]
        ops = strace.traced(s, "add", lo.dev, "--kernel", k, "--initrd", initrd, "--name", "live")
        own = os.path.join(mnt, "anysector.own")   # the files anysector owns (owned.h)
        done = check_durable(s, "add", ops, mnt, {cfg: None, own: None, files[0]: k,
                                                   files[1]: initrd}, mkdirs=[live])
        s.check("entry live\n" in open(cfg).read(), "add: the entry in the mount's cfg")
        cfg_at = next((o.index for o in ops if o.kind == "rename" and o.dst == cfg), -1)
        for p in files + [live]:
            s.check(p in done and done[p].index < cfg_at, "add: anysector.cfg renamed (call "
                    "%d) before %s was durable" % (cfg_at, p))
        ops = strace.traced(s, "set-default", lo.dev, "live")
        check_durable(s, "set-default", ops, mnt, {cfg: None})
        s.check("default live\n" in open(cfg).read(), "set-default: the default in the mount")
        first = os.path.join(mnt, "first")
        gone = [os.path.join(first, n) for n in os.listdir(first)] + [first]
        ops = strace.traced(s, "remove", lo.dev, "first")
        done = check_durable(s, "remove", ops, mnt, {cfg: None, own: None}, removes=gone)
        rm_at = min([o.index for o in ops if o.kind == "remove" and o.path in gone] or [-1])
        s.check(cfg in done and done[cfg].index < rm_at, "remove: a file was removed (call "
                "%d) before anysector.cfg stopped naming it durably" % rm_at)
        s.check("entry first" not in open(cfg).read(), "remove: first still in the cfg")


def t_mounted_install_durable(s):
    """install through a mounted ESP (strace of the tool) replaces every loader file the durable
    way (temporary name, write, fsync, rename, fsync of EFI/BOOT) and writes none in place; the
    bytes in place are the build's stage (or, with --shim, the shim, the loader as grubx64.efi
    and MokManager beside the shim)."""
    need_loop()
    if not have("strace"):
        raise Skip("strace is not installed")
    shim = keys.SHIM_UNSIGNED
    mm = os.path.join(os.path.dirname(shim), "mmx64.efi")
    if not (os.path.exists(shim) and os.path.exists(mm)):
        raise Skip("shim-unsigned is not installed (%s, %s)" % (shim, mm))
    img = layout(s, "install-durable.img", 512)
    with esp_mounted(s, img, kernel(s), "install-efi") as (lo, esp, mnt):
        boot = os.path.join(mnt, "EFI", "BOOT")
        loader = os.path.join(s.stages, "BOOTX64.EFI")
        ops = strace.traced(s, "install", lo.dev, "--shim", shim,
                            "--backup", s.path("install-shim.bak"))
        own = os.path.join(mnt, "anysector.own")   # the files anysector owns (owned.h)
        check_durable(s, "install --shim", ops, mnt,
                      {own: None, os.path.join(boot, "BOOTX64.EFI"): shim,
                       os.path.join(boot, "grubx64.efi"): loader,
                       os.path.join(boot, "mmx64.efi"): mm})
        ops = strace.traced(s, "install", lo.dev, "--backup", s.path("install-plain.bak"))
        check_durable(s, "install", ops, mnt, {own: None,
                                               os.path.join(boot, "BOOTX64.EFI"): loader})


def t_mounted_bless_uki(s):
    """bless of a counted unified kernel image through a mounted ESP (strace of the tool): the
    file LoaderBootCountPath names, /EFI/Linux/new+1-1.efi, is renamed to new.efi in place with
    rename(2), then its directory fsync'd; no file is created or written in the mount, and the
    bytes are the same; --dry-run says the rename and changes nothing."""
    need_loop()
    if not have("strace"):
        raise Skip("strace is not installed")
    img = layout(s, "bless-uki.img", 512)
    with esp_mounted(s, img, kernel(s), "bless-efi") as (lo, esp, mnt):
        linux = os.path.join(mnt, "EFI", "Linux")
        os.makedirs(linux, exist_ok=True)
        old, new = os.path.join(linux, "new+1-1.efi"), os.path.join(linux, "new.efi")
        data = b"MZ" + os.urandom(70000)
        with open(old, "wb") as f:
            f.write(data)
        ev = s.path("bless-uki-efivars")
        os.makedirs(ev, exist_ok=True)
        with open(os.path.join(ev, "LoaderBootCountPath-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"),
                  "wb") as f:
            f.write(b"\x06\0\0\0" + "\\EFI\\Linux\\new+1-1.efi\0".encode("utf-16-le"))
        os.environ["ANYSECTOR_TEST_EFIVARS"] = ev
        try:
            s.anysector("bless", "--dry-run", lo.dev,
                        has=["through the filesystem mounted on %s: rename "
                             "/EFI/Linux/new+1-1.efi to /EFI/Linux/new.efi" % mnt])
            s.check(os.path.exists(old) and not os.path.exists(new), "bless --dry-run renamed")
            ops = strace.traced(s, "bless", lo.dev)
        finally:
            del os.environ["ANYSECTOR_TEST_EFIVARS"]
        inside = [o for o in ops if o.path.startswith(mnt + "/") and
                  o.path != os.path.join(mnt, "anysector.lock")]
        ren = [(o.path, o.dst) for o in inside if o.kind == "rename"]
        s.eq(ren, [(old, new)], "bless: the renames in the mount")
        at = next((o.index for o in inside if o.kind == "rename"), -1)
        s.check(strace.synced_after(inside, linux, at), "bless: no fsync of %s after the rename"
                % linux)
        s.eq(sorted(o.path for o in inside if o.kind in ("create", "write")), [],
             "bless: files created or written in the mount")
        s.check(not os.path.exists(old), "bless left " + old)
        with open(new, "rb") as f:
            s.eq(f.read(), data, "bless: the renamed file's bytes")


def main():
    s = Suite("live-tools")
    return s.run([t_root_mounted, t_mbr_gap_root_mounted, t_write_into_mounted, t_mounted_esp,
                  t_mounted_esp_durable, t_mounted_install_durable, t_mounted_bless_uki])


if __name__ == "__main__":
    sys.exit(main())
