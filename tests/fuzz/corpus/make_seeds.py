#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Regenerates the FAT, Linux-header, stage2-header, GUID-text, topology, SHA-256, PE,
FAT-path and UKI seed corpora (one directory for each of fat, linux, bootinfo,
guid, align, sha256, pe, fat_path and uki, under corpus/).

FAT seeds are real images from mkfs.fat and mtools, stored in the sparse format fuzz_fat.c reads
(only the non-zero 512-byte pieces), so FAT16 and FAT32 images of many megabytes fit in a few KiB.
Linux seeds are setup headers synthesized per Documentation/arch/x86/boot.rst.

Stage2 seeds are small images with the header of common/bootinfo.h, sealed and patched the
installer's way, and broken in one field each.

Needs mkfs.fat and mtools (for fat). Run from anywhere:
python3 tests/fuzz/corpus/make_seeds.py [fat] [linux] [bootinfo] [guid] [align] [sha256] [pe] [uki]
    [fat_path]
(default: all)
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from lib import bootinfo as B  # noqa: E402  (needs `make`: the offsets are generated)
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


def stage2_image(length=256, kind=0, path=b"/anysector.cfg", version=1,
                 magic=B.STAGE2_MAGIC.encode(), seal=True):
    img = bytearray(length)
    img[0:2] = b"\xeb\x7e"  # jmp over the header
    img[B.STAGE2_MAGIC_OFF:B.STAGE2_MAGIC_OFF + 8] = magic
    struct.pack_into("<I", img, B.STAGE2_HDR_VERSION_OFF, version)
    struct.pack_into("<I", img, B.STAGE2_LENGTH_OFF, length)
    struct.pack_into("<I", img, B.STAGE2_KIND_OFF, kind)
    if kind == 1:
        img[B.STAGE2_PART_GUID_OFF:B.STAGE2_PART_GUID_OFF + 16] = bytes(range(0x10, 0x20))
    if kind == 2:
        struct.pack_into("<I", img, B.STAGE2_MBR_SIG_OFF, 0x7322BB2D)
        struct.pack_into("<I", img, B.STAGE2_MBR_PART_OFF, 1)
    img[B.STAGE2_CONFIG_PATH_OFF:B.STAGE2_CONFIG_PATH_OFF + len(path)] = path
    for i in range(B.STAGE2_HDR_SIZE, length):
        img[i] = (i * 13 + 5) & 0xFF
    if seal:
        struct.pack_into("<I", img, B.STAGE2_CRC_OFF, zlib.crc32(bytes(img)))
    return bytes(img)


def make_bootinfo():
    seeds = {
        "sealed-unset": stage2_image(),
        "gpt-kind": stage2_image(kind=1, path=b"/boot/anysector.cfg"),
        "mbr-kind": stage2_image(kind=2),
        "header-only": stage2_image(length=B.STAGE2_HDR_SIZE),
        "path-unterminated": stage2_image(path=b"P" * 64),
        "bad-crc": stage2_image(seal=False),
        "bad-version": stage2_image(version=2),
        "bad-length": stage2_image()[:200],
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "bootinfo", name), "wb") as f:
            f.write(data)


def make_guid():
    seeds = {
        "esp": b"C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
        "braces-lower": b"{0fc63daf-8483-4772-8e79-3d69d8477de4}",
        "short": b"C12A7328-F81F-11D2-BA4B-00A0C93EC93",
        "no-dashes": b"C12A7328F81F11D2BA4B00A0C93EC93B",
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "guid", name), "wb") as f:
            f.write(data)


def make_tcg():
    """fuzz_tcg: a mode byte, then a GetCapability(TPM_CAP_PCRS) response (after a PCR byte)
    selecting four banks, or an event log area (after the last entry's offset): the Spec ID event
    for sha1 and sha256, one entry, zeros."""
    body = b"\x00" + struct.pack(">II", 5, 4) + b"".join(
        struct.pack(">HB", alg, 3) + b"\xff\xff\xff" for alg in (0x4, 0xB, 0xC, 0xD))
    rsp = struct.pack(">HII", 0x8001, 10 + len(body), 0) + body
    spec = (b"Spec ID Event03\0" + struct.pack("<IBBBBI", 0, 0, 2, 0, 2, 2)
            + struct.pack("<HHHH", 0x4, 20, 0xB, 32) + b"\0")
    head = struct.pack("<II", 0, 3) + bytes(20) + struct.pack("<I", len(spec))
    entry = (struct.pack("<III", 4, 0x80000001, 2) + struct.pack("<H", 0x4) + bytes(20)
             + struct.pack("<H", 0xB) + bytes(32) + struct.pack("<I", 3) + b"abc")
    seeds = {
        "getcap-4banks": b"\x00\x05" + rsp,
        "log-one-entry": b"\x01" + struct.pack("<H", len(head + spec)) + head + spec + entry
                         + bytes(300),
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "tcg", name), "wb") as f:
            f.write(data)


def make_cfg_lock():
    """fuzz_cfg_lock: the lock block as BOOTX64.EFI is built (not locked), locked to one hash,
    and locked to two during a change, each followed by the section's zero padding."""
    def block(flags, hashes):
        return (b"anysector cfglck" + struct.pack("<IIII", 1, flags, len(hashes), 0)
                + b"".join(hashes) + bytes(96 - 32 * len(hashes)))
    a = bytes(range(32))
    b = bytes(range(32, 64))
    seeds = {"built": block(0, []) + bytes(32), "locked-one": block(1, [a]),
             "locked-two": block(1, [a, b])}
    for name, data in seeds.items():
        with open(os.path.join(HERE, "cfg_lock", name), "wb") as f:
            f.write(data)


def make_fat_path():
    # two paths split at the first NUL; one path alone is compared with a respelling of itself
    seeds = {
        "efi": b"/EFI/BOOT/BOOTX64.EFI",
        "dot-pair": b"/d/./vmlinuz\0d\\VMLINUZ",
        "dotdot": b"/a/../b/..\0/",
        "seps": b"//x//y/\0x/y",
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "fat_path", name), "wb") as f:
            f.write(data)


def make_align():
    # lss, pss, aoff, io_min, io_opt, sectors, then three LBAs to align
    seeds = {
        "512n": (512, 512, 0, 0, 0, 1 << 21, 0, 2047, 5000),
        "512e": (512, 4096, 0, 4096, 0, 1 << 21, 34, 2048, 2049),
        "offset-by-one": (512, 4096, 3584, 4096, 0, 1 << 21, 63, 2047, 2055),
        "4kn-io-opt": (4096, 4096, 0, 4096, 1 << 20, 1 << 18, 6, 255, 257),
        "bogus-io-opt": (512, 4096, 0, 4096, 33553920, 1 << 21, 1, 4096, 123457),
        "odd-offset": (512, 4096, 1000, 0, 0, 1 << 21, 7, 8, 9),
    }
    for name, v in seeds.items():
        with open(os.path.join(HERE, "align", name), "wb") as f:
            f.write(struct.pack("<5IQ3Q", *v))


def make_sha256():
    # Messages around the block (64) and padding (55/56) boundaries, with piece sizes in their
    # first bytes (fuzz_sha256.c), and digest text in both cases.
    seeds = {
        "empty": b"",
        "abc": b"abc",
        "pad-55": bytes(range(55)),
        "pad-56": bytes(range(56)),
        "block-64": bytes([63, 1, 0, 64, 55, 9, 130, 2]) + bytes(56),
        "two-blocks": bytes(i * 7 & 255 for i in range(130)),
        "hex-lower": b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "hex-upper": b"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "sha256", name), "wb") as f:
            f.write(data)


SBAT_OURS = (b"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
             b"anysector,1,anysector,anysector,0.1,man:anysector(8)\n")
SBAT_SHIM = (b"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
             b"shim,4,UEFI shim,shim,1,https://github.com/rhboot/shim\n"
             b"shim.debian,1,Debian,shim,16.1,https://tracker.debian.org/pkg/shim\n")


def pe_image(signed):
    """A minimal PE32+ as tests/unit/test_pe.c builds it: .text, .sbat, and (signed) a
    certificate table of a PKCS#7 entry padded to 8 bytes and one of another type."""
    img = bytearray(0x400 + 24 + 12)
    img[0:2] = b"MZ"
    struct.pack_into("<I", img, 0x3C, 0x40)
    img[0x40:0x44] = b"PE\0\0"
    struct.pack_into("<HH", img, 0x44, 0x8664, 2)
    struct.pack_into("<H", img, 0x54, 240)
    opt = 0x58
    struct.pack_into("<H", img, opt, 0x20B)
    struct.pack_into("<I", img, opt + 108, 16)
    if signed:
        struct.pack_into("<II", img, opt + 112 + 32, 0x400, len(img) - 0x400)
    for i, (name, vsize, raw, ptr) in enumerate(((b".text", 0x10, 0x20, 0x100),
                                                 (b".sbat", len(SBAT_OURS), 0x200, 0x200))):
        o = opt + 240 + 40 * i
        img[o:o + len(name)] = name
        struct.pack_into("<I", img, o + 8, vsize)
        struct.pack_into("<II", img, o + 16, raw, ptr)
    img[0x200:0x200 + len(SBAT_OURS)] = SBAT_OURS
    struct.pack_into("<IHH", img, 0x400, 21, 0x200, 2)
    img[0x408:0x415] = b"pkcs7-bytes!!"
    struct.pack_into("<IHH", img, 0x418, 12, 0x200, 1)
    return bytes(img if signed else img[:0x400])


def make_pe():
    seeds = {
        "pe32plus-signed": pe_image(True),
        "pe32plus-unsigned": pe_image(False),
        "sbat-shim": SBAT_SHIM,
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "pe", name), "wb") as f:
            f.write(data)


OSREL = (b'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
         b'VERSION_ID="12"\nID=debian\n# IMAGE_ID=x\nIMAGE_ID=\'cloud \\ image\'\n')


def uki_image(align=0x200):
    """A unified kernel image as objcopy lays one out on systemd's stub, small: .text, .sbat,
    .osrel, .cmdline, .uname, .ucode, .linux (a bzImage setup header), .initrd, each section's
    data after the previous one's, at file offsets aligned to `align`."""
    secs = [(b".text", b"\xc3" * 0x40), (b".sbat", SBAT_OURS), (b".osrel", OSREL),
            (b".cmdline", b"root=/dev/vda1 console=ttyS0\n"), (b".uname", b"6.1.0-18-amd64"),
            (b".ucode", b"070701" + b"0" * 104), (b".linux", linux_header(0x020F, pe=True)),
            (b".initrd", b"\x1f\x8b" + bytes(range(200)))]
    head = bytearray(0x400)
    head[0:2] = b"MZ"
    struct.pack_into("<I", head, 0x3C, 0x80)
    head[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<HH", head, 0x84, 0x8664, len(secs))
    struct.pack_into("<H", head, 0x94, 240)
    opt = 0x98
    struct.pack_into("<H", head, opt, 0x20B)
    struct.pack_into("<I", head, opt + 108, 16)
    data = bytearray()
    at = len(head)
    for i, (name, body) in enumerate(secs):
        raw = -(-len(body) // align) * align
        o = opt + 240 + 40 * i
        head[o:o + len(name)] = name
        struct.pack_into("<IIII", head, o + 8, len(body), 0x10000 + at, raw, at)
        data += body + b"\0" * (raw - len(body))
        at += raw
    return bytes(head + data)


def make_uki():
    img = uki_image()
    seeds = {
        "uki": img,
        "uki-cut": img[:len(img) - 300],
        "osrel": OSREL,
        "cmdline": b"root=/dev/vda1 quiet\n\0\0",
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, "uki", name), "wb") as f:
            f.write(data)


def main(argv):
    which = argv or ["fat", "linux", "bootinfo", "guid", "align", "sha256", "pe", "fat_path",
                     "uki", "tcg", "cfg_lock"]
    for d in which:
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
    if "fat" in which:
        with tempfile.TemporaryDirectory() as tmp:
            make_fat(tmp)
    if "linux" in which:
        make_linux()
    if "bootinfo" in which:
        make_bootinfo()
    if "guid" in which:
        make_guid()
    if "align" in which:
        make_align()
    if "sha256" in which:
        make_sha256()
    if "pe" in which:
        make_pe()
    if "fat_path" in which:
        make_fat_path()
    if "uki" in which:
        make_uki()
    if "tcg" in which:
        make_tcg()
    if "cfg_lock" in which:
        make_cfg_lock()


if __name__ == "__main__":
    main(sys.argv[1:])
