#!/usr/bin/env python3
"""Regenerates the FAT and Linux-header seed corpora (tests/fuzz/corpus/{fat,linux}/).

FAT seeds are real images from mkfs.fat and mtools, stored in the sparse format fuzz_fat.c reads
(only the non-zero 512-byte pieces), so FAT16 and FAT32 images of many megabytes fit in a few KiB.
Linux seeds are setup headers synthesized per Documentation/arch/x86/boot.rst.

Needs mkfs.fat and mtools. Run from anywhere: python3 tests/fuzz/corpus/make_seeds.py
"""
import os
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
UNIT = 512  # the format's offset unit

# name, FAT type, BPB sector size, image size, device sector size shift (512 << n)
IMAGES = [
    ("fat12-512", 12, 512, "1M", 0),
    ("fat12-4096", 12, 4096, "8M", 3),
    ("fat16-512", 16, 512, "8M", 0),
    ("fat16-4096-on-512", 16, 4096, "64M", 0),
    ("fat32-512-on-4096", 32, 512, "40M", 3),
    ("fat32-4096", 32, 4096, "260M", 3),
]

FILES = [
    ("/anysector.cfg", b"timeout 3\ndefault d\nentry d\n kernel /vmlinuz\n initrd /initrd.img\n"
                       b" cmdline console=ttyS0\n"),
    ("/vmlinuz", bytes((i * 7 + 1) & 0xFF for i in range(5000))),
    ("/EFI/BOOT/BOOTX64.EFI", b"MZ" + bytes(range(1, 200))),
    ("/A long name, with spaces.txt", b"long name\n"),
    ("/boot/sub/deep.bin", bytes([0xA5]) * 700),
]


def sh(*args, **kw):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, **kw)


def encode(path, lss_shift):
    data = open(path, "rb").read()
    units = (len(data) + UNIT - 1) // UNIT
    out = bytearray([lss_shift]) + struct.pack("<I", (len(data) + 4095) // 4096)
    i = 0
    while i < units:
        if not any(data[i * UNIT:(i + 1) * UNIT]):
            i += 1
            continue
        j = i
        # a run of non-zero units, at most 127 units so the length fits in 16 bits
        while j < units and j - i < 127 and any(data[j * UNIT:(j + 1) * UNIT]):
            j += 1
        chunk = data[i * UNIT:j * UNIT]
        out += struct.pack("<IH", i, len(chunk)) + chunk
        i = j
    return bytes(out)


def make_fat(tmp):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    for name, ftype, bps, size, shift in IMAGES:
        img = os.path.join(tmp, name + ".img")
        sh("truncate", "-s", size, img)
        sh("mkfs.fat", "-F", str(ftype), "-S", str(bps), "-s", "1", "-n", "SEED", img)
        sh("mmd", "-i", img, "::/EFI", "::/EFI/BOOT", "::/boot", "::/boot/sub", env=env)
        for dst, content in FILES:
            src = os.path.join(tmp, "src")
            with open(src, "wb") as f:
                f.write(content)
            sh("mcopy", "-i", img, src, "::" + dst, env=env)
        seed = encode(img, shift)
        assert len(seed) <= 65536, (name, len(seed))
        with open(os.path.join(HERE, "fat", name), "wb") as f:
            f.write(seed)
        os.unlink(img)


def linux_header(version, setup_sects=4, kernel=20000, loadflags=1, pe=False):
    size = (setup_sects or 4) * 512 + 512 + kernel
    b = bytearray(size)
    if pe:
        b[0:2] = b"MZ"
        struct.pack_into("<I", b, 0x3C, 0x40)
        b[0x40:0x44] = b"PE\0\0"
    b[0x1F1] = setup_sects
    struct.pack_into("<I", b, 0x1F4, kernel // 16)
    struct.pack_into("<H", b, 0x1FE, 0xAA55)
    b[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", b, 0x206, version)
    b[0x211] = loadflags
    struct.pack_into("<I", b, 0x22C, 0x7FFFFFFF)
    struct.pack_into("<I", b, 0x230, 0x200000)
    b[0x234] = 1
    struct.pack_into("<H", b, 0x236, 3)
    struct.pack_into("<I", b, 0x238, 2047)
    struct.pack_into("<Q", b, 0x258, 0x1000000)
    struct.pack_into("<I", b, 0x260, 0x1800000)
    # fuzz_linux.c input: le32 count of file bytes beyond the head, then the file's head
    head = bytes(b[:4096])
    return struct.pack("<I", size - len(head)) + head


def make_linux():
    seeds = {
        "bzimage-2.15-pe": linux_header(0x020F, pe=True),
        "bzimage-2.10": linux_header(0x020A, setup_sects=0),
        "bzimage-2.02": linux_header(0x0202, setup_sects=1, kernel=2000),
        "zimage": linux_header(0x0204, loadflags=0),
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "linux", name), "wb") as f:
            f.write(data)


def main():
    os.makedirs(os.path.join(HERE, "fat"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "linux"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        make_fat(tmp)
    make_linux()


if __name__ == "__main__":
    main()
