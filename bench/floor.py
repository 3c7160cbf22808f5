# SPDX-License-Identifier: BSD-2-Clause
"""The read floors: the firmware's own read path for exactly the calls a loader made.

A recorded anysector boot prints the calls it made for the kernel and initrd, as runs of calls of
one size at consecutive LBAs:
  stage2:      "disk 0x80: N AH=42h calls for the kernel and initrd (runs of LBA+sectors x calls):"
  BOOTX64.EFI: "disk: N ReadBlocks calls, B bytes read", then
               " for the kernel and initrd, as runs of LBA+blocks x calls:"
each followed by lines of "LBA+COUNTxCALLS" runs. The floor readers (bench/floor/) repeat those
calls and nothing else: the BIOS one is written where stage2 lies on a copy of anysector's disk
(stage1 loads and enters it as it does stage2), the UEFI one replaces \\EFI\\BOOT\\BOOTX64.EFI on a
copy. Each makes the calls in several passes (PASSES), each adding one piece of what a loader
does with the bytes, and prints a line before the first call and one after each pass: pass 1,
the calls alone, is the floor, which the loader's own time for the same calls is compared with;
the later passes measure what the rest of that time is spent on.
"""
import re
import struct

import disks

MAGIC = b"ASFLOOR1"
RUN = struct.Struct("<QII")          # first LBA, sectors per call, calls
BIOS_MAX_BYTES = 0x8000              # the BIOS reader addresses its table with DS = 0 from 0x8000
EFI_MAX_RUNS = 1024                  # bench/floor/efi.c FLOOR_RUNS

STAGE2_HEAD = re.compile(r"disk 0x[0-9a-f]+: (\d+) AH=42h calls for the kernel and initrd "
                         r"\(runs of LBA\+sectors x calls\):")
EFI_HEAD = re.compile(r"disk: (\d+) ReadBlocks calls, (\d+) bytes read")
# the line between BOOTX64.EFI's head and its runs (the head is kept short: it ends the timed
# stretch, and each character costs OVMF's console about 15 us)
EFI_RUNS_LABEL = re.compile(r"^ for the kernel and initrd, as runs of LBA\+blocks x calls:")
RUN_RE = re.compile(r"(\d+)\+(\d+)x(\d+)")

# the floor readers' lines: the first, one after each pass, and the last (the marker a timed
# boot waits for)
BIOS_FIRST = re.compile(r"anysector floor reader \(drive 0x[0-9a-f]+\): (\d+) AH=42h calls")
EFI_FIRST = re.compile(r"anysector floor application \((\d+) ReadBlocks calls")
MARKER = {"bios": "anysector floor reader: done", "uefi": "anysector floor application: done"}
DONE = re.compile(r"anysector floor (?:reader|application): done, (\d) passes of (\d+)")
# what each pass adds (bench/floor/bios.asm, bench/floor/efi.c); pass 1 is the floor
PASSES = {
    "bios": ["the calls alone, from real mode into the bounce buffer",
             "and a switch to protected mode and back after each",
             "and a copy of each call's bytes into fresh memory from 1 MiB",
             "the same copies again, into that memory"],
    "uefi": ["the calls alone, into one buffer",
             "each into the next part of fresh memory as large as the loader's buffers",
             "the same calls again, into that memory"],
}


def first_line(fw):
    return BIOS_FIRST if fw == "bios" else EFI_FIRST


def pass_line(k):
    """The line a floor reader prints after pass k."""
    return re.compile(rf"^floor pass {k}[ :]")


class FloorError(Exception):
    pass


def recorded_calls(serial_text, fw):
    """[(lba, count, calls)] a loader printed in a boot's serial text (fw: bios|uefi). Raises
    FloorError when the list is missing or shorter than the count (more runs than the loader
    keeps)."""
    head = STAGE2_HEAD if fw == "bios" else EFI_HEAD
    lines = serial_text.replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        m = head.search(line)
        if not m:
            continue
        total = int(m.group(1))
        runs = []
        rest = lines[i + 1:]
        if fw != "bios" and rest and EFI_RUNS_LABEL.search(rest[0]):
            rest = rest[1:]
        for cont in rest:
            if not cont.startswith(" ") or not RUN_RE.search(cont):
                break
            runs += [tuple(int(x) for x in r) for r in RUN_RE.findall(cont)]
        listed = sum(r[2] for r in runs)
        if listed != total:
            raise FloorError(f"the loader listed {listed} of its {total} calls (more runs than it "
                             "keeps): no floor")
        if not runs:
            raise FloorError("the loader made no calls for the kernel and initrd")
        return runs
    raise FloorError("the loader printed no list of its calls for the kernel and initrd")


def table(runs, sector_size):
    """The table both readers take after their magic: bytes per sector, runs, then each run."""
    return struct.pack("<II", sector_size, len(runs)) + b"".join(RUN.pack(*r) for r in runs)


def make_bios(base, image, reader, runs, lss):
    """A copy of anysector's disk base with the BIOS floor reader
    ($(BUILD)/bench/floor/bios.bin, which ends with its table's magic) and the runs where stage2
    lies; stage1's patch block gets the new length. Returns the number of calls."""
    with open(reader, "rb") as f:
        code = f.read()
    if not code.endswith(MAGIC + b"\0" * 8):
        raise FloorError(f"{reader} does not end with its empty table")
    body = code[:-8] + table(runs, lss)
    if len(body) > BIOS_MAX_BYTES:
        raise FloorError(f"{len(runs)} runs make the BIOS floor reader {len(body)} bytes, over "
                         f"{BIOS_MAX_BYTES}")
    disks.copy_image(base, image)
    with open(image, "r+b") as f:
        lba0 = f.read(512)
        if lba0[0x1A4:0x1A8] != b"ASB1":
            raise FloorError(f"{base}: LBA 0 holds no anysector stage1")
        offset = struct.unpack_from("<Q", lba0, 0x1A8)[0]
        f.seek(offset)
        f.write(body)
        f.seek(0x1B0)
        f.write(struct.pack("<I", len(body)))
    return sum(r[2] for r in runs)


def make_efi(base, image, app, runs, block_size, tmpdir):
    """A copy of anysector's disk base whose \\EFI\\BOOT\\BOOTX64.EFI is the UEFI floor
    application ($(BUILD)/bench/floor/floor.efi) with the runs patched into its table."""
    if len(runs) > EFI_MAX_RUNS:
        raise FloorError(f"{len(runs)} runs, more than the UEFI floor application's "
                         f"{EFI_MAX_RUNS}")
    with open(app, "rb") as f:
        data = bytearray(f.read())
    at = data.find(MAGIC)
    if at < 0 or data.find(MAGIC, at + 1) >= 0:
        raise FloorError(f"{app}: not exactly one table")
    t = table(runs, block_size)
    data[at + 8:at + 8 + len(t)] = t
    patched = f"{tmpdir}/floor-BOOTX64.EFI"
    with open(patched, "wb") as f:
        f.write(data)
    disks.make_efi_floor(base, image, patched)
    return sum(r[2] for r in runs)


def marker_check(fw, calls):
    """check(line) for a timed boot: the last line must say every pass made every call."""
    def check(line):
        m = DONE.search(line)
        if not m:
            return f"the floor reader failed: {line.strip()}"
        if int(m.group(1)) != len(PASSES[fw]) or int(m.group(2)) != calls:
            return f"the floor reader made {m.group(1)} passes of {m.group(2)} calls, not " \
                   f"{len(PASSES[fw])} of {calls}"
        return None
    return check
