#!/usr/bin/env python3
"""Placeholder boot stages with the shapes common/bootinfo.h defines, for installer tests that
must not depend on the real stage1/stage2/BOOTX64.EFI builds.

usage: mkstages.py DIR [--stage2-size N] [--efi-size N]
  DIR/stage1.bin   512 bytes: code bytes, "ASB1" patch block at 0x1A4, version 1, zero
                   table, 0x55AA; bytes 0xDA..0xDF left zero (they belong to the disk)
  DIR/stage2.bin   a sealed stage2: header (magic, version 1, length, CRC32), identity unset
  DIR/BOOTX64.EFI  "MZ" and filler
"""
import os
import struct
import sys
import zlib


def stage1():
    b = bytearray(512)
    for i in range(0x1A4):
        b[i] = (i * 7 + 1) % 251 + 1
    b[0xDA:0xE0] = bytes(6)
    b[0x1A4:0x1A8] = b"ASB1"
    struct.pack_into("<H", b, 0x1B4, 1)
    b[510:512] = b"\x55\xaa"
    return bytes(b)


def stage2(size):
    b = bytearray(size)
    b[0:2] = b"\xeb\x7e"  # jmp over the header
    b[8:16] = b"ANYSECT2"
    struct.pack_into("<II", b, 0x10, 1, size)
    for i in range(0x80, size):
        b[i] = (i * 13 + 5) % 253
    struct.pack_into("<I", b, 0x18, zlib.crc32(bytes(b)) & 0xFFFFFFFF)
    return bytes(b)


def efi(size):
    b = bytearray(size)
    b[0:2] = b"MZ"
    for i in range(2, size):
        b[i] = (i * 31 + 3) % 255
    return bytes(b)


def main(argv):
    out = argv[1]
    s2 = int(argv[argv.index("--stage2-size") + 1]) if "--stage2-size" in argv else 24576
    ef = int(argv[argv.index("--efi-size") + 1]) if "--efi-size" in argv else 65536
    os.makedirs(out, exist_ok=True)
    for name, data in (("stage1.bin", stage1()), ("stage2.bin", stage2(s2)),
                       ("BOOTX64.EFI", efi(ef))):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv)
