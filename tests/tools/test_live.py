#!/usr/bin/env python3
"""Changes from a running system (loop devices, root only): install, add, set-default, remove and
list work while partitions they do not write are mounted (a real ext4 mounted from the loop
device's third partition, its files intact afterwards); a write into a mounted partition, or one
another program holds with O_EXCL, is refused with nothing written; a mounted boot partition is
changed through its filesystem and never as raw sectors. vfat cannot be mounted on every test
machine, so the mounted ESP is declared in a mountinfo file (ANYSECTOR_TEST_MOUNTINFO) whose
mount point is a plain directory holding the ESP's files. Run by `make test-live-tools`
(suite 53); without root or loop devices every test says SKIP."""
import hashlib
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import mtools  # noqa: E402
from lib.disk import Loop, sha256 as sha, sparse  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

MIB = 1 << 20
MOUNTINFO = "ANYSECTOR_TEST_MOUNTINFO"


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


def declare_mounted(s, lo, part, mnt, opts="rw,relatime"):
    """A mountinfo file: the real one plus part mounted on the plain directory mnt as vfat."""
    with open("/sys/class/block/%s/dev" % os.path.basename(part)) as f:
        devno = f.read().strip()
    path = s.path("mountinfo")
    with open("/proc/self/mountinfo") as f:
        real = f.read()
    with open(path, "w") as f:
        f.write(real + "999 1 %s / %s %s - vfat %s rw\n" % (devno, mnt, opts, part))
    os.environ[MOUNTINFO] = path


def t_mounted_esp(s):
    """The boot partition mounted (as Debian mounts the ESP on /boot/efi): add, set-default,
    remove and install change its files through the mount point (a new file, renamed over the
    old), never its sectors; stage1 and stage2 are written as usual; list reads the mount;
    a read-only mount or a mounted subdirectory is refused."""
    need_loop()
    img = layout(s, "esp.img", 512)
    k = kernel(s)
    s.anysector("install", img, "--backup", s.path("esp-first.bak"))
    s.anysector("add", img, "--kernel", k, "--name", "first")
    with Loop(img, 512) as lo:
        lo.scan()
        esp = lo.dev + "p2"
        mnt = s.path("boot-efi")
        shutil.rmtree(mnt, ignore_errors=True)
        os.makedirs(mnt)
        r = mtools.run(["mcopy", "-s", "-n", "::/*", mnt + "/"], esp, 0)
        s.check(r.returncode == 0, "mcopy -s: %r" % r.stderr)
        declare_mounted(s, lo, esp, mnt)
        try:
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
            s.anysector("install", lo.dev, "--backup", s.path("esp-live.bak"),
                        has=["not in it", "stage1 in LBA 0"])
            s.check(os.path.getsize(efi) > 100, "install did not replace BOOTX64.EFI in the mount")
            s.eq(part_sha(esp), raw, "the mounted ESP's sectors were written")
            s.check(open(img, "rb").read(512) != lba0, "LBA 0 not written by install")
            # refused: read-only, a subdirectory mounted
            before = sha(img)
            declare_mounted(s, lo, esp, mnt, opts="ro,relatime")
            s.anysector("add", lo.dev, "--kernel", k, "--name", "x", rc=3,
                        has=["is in use: %s is mounted on %s, read-only" % (esp, mnt)])
            s.eq(sha(img), before, "refused add changed the image")
        finally:
            os.environ.pop(MOUNTINFO, None)


def main():
    s = Suite("live-tools")
    return s.run([t_root_mounted, t_mbr_gap_root_mounted, t_write_into_mounted, t_mounted_esp])


if __name__ == "__main__":
    sys.exit(main())
