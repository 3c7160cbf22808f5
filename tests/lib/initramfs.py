# SPDX-License-Identifier: BSD-2-Clause
"""The Linux cases' initramfs: a gzip'd newc cpio with busybox-static, a deterministic random
filler file and an /init that prints

    ANYSECTOR-LINUX-OK cmdline=[<contents of /proc/cmdline>] filler_md5=<md5 of /filler.bin>

on the console and powers off. Built without root: the cpio is written directly (the
/dev/console node the kernel needs for init's stdout is an entry, not a mknod)."""
import gzip
import hashlib
import io
import random
import stat

FILLER_BYTES = 5 * 1024 * 1024 + 100003   # the .gz ends up a little over 6 MiB
FILLER_SEED = 0xA5EC7

INIT = """#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
echo "ANYSECTOR-LINUX-OK cmdline=[$($bb cat /proc/cmdline)] filler_md5=$($bb md5sum /filler.bin | $bb cut -d' ' -f1)"
$bb poweroff -f
"""


# The same, also printing " pad_md5=<md5 of /pad.bin>": an initrd with a large first archive
# (with_pad) has every byte of it checked in the guest.
PAD_NAME = "pad.bin"
INIT_PAD = INIT.replace(
    "| $bb cut -d' ' -f1)\"",
    f"| $bb cut -d' ' -f1) pad_md5=$($bb md5sum /{PAD_NAME} | $bb cut -d' ' -f1)\"")
assert INIT_PAD != INIT


def filler():
    return random.Random(FILLER_SEED).randbytes(FILLER_BYTES)


def filler_md5():
    return hashlib.md5(filler()).hexdigest()


class _Cpio:
    def __init__(self):
        self.out = io.BytesIO()
        self.ino = 1

    def entry(self, name, mode, data=b"", rdev=(0, 0), nlink=1):
        namez = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(namez), 0]
        self.ino += 1
        self.out.write(b"070701" + b"".join(b"%08X" % f for f in fields) + namez)
        self.out.write(b"\0" * (-self.out.tell() % 4))
        self.out.write(data)
        self.out.write(b"\0" * (-self.out.tell() % 4))

    def finish(self):
        self.entry("TRAILER!!!", 0)
        return self.out.getvalue()


def cpio(files):
    """An uncompressed newc cpio of {path: bytes} (regular files, mode 0644): what a unified
    kernel image's .ucode holds."""
    c = _Cpio()
    for name, data in files.items():
        c.entry(name, stat.S_IFREG | 0o644, data)
    return c.finish()


def build(busybox="/bin/busybox", init=INIT, with_filler=True, extra=()):
    """The cpio.gz; init: another /init script (it must end the run itself), with_filler:
    whether /filler.bin goes in; extra: more files, (name, bytes), at the root."""
    with open(busybox, "rb") as f:
        bb = f.read()
    c = _Cpio()
    for d in ("bin", "dev", "proc", "sys"):
        c.entry(d, stat.S_IFDIR | 0o755, nlink=2)
    c.entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
    c.entry("bin/busybox", stat.S_IFREG | 0o755, bb)
    c.entry("bin/sh", stat.S_IFLNK | 0o777, b"busybox")
    c.entry("init", stat.S_IFREG | 0o755, init.encode())
    if with_filler:
        c.entry("filler.bin", stat.S_IFREG | 0o644, filler())
    for name, data in extra:
        c.entry(name, stat.S_IFREG | 0o644, data)
    return gzip.compress(c.finish(), compresslevel=6, mtime=0)


def with_pad(pad):
    """An initrd of two archives, as an early-microcode initrd is laid out: an uncompressed cpio
    holding /pad.bin = pad, then build(init=INIT_PAD), whose /init prints the pad's md5 too."""
    c = _Cpio()
    c.entry(PAD_NAME, stat.S_IFREG | 0o644, pad)
    return c.finish() + build(init=INIT_PAD)
