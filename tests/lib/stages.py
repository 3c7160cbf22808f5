# SPDX-License-Identifier: BSD-2-Clause
"""The boot stages as bytes: stage1's patch block (where stage2 is and how long), stage2's
header (magic, length, CRC32, configuration path), resealing a changed stage2, and placeholder
stages with the real shapes for tests that must not depend on the real builds. Offsets come from
common/bootinfo.h through lib.bootinfo."""
import os
import struct
import zlib

from lib import bootinfo as B

STAGE1_MAGIC = B.STAGE1_MAGIC.encode()
STAGE2_MAGIC = B.STAGE2_MAGIC.encode()


def stage1_target(lba0):
    """(stage2's byte offset, stage2's length) from stage1's patch block in LBA 0's bytes."""
    return struct.unpack_from("<Q", lba0, B.STAGE1_S2_OFFSET_OFF)[0], \
        struct.unpack_from("<I", lba0, B.STAGE1_S2_LENGTH_OFF)[0]


def set_stage1_target(lba0, offset, length, version=None):
    """Writes the patch block into a bytearray holding stage1 (and the version when given)."""
    struct.pack_into("<Q", lba0, B.STAGE1_S2_OFFSET_OFF, offset)
    struct.pack_into("<I", lba0, B.STAGE1_S2_LENGTH_OFF, length)
    if version is not None:
        struct.pack_into("<H", lba0, B.STAGE1_VERSION_OFF, version)


def mark_stage1(lba0):
    """Writes stage1's magic into a bytearray holding LBA 0 (as if our stage1 were there)."""
    lba0[B.STAGE1_MAGIC_OFF:B.STAGE1_MAGIC_OFF + len(STAGE1_MAGIC)] = STAGE1_MAGIC


def stage2_crc(image):
    """The CRC32 stage2 carries: over the whole image with its CRC field taken as zero."""
    b = bytearray(image)
    b[B.STAGE2_CRC_OFF:B.STAGE2_CRC_OFF + 4] = bytes(4)
    return zlib.crc32(bytes(b)) & 0xFFFFFFFF


def stage2_field(image, off):
    """A u32 field of stage2's header (B.STAGE2_LENGTH_OFF, B.STAGE2_CRC_OFF, ...)."""
    return struct.unpack_from("<I", image, off)[0]


def reseal(image):
    """stage2 with its length field set to its size and its CRC recomputed."""
    b = bytearray(image)
    struct.pack_into("<I", b, B.STAGE2_LENGTH_OFF, len(b))
    struct.pack_into("<I", b, B.STAGE2_CRC_OFF, stage2_crc(b))
    return bytes(b)


def set_config_path(image, path):
    """stage2 pointed at another configuration file, CRC recomputed."""
    b = bytearray(image)
    b[B.STAGE2_CONFIG_PATH_OFF:B.STAGE2_CONFIG_PATH_OFF + B.STAGE2_CONFIG_PATH_MAX] = \
        path.encode().ljust(B.STAGE2_CONFIG_PATH_MAX, b"\0")
    struct.pack_into("<I", b, B.STAGE2_CRC_OFF, stage2_crc(b))
    return bytes(b)


def config_path(image):
    raw = image[B.STAGE2_CONFIG_PATH_OFF:B.STAGE2_CONFIG_PATH_OFF + B.STAGE2_CONFIG_PATH_MAX]
    return bytes(raw).split(b"\0")[0].decode("latin-1")


def is_stage2(image):
    return bytes(image[B.STAGE2_MAGIC_OFF:B.STAGE2_MAGIC_OFF + len(STAGE2_MAGIC)]) == STAGE2_MAGIC


def installed_stage2(disk):
    """(byte offset, stage2 bytes) of the stage2 that stage1 in LBA 0 of the image file loads."""
    with open(disk, "rb") as f:
        offset, length = stage1_target(f.read(B.MBR_RECORD_SIZE))
        f.seek(offset)
        return offset, f.read(length)


def patch_installed_config(disk, path):
    """Points the installed stage2 of an image file at another configuration file; returns
    False when no stage2 is where stage1 says."""
    offset, image = installed_stage2(disk)
    if not is_stage2(image):
        return False
    with open(disk, "r+b") as f:
        f.seek(offset)
        f.write(set_config_path(image, path))
    return True


# ---- placeholders: the shapes common/bootinfo.h defines, no code ----

def placeholder_stage1():
    """B.MBR_RECORD_SIZE bytes: code bytes up to the patch block, the magic, the version, an
    empty patch block, 0x55AA; the timestamp bytes the disk owns left zero."""
    b = bytearray(B.MBR_RECORD_SIZE)
    for i in range(B.STAGE1_MAGIC_OFF):
        b[i] = (i * 7 + 1) % 251 + 1
    b[B.MBR_TIMESTAMP_OFF:B.MBR_TIMESTAMP_OFF + B.MBR_TIMESTAMP_LEN] = bytes(B.MBR_TIMESTAMP_LEN)
    mark_stage1(b)
    struct.pack_into("<H", b, B.STAGE1_VERSION_OFF, B.STAGE1_VERSION)
    b[B.MBR_SIGNATURE_OFF:B.MBR_SIGNATURE_OFF + 2] = b"\x55\xaa"
    return bytes(b)


def placeholder_stage2(size, flags=0):
    """A sealed stage2: a jump over the header, the magic, header version, length, flags
    (B.STAGE2_FLAG_GAP_BUILD: a legacy-gap build), CRC32; identity unset; filler after the
    header."""
    b = bytearray(size)
    b[0:2] = b"\xeb\x7e"
    b[B.STAGE2_MAGIC_OFF:B.STAGE2_MAGIC_OFF + len(STAGE2_MAGIC)] = STAGE2_MAGIC
    struct.pack_into("<I", b, B.STAGE2_HDR_VERSION_OFF, B.STAGE2_HDR_VERSION)
    struct.pack_into("<I", b, B.STAGE2_FLAGS_OFF, flags)
    for i in range(B.STAGE2_HDR_SIZE, size):
        b[i] = (i * 13 + 5) % 253
    return reseal(b)


def placeholder_efi(size):
    """"MZ" and filler."""
    b = bytearray(size)
    b[0:2] = b"MZ"
    for i in range(2, size):
        b[i] = (i * 31 + 3) % 255
    return bytes(b)


def write_placeholders(out, stage2_size=24576, efi_size=65536):
    """out/stage1.bin, out/stage2.bin and out/BOOTX64.EFI as placeholders; returns out."""
    os.makedirs(out, exist_ok=True)
    for name, data in (("stage1.bin", placeholder_stage1()),
                       ("stage2.bin", placeholder_stage2(stage2_size)),
                       ("BOOTX64.EFI", placeholder_efi(efi_size))):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    return out
