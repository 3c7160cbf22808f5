#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Builds the dual payload: one file that is both the BIOS payload's bzImage and the EFI payload
as a PE/COFF application, the way a real Linux kernel with an EFI stub is both. The universal
image's single anysector.cfg entry names it; stage2 boots it through the 16-bit Linux protocol
(and the BIOS half prints proto=2.15), BOOTX64.EFI through LoadImage (the EFI half prints
proto=efi).

Layout: the bzImage unchanged except its boot sector, which gets "MZ", e_lfanew = 0x40 and a PE
header whose one section maps the EFI payload's whole memory image (all of gnu-efi's sections,
the gaps zero-filled) from a copy appended after the bzImage at a FileAlignment boundary. The
data directories (base relocations among them) keep their RVAs, so the PE loader relocates it as
it would payload.efi. Everything must fit between 0x40 and the setup header at 0x1F1.

usage: mkdual.py BZIMAGE EFI OUT
"""
import struct
import sys

SETUP_HEADER = 0x1F1
PE_OFFSET = 0x40
SECTION_FLAGS = 0xE0000060   # code, initialized data, execute, read, write
KEEP_DIRECTORIES = 6         # up to IMAGE_DIRECTORY_ENTRY_BASERELOC (5)


def die(msg):
    sys.exit(f"mkdual: {msg}")


def align(n, a):
    return (n + a - 1) // a * a


def main():
    if len(sys.argv) != 4:
        die("usage: mkdual.py BZIMAGE EFI OUT")
    bz = bytearray(open(sys.argv[1], "rb").read())
    pe = open(sys.argv[2], "rb").read()
    if bz[0x202:0x206] != b"HdrS":
        die(f"{sys.argv[1]} is not a bzImage")
    if pe[:2] != b"MZ":
        die(f"{sys.argv[2]} is not a PE image")
    lfanew = struct.unpack_from("<I", pe, 0x3C)[0]
    if pe[lfanew:lfanew + 4] != b"PE\0\0":
        die("no PE signature")
    coff = bytearray(pe[lfanew + 4:lfanew + 24])
    nsec, opt_size = struct.unpack_from("<H", coff, 2)[0], struct.unpack_from("<H", coff, 16)[0]
    opt = bytearray(pe[lfanew + 24:lfanew + 24 + opt_size])
    if struct.unpack_from("<H", opt, 0)[0] != 0x20B:
        die("not PE32+")
    file_align = struct.unpack_from("<I", opt, 36)[0]
    ndirs = struct.unpack_from("<I", opt, 108)[0]
    dirs = [struct.unpack_from("<II", opt, 112 + 8 * i) for i in range(ndirs)]
    if any(d != (0, 0) for d in dirs[KEEP_DIRECTORIES:]):
        die("the EFI payload uses data directories beyond base relocations")

    sec_off = lfanew + 24 + opt_size
    sections = []
    for i in range(nsec):
        name, vsize, va, rawsize, rawptr = struct.unpack_from("<8sIIII", pe, sec_off + 40 * i)
        sections.append((va, vsize, pe[rawptr:rawptr + min(rawsize, vsize or rawsize)]))
    base = min(va for va, _, _ in sections)
    end = max(va + max(vsize, len(raw)) for va, vsize, raw in sections)
    image = bytearray(end - base)
    for va, _, raw in sections:
        image[va - base:va - base + len(raw)] = raw

    raw_ptr = align(len(bz), file_align)
    raw_size = align(len(image), file_align)
    n = min(ndirs, KEEP_DIRECTORIES)
    new_opt = bytearray(opt[:112 + 8 * n])
    struct.pack_into("<I", new_opt, 20, base)            # BaseOfCode
    struct.pack_into("<I", new_opt, 60, 0x200)           # SizeOfHeaders: the boot sector
    struct.pack_into("<I", new_opt, 64, 0)               # CheckSum
    struct.pack_into("<I", new_opt, 108, n)              # NumberOfRvaAndSizes
    struct.pack_into("<H", coff, 2, 1)                   # NumberOfSections
    struct.pack_into("<H", coff, 16, len(new_opt))       # SizeOfOptionalHeader
    section = struct.pack("<8sIIIIIIHHI", b".text", len(image), base, raw_size, raw_ptr,
                          0, 0, 0, 0, SECTION_FLAGS)
    header = b"PE\0\0" + bytes(coff) + bytes(new_opt) + section
    if PE_OFFSET + len(header) > SETUP_HEADER:
        die(f"the PE header ({len(header)} bytes) does not fit before the setup header")
    if base < 0x200:
        die("the first section starts inside the headers")

    bz[0:SETUP_HEADER] = bytes(SETUP_HEADER)
    bz[0:2] = b"MZ"
    struct.pack_into("<I", bz, 0x3C, PE_OFFSET)
    bz[PE_OFFSET:PE_OFFSET + len(header)] = header
    out = bytes(bz) + bytes(raw_ptr - len(bz)) + bytes(image) + bytes(raw_size - len(image))
    with open(sys.argv[3] + ".tmp", "wb") as f:
        f.write(out)
    import os
    os.replace(sys.argv[3] + ".tmp", sys.argv[3])


if __name__ == "__main__":
    main()
