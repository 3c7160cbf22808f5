#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-read-floor: make bench's read floors (bench/floor.py, bench/floor/) make exactly the
calls anysector made, on the four disks the bench compares them on (issue 27). The bench itself
is not part of make test; this is what keeps its floors honest between its runs.

Each case makes a GPT disk with `anysector mkimage` (the test payload and initrd) and boots it:
the payload must report the initrd, and the list of calls stage2 or BOOTX64.EFI printed for the
kernel and initrd (floor.recorded_calls) must add up to the count on its head line, cover the
kernel's and initrd's bytes (UEFI: exactly the byte count on its head line) and lie inside the
boot partition. Then the read floor's disk is made from that list as the bench makes it
(floor.make_bios, floor.make_efi) and booted: its first line, the line after each of its passes
and its last line must each name the loader's number of calls, each pass the same bytes, and
QEMU's trace of the floor's reads must cover every sector of every run once per pass at least
(the firmware's own reads only add: its GPT, FAT and the floor's file).
Two cases need no QEMU: recorded_calls refuses a list shorter than its count and a boot that
printed none, and bench/report.py's goal statistics give known answers on known rounds."""
import collections
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import benchmods, boot, console, paths, payloads, qemu, results  # noqa: E402
from lib import serial, tool  # noqa: E402

disks, floor, report = benchmods.load("disks", "floor", "report")

IMAGE_SIZE = "64M"
CMDLINE = "anysector.test=read-floor console=ttyS0"
TIMEOUT = 90
FLOOR_BIOS = paths.build("bench", "floor", "bios.bin")
FLOOR_EFI = paths.build("bench", "floor", "floor.efi")
# the bench's four read-floor cases (bench/bench.py): firmware, front-end, sectors
PROFILES = (("seabios", "ide", "512e"), ("seabios", "nvme", "4Kn"),
            ("ovmf", "virtio-blk", "512e"), ("ovmf", "nvme", "4Kn"))
FW = {"seabios": "bios", "ovmf": "uefi"}
# one read QEMU traced (qemu.read_trace_args), with the block backend it went to
TRACE_RE = re.compile(qemu.READ_TRACE_EVENT + r" blk (?P<blk>\S+) .*\boffset (?P<offset>\d+) "
                      r"bytes (?P<bytes>\d+)")
# a pass line's counts: "floor pass K (...): N int 13h AH=42h calls, B bytes read" (BIOS),
# "floor pass K: N ReadBlocks calls, B bytes read" (UEFI)
PASS_RE = re.compile(r"^floor pass (\d)\b.*?: (\d+) (?:int 13h AH=42h|ReadBlocks) calls, "
                     r"(\d+) bytes read$", re.M)


def boot_partition(image, lss):
    """(first LBA, sectors) of the boot partition, from `anysector info --json`."""
    r = tool.run(["info", os.path.abspath(image), "--sector-size", lss, "--json"],
                 binary=paths.ANYSECTOR, timeout=60)
    if r.returncode:
        raise RuntimeError(f"anysector info exited {r.returncode}: {r.stderr.strip()}")
    found = [(p["start"], p["sectors"]) for p in json.loads(r.stdout)["partitions"]
             if p["boot_partition"]]
    if len(found) != 1:
        raise RuntimeError(f"info names {len(found)} boot partitions")
    return found[0]


def run_guest(guests, work, name, firmware, frontend, image, lss, pss, done, grace, trace=False):
    """Boots image until done(serial text) is true (then QEMU gets grace seconds to leave) or
    QEMU leaves; trace: its reads traced (qemu.read_trace_args). Its serial text."""
    logs = qemu.log_paths(os.path.join(work, name))
    cmd = boot.command(firmware, frontend, image, lss, pss, logs, os.path.join(work, "vars.fd"),
                       trace_reads=trace)
    boot.write_cmd(logs, cmd)
    run = guests.run(cmd, logs["qemu.log"], TIMEOUT,
                     lambda: "done" if done(console.read_log(logs["serial.log"])) else None,
                     grace=grace)
    text = console.read_log(logs["serial.log"])
    if run.timed_out:
        raise RuntimeError(f"{name}: QEMU still running after {TIMEOUT} s; serial tail:\n"
                           + results.indent(console.tail(text, 8), "      "))
    return text


def judge_list(runs, text, fw, lss, part, need):
    """What is wrong with a loader's list of calls, or None. need: the kernel's and initrd's
    bytes."""
    head = (floor.STAGE2_HEAD if fw == "bios" else floor.EFI_HEAD).search(text)
    calls = sum(r[2] for r in runs)
    read = sum(r[1] * r[2] for r in runs) * lss
    problems = []
    if calls != int(head.group(1)):
        problems.append(f"the runs make {calls} calls, the head line says {head.group(1)}")
    if fw == "uefi" and read != int(head.group(2)):
        problems.append(f"the runs read {read} bytes, the head line says {head.group(2)}")
    if read < need:
        problems.append(f"the runs read {read} bytes, less than the kernel and initrd's {need}")
    first, sectors = part
    for lba, count, n in runs:
        if lba < first or lba + count * n > first + sectors:
            problems.append(f"run {lba}+{count}x{n} is not inside the boot partition "
                            f"(LBA {first}, {sectors} sectors)")
    return "; ".join(problems) or None


def sector_reads(trace, lss):
    """{LBA: how many reads covered it} of the disk in a QEMU read trace: the block backend
    traced most (OVMF's two flash devices are read once each, at the start)."""
    found = [(m["blk"], int(m["offset"]), int(m["bytes"])) for m in TRACE_RE.finditer(trace)]
    disk = collections.Counter(b for b, _, _ in found).most_common(1)
    counts = collections.Counter()
    for blk, off, n in found:
        if disk and blk == disk[0][0]:
            counts.update(range(off // lss, (off + n + lss - 1) // lss))
    return counts


def judge_floor_lbas(trace, runs, lss, passes):
    """What is wrong with the sectors a read floor's boot read, or None: every sector of every
    run read at least once per pass (the firmware's own reads only add)."""
    counts = sector_reads(trace, lss)
    for lba, count, n in runs:
        short = [s for s in range(lba, lba + count * n) if counts[s] < passes]
        if short:
            return (f"of run {lba}+{count}x{n}, {len(short)} of {count * n} sectors were read "
                    f"fewer than {passes} times (the first, LBA {short[0]}, "
                    f"{counts[short[0]]} times)")
    return None


def judge_floor(text, fw, calls, read):
    """What is wrong with a read floor's boot, or None."""
    first = floor.first_line(fw).search(text)
    if not first:
        return "the floor printed no first line"
    problems = [] if int(first.group(1)) == calls else \
        [f"its first line names {first.group(1)} calls, the loader made {calls}"]
    passes = [(int(k), int(n), int(b)) for k, n, b in PASS_RE.findall(text)]
    want = [(k, calls, read) for k in range(1, len(floor.PASSES[fw]) + 1)]
    if passes != want:
        problems.append(f"its passes (pass, calls, bytes) were {passes}, not {want}")
    last = [line for line in text.split("\n") if floor.MARKER[fw] in line]
    why = floor.marker_check(fw, calls)(last[0]) if last else "no last line"
    return "; ".join(problems + ([why] if why else [])) or None


class Case:
    def __init__(self, guests, inputs, firmware, frontend, sectors):
        self.guests, self.inputs = guests, inputs
        self.firmware, self.frontend, self.sectors = firmware, frontend, sectors

    def __call__(self, work):
        fw = FW[self.firmware]
        lss, pss = qemu.SECTORS[self.sectors]
        kernel, initrd = self.inputs.files_for("bios-payload" if fw == "bios" else "efi-payload")
        image = os.path.join(work, "anysector.img")
        r = tool.run(tool.mkimage_command(image, IMAGE_SIZE, "gpt", lss, pss, paths.STAGES,
                                          kernel, initrd, CMDLINE, binary=paths.ANYSECTOR)[1:],
                     binary=paths.ANYSECTOR, timeout=120)
        if r.returncode:
            return f"anysector mkimage exited {r.returncode}: {console.tail(r.stderr, 6)}", None
        text = run_guest(self.guests, work, "anysector", self.firmware, self.frontend, image,
                         lss, pss, console.payload_reported, boot.EXIT_GRACE)
        why = console.check_payload(text, "2.15" if fw == "bios" else "efi", CMDLINE,
                                    self.inputs.initrd_size, self.inputs.initrd_crc)
        if why:
            return f"anysector's boot: {why}", None
        try:
            runs = floor.recorded_calls(text, fw)
            why = judge_list(runs, text, fw, lss, boot_partition(image, lss),
                             os.path.getsize(kernel) + os.path.getsize(initrd))
            if why:
                return f"anysector's list of calls: {why}", None
            out = os.path.join(work, "floor.img")
            if fw == "bios":
                made = floor.make_bios(image, out, FLOOR_BIOS, runs, lss)
            else:
                made = floor.make_efi(image, out, FLOOR_EFI, runs, lss, work)
        except (floor.FloorError, disks.DiskError) as e:
            return f"the read floor: {e}", None
        # judged against the loader's own count, not against what the floor was given
        calls = int((floor.STAGE2_HEAD if fw == "bios" else floor.EFI_HEAD).search(text)[1])
        if made != calls:
            return f"the read floor was made with {made} calls, the loader made {calls}", None
        text = run_guest(self.guests, work, "floor", self.firmware, self.frontend, out,
                         lss, pss, lambda t: floor.MARKER[fw] in t, 0, trace=True)
        trace = console.read_log(qemu.log_paths(os.path.join(work, "floor"))["reads.log"])
        why = judge_floor(text, fw, calls, sum(r[1] * r[2] for r in runs) * lss) or \
            judge_floor_lbas(trace, runs, lss, len(floor.PASSES[fw]))
        return (f"the read floor's boot: {why}; serial tail:\n"
                + results.indent(console.tail(text, 8), "      ")) if why else None, None


def refusals(work):
    """recorded_calls refuses what cannot make a floor: a list shorter than its count (more runs
    than the loader keeps), and a boot that printed no list."""
    head = "disk: 5 ReadBlocks calls, 20480 bytes read\n"
    label = " for the kernel and initrd, as runs of LBA+blocks x calls:\n"
    cases = [(head + label + " 100+1x2 200+1x2\n", "listed 4 of its 5 calls"),
             ("Loading x: /k\n", "printed no list")]
    for text, want in cases:
        try:
            got = floor.recorded_calls(text, "uefi")
            return f"recorded_calls took {text!r}: {got}"
        except floor.FloorError as e:
            if want not in str(e):
                return f"recorded_calls said {e!s:.80}, not {want!r}"
    try:
        got = floor.recorded_calls(head + label + " 100+1x2 200+1x2\n 300+2x1\n", "uefi")
    except floor.FloorError as e:
        return f"recorded_calls refused a whole list: {e}"
    return None if got == [(100, 1, 2), (200, 1, 2), (300, 2, 1)] else f"parsed {got}"


def goal_statistics(work):
    """The goal's numbers (bench/report.py): per-round ratios only for rounds both boots show,
    their median, the middle half (quartiles) from 4 rounds up, and a signed difference that
    rounds to nothing printed as +0.000."""
    a = [(2.0, 1.0), None, (3.0, 1.0), (1.0, 1.0), (4.0, 2.0)]
    b = [(1.0, 1.0), (1.0, 1.0), (1.0, 1.0), None, (1.0, 4.0)]
    checks = [(report._round_ratios(a, b), [2.0, 3.0, 4.0]),
              (report._round_ratios(a, b, cpu=True), [1.0, 1.0, 0.5]),
              (report._paired(a, b), 3.0),
              (report._paired([None], b), None),
              (report._middle_half([1.0, 2.0, 3.0]), None),
              (report._middle_half([1.0, 2.0, 3.0, 4.0, 5.0]), (5, 2.0, 4.0)),
              (report._signed(-0.0001), "+0.000"), (report._signed(-0.03), "-0.030")]
    wrong = [f"#{i}: {got!r}, want {want!r}" for i, (got, want) in enumerate(checks)
             if got != want]
    return "; ".join(wrong) or None


def main():
    guests = qemu.Guests()
    inputs = payloads.Inputs(paths.build("qemu"), need_linux=False)
    cases = [("refusals", lambda work: (refusals(work), None)),
             ("goal-statistics", lambda work: (goal_statistics(work), None))]
    cases += [(f"{fw}-{fe}-{sec}", Case(guests, inputs, fw, fe, sec)) for fw, fe, sec in PROFILES]

    def missing(name):
        if name in ("refusals", "goal-statistics"):
            return []
        need = (paths.ANYSECTOR, paths.BIOS_PAYLOAD, paths.EFI_PAYLOAD, FLOOR_BIOS, FLOOR_EFI,
                os.path.join(paths.STAGES, "stage2.bin"), os.path.join(paths.STAGES, "BOOTX64.EFI"))
        return [p for p in need if not os.path.exists(p)] + qemu.missing()
    return serial.run_cases("qemu-read-floor", cases, missing)


if __name__ == "__main__":
    sys.exit(main())
