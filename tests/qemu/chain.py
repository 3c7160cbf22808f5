#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Chainload and EFI-application entries (make test-qemu-chain), on 4Kn NVMe disks made by
`anysector mkimage` plus `anysector add --chainload/--efi ... --default` (timeout 0):
  seabios-partition  partition 3 holds tests/payload/chain/bootrec.asm, which reports DL and the
                     LBA at DS:SI+8: they must be 0x80 and partition 3's start LBA;
  seabios-hd1        `--chainload hd1`: a second NVMe disk holds the record at LBA 0: DL 0x81,
                     LBA 0 (the entry for a whole disk);
  seabios-syslinux   partition 3 of a 512e disk is a FAT (mkfs.fat) with Debian's syslinux
                     installed into it (`syslinux --install --offset`, its boot record in the
                     partition's first sector) and a syslinux.cfg that boots the BIOS payload:
                     stage2 chainloads the record, syslinux boots the payload, which reports
                     syslinux's APPEND line (512e only: syslinux 6.04 refuses 4 KiB-sector FAT);
  seabios-no-record  partition 3's first sector is zeros: stage2 says it is no boot record
                     (naming LBA and drive) and waits at its menu; the record never runs;
  ovmf-efi-app       `--efi payload.efi --cmdline ...`: the EFI payload started as an application
                     reports the command line it got as LoadOptions (and no initrd);
  ovmf-efi-other-partition  `--efi /EFI/tools/payload.efi --partition 3`: partition 3 is a FAT
                     (mkfs.fat) holding the payload; BOOTX64.EFI reads it from there and starts it
                     with that partition's device path: the payload reports partition=3 (the
                     partition its LoadedImage's DeviceHandle is) and its LoadOptions;
  seabios-efi-unavailable  an efi entry as the default under BIOS: listed "(UEFI only)", no
                     countdown to it, never started; the menu waits;
  ovmf-chain-unavailable  a chainload entry as the default under UEFI: listed "(BIOS only)", no
                     countdown to it, never started; the menu waits.
A failing case prints the reason and the serial log's tail."""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console, mtools, paths, qemu  # noqa: E402
from lib import serial  # noqa: E402
from lib.serial import Guest  # noqa: E402

PAYLOAD = {"seabios": paths.BIOS_PAYLOAD, "ovmf": paths.EFI_PAYLOAD}

BOOTREC = paths.build("payload", "chain", "bootrec.bin")
LSS = 4096
CHAIN_RE = re.compile(r"ANYSECTOR-CHAIN dl=0x(?P<dl>[0-9a-f]{2}) lba=(?P<lba>\d+)")


def anysector(*args):
    return subprocess.run([paths.ANYSECTOR, *args], check=True, capture_output=True, text=True)


def make_disk(work, firmware, add, prepare=None, lss=LSS, pss=LSS):
    """mkimage, then prepare(image, {number: (start, sectors)}) before the `add`."""
    image = os.path.join(work, "disk.img")
    payload = PAYLOAD[firmware]
    anysector("mkimage", image, "--size", "64M", "--esp-size", "16M", "--label", "gpt",
              "--sector-size", str(lss), "--physical-size", str(pss), "--stages", paths.STAGES,
              "--kernel", payload,
              "--cmdline", "linux-entry", "--timeout", "0")
    if prepare:
        info = json.loads(anysector("info", "--json", image).stdout)
        prepare(image, {p["number"]: (p["start"], p["sectors"]) for p in info["partitions"]})
    anysector("add", image, *add, "--default")
    info = json.loads(anysector("info", "--json", image).stdout)
    return image, {p["number"]: p["start"] for p in info["partitions"]}


def fat_with_file(work, image, start, sectors, path, src, lss=LSS):
    """Makes partition (start, sectors) of image a FAT (mkfs.fat) holding src at path."""
    fs = os.path.join(work, "part.fat")
    with open(fs, "wb") as f:
        f.truncate(sectors * lss)
    subprocess.run(["mkfs.fat", "-S", str(lss), "-h", str(start), "-n", "OTHER", fs],
                   check=True, capture_output=True)
    parent = os.path.dirname(path)
    if parent != "/":
        mtools.run(["mmd", "-D", "s", f"::{parent.rsplit('/', 1)[0]}"], fs)
        mtools.run(["mmd", "-D", "s", f"::{parent}"], fs)
    mtools.run(["mcopy", src, f"::{path}"], fs, check=True)
    with open(fs, "rb") as f, open(image, "r+b") as out:
        out.seek(start * lss)
        out.write(f.read())


def put_record(image, lba, data):
    with open(image, "r+b") as f:
        f.seek(lba * LSS)
        f.write(data)


def run_guest(firmware, image, work, until, extra=(), seconds=90, disk=("nvme", LSS, LSS)):
    g = Guest(firmware, image, work, extra, disk)
    try:
        g.wait_for(until.encode(), seconds)
        g.pump(1)
    finally:
        g.close()
    return g


def case_partition(work):
    image, parts = make_disk(work, "seabios", ["--chainload", "3"])
    put_record(image, parts[3], open(BOOTREC, "rb").read())
    g = run_guest("seabios", image, work, "ANYSECTOR-CHAIN")
    m = CHAIN_RE.search(g.text())
    if not m:
        return "the boot record did not report", g
    if m["dl"] != "80" or int(m["lba"]) != parts[3]:
        return f"the record got DL=0x{m['dl']} LBA {m['lba']}, expected 0x80 and {parts[3]}", g
    return None, g


def case_hd1(work):
    image, _ = make_disk(work, "seabios", ["--chainload", "hd1"])
    second = os.path.join(work, "second.img")
    with open(second, "wb") as f:
        f.write(open(BOOTREC, "rb").read().ljust(LSS, b"\0"))
        f.truncate(8 << 20)
    extra = ["-drive", f"if=none,id=disk1,format=raw,file={second},snapshot=on",
             "-device", f"nvme,drive=disk1,serial=anysector1,logical_block_size={LSS},"
             f"physical_block_size={LSS},bootindex=2"]   # SeaBIOS gives drive numbers to
                                                           # boot devices only
    g = run_guest("seabios", image, work, "ANYSECTOR-CHAIN", extra)
    m = CHAIN_RE.search(g.text())
    if not m:
        return "the second disk's boot record did not report", g
    if m["dl"] != "81" or m["lba"] != "0":
        return f"the record got DL=0x{m['dl']} LBA {m['lba']}, expected 0x81 and 0", g
    return None, g


def case_syslinux(work):
    """syslinux 6.04 refuses a FAT of 4096-byte sectors ("unsupported sectors size",
    docs/FIRMWARE.md), so this disk is 512e: nvme, logical 512, physical 4096."""
    def prepare(image, parts):
        start, sectors = parts[3]
        fat_with_file(work, image, start, sectors, "/payload", PAYLOAD["seabios"], lss=512)
        cfg = os.path.join(work, "syslinux.cfg")
        with open(cfg, "w") as f:
            f.write("DEFAULT p\nPROMPT 0\nTIMEOUT 0\nLABEL p\n  LINUX /payload\n"
                    "  APPEND started-by=syslinux\n")
        mtools.run(["mcopy", cfg, "::/syslinux.cfg"], image, start * 512, check=True)
        subprocess.run(["syslinux", "--install", "--offset", str(start * 512), image],
                       check=True, capture_output=True)
    image, _ = make_disk(work, "seabios", ["--chainload", "3"], prepare, lss=512, pss=4096)
    g = run_guest("seabios", image, work, "ANYSECTOR-PAYLOAD", disk=("nvme", 512, 4096))
    text = g.text()
    if "anysector boot menu" not in text and "booting 2)" not in text:
        return "stage2 did not run (no menu, no countdown)", g
    m = console.PAYLOAD_RE.search(text)
    if not m:
        return "syslinux did not boot the payload", g
    if m["cmdline"] != "BOOT_IMAGE=/payload started-by=syslinux":   # syslinux adds BOOT_IMAGE
        return f"the payload got [{m['cmdline']}], not syslinux's APPEND line", g
    return None, g


def case_no_record(work):
    image, parts = make_disk(work, "seabios", ["--chainload", "3"])
    put_record(image, parts[3], bytes(LSS))
    g = run_guest("seabios", image, work, "waiting for a key", seconds=60)
    want = (f"LBA {parts[3]} of disk 0x80 is no boot record: bytes 510-511 are 00 00, not 55 aa")
    if want not in g.text():
        return f"no sentence \"{want}\"", g
    if not re.search(r"booting 2\) failed: [^\n]*\n(?:[^\n]*\n)*?waiting for a key", g.text()):
        return "stage2 did not go back to its menu", g
    if "ANYSECTOR-CHAIN" in g.text():
        return "something was started anyway", g
    return None, g


def case_efi_app(work):
    image, _ = make_disk(work, "ovmf", ["--efi", paths.EFI_PAYLOAD, "--cmdline",
                                        "started-as=efi-application"])
    g = run_guest("ovmf", image, work, "ANYSECTOR-PAYLOAD", seconds=150)
    m = console.PAYLOAD_RE.search(g.text())
    if not m:
        return "the EFI application did not report", g
    if m["cmdline"] != "started-as=efi-application" or not m["none"]:
        return f"the application got [{m['cmdline']}]{'' if m['none'] else ' and an initrd'}", g
    return None, g


def case_efi_other_partition(work):
    app = "/EFI/tools/payload.efi"

    def prepare(image, parts):
        fat_with_file(work, image, *parts[3], app, paths.EFI_PAYLOAD)
    image, _ = make_disk(work, "ovmf", ["--efi", app, "--partition", "3", "--cmdline",
                                        "started-from=partition-3"], prepare)
    g = run_guest("ovmf", image, work, "ANYSECTOR-PAYLOAD", seconds=150)
    m = console.PAYLOAD_RE.search(g.text())
    if not m:
        return "the EFI application on partition 3 did not report", g
    if m["cmdline"] != "started-from=partition-3":
        return f"the application got [{m['cmdline']}]", g
    part = re.search(r"ANYSECTOR-PAYLOAD [^\n]*? partition=(\d+)", g.text())
    if not part or part[1] != "3":
        return (f"the application was loaded from {'partition ' + part[1] if part else 'no partition'}"
                ", not partition 3 (the device path BOOTX64.EFI gave LoadImage)"), g
    return None, g


def unavailable(work, firmware, add, listed, seconds):
    """The default entry is one firmware cannot start: listed as such (listed), no countdown
    to it, never tried, and the menu waits."""
    image, _ = make_disk(work, firmware, add)
    g = run_guest(firmware, image, work, "waiting for a key", seconds=seconds)
    text = g.text()
    if listed not in text:
        return f"the entry is not listed as \"{listed}\"", g
    if "booting 2)" in text or "press a key for the menu" in text:
        return f"the menu counted down to (or tried) an entry {firmware} cannot start", g
    if "waiting for a key" not in text or console.payload_reported(text):
        return "the menu did not wait (or booted something)", g
    return None, g


def case_efi_unavailable(work):
    return unavailable(work, "seabios", ["--efi", paths.EFI_PAYLOAD], "2) payload.efi (UEFI only)",
                       60)


def case_chain_unavailable(work):
    return unavailable(work, "ovmf", ["--chainload", "3"], "2) chainload-3 (BIOS only)", 150)


CASES = [("seabios-nvme-4Kn-chain-partition", case_partition),
         ("seabios-nvme-4Kn-chain-hd1", case_hd1),
         ("seabios-nvme-512e-chain-syslinux", case_syslinux),
         ("seabios-nvme-4Kn-chain-no-record", case_no_record),
         ("ovmf-nvme-4Kn-efi-app", case_efi_app),
         ("ovmf-nvme-4Kn-efi-other-partition", case_efi_other_partition),
         ("seabios-nvme-4Kn-efi-unavailable", case_efi_unavailable),
         ("ovmf-nvme-4Kn-chain-unavailable", case_chain_unavailable)]


def main():
    missing = [p for p in (paths.ANYSECTOR, BOOTREC, *PAYLOAD.values())
               if not os.path.exists(p)] + qemu.missing()
    return serial.run_cases("qemu-chain", CASES, missing=lambda name: missing)


if __name__ == "__main__":
    sys.exit(main())
