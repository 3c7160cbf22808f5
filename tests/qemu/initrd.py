#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Large initrds where the kernel accepts them (make test-qemu-initrd): Debian's cloud kernel with
a 256 MiB initrd (an uncompressed cpio member of 256 MiB less the busybox archive, each 4 KiB
block of it numbered, then lib.initramfs's busybox archive, whose /init prints the md5 of that
member) on one GPT 4Kn NVMe disk, booted these ways:
  - SeaBIOS, pc, -m 3072: stage2 puts the initrd at the highest 4 KiB boundary below the
    kernel's initrd_addr_max (RAM goes on to 3 GiB), and the guest's md5 of the member is right;
  - OVMF, q35, -m 3072 (2 GiB of RAM below 4 GiB, 1 GiB above): BOOTX64.EFI puts it below
    4 GiB, at the top of the RAM there less what OVMF keeps for itself (OVMF's disk drivers
    read above 4 GiB through a bounce buffer), and the md5 is right;
  - OVMF, q35, -m 3072 with 256 MiB of it below 4 GiB (max-ram-below-4g): the initrd cannot fit
    there, so BOOTX64.EFI puts it at the top of the RAM above 4 GiB (the kernel's xloadflags
    say it may), and the md5 is right;
  - OVMF, q35, -m 3072 with 512 MiB of it below 4 GiB: the initrd fits there once but not twice;
    BOOTX64.EFI still puts it below 4 GiB, near the top of the RAM there, so the EFI stub's own
    copy must go above 4 GiB, and the md5 is right;
  - SeaBIOS and OVMF with -m 256: the initrd cannot fit, and the loader says so in one sentence
    naming its size and the largest that would fit (less than the initrd, more than half the
    RAM), before reading it: QEMU's trace of the disk's reads shows less than 32 MiB read in
    the whole boot; the menu comes back."""
import hashlib
import os
import re
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import initramfs, paths, payloads, qemu, serial  # noqa: E402
from lib.serial import Guest  # noqa: E402

MiB = 1 << 20
INITRD_BYTES = 256 * MiB
CMDLINE = "console=ttyS0 quiet panic=-1"
MARKER = re.compile(r"ANYSECTOR-LINUX-OK cmdline=\[[^\]]*\] filler_md5=[0-9a-f]+ "
                    r"pad_md5=(?P<md5>[0-9a-f]{32})")
STAGE2_AT = re.compile(r"initrd: \S+, (?P<kib>\d+) KiB at 0x(?P<at>[0-9a-f]+)")
EFI_AT = re.compile(r"initrd: (?P<bytes>\d+) bytes at 0x(?P<at>[0-9a-f]+)")
STAGE2_NOFIT = re.compile(r"the initrd is (?P<size>\d+) KiB, but the largest that fits in the "
                          r"RAM the BIOS reports between the kernel's end \(0x[0-9a-f]+\) and "
                          r"initrd_addr_max \(0x[0-9a-f]+\) is (?P<largest>\d+) KiB")
EFI_NOFIT = re.compile(r"the initrd is (?P<size>\d+) bytes, but the largest that fits in the "
                       r"free memory the firmware reports is (?P<largest>\d+) bytes")
FAILED = b"booting 1) failed: no space"
BOOT_SECONDS = 300    # a 256 MiB initrd read, unpacked and hashed under TCG on a loaded host
GiB4 = 1 << 32


def numbered_pad():
    """The first archive's member: 4 KiB blocks, each holding its own number, so a block lost,
    repeated or moved changes the md5."""
    room = INITRD_BYTES - len(initramfs.with_pad(b""))
    room -= room % 4096
    return b"".join(struct.pack("<Q", i) * 512 for i in range(room // 4096))


class Disk:
    """The one image every case boots, made once per run."""

    def __init__(self, work):
        pad = numbered_pad()
        data = initramfs.with_pad(pad)
        self.size = len(data)
        self.pad_md5 = hashlib.md5(pad).hexdigest()
        self.initrd = os.path.join(work, "initrd-256M.img")
        with open(self.initrd, "wb") as f:
            f.write(data)
        self.kernel = payloads.debian_kernel()
        with open(self.kernel, "rb") as f:
            hdr = f.read(0x240)
        self.initrd_addr_max = struct.unpack_from("<I", hdr, 0x22C)[0]
        self.image = os.path.join(work, "disk.img")
        subprocess.run([paths.ANYSECTOR, "mkimage", self.image, "--size", "400M", "--label",
                        "gpt", "--sector-size", "4096", "--esp-size", "320M", "--stages",
                        paths.STAGES, "--kernel", self.kernel, "--initrd", self.initrd,
                        "--cmdline", CMDLINE, "--timeout", "0"], check=True,
                       capture_output=True)


def boot(disk, firmware, machine, memory, work, until):
    """A guest on the disk, read until `until` (bytes) or the boot ends; its reads traced."""
    trace = os.path.join(work, "reads.log")
    g = Guest(firmware, disk.image, work,
              extra=["-machine", machine, "-m", str(memory)] + qemu.read_trace_args(trace))
    g.wait_for(until, BOOT_SECONDS)
    g.trace = trace
    return g


def bytes_read(trace):
    with open(trace, errors="replace") as f:
        return sum(int(m["bytes"]) for m in qemu.READ_TRACE_RE.finditer(f.read()))


def efi_place_wanted(machine, size):
    """(lowest, highest) address BOOTX64.EFI may put the initrd at on a q35 with 3 GiB, and
    where that is."""
    below = re.search(r"max-ram-below-4g=(\d+)M", machine)
    below = int(below[1]) * MiB if below else 2 * 1024 * MiB
    # these cases have about the initrd's size of RAM below 4 GiB (no room, OVMF keeping some
    # of it) or twice that and more (room)
    if below < 2 * size:
        # RAM above 4 GiB runs to 4 GiB + 3 GiB less what is below; the block ends at its
        # top, page-aligned
        at = (GiB4 + 3 * 1024 * MiB - below - size) & ~0xFFF
        return at, at, "the top of the RAM above 4 GiB, none below being large enough"
    # OVMF's own pages near the top of the RAM below 4 GiB take about 132 MiB with 2 GiB there
    # (tests/unit/memmaps.h uefi_q35_3072), less than 256 MiB; the EFI stub's copy of the
    # initrd goes wherever the firmware finds room, above 4 GiB too (docs/DESIGN.md)
    top = (below - size) & ~0xFFF
    return top - 256 * MiB, top, "the top of the RAM below 4 GiB, less what OVMF keeps"


def fits_case(disk, firmware, machine, work):
    g = boot(disk, firmware, machine, 3072, work, b"pad_md5=")
    g.pump(1)
    text = g.text()
    m = MARKER.search(text)
    if not m:
        return "no ANYSECTOR-LINUX-OK line with the initrd's pad_md5", g
    if m["md5"] != disk.pad_md5:
        return f"the guest's md5 of the initrd's pad is {m['md5']}, expected {disk.pad_md5}", g
    if firmware == "seabios":
        at = STAGE2_AT.search(text)
        if not at or int(at["kib"]) * 1024 != (disk.size + 1023) // 1024 * 1024:
            return "no 'initrd: PATH, N KiB at 0x...' line from stage2 with the initrd's size", g
        low = high = (disk.initrd_addr_max + 1 - disk.size) & ~0xFFF
        where = "the highest 4 KiB boundary below initrd_addr_max"
    else:
        at = EFI_AT.search(text)
        if not at or int(at["bytes"]) != disk.size:
            return "no 'initrd: N bytes at 0x...' line from BOOTX64.EFI with the initrd's size", g
        low, high, where = efi_place_wanted(machine, disk.size)
    if not low <= int(at["at"], 16) <= high:
        want = f"0x{low:x}" if low == high else f"0x{low:x}-0x{high:x}"
        return f"the initrd went to 0x{at['at']}, expected {want} ({where})", g
    return None, g


def nofit_case(disk, firmware, work):
    g = boot(disk, firmware, "pc" if firmware == "seabios" else "q35", 256, work, FAILED)
    text = g.text()
    m = (STAGE2_NOFIT if firmware == "seabios" else EFI_NOFIT).search(text)
    if not m:
        return "no sentence naming the initrd's size and the largest that would fit", g
    unit = 1024 if firmware == "seabios" else 1
    size, largest = int(m["size"]) * unit, int(m["largest"]) * unit
    if abs(size - disk.size) >= unit:
        return f"the sentence says the initrd is {size} bytes; it is {disk.size}", g
    if not 128 * MiB < largest < disk.size:
        return f"the sentence's largest that fits, {largest} bytes, is not between half the " \
               f"RAM and the initrd's size", g
    if FAILED not in g.log:
        return "the loader did not go back to its menu after the sentence", g
    time.sleep(0.5)
    n = bytes_read(g.trace)
    if n >= 32 * MiB:
        return f"the disk read {n} bytes in this boot: the initrd was read before the refusal", g
    return None, g


def main():
    state = {}

    def disk(work):
        if "disk" not in state:
            # made in the first case's directory's parent, so every case shares it
            root = os.path.dirname(work)
            state["dir"] = os.path.join(root, "initrd-disk")
            os.makedirs(state["dir"], exist_ok=True)
            state["disk"] = Disk(state["dir"])
        return state["disk"]

    def missing(name):
        need = [paths.ANYSECTOR, os.path.join(paths.STAGES, "stage2.bin"), "/bin/busybox"]
        gone = [p for p in need if not os.path.exists(p)] + qemu.missing()
        return gone + ([] if payloads.debian_kernel() else ["/boot/vmlinuz-*-cloud-amd64"])

    cases = [
        ("seabios-pc-3072-nvme-4Kn-initrd-256M-below-initrd_addr_max",
         lambda w: fits_case(disk(w), "seabios", "pc", w)),
        ("ovmf-q35-3072-nvme-4Kn-initrd-256M-below-4G",
         lambda w: fits_case(disk(w), "ovmf", "q35", w)),
        ("ovmf-q35-3072-low-256M-nvme-4Kn-initrd-256M-above-4G",
         lambda w: fits_case(disk(w), "ovmf", "q35,max-ram-below-4g=256M", w)),
        ("ovmf-q35-3072-low-512M-nvme-4Kn-initrd-256M-below-4G-stub-copy-above",
         lambda w: fits_case(disk(w), "ovmf", "q35,max-ram-below-4g=512M", w)),
        ("seabios-pc-256-nvme-4Kn-initrd-256M-cannot-fit",
         lambda w: nofit_case(disk(w), "seabios", w)),
        ("ovmf-q35-256-nvme-4Kn-initrd-256M-cannot-fit",
         lambda w: nofit_case(disk(w), "ovmf", w)),
    ]
    try:
        # one at a time: the cases share one disk image, made by the first and rewritten by each
        return serial.run_cases("qemu-initrd", cases, missing, jobs=1)
    finally:
        if "dir" in state:
            subprocess.run(["rm", "-rf", state["dir"]])


if __name__ == "__main__":
    sys.exit(main())
