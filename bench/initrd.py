# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark initrds: exactly 64 MiB (or a larger size), most of it incompressible.

It is two archives back to back, which the kernel's initramfs unpacker accepts (the same layout
as an early-microcode initrd):
  1. an uncompressed newc cpio holding /pad.bin, deterministic random bytes (so no layer, neither
     a loader nor QEMU, can shortcut it), then its TRAILER;
  2. the QEMU tests' gzip'd busybox initramfs (tests/lib/initramfs.py), whose /init prints
     "ANYSECTOR-LINUX-OK cmdline=[...] filler_md5=..." and powers off, then zero bytes to a
     multiple of 4 (the unpacker wants each archive on a 4-byte boundary and skips zeros).
The busybox archive comes last on purpose: a loader that loses any tail of the file loses /init
or damages /filler.bin, and the marker check (cmdline and md5) refuses that run. A large initrd's
/init also prints "pad_md5=<md5 of /pad.bin>": the guest checks every byte of it.
"""
import hashlib
import os
import random
import stat
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from lib import initramfs  # noqa: E402

SIZE = 64 << 20
PAD_SEED = 0xB0075EED
PAD_NAME = initramfs.PAD_NAME
CHUNK = 128 << 20


def _newc(ino, name, mode, data_len, nlink=1):
    namez = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, nlink, 0, data_len, 0, 0, 0, 0, len(namez), 0]
    hdr = b"070701" + b"".join(b"%08X" % f for f in fields) + namez
    return hdr + b"\0" * (-len(hdr) % 4)



def build(size=SIZE, check_pad=False):
    """Returns (initrd bytes, md5 of the busybox archive's /filler.bin, pad bytes, md5 of the
    pad or None); check_pad: /init prints the pad's md5 too."""
    busybox = initramfs.build(init=initramfs.INIT_PAD if check_pad else initramfs.INIT)
    busybox += b"\0" * (-len(busybox) % 4)
    head = _newc(1, PAD_NAME, stat.S_IFREG | 0o644, 0)   # length patched below
    trailer = _newc(2, "TRAILER!!!", 0, 0)
    room = size - len(busybox) - len(head) - len(trailer)
    if room < 0:
        raise ValueError(f"the busybox initramfs alone is {len(busybox)} bytes, over {size}")
    pad_len = room                   # every other part is a multiple of 4 bytes, so is this
    head = _newc(1, PAD_NAME, stat.S_IFREG | 0o644, pad_len)
    rng = random.Random(PAD_SEED)
    # randbytes takes at most 2^28 bytes at once; 64 MiB stays one call (the same bytes as ever)
    pad = b"".join(rng.randbytes(min(CHUNK, pad_len - at)) for at in range(0, pad_len, CHUNK))
    data = head + pad + trailer + busybox
    assert len(data) == size
    return data, initramfs.filler_md5(), pad_len, hashlib.md5(pad).hexdigest() if check_pad \
        else None


def write(path, size=SIZE, check_pad=False):
    """Writes the initrd to path unless it already holds these bytes; returns
    (path, filler md5, pad bytes, pad md5 or None)."""
    data, md5, pad_len, pad_md5 = build(size, check_pad)
    same = False
    if os.path.exists(path) and os.path.getsize(path) == len(data):
        with open(path, "rb") as f:
            same = f.read() == data
    if not same:
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)
    return path, md5, pad_len, pad_md5
