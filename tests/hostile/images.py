# SPDX-License-Identifier: BSD-2-Clause
"""The hostile corpus's starting points: the valid, installable GPT and MBR disks every case
breaks one thing of, and a file put into their FAT12 boot partition with mtools (time stamps
cleared, so the bytes are the same on every run) before a case damages the file system. Built
with lib.disk.Image, lib.gpt, lib.mbr and lib.fat (mkfs.fat --invariant): fixed GUIDs, disk
signatures and volume IDs, images written sparse."""
import os
import struct
import subprocess
import threading

from lib.disk import MIB, Image
from lib.fat import put_fat
from lib.gpt import BIOS_BOOT_TYPE, ESP_TYPE, LINUX_TYPE, Gpt
from lib.mbr import mbr_entry, mbr_record, protective_mbr


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
