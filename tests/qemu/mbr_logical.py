#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-mbr-logical: which MBR partition boots when stage2 has none recorded, and that
stage2 and the installer give the same answer (common/mbr.h mbr_boot_part: the first active
primary FAT entry, else the first primary FAT entry; logical partitions never).

Each disk is built here from pieces (tests/lib), not by the installer, which would record the
partition in stage2's header: LBA 0 holds the built stage1 pointing at the built stage2 as it
leaves the build (no identity) at LBA 1; partition 1 is Linux (0x83, active), partition 2 an
extended partition whose logical partition 5 is a FAT (0x0C) holding the BIOS payload, an
initrd and an anysector.cfg whose command line names the partition:
  only-logical      no primary FAT: stage2 must say "the MBR has no FAT partition to boot
                    from" and halt; `anysector info --json` must name no boot partition and
                    `anysector check` must say "no FAT boot partition on this disk";
  primary-too       logical 5 is made active and primary 3, inactive, is a FAT too: stage2 must
                    boot partition 3 (the payload reports partition 3's command line), and
                    info's boot partition must be 3 with the LBA and size stage2 printed.
Both under SeaBIOS on IDE 512n and NVMe 4Kn. A failing case prints its reason and the serial
log's tail."""
import json
import os
import re
import sys
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import bootinfo as B  # noqa: E402
from lib import boot, console, disk, fat, mtools, paths, qemu, results  # noqa: E402
from lib import serial, stages, tool  # noqa: E402
from lib.mbr import mbr_entry, mbr_record  # noqa: E402

MIB = 1 << 20
DISK_BYTES = 64 * MIB
DISK_SIG = 0x4C6F6721
INITRD = disk.deterministic(70001, 0x10C1CA1)
TIMEOUT = 45
PROFILES = (("ide", "512n"), ("nvme", "4Kn"))
# (first MiB, MiB) of each piece; the extended partition's EBR is its first sector.
LINUX, EXTENDED, LOGICAL, PRIMARY3 = (1, 8), (9, 24), (10, 16), (34, 16)
BOOT_RE = re.compile(r"boot partition: MBR partition (\d+), LBA (\d+), (\d+) sectors\n")
NO_FAT = "the MBR has no FAT partition to boot from\n"


def lba(mib, lss):
    return mib * MIB // lss


def cmdline(number):
    return f"anysector.test=mbr-logical-partition-{number} console=ttyS0"


def put_files(image, first, lss, number):
    """The payload, the initrd and an anysector.cfg booting them into the FAT at LBA first."""
    cfg = ("timeout 0\n\nentry p\n  kernel /payload.bzImage\n  initrd /initrd.bin\n"
           f"  cmdline {cmdline(number)}\n")
    work = os.path.dirname(image)
    for name, data in (("anysector.cfg", cfg.encode()), ("initrd.bin", INITRD)):
        with open(os.path.join(work, name), "wb") as f:
            f.write(data)
    for src, dst in ((paths.BIOS_PAYLOAD, "payload.bzImage"),
                     (os.path.join(work, "initrd.bin"), "initrd.bin"),
                     (os.path.join(work, "anysector.cfg"), "anysector.cfg")):
        r = mtools.run(["mcopy", src, f"::/{dst}"], image, first * lss)
        if r.returncode:
            raise RuntimeError(f"mcopy {dst} into the FAT at LBA {first}: "
                               + r.stderr.decode(errors="replace"))


def build(work, lss, primary_too):
    """The disk image of one case; returns its path."""
    img = disk.Image(DISK_BYTES, lss)
    stage2 = open(os.path.join(paths.STAGES, "stage2.bin"), "rb").read()
    if stages.stage2_field(stage2, B.STAGE2_KIND_OFF) != 0:
        raise RuntimeError("the built stage2.bin has a boot partition recorded")
    lba0 = bytearray(open(os.path.join(paths.STAGES, "stage1.bin"), "rb").read())
    ext_first = lba(EXTENDED[0], lss)
    entries = [mbr_entry(0x83, lba(LINUX[0], lss), lba(LINUX[1], lss), active=True),
               mbr_entry(0x0F, ext_first, lba(EXTENDED[1], lss))]
    if primary_too:
        entries.append(mbr_entry(0x0C, lba(PRIMARY3[0], lss), lba(PRIMARY3[1], lss)))
    lba0[B.MBR_DISK_SIG_OFF:] = mbr_record(entries, DISK_SIG)[B.MBR_DISK_SIG_OFF:]
    stages.set_stage1_target(lba0, lss, len(stage2))
    img.put_lba(0, lba0)
    img.put_lba(1, stage2)
    # The EBR: logical 5 relative to the EBR, no link (the chain ends with it).
    log_first = lba(LOGICAL[0], lss)
    img.put_lba(ext_first, mbr_record([mbr_entry(0x0C, log_first - ext_first,
                                                 lba(LOGICAL[1], lss), active=primary_too)], 0))
    fats = [(log_first, lba(LOGICAL[1], lss), 5)]
    if primary_too:
        fats.append((lba(PRIMARY3[0], lss), lba(PRIMARY3[1], lss), 3))
    for first, sectors, _ in fats:
        fat.put_fat(img, work, first, sectors)
    path = img.write(os.path.join(work, "disk.img"))
    for first, _, number in fats:
        put_files(path, first, lss, number)
    return path


def installer_view(image, lss):
    """(the boot partition info names as (number, first LBA, sectors) or None, check's output)."""
    def run(*args):
        return tool.run([*args, os.path.abspath(image), "--sector-size", lss],
                        binary=paths.ANYSECTOR, timeout=60)
    info = run("info", "--json")
    if info.returncode:
        raise RuntimeError(f"anysector info --json exited {info.returncode}: {info.stderr}")
    parts = json.loads(info.stdout)["partitions"]
    if not any(p["number"] == 5 for p in parts):
        raise RuntimeError(f"info does not list logical partition 5: {info.stdout}")
    boot_parts = [(p["number"], p["start"], p["sectors"]) for p in parts
                  if p["boot_partition"]]
    if len(boot_parts) > 1:
        raise RuntimeError(f"info names {len(boot_parts)} boot partitions")
    check = run("check")
    return (boot_parts[0] if boot_parts else None), check.stdout + check.stderr


def judge(serial, rc, ended, installer, check, lss, primary_too):
    """None when stage2 and the installer agree on the rule's answer, else why not."""
    problems = []
    if "stage2 has no boot partition recorded; looking for one\n" not in serial:
        problems.append("stage2 did not say it had no boot partition recorded")
    if primary_too:
        want = (3, lba(PRIMARY3[0], lss), lba(PRIMARY3[1], lss))
        if installer != want:
            problems.append(f"info's boot partition is {installer}, the rule says {want}")
        said = [tuple(int(x) for x in m.groups()) for m in BOOT_RE.finditer(serial)]
        if said != [installer]:
            problems.append(f"stage2 booted from {said or 'no partition'}, info says {installer}")
        why = console.check_payload(serial, "2.15", cmdline(3), len(INITRD), zlib.crc32(INITRD))
        if why:
            problems.append(why)
        if rc != qemu.EXIT_PAYLOAD_REPORTED:
            problems.append(f"QEMU ended {qemu.describe_exit(rc)}, not by the payload's exit")
    else:
        if installer is not None:
            problems.append(f"info names boot partition {installer}; the disk has no primary FAT")
        if "no FAT boot partition on this disk" not in check:
            problems.append("check does not say 'no FAT boot partition on this disk'")
        if NO_FAT not in serial or "anysector: halted" not in serial:
            problems.append(f"stage2 did not say '{NO_FAT.strip()}' and halt")
        if BOOT_RE.search(serial) or console.payload_reported(serial):
            problems.append("stage2 picked a boot partition: " + (BOOT_RE.search(serial) or
                                                                  re.search(".*PAYLOAD.*", serial))
                            .group(0).strip())
    if ended and ended.startswith("timeout"):
        problems.append(ended)
    return "; ".join(problems) or None


class Case:
    def __init__(self, guests, frontend, sectors, primary_too):
        self.guests, self.frontend, self.sectors = guests, frontend, sectors
        self.primary_too = primary_too

    def __call__(self, work):
        lss, pss = qemu.SECTORS[self.sectors]
        image = build(work, lss, self.primary_too)
        installer, check = installer_view(image, lss)
        logs = qemu.log_paths(os.path.join(work, "boot"))
        cmd = boot.command("seabios", self.frontend, image, lss, pss, logs, None)
        boot.write_cmd(logs, cmd)
        rc, ended = boot.boot(self.guests, cmd, logs, TIMEOUT)
        serial = console.read_log(logs["serial.log"])
        why = judge(serial, rc, ended, installer, check, lss, self.primary_too)
        if why:
            why += "\n    serial log tail:\n" + results.indent(console.tail(serial, 12), "      ")
        return why, None


def main():
    guests = qemu.Guests()
    cases = [(f"seabios-{fe}-{sec}-{'primary-too' if p else 'only-logical'}",
              Case(guests, fe, sec, p)) for fe, sec in PROFILES for p in (False, True)]

    def missing(name):
        need = (paths.ANYSECTOR, paths.BIOS_PAYLOAD, os.path.join(paths.STAGES, "stage1.bin"),
                os.path.join(paths.STAGES, "stage2.bin"))
        return [p for p in need if not os.path.exists(p)] + qemu.missing()
    return serial.run_cases("qemu-mbr-logical", cases, missing)


if __name__ == "__main__":
    sys.exit(main())
