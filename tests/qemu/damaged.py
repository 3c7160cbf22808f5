#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-damaged: boot disks whose tables, file system or configuration are damaged, and
assert that the loader says what is wrong in its own sentence and then stops (halts, waits at
its menu for a key, or boots from the backup GPT with a warning) long before the hang guard.

usage: damaged.py --suite NAME [--only GLOB] [--jobs N] [--keep] [--list] CASEFILE

A case line (tests/qemu/cases/damaged.txt):

    FIRMWARE FRONTEND SECTORS DAMAGE [mem=MB] [timeout=S] [xfail=WHY...]

    FIRMWARE seabios (stage1 + stage2, BIOS payload) | ovmf (BOOTX64.EFI, EFI payload)
    SECTORS  512n | 512e | 4Kn
    DAMAGE   one of DAMAGES below
    mem      the guest's RAM (default 256)
    xfail    the rest of the line: why the case is known to fail (a loader change is pending);
             it then counts as XFAIL when it fails and as FAIL ("XPASS") when it passes

Each image is made with `$BUILD/tools/anysector mkimage` (GPT, the menu timeout 0, the entry
pinned with --pin: every case that must boot boots a pinned entry), then damaged
here in Python: the GPT, the FAT and the directory entries are found by parsing the image, never
by fixed offsets. The QEMU command lines come from tests/lib/boot.py (snapshot=on: the
image is never changed by a run). A passing case is judged again with each number its sentences
name off by one, and must then fail (so the assertion cannot pass a different failure). A case
ends at the first of: the payload's report line, stage2's "anysector: halted", a loader waiting
at its menu for a key, the menu drawn again after the failure (a loader that re-boots in a
loop), a firmware giving up; or its timeout (a FAIL: a hang).
"""
import argparse
import concurrent.futures
import dataclasses
import fnmatch
import hashlib
import os
import re
import shlex
import string
import struct
import subprocess
import sys
import threading
import time
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import boot, console, disk, paths, qemu, results, tool  # noqa: E402
from lib.fat import Fat  # noqa: E402
from lib.gpt import ESP_TYPE, LINUX_TYPE, SIGNATURE, View as Gpt, u64  # noqa: E402
from lib.results import CaseFailure, Result, indent  # noqa: E402

MAX_JOBS = 2
IMAGE_SIZE = "64M"
INITRD_BYTES = 300 * 1024 + 77        # several hundred clusters of 512 bytes, dozens of 4 KiB
INITRD_SEED = 0xDA4A6ED
BIG_INITRD_BYTES = 40 * 1024 * 1024    # more than a 32 MiB guest has
DEFAULT_TIMEOUT = 40                   # the hang guard; measured cases end in 1-8 s
POLL = 0.2
SETTLE = 1.0                           # seconds a stopped loader gets to finish its sentence
CMDLINE = "anysector.test=damaged console=ttyS0"

# What each damage must make the loader say (a list, or per firmware a dict of lists). Every
# pattern is searched in the serial log;
# {name} fields are filled from the damaged image (file paths, cluster numbers, LBAs).
# end: "boot" (the payload must report, right), "stop" (no payload; halted or waiting).
DAMAGES = {
    # The primary header and array zeroed: the backup GPT at the last LBA is used, with a warning.
    "gpt-primary-zeroed": dict(end="boot", expect=[
        r'warning: primary GPT header at LBA 1 is invalid \(no "EFI PART" signature\); '
        r'using the backup GPT header at LBA {backup_lba}\n']),
    # Under OVMF the firmware rewrites the zeroed primary from the backup before BOOTX64.EFI
    # runs (on a read-only disk it finds no partition at all): there the case boots a writable
    # copy and asserts the boot and that LBA 1 holds a GPT header again afterwards.
    # The primary alone lists two overlapping extra partitions (CRCs valid, so firmware keeps
    # it): our reader refuses it and boots from the backup with a warning, under OVMF too.
    "gpt-primary-overlap": dict(end="boot", expect=[
        r"GPT at LBA 1: entries 3 \(LBA {p3_first}\.\.{p3_last}\) and 4 \(LBA {p4_first}\.\."
        r"{p4_last}\) overlap\n",
        r"warning: primary GPT header at LBA 1 is invalid \(overlapping entries\); "
        r"using the backup GPT header at LBA {backup_lba}\n"]),
    # Both headers zeroed (SeaBIOS: stage1 still finds stage2; stage2 finds no GPT).
    "gpt-both-zeroed": dict(end="stop", expect=[
        r'no GPT: no "EFI PART" signature at LBA 1 or at LBA {backup_lba}\n',
        r"the disk has no usable GPT \(not found\)\n"]),
    # Both GPTs keep valid CRCs but list two overlapping extra partitions: firmware that only
    # checks CRCs (OVMF) still starts BOOTX64.EFI from the ESP; our reader refuses both tables.
    "gpt-both-overlap": dict(end="stop", expect=[
        r"GPT at LBA 1: entries 3 \(LBA {p3_first}\.\.{p3_last}\) and 4 \(LBA {p4_first}\.\."
        r"{p4_last}\) overlap\n",
        r"no valid GPT: the primary header at LBA 1 \(overlapping entries\) and the backup at "
        r"LBA {backup_lba} \(overlapping entries\) are both invalid\n"]),
    # The initrd's (kernel's) cluster chain turns back on itself: the link that closes the loop
    # is named, then the file.
    "fat-loop-initrd": dict(end="stop", expect=[
        r"FAT: chain from cluster {first} loops: cluster {closer} \(the chain's cluster "
        r"{closer_n}\) links back to cluster {target} \(its cluster {target_n}\)\n",
        r"{path_re}[^\n]*(chain loops|loop)"]),
    "fat-loop-kernel": dict(end="stop", expect=[
        r"FAT: chain from cluster {first} loops: cluster {closer} \(the chain's cluster "
        r"{closer_n}\) links back to cluster {target} \(its cluster {target_n}\)\n",
        r"{path_re}[^\n]*(chain loops|loop)"]),
    # The initrd's directory entry claims more bytes than its chain holds.
    "fat-size-past-chain": dict(end="stop", expect=[
        r"FAT: chain from cluster {first} ends at cluster {last} after {n} clusters, but the "
        r"{size}-byte file needs {need}\n",
        r"{path_re}[^\n]*(corrupt)"]),
    # "timeout" misspelt: the whole configuration is refused with the line and the word.
    "config-syntax": dict(end="stop", expect=[
        r"anysector\.cfg line {line}: unknown key 'tiemout'\n",
        r"no usable configuration in [/\\]anysector\.cfg|"
        r"anysector cannot show a boot menu \(see above\)"]),
    # The kernel's directory entry deleted: the loader names the missing file.
    "config-missing-kernel": dict(end="stop", expect=[
        r"FAT: no '{base_re}' in '{dir_re}' \(path '{path_re}'\)\n",
        r"{path_re}[^\n]*not found"]),
    # One byte of the pinned kernel (initrd) changed in its cluster on the FAT: the loader
    # (stage2 or BOOTX64.EFI) hashes the file it read, names the entry, the file and both
    # hashes' first digits, and starts nothing (common/pin.c).
    "pin-kernel": dict(end="stop", expect=[
        r"entry 'd': the SHA-256 of {path_re} \({got8}\.\.\.\) differs from the pinned one "
        r"\({pin8}\.\.\.\), so it is not booted\n"]),
    "pin-initrd": dict(end="stop", expect=[
        r"entry 'd': the SHA-256 of {path_re} \({got8}\.\.\.\) differs from the pinned one "
        r"\({pin8}\.\.\.\), so it is not booted\n"]),
    # A 40 MiB initrd in a 32 MiB (SeaBIOS) or 64 MiB (OVMF) guest: refused before any of it
    # is read.
    "initrd-too-big": dict(end="stop", expect={
        "seabios": [r"the initrd is {initrd_kib} KiB, but the largest that fits in the RAM the "
                    r"BIOS reports between the kernel's end \(0x[0-9a-f]+\) and initrd_addr_max "
                    r"\(0x[0-9a-f]+\) is \d+ KiB\n"],
        "ovmf": [r"error: entry d: the initrd is {initrd_size} bytes, but the largest that fits "
                 r"in the free memory the firmware reports(?: below initrd_addr_max)? is \d+ "
                 r"bytes\n"]}),
}

END_SIGNS = [
    r"anysector: halted",
    r"booting \d+\) failed: [^\n]*; the menu waits for a key",
    r"booting \d+\) failed: [^\n]*\n(?:[^\n]*\n)*?waiting for a key",
    r"Press any key to return to the menu\.",
    r"Press any key to return to the firmware\.",
    r"UEFI Interactive Shell",
    r"No bootable option or device was found",
    r"No bootable device",
]


LOADER_SIGNS = 5   # the first ones are our loaders' (stopped by themselves), the rest firmware's


class CaseError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Case:
    firmware: str
    frontend: str
    sectors: str
    damage: str
    mem: int = 256
    timeout: int = DEFAULT_TIMEOUT
    xfail: str = ""

    @property
    def name(self):
        return f"{self.firmware}-{self.frontend}-{self.sectors}-{self.damage}"

    @property
    def logical(self):
        return qemu.SECTORS[self.sectors][0]

    @property
    def physical(self):
        return qemu.SECTORS[self.sectors][1]

    @property
    def payload(self):
        return "bios-payload" if self.firmware == "seabios" else "efi-payload"


def parse_cases(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            where = f"{os.path.basename(path)} line {n}"
            if text.lstrip().startswith("#"):
                continue
            body, has_xfail, reason = text.partition("xfail=")
            words = body.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) < 4:
                raise CaseError(f"{where}: need FIRMWARE FRONTEND SECTORS DAMAGE")
            fw, fe, sec, dmg = words[:4]
            for v, allowed, what in ((fw, qemu.FIRMWARES, "firmware"),
                                     (fe, qemu.FRONTENDS, "front-end"),
                                     (sec, tuple(qemu.SECTORS), "sector profile"),
                                     (dmg, tuple(DAMAGES), "damage")):
                if v not in allowed:
                    raise CaseError(f"{where}: unknown {what} {v!r} (one of {', '.join(allowed)})")
            kw = {}
            for opt in words[4:]:
                key, _, val = opt.partition("=")
                if key in ("mem", "timeout") and val.isdigit() and int(val) > 0:
                    kw[key] = int(val)
                else:
                    raise CaseError(f"{where}: bad option {opt!r} (mem=MB, timeout=S, xfail=WHY)")
            reason = reason.strip()
            if has_xfail and not reason:
                raise CaseError(f"{where}: xfail= needs the reason")
            c = Case(fw, fe, sec, dmg, xfail=reason, **kw)
            if any(o.name == c.name for o in out):
                raise CaseError(f"{where}: case {c.name} listed twice")
            out.append(c)
    return out


class Built:
    """A damaged image and the facts the expected sentences name."""

    def __init__(self, path, facts):
        self.path, self.facts = path, facts


def cfg_text(kernel, initrd, timeout_key="timeout"):
    return (f"# damaged.py\n{timeout_key} 0\n\nentry d\n  title   damaged\n"
            f"  kernel  {kernel}\n  initrd  {initrd}\n  cmdline {CMDLINE}\n")


class BaseImages:
    """mkimage's undamaged images, one per (firmware, sectors, initrd), built on first use."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.lock = threading.Lock()
        self.locks, self.built = {}, {}

    def get(self, case):
        """(image path, kernel file, initrd file); CaseFailure when mkimage fails."""
        big = case.damage == "initrd-too-big"
        key = f"{case.payload}-{case.sectors}-{'big' if big else 'small'}"
        with self.lock:
            key_lock = self.locks.setdefault(key, threading.Lock())
        with key_lock:
            if key not in self.built:
                try:
                    self.built[key] = self.make(case, key, big)
                except CaseFailure as e:
                    self.built[key] = e
            got = self.built[key]
        if isinstance(got, CaseFailure):
            raise got
        return got

    def initrd(self, big):
        path = os.path.join(self.workdir, f"initrd-{'big' if big else 'small'}.bin")
        with self.lock:
            if not os.path.exists(path):
                with open(path + ".tmp", "wb") as f:
                    f.write(disk.deterministic(BIG_INITRD_BYTES if big else INITRD_BYTES,
                                               INITRD_SEED))
                os.replace(path + ".tmp", path)
        return path

    def make(self, case, key, big):
        kernel = paths.BIOS_PAYLOAD if case.firmware == "seabios" else paths.EFI_PAYLOAD
        if not os.path.exists(kernel):
            raise CaseFailure(f"test payload {kernel} is not built")
        if not os.path.exists(paths.ANYSECTOR):
            raise CaseFailure(f"mkimage missing: {paths.ANYSECTOR} does not exist")
        initrd = self.initrd(big)
        out = os.path.join(self.workdir, f"base-{key}.img")
        if os.path.exists(out):
            os.unlink(out)
        cmd = tool.mkimage_command(out, IMAGE_SIZE, "gpt", case.logical, case.physical,
                                   paths.STAGES, kernel, initrd, CMDLINE, 0,
                                   extra=["--name", "d", "--pin"])
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="replace", timeout=180)
        if r.returncode != 0:
            raise CaseFailure(f"anysector mkimage failed (exit {r.returncode}):\n"
                              + indent(console.tail(r.stderr + r.stdout, 12))
                              + f"\n  command: {shlex.join(cmd)}")
        return out, kernel, initrd

    def remove(self):
        for got in self.built.values():
            if isinstance(got, tuple) and os.path.exists(got[0]):
                os.unlink(got[0])


def build_image(case, bases, workdir):
    """A copy of the base image with the case's damage; returns Built."""
    base, kernel, initrd = bases.get(case)
    with open(base, "rb") as f:
        img = bytearray(f.read())
    facts = damage(case, img, {"kernel": kernel, "initrd": initrd})
    out = os.path.join(workdir, case.name + ".img")
    disk.write_sparse(out, img)
    facts["kernel_size"] = os.path.getsize(kernel)
    facts["initrd_size"] = os.path.getsize(initrd)
    with open(initrd, "rb") as f:
        facts["initrd_crc"] = zlib.crc32(f.read())
    facts["initrd_kib"] = (facts["initrd_size"] + 1023) // 1024
    return Built(out, facts)


def read_cfg(fat):
    name, slot, _, clus, size, _ = fat.find("/anysector.cfg")
    return bytes(fat.img[fat.cluster_off(clus):fat.cluster_off(clus) + size]).decode()


def read_cfg_paths(fat):
    text = read_cfg(fat)
    kernel = re.search(r"(?m)^\s*kernel\s+(\S+)", text)[1]
    initrd = re.search(r"(?m)^\s*initrd\s+(\S+)", text)[1]
    return kernel, initrd


def change_pinned(fat, key, path, host_file):
    """Flips one bit in the middle of the file's bytes in its cluster; the facts the sentence
    names: the file, the first 8 hex digits of its new SHA-256 and of the pin (its sha256 line in
    anysector.cfg, which mkimage --pin wrote)."""
    m = re.search(r"(?m)^\s*%s\s+\S+\s*\n\s*sha256\s+([0-9a-f]{64})" % key, read_cfg(fat))
    if not m:
        raise CaseFailure(f"anysector.cfg has no sha256 line after its {key} line (mkimage --pin)")
    with open(host_file, "rb") as f:
        data = bytearray(f.read())
    name, slot, _, first, size, _ = fat.find(path)
    if size != len(data):
        raise CaseFailure(f"{path} is {size} bytes on the FAT, {len(data)} on the host")
    pos = len(data) // 2
    data[pos] ^= 0x01
    o = fat.cluster_off(fat.chain(first)[pos // fat.cluster_bytes]) + pos % fat.cluster_bytes
    fat.img[o] ^= 0x01
    return dict(path=path, got8=hashlib.sha256(data).hexdigest()[:8], pin8=m[1][:8])


def write_cfg(fat, text):
    """Replaces anysector.cfg's bytes in its first cluster and its size."""
    data = text.encode()
    name, slot, _, clus, size, _ = fat.find("/anysector.cfg")
    if len(data) > fat.cluster_bytes or len(fat.chain(clus)) != 1:
        raise CaseFailure("anysector.cfg does not sit in one cluster")
    o = fat.cluster_off(clus)
    fat.img[o:o + fat.cluster_bytes] = data.ljust(fat.cluster_bytes, b"\0")
    struct.pack_into("<I", fat.img, slot + 28, len(data))


def damage(case, img, host):
    lss = case.logical
    gpt = Gpt(img, lss)
    if not gpt.find(ESP_TYPE):
        raise CaseFailure("mkimage's GPT has no EFI system partition")
    esp_first, _ = gpt.find(ESP_TYPE)
    fat = Fat(img, esp_first * lss)
    kernel, initrd = read_cfg_paths(fat)
    facts = {"backup_lba": len(img) // lss - 1, "kernel": kernel, "initrd": initrd}
    d = case.damage
    if d == "gpt-primary-zeroed":
        img[lss:(gpt.first_usable) * lss] = bytes((gpt.first_usable - 1) * lss)
    elif d == "gpt-both-zeroed":
        img[lss:2 * lss] = bytes(lss)
        img[facts["backup_lba"] * lss:] = bytes(lss)
    elif d in ("gpt-both-overlap", "gpt-primary-overlap"):
        # Two new partitions after the used ones, overlapping each other by one sector,
        # inside the usable range; one or both tables get them and are resealed.
        top = max(u64(img, gpt.entry_off(i) + 40) for i in gpt.used())
        if top + 8 > gpt.last_usable:
            raise CaseFailure("no room after the partitions for the overlapping pair")
        pairs = [(top + 1, top + 4), (top + 4, top + 7)]
        slots = [i for i in range(gpt.num) if i not in gpt.used()][:2]
        if slots != [2, 3]:
            raise CaseFailure(f"expected entries 3 and 4 free, found {slots}")
        for hdr in (1, facts["backup_lba"]) if d == "gpt-both-overlap" else (1,):
            for slot, (a, b) in zip(slots, pairs):
                o = gpt.entry_off(slot, hdr)
                img[o:o + 16] = LINUX_TYPE
                img[o + 16:o + 32] = bytes([slot + 1] * 16)
                struct.pack_into("<QQ", img, o + 32, a, b)
            gpt.reseal(hdr)
        facts.update(p3_first=pairs[0][0], p3_last=pairs[0][1], p4_first=pairs[1][0],
                     p4_last=pairs[1][1])
    elif d in ("fat-loop-initrd", "fat-loop-kernel", "fat-size-past-chain"):
        path = kernel if d == "fat-loop-kernel" else initrd
        name, slot, _, first, size, _ = fat.find(path)
        ch = fat.chain(first)
        if len(ch) < 2:
            raise CaseFailure(f"{path} has only {len(ch)} cluster; the damage needs 2")
        facts.update(first=first, path=path)
        if d.startswith("fat-loop"):
            mid, quarter = len(ch) // 2, len(ch) // 4
            fat.set(ch[mid], ch[quarter])
            facts.update(closer=ch[mid], closer_n=mid + 1, target=ch[quarter],
                         target_n=quarter + 1)
        else:
            new_size = (len(ch) + 3) * fat.cluster_bytes - 100
            struct.pack_into("<I", img, slot + 28, new_size)
            facts.update(last=ch[-1], n=len(ch), size=new_size,
                         need=(new_size + fat.cluster_bytes - 1) // fat.cluster_bytes)
    elif d == "config-syntax":
        write_cfg(fat, cfg_text(kernel, initrd, timeout_key="tiemout"))
        facts["line"] = 2
    elif d == "config-missing-kernel":
        name, slot, lfn_slots, *_ = fat.find(kernel)
        for o in lfn_slots + [slot]:
            img[o] = 0xE5
        facts["path"] = kernel
    elif d in ("pin-kernel", "pin-initrd"):
        key = d[4:]
        facts.update(change_pinned(fat, key, facts[key], host[key]))
    elif d == "initrd-too-big":
        pass
    path = facts.get("path", kernel)
    facts["path_re"] = re.escape(path).replace("/", r"[/\\]")
    facts["dir_re"] = re.escape(path.rsplit("/", 1)[0] + "/")
    facts["base_re"] = re.escape(path.rsplit("/", 1)[1])
    return facts


# ---- running a case ----

class Runner:
    def __init__(self, keep):
        self.keep = keep
        self.workdir = paths.build("qemu", "damaged")
        self.logs = paths.build("qemu", "logs")
        os.makedirs(self.workdir, exist_ok=True)
        os.makedirs(self.logs, exist_ok=True)
        self.bases = BaseImages(self.workdir)
        self.guests = qemu.Guests()

    def run(self, case):
        t0 = time.monotonic()
        logs = qemu.log_paths(os.path.join(self.logs, "damaged-" + case.name))
        boot.fresh_logs(logs)
        try:
            built = build_image(case, self.bases, self.workdir)
        except (CaseFailure, ValueError) as e:
            return Result(case.name, "FAIL", time.monotonic() - t0, str(e))
        vars_copy = os.path.join(self.workdir, case.name + ".OVMF_VARS.fd")
        # the image is this case's own copy: where OVMF repairs it, let it write, then look
        cmd = boot.command(case.firmware, case.frontend, built.path, case.logical, case.physical,
                           logs, vars_copy, case.mem, snapshot=not ovmf_repairs(case))
        boot.write_cmd(logs, cmd)
        t_boot = time.monotonic()
        ended, rc, stop_at = self.boot(cmd, logs, case)
        seconds = time.monotonic() - t_boot
        serial = console.read_log(logs["serial.log"])
        why = judge(case, built.facts, serial, ended, rc)
        if not why:
            why = mutation_check(case, built.facts, serial, ended, rc)
        if ovmf_repairs(case):
            with open(built.path, "rb") as f:
                f.seek(case.logical)
                if f.read(8) != SIGNATURE:
                    why = (why + "; " if why else "") + ("OVMF booted but did not rewrite the "
                                                          "primary GPT header at LBA 1")
        status = "FAIL" if why else "PASS"
        message = why or ""
        if case.xfail:
            if status == "FAIL":
                status, message = "XFAIL", f"known: {case.xfail}\n  because: {why}"
            else:
                status, message = "FAIL", f"XPASS: marked xfail ({case.xfail}) but it passed"
        if status == "PASS" or status == "XFAIL":
            message = ((message + "\n" if message else "")
                       + f"ended on: {ended} after {stop_at:.1f} s")
        if status == "FAIL":
            message += "\n  serial log tail:\n" + indent(console.tail(serial) or "(empty)")
        keep = status == "FAIL" or self.keep
        made = list(logs.values()) + [built.path]
        for f in ([vars_copy] if keep else made + [vars_copy]):
            if os.path.exists(f):
                os.unlink(f)
        kept = tuple(f for f in made if os.path.exists(f)) if keep else ()
        return Result(case.name, status, seconds, message, kept)

    def boot(self, cmd, logs, case):
        """Runs QEMU to the first end sign (then SETTLE s more) or the timeout. Returns (what
        ended it, QEMU's exit status or None, seconds from start to the end sign)."""
        def watch():
            return end_sign(console.read_log(logs["serial.log"]) + "\n"
                            + console.read_log(logs["debugcon.log"]))

        run = self.guests.run(cmd, logs["qemu.log"], case.timeout, watch, grace=SETTLE,
                              poll=POLL)
        if run.interrupted:
            ended = "interrupted"
        elif run.timed_out:
            ended = f"timeout: still running after {case.timeout} s (a hang)"
        elif run.why is not None:
            ended = run.why
        else:
            ended = f"QEMU exited ({qemu.describe_exit(run.rc)})"
        return ended, run.rc, run.seconds


def ovmf_repairs(case):
    return case.firmware == "ovmf" and case.damage == "gpt-primary-zeroed"


def end_sign(text):
    """What shows the guest has said its last word, or None: "payload: ...", "loader: ..." (our
    loader stopped by itself) or "firmware: ..."."""
    if console.payload_reported(text):
        return "payload: its report line"
    for i, pat in enumerate(END_SIGNS):
        m = re.search(pat, text)
        if m:
            who = "loader" if i < LOADER_SIGNS else "firmware"
            return f"{who}: " + " ... ".join(ln for ln in m.group(0).split("\n") if ln.strip())
    # A loader that re-boots after a failure draws its menu again.
    if text.count(console.MENU_TITLE) >= 2:
        return "loader: the menu drawn again after the failure"
    return None


def mutation_check(case, facts, serial, ended, rc):
    """A passing judgement must depend on every number its sentences name: with any one of
    them off by one, the same log must fail (else the assertion would pass another failure)."""
    expect = DAMAGES[case.damage]["expect"]
    pats = expect[case.firmware] if isinstance(expect, dict) else expect
    used = {f for p in pats for _, f, _, _ in string.Formatter().parse(p) if f}
    if DAMAGES[case.damage]["end"] == "boot":
        used |= {"initrd_size"}
    for k in sorted(used):
        if isinstance(facts.get(k), int) and not ovmf_repairs(case):
            wrong = dict(facts, **{k: facts[k] + 1})
            if not judge(case, wrong, serial, ended, rc):
                return f"self-check: the judgement still passes with {k} = {facts[k] + 1}"
    return None


def judge(case, facts, serial, ended, rc):
    spec = DAMAGES[case.damage]
    problems = []
    expect = spec["expect"]
    if isinstance(expect, dict):
        expect = expect[case.firmware]
    for pat in ([] if ovmf_repairs(case) else expect):
        want = pat.format(**{k: v for k, v in facts.items()})
        if not re.search(want, serial):
            problems.append(f"no line matches /{want}/")
    if ended is None or ended.startswith("timeout") or ended == "interrupted":
        problems.append(f"the case did not end by itself: {ended}")
    if spec["end"] == "boot":
        proto = "2.15" if case.firmware == "seabios" else "efi"
        why = console.check_payload(serial, proto, CMDLINE, facts["initrd_size"], facts["initrd_crc"])
        if why:
            problems.append(why)
    else:
        if console.payload_reported(serial):
            problems.append("the payload ran although the disk is damaged")
        elif ended and not ended.startswith("loader: "):
            problems.append(f"the loader did not stop by itself (halted or waiting at its menu); "
                            f"the case ended on {ended}")
    return "; ".join(problems) or None


def main():
    ap = argparse.ArgumentParser(description="damaged media at boot")
    ap.add_argument("casefile")
    ap.add_argument("--suite", default="qemu-damaged")
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=MAX_JOBS)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    try:
        cases = parse_cases(a.casefile)
    except (CaseError, OSError) as e:
        print(f"damaged.py: {e}", file=sys.stderr)
        return 2
    if a.only:
        cases = [c for c in cases if fnmatch.fnmatch(c.name, a.only)]
    if a.list:
        for c in cases:
            print(f"{c.name}  mem={c.mem} timeout={c.timeout}"
                  + (f"  xfail: {c.xfail}" if c.xfail else ""))
        return 0
    gone = qemu.missing()
    if gone:
        print(f"{a.suite}: missing {', '.join(gone)} ({qemu.MISSING_PACKAGES})")
        return results.finish(a.suite, 0, len(cases), 0)
    runner = Runner(a.keep)
    t0 = time.monotonic()
    tally = results.Tally()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(a.jobs, MAX_JOBS)))
    try:
        for fut in concurrent.futures.as_completed([pool.submit(runner.run, c) for c in cases]):
            tally.add(fut.result())
    except KeyboardInterrupt:
        runner.guests.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    runner.bases.remove()
    npass, nfail, _ = tally.counts()
    return results.finish(a.suite, npass, nfail, 0, note=f" in {time.monotonic() - t0:.0f}s")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
