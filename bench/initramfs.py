#!/usr/bin/env python3
"""Builds the benchmark initramfs: a gzip'd newc cpio holding busybox-static and an /init that
prints a marker on the console and powers off.

Written in Python so no root is needed for the /dev/console node (the kernel opens it for init's
stdout before anything could create it).

usage: initramfs.py OUT [--marker TEXT] [--busybox PATH]
"""
import argparse
import gzip
import io
import os
import stat
import sys

DEFAULT_MARKER = "ANYSECTOR-BENCH-MARK"


class Cpio:
    """Writer for the "newc" (070701) cpio format the kernel unpacks."""

    def __init__(self):
        self.out = io.BytesIO()
        self.ino = 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0), nlink=1):
        namez = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(namez), 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        self.out.write(hdr + namez)
        self._pad()
        self.out.write(data)
        self._pad()

    def _pad(self):
        self.out.write(b"\0" * (-self.out.tell() % 4))

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755, nlink=2)

    def file(self, name, data, perm=0o644):
        self._entry(name, stat.S_IFREG | perm, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor):
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def finish(self):
        self._entry("TRAILER!!!", 0, nlink=1)
        return self.out.getvalue()


def build(marker, busybox):
    with open(busybox, "rb") as f:
        bb = f.read()
    # echo is a shell builtin; poweroff is called through busybox so no applet links are needed.
    init = ("#!/bin/sh\n"
            f"echo {marker}\n"
            "/bin/busybox poweroff -f\n").encode()
    c = Cpio()
    for d in ("bin", "dev", "proc", "sys"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    c.file("bin/busybox", bb, 0o755)
    c.symlink("bin/sh", "busybox")
    c.file("init", init, 0o755)
    return gzip.compress(c.finish(), compresslevel=9, mtime=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--marker", default=DEFAULT_MARKER)
    ap.add_argument("--busybox", default="/bin/busybox")
    a = ap.parse_args()
    if not os.path.exists(a.busybox):
        sys.exit(f"initramfs: {a.busybox} not found (Debian package busybox-static)")
    data = build(a.marker, a.busybox)
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
