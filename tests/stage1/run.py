#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Boot-time tests of stage1's paths under SeaBIOS: each case builds a small raw disk (stage1 in
LBA 0, stage2 at a byte offset, the patch block filled in by hand, no partition table), boots it
and waits for the line stage1 or stage2 must print on COM1. A case passes when the expected text
appears (and nothing it forbids); it fails on a timeout. QEMU is stopped as soon as the outcome
is known, so the suite takes seconds.

A second group boots disks made by the installer (`anysector mkimage`, GPT on a 4Kn NVMe disk,
the BIOS test payload with a 1 MiB initrd) to check stage2's error handling: a read error in the
initrd (named by LBA, then the menu again), a transient read error (retried, boot succeeds), a
configuration error (its line number, then a halt with the reason).

Before the boots, stage2's LZMA decoder is checked on the host (UNLZMA_CHECK, built with
ASan+UBSan): stage2's own packed body (with its x86 filter) and LZMA streams of text, random and
empty data under several lc/lp/pb properties unpack exactly, and damaged copies fail without a
memory error.

usage: run.py STAGE1 STAGE1_FORCE_CHS STAGE2 WORKDIR ANYSECTOR STAGES_DIR PAYLOAD UNLZMA_CHECK BODY
       TEXT
BODY: build/stage2/body.bin (stage2.packed and head.bin beside it); TEXT: bytes of text in it.
Writes "pass=N fail=M skip=0" to $RESULTS/test-stage1 when RESULTS is set; serial logs of failed
cases stay in WORKDIR."""
import os
import random
import re
import subprocess
import sys
import lzma
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import bootinfo, console, qemu, results, stages  # noqa: E402

TIMEOUT = 20.0                   # seconds per case; a pass takes about one
SETTLE = 0.3                     # seconds a forbidden follow-up gets to show, if it is coming
MEMORY_MB = 128
MiB = 1 << 20
GUESTS = qemu.Guests()


class Case:
    def __init__(self, name, frontend, lss, expect, s2_offset=MiB, s2_length=None, chs=False,
                 size=8 * MiB, corrupt=None, bad_sector=None, timestamp=None, forbid=None,
                 installed=None, once=False, then=None):
        self.name, self.frontend, self.lss, self.expect = name, frontend, lss, expect
        self.s2_offset, self.s2_length, self.chs, self.size = s2_offset, s2_length, chs, size
        self.corrupt, self.bad_sector, self.timestamp, self.forbid = corrupt, bad_sector, timestamp, forbid
        # installed: made by anysector mkimage, then "initrd-error" or "config-error"
        self.installed, self.once = installed, once
        self.then = then                 # must follow expect in the log


CASES = [
    # stage1 finds and starts stage2, passing the sector size it used (CX) to it
    Case("loads-ide-512", "ide", 512, "anysector stage2 (drive 0x80, stage1 read 512-byte sectors)"),
    Case("loads-nvme-4Kn", "nvme", 4096, "anysector stage2 (drive 0x80, stage1 read 4096-byte sectors)"),
    # a Windows timestamp in bytes 0xDA..0xDF (0xCC = int3 if it were ever executed)
    Case("timestamp-kept-nvme-4Kn", "nvme", 4096, "stage1 read 4096-byte sectors",
         timestamp=b"\xcc" * 6),
    # without int 13h extensions (forced): CHS reads, one sector at a time
    Case("chs-ide-512", "ide", 512, "anysector stage2 (drive 0x80, stage1 read 512-byte sectors)",
         chs=True),
    Case("E1-length-zero", "ide", 512, "E1\n", s2_length=0),
    Case("E1-length-too-large", "nvme", 4096, "E1\n", s2_length=0x78001),
    # 1 MiB + 512 is a whole 512-byte sector but not a whole 4096-byte one
    Case("E2-offset-not-whole-sector-4Kn", "nvme", 4096, "E2\n", s2_offset=MiB + 512),
    Case("E3-chs-beyond-reach", "ide", 512, "E3\n", chs=True, s2_offset=9 << 30, size=(9 << 30) + 4 * MiB),
    Case("E4-read-error-nvme-4Kn", "nvme", 4096, "E4\n", bad_sector=(MiB + 4096) // 512),
    Case("E4-read-error-virtio-512", "virtio-blk", 512, "E4\n", bad_sector=MiB // 512 + 40),
    Case("E5-no-stage2-there", "ide", 512, "E5\n", s2_offset=2 * MiB),
    # a torn install: one byte of stage2 differs from what its CRC was sealed over
    Case("torn-stage2-crc", "ide", 512, "anysector stage2 is damaged: the CRC32 of its image is",
         corrupt=0x3000),
    Case("torn-stage2-header-crc", "nvme", 4096, "anysector stage2 is damaged",
         corrupt=bootinfo.STAGE2_CRC_OFF),
    # stage2 on an installed disk: the initrd's sector 200 cannot be read
    Case("stage2-read-error-back-to-menu", "nvme", 4096,
         "booting 1) failed: device I/O error\n\nanysector boot menu", installed="initrd-error",
         forbid="ANYSECTOR-PAYLOAD"),
    # ... or fails once: the retry after a reset reads it
    Case("stage2-transient-error-retried", "nvme", 4096,
         "read on try 2, after BIOS error", installed="initrd-error", once=True,
         then="ANYSECTOR-PAYLOAD proto=2.15", forbid="cannot read LBA"),
    Case("stage2-config-error-halts", "nvme", 4096, "unknown key 'timeoux'",
         installed="config-error"),
]

INITRD = random.Random(4096).randbytes(MiB + 123)


def build_installed(case, work, tools, path):
    anysector, stages, payload = tools
    initrd = os.path.join(work, "initrd.bin")
    if not os.path.exists(initrd):
        with open(initrd, "wb") as f:
            f.write(INITRD)
    subprocess.run([anysector, "mkimage", path, "--force", "--size", "48M", "--label", "gpt",
                    "--sector-size", str(case.lss), "--stages", stages, "--kernel", payload,
                    "--initrd", initrd, "--cmdline", "console=ttyS0"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(path, "r+b") as f:
        img = bytearray(f.read())
        if case.installed == "initrd-error":
            at = img.find(INITRD[:4096])
            assert at > 0, "the initrd is not on the disk"
            case.bad_sector = (at + 200 * case.lss) // qemu.BLKDEBUG_UNIT
        elif case.installed == "config-error":
            m = re.search(rb"\ntimeout [0-9]+\n", img)
            assert m, "anysector.cfg is not on the disk"
            f.seek(m.start() + 1)
            f.write(b"timeoux ")                              # an unknown key


def build_disk(case, stage1, stage2, path):
    s1 = bytearray(stage1)
    length = len(stage2) if case.s2_length is None else case.s2_length
    stages.set_stage1_target(s1, case.s2_offset, length)
    if case.timestamp:
        at = bootinfo.MBR_TIMESTAMP_OFF
        s1[at:at + len(case.timestamp)] = case.timestamp
    s2 = bytearray(stage2)
    if case.corrupt is not None:
        s2[case.corrupt] ^= 0x01
    with open(path, "wb") as f:
        f.truncate(case.size)
        f.write(s1)
        f.seek(MiB)                        # the patched offset may point elsewhere on purpose
        f.write(s2)


def found(case, text):
    """The expected text, and after it the text that must follow it (then), are in the log."""
    hit = text.find(case.expect)
    return hit >= 0 and (not case.then or case.then in text[hit:])


def run_case(case, stage1, stage1_chs, stage2, work, tools):
    disk = os.path.join(work, case.name + ".img")
    logs = qemu.log_paths(os.path.join(work, case.name))
    serial = logs["serial.log"]
    if case.installed:
        build_installed(case, work, tools, disk)
    else:
        build_disk(case, stage1_chs if case.chs else stage1, stage2, disk)
    rules = None
    if case.bad_sector is not None:
        rules = os.path.join(work, case.name + ".blkdebug")
        with open(rules, "w") as f:
            f.write(qemu.blkdebug_rules(case.bad_sector, "once" if case.once else "always", None))
    open(serial, "w").close()
    cmd = (qemu.base_args(serial, MEMORY_MB) + qemu.firmware_args("seabios")
           + qemu.disk_args(case.frontend, disk, case.lss, case.lss, blkdebug=rules))
    run = GUESTS.run(cmd, logs["qemu.log"], TIMEOUT,
                     lambda: True if found(case, console.read_log(serial)) else None,
                     grace=SETTLE, poll=0.1)
    text = console.read_log(serial)
    # A QEMU that ended by itself (the payload leaves through isa-debug-exit) is judged on its
    # whole log; a timeout fails whatever came after it.
    ok = run.why is not None or (run.exited and found(case, text))
    forbidden = bool(case.forbid) and case.forbid in text
    if ok and not forbidden:
        for f in [disk] + list(logs.values()):
            if os.path.exists(f):
                os.remove(f)
        return True, f"PASS  {run.seconds:4.1f}s  {case.name}"
    last = text.strip().splitlines()[-1:] or ["(no serial output)"]
    want = f"no {case.forbid!r}" if forbidden else \
        repr(case.expect) + (f" then {case.then!r}" if case.then else "")
    return False, (f"FAIL  {run.seconds:4.1f}s  {case.name}: expected {want}; serial log "
                   f"{serial} ends: {last[0]!r}")


def unlzma_vectors(work, body_path, text):
    """(stream, expected, text) triples: stage2's packed body, and raw LZMA of other data under
    properties that exercise the literal and position contexts."""
    rng = random.Random(1951)
    d = os.path.join(work, "unlzma")
    os.makedirs(d, exist_ok=True)
    here = os.path.dirname(body_path)
    head = os.path.getsize(os.path.join(here, "head.bin"))
    body_stream = os.path.join(d, "body.lzma")
    with open(body_stream, "wb") as f:
        f.write(open(os.path.join(here, "stage2.packed"), "rb").read()[head:])
    args = [body_stream, body_path, str(text)]
    data = {
        "text": b"anysector boots any sector size. " * 3000,
        "random": rng.randbytes(20000),
        "empty": b"",
        "zeros": bytes(70000),
    }
    for dname, raw in data.items():
        with open(os.path.join(d, dname), "wb") as f:
            f.write(raw)
        for lc, lp, pb in ((3, 0, 0), (0, 2, 2), (4, 0, 4), (1, 3, 1)):
            path = os.path.join(d, f"{dname}.lc{lc}lp{lp}pb{pb}.lzma")
            props = (pb * 5 + lp) * 9 + lc
            with open(path, "wb") as f:
                f.write(bytes([props]) + lzma.compress(raw, format=lzma.FORMAT_RAW, filters=[
                    {"id": lzma.FILTER_LZMA1, "preset": 6, "lc": lc, "lp": lp, "pb": pb}]))
            args += [path, os.path.join(d, dname), "0"]
    return args


def check_unlzma(checker, work, body_path, text):
    proc = subprocess.run([checker] + unlzma_vectors(work, body_path, text), capture_output=True,
                          text=True)
    lines = proc.stdout.splitlines() + proc.stderr.splitlines()
    ok = [(line.startswith("PASS"), line) for line in lines if line.startswith(("PASS", "FAIL"))]
    if proc.returncode and all(good for good, _ in ok):
        ok.append((False, f"FAIL  {checker} exited {proc.returncode}: " + " | ".join(lines[-3:])))
    return ok


def main():
    stage1_path, stage1_chs_path, stage2_path, work = sys.argv[1:5]
    tools = sys.argv[5:8]
    checker, body_path, text = sys.argv[8], sys.argv[9], int(sys.argv[10], 0)
    os.makedirs(work, exist_ok=True)
    stage1 = open(stage1_path, "rb").read()
    stage1_chs = open(stage1_chs_path, "rb").read()
    stage2 = open(stage2_path, "rb").read()
    outcomes = check_unlzma(checker, work, body_path, text)
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes += list(pool.map(lambda c: run_case(c, stage1, stage1_chs, stage2, work, tools), CASES))
    for _, line in outcomes:
        print(line)
    npass = sum(1 for ok, _ in outcomes if ok)
    nfail = len(outcomes) - npass
    sys.exit(results.finish("test-stage1", npass, nfail, 0, label="stage1"))


if __name__ == "__main__":
    main()
