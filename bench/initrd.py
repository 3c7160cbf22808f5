# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark initrd: exactly 64 MiB, most of it incompressible.

It is two archives back to back, which the kernel's initramfs unpacker accepts (the same layout
as an early-microcode initrd):
  1. an uncompressed newc cpio holding /pad.bin, deterministic random bytes (so no layer, neither
     a loader nor QEMU, can shortcut it), then its TRAILER;
  2. the QEMU tests' gzip'd busybox initramfs (tests/lib/initramfs.py), whose /init prints
     "ANYSECTOR-LINUX-OK cmdline=[...] filler_md5=..." and powers off, then zero bytes to a
     multiple of 4 (the unpacker wants each archive on a 4-byte boundary and skips zeros).
The busybox archive comes last on purpose: a loader that loses any tail of the file loses /init
or damages /filler.bin, and the marker check (cmdline and md5) refuses that run.
"""
import os
import random
import stat
import sys

SIZE = 64 << 20
PAD_SEED = 0xB0075EED
PAD_NAME = "pad.bin"

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from lib import initramfs  # noqa: E402


def _newc(ino, name, mode, data_len, nlink=1):
    namez = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, nlink, 0, data_len, 0, 0, 0, 0, len(namez), 0]
    hdr = b"070701" + b"".join(b"%08X" % f for f in fields) + namez
    return hdr + b"\0" * (-len(hdr) % 4)


def build():
    """Returns (initrd bytes, md5 of the busybox archive's /filler.bin, pad bytes)."""
    busybox = initramfs.build()
    busybox += b"\0" * (-len(busybox) % 4)
    head = _newc(1, PAD_NAME, stat.S_IFREG | 0o644, 0)   # length patched below
    trailer = _newc(2, "TRAILER!!!", 0, 0)
    room = SIZE - len(busybox) - len(head) - len(trailer)
    if room < 0:
        raise ValueError(f"the busybox initramfs alone is {len(busybox)} bytes, over {SIZE}")
    pad_len = room                   # every other part is a multiple of 4 bytes, so is this
    head = _newc(1, PAD_NAME, stat.S_IFREG | 0o644, pad_len)
    pad = random.Random(PAD_SEED).randbytes(pad_len)
    data = head + pad + trailer + busybox
    assert len(data) == SIZE
    return data, initramfs.filler_md5(), pad_len


def write(path):
    """Writes the initrd to path unless it already holds these bytes; returns
    (path, filler md5, pad bytes)."""
    data, md5, pad_len = build()
    same = False
    if os.path.exists(path) and os.path.getsize(path) == len(data):
        with open(path, "rb") as f:
            same = f.read() == data
    if not same:
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)
    return path, md5, pad_len
