"""Builds disk images byte by byte, independently of anysector's C code: a protective or plain
MBR, GPT headers and entry arrays with any field forced to any value (CRCs recomputed or not),
EBR chains, and a FAT file system for the boot partition (mkfs.fat --invariant, so the bytes are
the same on every run). Images are written sparse: only the pieces put into them take space.

Every builder is deterministic: fixed GUIDs, fixed disk signatures, fixed volume IDs."""
import os
import struct
import subprocess
import threading
import zlib

MIB = 1 << 20
ESP_TYPE = bytes.fromhex("28732AC11FF8D211BA4B00A0C93EC93B")
BIOS_BOOT_TYPE = b"Hah!IdontNeedEFI"
LINUX_TYPE = bytes.fromhex("AF3DC60F838472478E793D69D8477DE4")
DISK_GUID = bytes.fromhex("0123456789ABCDEF0123456789ABCDEF")


def crc32(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def part_guid(n):
    """A fixed, distinct unique GUID for partition n."""
    return struct.pack("<H", 0xA000 + n) + bytes(range(2, 16))


class Image:
    """A disk image being built: its size and the pieces written into it (later ones win)."""

    def __init__(self, size, lss):
        self.size = size
        self.lss = lss
        self.pieces = []

    @property
    def sectors(self):
        return self.size // self.lss

    def put(self, off, data):
        self.pieces.append((off, bytes(data)))

    def put_lba(self, lba, data):
        self.put(lba * self.lss, data)

    def get(self, off, n):
        """The bytes [off, off+n) as the pieces so far make them."""
        out = bytearray(n)
        for poff, data in self.pieces:
            lo, hi = max(off, poff), min(off + n, poff + len(data))
            if lo < hi:
                out[lo - off:hi - off] = data[lo - poff:hi - poff]
        return out

    def write(self, path):
        """Writes the image sparse, cut to self.size (pieces past it are dropped: truncation)."""
        if os.path.exists(path):
            os.unlink(path)
        with open(path, "wb") as f:
            f.truncate(self.size)
            for off, data in self.pieces:
                if off >= self.size:
                    continue
                f.seek(off)
                f.write(data[:self.size - off])
        return path


# --- MBR ---

def mbr_entry(type_, first, sectors, active=False, chs=True):
    """A 16-byte partition entry; CHS as 255x63 geometry (FE FF FF past its range)."""
    def enc(lba):
        if not chs or lba > 1024 * 255 * 63 - 1:
            return b"\xFE\xFF\xFF"
        c, rem = divmod(lba, 255 * 63)
        h, s = divmod(rem, 63)
        return bytes([h, (s + 1) | ((c >> 2) & 0xC0), c & 0xFF])
    last = first + sectors - 1 if sectors else first
    return (bytes([0x80 if active else 0]) + enc(first) + bytes([type_]) + enc(last) +
            struct.pack("<II", first & 0xFFFFFFFF, sectors & 0xFFFFFFFF))


def mbr_record(entries, disk_sig=0x12345678, signature=True):
    """The 512-byte record of LBA 0 (or an EBR) with up to four 16-byte entries."""
    rec = bytearray(512)
    struct.pack_into("<I", rec, 0x1B8, disk_sig)
    for i, e in enumerate(entries):
        rec[0x1BE + 16 * i:0x1BE + 16 * (i + 1)] = e
    if signature:
        rec[510:512] = b"\x55\xAA"
    return rec


def protective_mbr(sectors, extra=()):
    """The UEFI protective MBR (one 0xEE entry from LBA 1 over the disk), plus extra entries
    (a hybrid MBR)."""
    return mbr_record([mbr_entry(0xEE, 1, min(sectors - 1, 0xFFFFFFFF))] + list(extra),
                      disk_sig=0)


# --- GPT ---

def gpt_entry(type_, unique, first, last, name="", attrs=0, size=128):
    e = bytearray(size)
    e[0:16] = type_
    e[16:32] = unique
    struct.pack_into("<QQQ", e, 32, first, last, attrs)
    n = name.encode("utf-16-le")[:72]
    e[56:56 + len(n)] = n
    return e


def gpt_array_sectors(lss, num_entries=128, entry_size=128):
    return -(-max(num_entries * entry_size, 16384) // lss)


def gpt_header(my, alt, first_usable, last_usable, entries_lba, array_crc, num_entries=128,
               entry_size=128, header_size=92, revision=0x00010000, lss=512, fix_crc=True,
               crc=None, disk_guid=DISK_GUID):
    raw = bytearray(lss)
    struct.pack_into("<8sIIII", raw, 0, b"EFI PART", revision, header_size, 0, 0)
    struct.pack_into("<QQQQ", raw, 24, my, alt, first_usable, last_usable)
    raw[56:72] = disk_guid
    struct.pack_into("<QIII", raw, 72, entries_lba, num_entries, entry_size, array_crc)
    if crc is not None:
        struct.pack_into("<I", raw, 16, crc)
    elif fix_crc:
        struct.pack_into("<I", raw, 16, crc32(bytes(raw[:min(max(header_size, 92), lss)])))
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
        """Writes arrays and headers; primary/backup are dicts of gpt_header overrides."""
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


# --- FAT ---

_fat_cache = {}
_fat_lock = threading.Lock()


def fat_fs(work, lss, sectors, hidden):
    """A FAT file system of sectors x lss bytes made by mkfs.fat (--invariant, fixed volume
    ID), as a list of (offset, bytes) pieces holding its nonzero 4 KiB blocks."""
    key = (lss, sectors, hidden)
    with _fat_lock:
        if key not in _fat_cache:
            _fat_cache[key] = _make_fat(work, lss, sectors, hidden)
        return _fat_cache[key]


def _make_fat(work, lss, sectors, hidden):
    key = (lss, sectors, hidden)
    path = os.path.join(work, "fat-%d-%d-%d.tmp" % key)
    with open(path, "wb") as f:
        f.truncate(sectors * lss)
    subprocess.run(["mkfs.fat", "--invariant", "-i", "A5C0FFEE", "-n", "ESP", "-S", str(lss),
                    "-h", str(hidden), path], check=True, capture_output=True)
    pieces = []
    zero = bytes(4096)
    with open(path, "rb") as f:
        off = 0
        while True:
            b = f.read(4096)
            if not b:
                break
            if b != zero[:len(b)]:
                pieces.append((off, b))
            off += len(b)
    os.unlink(path)
    return pieces


def put_fat(img, work, first, sectors):
    for off, b in fat_fs(work, img.lss, sectors, first):
        img.put(first * img.lss + off, b)


# --- the valid disks every case starts from ---

def gpt_disk(work, lss=512, size=8 * MIB):
    """A valid, installable GPT disk: BIOS boot (1 MiB), a FAT ESP (4 MiB) and a Linux
    partition to the last usable LBA, all 1 MiB-aligned. Returns (Image, Gpt)."""
    img = Image(size, lss)
    n = size // lss
    mib = MIB // lss
    g = Gpt(lss, n, [])
    parts = [(BIOS_BOOT_TYPE, mib, 2 * mib - 1, "BIOS boot"),
             (ESP_TYPE, 2 * mib, 6 * mib - 1, "EFI system"),
             (LINUX_TYPE, 6 * mib, g.last_usable, "Linux filesystem")]
    g = Gpt(lss, n, parts)
    img.put_lba(0, protective_mbr(n))
    put_fat(img, work, 2 * mib, 4 * mib)
    g.put(img)
    return img, g


def mbr_disk(work, lss=512, size=8 * MIB, logical=False):
    """A valid, installable MBR disk: an active FAT boot partition (0xEF, 4 MiB from 1 MiB) and
    a Linux partition (or an extended one holding one logical Linux partition) after it."""
    img = Image(size, lss)
    n = size // lss
    mib = MIB // lss
    if logical:
        second = mbr_entry(0x0F, 5 * mib, n - 5 * mib)
        img.put_lba(5 * mib, mbr_record([mbr_entry(0x83, mib, n - 6 * mib)], disk_sig=0))
    else:
        second = mbr_entry(0x83, 5 * mib, n - 5 * mib)
    img.put_lba(0, mbr_record([mbr_entry(0xEF, mib, 4 * mib, active=True), second]))
    put_fat(img, work, mib, 4 * mib)
    return img


# --- files on the FAT, and damage to them ---

def fat12_set(fat, cluster, value):
    """Sets a FAT12 entry in the FAT bytes fat."""
    off = cluster * 3 // 2
    cur = fat[off] | fat[off + 1] << 8
    if cluster & 1:
        cur = (cur & 0x000F) | (value << 4)
    else:
        cur = (cur & 0xF000) | (value & 0x0FFF)
    fat[off], fat[off + 1] = cur & 0xFF, cur >> 8


def esp_with_file(img, work, first, sectors, name, data, mutate=None):
    """Puts a file into the FAT12 file system at LBA first (mcopy into a scratch copy), clears
    its time stamps so the bytes are the same on every run, then lets mutate(fs, entry_offset,
    bpb) change the file system (bpb: dict of the geometry) before it goes back into img."""
    lss = img.lss
    path = os.path.join(work, "esp-%d-%s.tmp" % (os.getpid(), threading.get_ident()))
    src = path + ".src"
    with open(path, "wb") as f:
        f.write(bytes(img.get(first * lss, sectors * lss)))
    with open(src, "wb") as f:
        f.write(data)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    parts = name.split("/")
    for i in range(1, len(parts)):  # the directories on the way ("EFI/BOOT/x")
        subprocess.run(["mmd", "-i", path, "::/" + "/".join(parts[:i])], check=True, env=env,
                       capture_output=True)
    subprocess.run(["mcopy", "-i", path, src, "::/" + name], check=True, env=env,
                   capture_output=True)
    fs = bytearray(open(path, "rb").read())
    os.unlink(path)
    os.unlink(src)
    bps, spc, rsvd, nfats, rootent, _, _, fatsz = struct.unpack_from("<HBHBHHBH", fs, 11)
    bpb = dict(bps=bps, spc=spc, fat=rsvd * bps, fat_bytes=fatsz * bps, nfats=nfats,
               root=(rsvd + nfats * fatsz) * bps, rootent=rootent)
    bpb["data"] = bpb["root"] + rootent * 32
    entry = None
    for i in range(rootent):  # the root's entry for name (its first component)
        e = bpb["root"] + 32 * i
        if fs[e] in (0, 0xE5) or fs[e + 11] == 0x0F:
            continue
        short = fs[e:e + 8].rstrip(b" ") + b"." + fs[e + 8:e + 11].rstrip(b" ")
        want = parts[0].upper().encode()
        if short.rstrip(b".") == want or (b"." in want and short[-3:] == want[-3:]):
            entry = e
        fs[e + 13:e + 18] = bytes(5)   # creation time and date
        fs[e + 18:e + 20] = bytes(2)   # access date
        fs[e + 22:e + 26] = bytes(4)   # write time and date
    if mutate:
        mutate(fs, entry, bpb)
    for off in range(0, len(fs), 4096):
        block = bytes(fs[off:off + 4096])
        if block.strip(b"\0"):
            img.put(first * lss + off, block)
