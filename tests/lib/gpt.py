# SPDX-License-Identifier: BSD-2-Clause
"""GPT headers and entry arrays, built byte by byte with any field forced to any value (CRCs
recomputed or not), and read back from image files or edited in memory, independently of
common/gpt.c. Field offsets are the UEFI specification's (chapter 5)."""
import struct
import zlib

from lib.disk import read_at, write_at

SIGNATURE = b"EFI PART"
HEADER_SIZE = 92
ESP_TYPE = bytes.fromhex("28732AC11FF8D211BA4B00A0C93EC93B")   # C12A7328-F81F-11D2-...
BIOS_BOOT_TYPE = b"Hah!IdontNeedEFI"
LINUX_TYPE = bytes.fromhex("AF3DC60F838472478E793D69D8477DE4")
DISK_GUID = bytes.fromhex("0123456789ABCDEF0123456789ABCDEF")
MIN_ARRAY_BYTES = 16384

# header fields: byte offsets
CRC_OFF, MY_LBA_OFF, ALT_LBA_OFF, FIRST_USABLE_OFF, LAST_USABLE_OFF = 16, 24, 32, 40, 48
ENTRIES_LBA_OFF, NUM_ENTRIES_OFF, ENTRY_SIZE_OFF, ARRAY_CRC_OFF = 72, 80, 84, 88
# entry fields
ENTRY_FIRST_OFF, ENTRY_LAST_OFF = 32, 40


def crc32(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def part_guid(n):
    """A fixed, distinct unique GUID for partition n."""
    return struct.pack("<H", 0xA000 + n) + bytes(range(2, 16))


# ---- building ----

def gpt_entry(type_, unique, first, last, name="", attrs=0, size=128):
    e = bytearray(size)
    e[0:16] = type_
    e[16:32] = unique
    struct.pack_into("<QQQ", e, ENTRY_FIRST_OFF, first, last, attrs)
    n = name.encode("utf-16-le")[:72]
    e[56:56 + len(n)] = n
    return e


def gpt_array_sectors(lss, num_entries=128, entry_size=128):
    return -(-max(num_entries * entry_size, MIN_ARRAY_BYTES) // lss)


def gpt_header(my, alt, first_usable, last_usable, entries_lba, array_crc, num_entries=128,
               entry_size=128, header_size=HEADER_SIZE, revision=0x00010000, lss=512,
               fix_crc=True, crc=None, disk_guid=DISK_GUID):
    raw = bytearray(lss)
    struct.pack_into("<8sIIII", raw, 0, SIGNATURE, revision, header_size, 0, 0)
    struct.pack_into("<QQQQ", raw, MY_LBA_OFF, my, alt, first_usable, last_usable)
    raw[56:72] = disk_guid
    struct.pack_into("<QIII", raw, ENTRIES_LBA_OFF, entries_lba, num_entries, entry_size,
                     array_crc)
    if crc is not None:
        struct.pack_into("<I", raw, CRC_OFF, crc)
    elif fix_crc:
        struct.pack_into("<I", raw, CRC_OFF,
                         crc32(bytes(raw[:min(max(header_size, HEADER_SIZE), lss)])))
    return raw


class Gpt:
    """A GPT's fields before they are laid out; every one may be overridden per header."""

    def __init__(self, lss, sectors, parts, num_entries=128, entry_size=128):
        self.lss = lss
        self.sectors = sectors
        self.num_entries = num_entries
        self.entry_size = entry_size
        arr = gpt_array_sectors(lss, num_entries, entry_size)
        self.first_usable = 2 + arr
        self.last_usable = sectors - 2 - arr
        self.primary_array = 2
        self.backup_array = sectors - 1 - arr
        self.entries = [gpt_entry(t, part_guid(i + 1), f, l, n, size=entry_size)
                        for i, (t, f, l, n) in enumerate(parts)]

    def array(self, entries=None):
        entries = self.entries if entries is None else entries
        raw = bytearray(self.num_entries * self.entry_size)
        for i, e in enumerate(entries):
            raw[i * self.entry_size:(i + 1) * self.entry_size] = e
        return raw

    def put(self, img, primary=None, backup=None, primary_entries=None, backup_entries=None,
            write_primary=True, write_backup=True):
        """Writes arrays and headers into a disk.Image; primary/backup are dicts of gpt_header
        overrides."""
        n = self.sectors
        pa, ba = self.array(primary_entries), self.array(backup_entries)
        common = dict(first_usable=self.first_usable, last_usable=self.last_usable,
                      num_entries=self.num_entries, entry_size=self.entry_size, lss=self.lss)
        if write_primary:
            img.put_lba(self.primary_array, pa)
            h = dict(common, my=1, alt=n - 1, entries_lba=self.primary_array,
                     array_crc=crc32(bytes(pa)))
            h.update(primary or {})
            img.put_lba(1, gpt_header(**h))
        if write_backup:
            img.put_lba(self.backup_array, ba)
            h = dict(common, my=n - 1, alt=1, entries_lba=self.backup_array,
                     array_crc=crc32(bytes(ba)))
            h.update(backup or {})
            img.put_lba(n - 1, gpt_header(**h))


# ---- reading an image file ----

def read_header(path, lss, lba):
    """Decodes the GPT header at lba of the image file; also says whether its CRC is right."""
    raw = read_at(path, lba * lss, lss)
    (sig, rev, hsize, crc, _, my, alt, fu, lu) = struct.unpack_from("<8sIIIIQQQQ", raw, 0)
    (elba, nent, esize, ecrc) = struct.unpack_from("<QIII", raw, ENTRIES_LBA_OFF)
    z = bytearray(raw[:hsize])
    z[CRC_OFF:CRC_OFF + 4] = b"\0\0\0\0"
    return dict(sig=sig, rev=rev, hsize=hsize, crc_ok=crc32(bytes(z)) == crc,
                my=my, alt=alt, first_usable=fu, last_usable=lu, entries_lba=elba,
                num_entries=nent, entry_size=esize, entries_crc=ecrc,
                disk_guid=raw[56:72])


def read_entries(path, lss, hdr):
    """The used entries of the array hdr (read_header) names, and whether its CRC is right."""
    raw = read_at(path, hdr["entries_lba"] * lss, hdr["num_entries"] * hdr["entry_size"])
    out = []
    for i in range(hdr["num_entries"]):
        e = raw[i * hdr["entry_size"]:(i + 1) * hdr["entry_size"]]
        if e[:16] != bytes(16):
            first, last, attr = struct.unpack_from("<QQQ", e, ENTRY_FIRST_OFF)
            out.append(dict(number=i + 1, type=e[:16], unique=e[16:32], first=first, last=last))
    return out, crc32(raw) == hdr["entries_crc"]


def find_partition(path, lss, type_=ESP_TYPE):
    """(first LBA, last LBA) of the first partition of that type in the primary GPT, or None."""
    for e in read_entries(path, lss, read_header(path, lss, 1))[0]:
        if e["type"] == type_:
            return e["first"], e["last"]
    return None


def fix_header_crc(raw):
    """Recomputes the CRC of the header in raw (a bytearray starting at the header)."""
    hsize = struct.unpack_from("<I", raw, 12)[0]
    hsize = min(max(hsize, HEADER_SIZE), len(raw))
    raw[CRC_OFF:CRC_OFF + 4] = b"\0\0\0\0"
    struct.pack_into("<I", raw, CRC_OFF, crc32(bytes(raw[:hsize])))


def rewrite_crcs(path, lss, lba):
    """Recomputes the header's array CRC and header CRC in the image file (after a deliberate
    field change)."""
    h = read_header(path, lss, lba)
    arr = read_at(path, h["entries_lba"] * lss, h["num_entries"] * h["entry_size"]) \
        if 0 < h["num_entries"] * h["entry_size"] < (1 << 24) else b""
    raw = bytearray(read_at(path, lba * lss, lss))
    struct.pack_into("<I", raw, ARRAY_CRC_OFF, crc32(arr))
    fix_header_crc(raw)
    write_at(path, lba * lss, bytes(raw))


# ---- editing an image in memory ----

def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


class View:
    """The GPT of img (a bytearray holding the whole image) with lss-byte sectors, read from
    the primary header; entries and headers can be changed in place and resealed."""

    def __init__(self, img, lss):
        self.img, self.lss = img, lss
        h = bytes(img[lss:2 * lss])
        if h[:8] != SIGNATURE:
            raise ValueError("the image has no primary GPT")
        self.entries_lba, self.num, self.esize = \
            u64(h, ENTRIES_LBA_OFF), u32(h, NUM_ENTRIES_OFF), u32(h, ENTRY_SIZE_OFF)
        self.first_usable, self.last_usable = u64(h, FIRST_USABLE_OFF), u64(h, LAST_USABLE_OFF)
        self.backup_lba = u64(h, ALT_LBA_OFF)

    def entry_off(self, i, header_lba=1):
        ho = header_lba * self.lss
        return u64(self.img, ho + ENTRIES_LBA_OFF) * self.lss + i * u32(self.img,
                                                                          ho + ENTRY_SIZE_OFF)

    def find(self, type_=ESP_TYPE):
        """(first LBA, last LBA) of the first entry of that type, or None."""
        for i in range(self.num):
            o = self.entry_off(i)
            if self.img[o:o + 16] == type_:
                return u64(self.img, o + ENTRY_FIRST_OFF), u64(self.img, o + ENTRY_LAST_OFF)
        return None

    def used(self):
        return [i for i in range(self.num)
                if any(self.img[self.entry_off(i):self.entry_off(i) + 16])]

    def reseal(self, header_lba):
        """Recomputes the array CRC and the header CRC of the header at header_lba."""
        ho = header_lba * self.lss
        h = self.img
        arr = u64(h, ho + ENTRIES_LBA_OFF) * self.lss
        n, size = u32(h, ho + NUM_ENTRIES_OFF), u32(h, ho + ENTRY_SIZE_OFF)
        struct.pack_into("<I", h, ho + ARRAY_CRC_OFF, zlib.crc32(h[arr:arr + n * size]))
        hsize = u32(h, ho + 12)
        struct.pack_into("<I", h, ho + CRC_OFF, 0)
        struct.pack_into("<I", h, ho + CRC_OFF, zlib.crc32(h[ho:ho + hsize]))
