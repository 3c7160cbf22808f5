# SPDX-License-Identifier: BSD-2-Clause
"""A disk laid out as Windows installs itself on GPT: partition 1 the ESP (FAT16 here, for a
small image) with Windows' boot files, 2 the Microsoft reserved partition, 3 NTFS (mkntfs when
it is there, else an NTFS boot sector), and no BIOS boot partition. The boot manager's file is
what the caller gives (a test EFI payload standing in for bootmgfw.efi); Windows also copies it
to the firmware's fallback path \\EFI\\Boot\\bootx64.efi. Built with lib.gpt, mkfs.fat and
mtools; nothing of anysector's takes part."""
import os
import shutil
import struct
import subprocess

from lib import gpt as G
from lib import mtools
from lib.disk import Image

MSR_TYPE = bytes.fromhex("16E3C9E35C0BB84D817DF92DF00215AE")    # E3C9E316-0B5C-4DB8-...
BASIC_TYPE = bytes.fromhex("A2A0D0EBE5B9334487C068B6B72699C7")  # EBD0A0A2-B9E5-4433-...
MIB = 1 << 20
ESP_MIB = 40

# what Windows leaves on its ESP besides the boot manager (contents are test bytes)
EXTRA_FILES = {
    "/EFI/Microsoft/Boot/BCD": 28672,
    "/EFI/Microsoft/Boot/en-US/bootmgfw.efi.mui": 4096,
    "/EFI/Microsoft/Recovery/BCD": 16384,
}


def make(path, bootmgr, lss=512, size=96 * MIB, esp_mib=ESP_MIB, work=None):
    """Writes the image to path; bootmgr is the host file that becomes bootmgfw.efi and
    \\EFI\\Boot\\bootx64.efi. Returns (ESP byte offset, {path on the ESP: bytes})."""
    work = work or os.path.dirname(path)
    esp = (MIB, (1 + esp_mib) * MIB)
    msr = (esp[1], esp[1] + 16 * MIB)
    ntfs = (msr[1], size - MIB)
    img = Image(size, lss)
    parts = [(G.ESP_TYPE, esp[0] // lss, esp[1] // lss - 1, "EFI system partition"),
             (MSR_TYPE, msr[0] // lss, msr[1] // lss - 1, "Microsoft reserved partition"),
             (BASIC_TYPE, ntfs[0] // lss, ntfs[1] // lss - 1, "Basic data partition")]
    g = G.Gpt(lss, size // lss, parts)
    pmbr = bytearray(lss)
    struct.pack_into("<B3sB3sII", pmbr, 446, 0, b"\x00\x02\x00", 0xEE, b"\xff\xff\xff", 1,
                     min(size // lss - 1, 0xFFFFFFFF))
    pmbr[510:512] = b"\x55\xaa"
    img.put_lba(0, pmbr)
    g.put(img)
    img.write(path)
    files = _fat(path, esp, lss, bootmgr, work)
    _ntfs(path, ntfs, lss, work)
    return esp[0], files


def _fat(path, esp, lss, bootmgr, work):
    part = os.path.join(work, "windisk-esp.tmp")
    if os.path.exists(part):
        os.unlink(part)
    subprocess.run(["mkfs.fat", "-C", "-F", "16", "-S", str(lss), "-h", str(esp[0] // lss),
                    "-n", "SYSTEM", part, str((esp[1] - esp[0]) // 1024)],
                   check=True, capture_output=True)
    with open(bootmgr, "rb") as f:
        mgr = f.read()
    files = {"/EFI/Microsoft/Boot/bootmgfw.efi": mgr, "/EFI/Boot/bootx64.efi": mgr}
    for p, n in EXTRA_FILES.items():
        files[p] = bytes((i * 7 + len(p)) & 0xFF for i in range(n))
    for d in ("/EFI", "/EFI/Microsoft", "/EFI/Microsoft/Boot", "/EFI/Microsoft/Boot/en-US",
              "/EFI/Microsoft/Recovery", "/EFI/Boot"):
        mtools.run(["mmd", "::" + d], part, 0)
    src = os.path.join(work, "windisk-file.tmp")
    for p, data in files.items():
        with open(src, "wb") as f:
            f.write(data)
        r = mtools.run(["mcopy", "-o", src, "::" + p], part, 0)
        if r.returncode:
            raise RuntimeError("mcopy %s: %r" % (p, r.stderr))
    os.unlink(src)
    _copy_in(part, path, esp[0])
    os.unlink(part)
    return files


def _ntfs(path, ntfs, lss, work):
    part = os.path.join(work, "windisk-ntfs.tmp")
    n = ntfs[1] - ntfs[0]
    if shutil.which("mkntfs"):
        with open(part, "wb") as f:
            f.truncate(n)
        subprocess.run(["mkntfs", "-F", "-Q", "-q", "-s", str(lss), "-p", str(ntfs[0] // lss),
                        "-L", "Windows", part], check=True, capture_output=True)
    else:
        boot = bytearray(lss)
        boot[0:11] = b"\xebR\x90NTFS    "
        boot[510:512] = b"\x55\xaa"
        with open(part, "wb") as f:
            f.write(boot)
            f.truncate(n)
    _copy_in(part, path, ntfs[0])
    os.unlink(part)


def _copy_in(src, path, off):
    with open(src, "rb") as f, open(path, "r+b") as out:
        while True:
            chunk = f.read(MIB)
            if not chunk:
                break
            if chunk.strip(b"\0"):
                out.seek(off)
                out.write(chunk)
            off += len(chunk)


def sha256_files(img, off, paths):
    """{path: SHA-256 hex or None} of files on the FAT at byte off of img (mtools)."""
    import hashlib
    out = {}
    for p in paths:
        data = mtools.read(img, off, p)
        out[p] = hashlib.sha256(data).hexdigest() if data is not None else None
    return out
