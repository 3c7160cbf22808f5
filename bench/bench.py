#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Side-by-side boot benchmarks: anysector against GRUB and syslinux (BIOS) and systemd-boot (UEFI),
each against its floor.

A case is one firmware, one disk front-end and one sector profile (512e: 512-byte logical,
4096-byte physical sectors; 4Kn: 4096 both). In a case every loader boots the same Debian kernel,
the same 64 MiB initrd (initrd.py) and the same command line from a disk with the same partition
table: the peers' disks are copies of anysector's with only the loader swapped (disks.py).
GRUB runs twice, reading the ESP (FAT) and reading /boot from ext2 in the disk's third partition
(Debian's layout); the report compares anysector with the faster of the two. The floors: under
SeaBIOS QEMU's direct `-kernel` with the same disk front-end attached (what the firmware and the
kernel cost without any loader); under OVMF (where -kernel is no floor: OVMF's own fw_cfg loader
was measured slower than systemd-boot) a trivial EFI application in BOOTX64.EFI's place, whose
first line says how long the firmware takes to start any loader; each UEFI loader's own time is
then from OVMF's "BdsDxe: starting" line to the EFI stub's first line (the command line carries
efi=debug so the stub prints one; the kernel itself stays quiet). The read floor (floor.py) is
the firmware's own read path for exactly the calls anysector made for the kernel and initrd,
built from the calls anysector's first boot lists; anysector's own time for those calls, and
pinned anysector's (mkimage --pin), are compared with it. Each round runs every loader once, so
drift on the host hits all alike. One sample is the wall time from starting QEMU to
reading the marker on its serial console.

The esp-add-* cases (espcost.py) are no boots: they time `anysector add` onto ESPs of 256 MiB,
1 GiB and 4 GiB of a loop device against dd writing the same bytes; their section follows the
boot tables (a run of only those writes its own short report).

Results: $BUILD/bench/{results.txt,samples.csv,logs/}; the Markdown report goes to
bench/RESULTS.md after a full run (every case, at least 5 rounds, GPT, anysector built), else to
$BUILD/bench/RESULTS.md.

usage: bench.py [--runs N] [--cases GLOB,...] [--timeout S] [--label gpt|mbr]
Environment: BUILD (default build), BENCH_RUNS, BENCH_CASES, BENCH_TIMEOUT, BENCH_LABEL,
BENCH_KERNEL, BENCH_COMMAND (the command line to quote in the report).
"""
import argparse
import csv
import datetime
import fnmatch
import glob
import os
import re
import statistics
import subprocess
import sys
import time
import traceback

sys.dont_write_bytecode = True   # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import boot     # noqa: E402
import disks    # noqa: E402
import espcost  # noqa: E402
import floor    # noqa: E402
import initrd   # noqa: E402
import report   # noqa: E402
import sizes    # noqa: E402
from lib import paths as lib_paths  # noqa: E402

MARKER = "ANYSECTOR-LINUX-OK"
# efi=debug: the EFI stub's first line marks where a UEFI loader's time ends (see the docstring)
CMDLINE = "console=ttyS0 quiet efi=debug panic=-1"
DISK_SIZE = 256 * disks.MiB
ESP_SIZE = 125 * disks.MiB     # the ESP (FAT32, 1 KiB clusters at 512e); the rest is ext2 /boot
FULL_RUNS = 5
FLOOR_MARKER = "ANYSECTOR-PAYLOAD"   # the trivial EFI application's line (tests/payload/efi)
# the read floors' programs (bench/bench.mk)
FLOOR_BIOS = os.path.join(os.environ.get("BUILD", "build"), "bench", "floor", "bios.bin")
FLOOR_EFI = os.path.join(os.environ.get("BUILD", "build"), "bench", "floor", "floor.efi")
# where a UEFI loader starts and where the kernel does, in the serial log
UEFI_LOADER_START = "BdsDxe: starting"
UEFI_KERNEL_START = "EFI stub:"
# stage2's own lines: its first, and its last before the kernel
STAGE2_START = "anysector stage2"
STAGE2_END = "starting the kernel"

# profile name -> (logical, physical) sector size
PROFILES = {"512e": (512, 4096), "4Kn": (4096, 4096)}
# (firmware, front-end, profile, initrd size): SeaBIOS boots IDE only with 512-byte sectors and
# 4Kn only from NVMe; OVMF boots virtio-blk and NVMe at both sizes. None is the 64 MiB workload
# every loader and floor runs; the large initrds (LARGE) run on NVMe 4Kn with LARGE_MEMORY MiB of
# RAM, anysector against GRUB and systemd-boot only, BENCH_LARGE_RUNS rounds.
LARGE = [512 << 20, 1 << 30]
LARGE_MEMORY = 4096     # with 3 GiB the kernel cannot unpack 1 GiB: its tmpfs takes half the RAM
LARGE_TIMEOUT = 600     # seconds a large boot may take before it counts as failed
LARGE_RUNS = 1          # rounds of the large cases (BENCH_LARGE_RUNS): a boot takes a minute
# Rounds in all of anysector and its read floor (BENCH_FLOOR_RUNS): after the case's rounds of
# every loader, the two boot in alternation until there are this many. Under TCG the firmware's
# read calls take up to 2-3 times as long in some boots as in others, for loader and floor alike
# (uefi-virtio-512e's 17 calls: 12 ms in some boots, 34 ms in others), so the median of 5
# per-round ratios moved 0.3 between full runs of the same code; more pairs narrow it for a few
# minutes (each UEFI pair takes about 11 s, each bios-ide one about a minute).
FLOOR_RUNS = 15
CASES = [
    ("bios", "ide", "512e", None), ("bios", "nvme", "4Kn", None),
    ("uefi", "virtio", "512e", None), ("uefi", "nvme", "4Kn", None),
] + [(fw, "nvme", "4Kn", size) for fw in ("bios", "uefi") for size in LARGE]
ANYSECTOR = "anysector"
PINNED = "pinned"          # anysector with every file pinned (mkimage --pin): hashed as read
READ_FLOOR = "readfloor"   # the firmware's read path for the calls anysector made (floor.py)
# printed by stage2 just before it starts the kernel (interface agreed with stage2's owner)
STAGE2_IO = re.compile(r"disk 0x([0-9a-fA-F]+): (\d+) int 13h AH=42h calls, (\d+) bytes read")


def size_label(size):
    return f"{size >> 30}G" if size % (1 << 30) == 0 else f"{size >> 20}M"


def case_name(fw, fe, profile, size=None):
    return f"{fw}-{fe}-{profile}" + (f"-{size_label(size)}" if size else "")


def pkg_version(pkg, upstream=False):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
    v = r.stdout.strip() or "?"
    return v.split(":")[-1].split("-")[0] if upstream else v


def find_kernel():
    k = os.environ.get("BENCH_KERNEL")
    if k:
        return k
    found = sorted(glob.glob("/boot/vmlinuz-*-cloud-amd64"))
    if not found:
        sys.exit("bench: no /boot/vmlinuz-*-cloud-amd64 (Debian package linux-image-cloud-amd64)")
    return found[-1]


def marker_check(md5, pad_md5=None):
    """The marker line must show our command line and the initrd's md5 (and, for a large
    initrd, the guest's md5 of its whole first archive): a loader that truncated the initrd or
    lost the command line does not get a time."""
    def check(line):
        m = re.search(r"cmdline=\[(.*)\] filler_md5=([0-9a-f]+)(?: pad_md5=([0-9a-f]+))?", line)
        if not m:
            return f"marker line malformed: {line.strip()!r}"
        if CMDLINE not in m.group(1):
            return f"kernel command line is {m.group(1)!r}, not {CMDLINE!r}"
        if m.group(2) != md5:
            return f"initrd filler md5 {m.group(2)}, expected {md5} (initrd damaged)"
        if pad_md5 and m.group(3) != pad_md5:
            return f"the guest's md5 of the initrd's first archive is {m.group(3)}, expected " \
                   f"{pad_md5} (initrd damaged)"
        return None
    return check


def stage2_io(log):
    """(drive, calls, bytes) from stage2's line in a serial log, or None when it has none."""
    try:
        with open(log, "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return None
    m = STAGE2_IO.search(text)
    return (int(m.group(1), 16), int(m.group(2)), int(m.group(3))) if m else None


def span(times_path, start, end):
    """(wall, cpu) seconds from the first serial line holding start to the first later one
    holding end, from a .times file (boot.timed_boot); None when either is missing."""
    try:
        with open(times_path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    t0 = None
    for line in lines:
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[1] == "-":
            continue
        wall, cpu, text = float(parts[0]), float(parts[1]), parts[2]
        if t0 is None and _holds(text, start):
            t0 = (wall, cpu)
        elif t0 is not None and _holds(text, end):
            return wall - t0[0], cpu - t0[1]
    return None


def _holds(text, what):
    """what: a substring, or a compiled pattern searched for."""
    return what.search(text) is not None if isinstance(what, re.Pattern) else what in text


def load_window(fw, kernel_path):
    """(start, end) of a loader's own time for the kernel and initrd in its serial log: from
    the line naming the kernel it loads to the list of the calls it made, printed once the last
    byte is read and every pin checked (stage2: `loading K`; BOOTX64.EFI: `Loading TITLE: K`).
    What follows (stage2's jump, BOOTX64.EFI's LoadImage) is not a read."""
    if fw == "bios":
        return f"loading {kernel_path}", floor.STAGE2_HEAD
    return re.compile(r"^Loading .*: " + re.escape(kernel_path) + "$"), floor.EFI_HEAD


# The loader's own account of that time, by the guest's time stamp counter (stage2/disk.c,
# efi/blockio.c): ticks in all (up to the list's first line, where the stretch ends), in the
# firmware's read calls, in the copies out of its bounce buffer and (BOOTX64.EFI) in writing
# to the console.
CLOCK_RE = re.compile(r"time stamp counter, from \S+ to the list's first line: (\d+), in the "
                      r"(?:AH=42h|ReadBlocks) calls (\d+), copying out of the bounce buffer "
                      r"(\d+)(?:, writing to the console (\d+))?")
# stage2's copies that took far longer per byte than most (stage2/disk.c copy_spread_print)
SLOW_COPY_RE = re.compile(r"copies out of the bounce buffer at least twice as slow per byte as "
                          r"most: (\d+) of (\d+), (\d+) ticks")


def clock_phases(times_path, fw, start):
    """{"calls", "copies", "rest"[, "console"][, "slow_copies", "slow_n"]: (wall, None)}: the
    loader's own time for the kernel and initrd (its load window's wall seconds) split by the
    shares its time stamp counter gives the firmware's read calls, the copies out of the bounce
    buffer, the console (when it counts it) and everything else; of the copies, the share and
    the number of those at least twice as slow per byte as most (when stage2 counts them); {}
    when the loader does not print its count."""
    whole = span(times_path, start, floor.STAGE2_HEAD if fw == "bios" else floor.EFI_HEAD)
    try:
        with open(times_path, errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    m, slow = CLOCK_RE.search(text), SLOW_COPY_RE.search(text)
    if not whole or not m or not int(m.group(1)):
        return {}
    total, calls, copies = (int(x) for x in m.groups()[:3])
    console = int(m.group(4)) if m.group(4) else None
    own = whole[0]
    out = {"calls": (own * calls / total, None), "copies": (own * copies / total, None),
           "rest": (own * max(0, total - calls - copies - (console or 0)) / total, None)}
    if console is not None:
        out["console"] = (own * console / total, None)
    if slow:
        out["slow_copies"] = (own * int(slow.group(3)) / total, None)
        out["slow_n"] = (int(slow.group(1)), None)
    return out


def read_phases(times_path, fw, start):
    """Where a loader's time for the kernel and initrd goes, from its own lines: {phase: (wall,
    cpu)}. stage2: `open` (header, memory map, finding the initrds: to `kernel: `), `kernel`
    (to `initrd: `) and `initrd` (to its list of calls), each read with its pin check;
    BOOTX64.EFI: `read` (to `initrd: N bytes`, kernel and initrds with their pin checks). Both:
    `calls`, `copies` and `rest` by their own clock (clock_phases)."""
    if fw == "bios":
        marks = [("open", start, "kernel: "), ("kernel", "kernel: ", "initrd: "),
                 ("initrd", "initrd: ", floor.STAGE2_HEAD)]
    else:
        marks = [("read", start, re.compile(r"^initrd: \d+ bytes"))]
    out = {}
    for name, a, b in marks:
        sp = span(times_path, a, b)
        if sp:
            out[name] = sp
    out.update(clock_phases(times_path, fw, start))
    return out


def pass_spans(times_path, fw):
    """[(wall, cpu)] of each pass of a read floor's boot, None for a pass that does not show."""
    out, start = [], floor.first_line(fw)
    for k in range(1, len(floor.PASSES[fw]) + 1):
        out.append(span(times_path, start, floor.pass_line(k)))
        start = floor.pass_line(k)
    return out


class Loader:
    """One way of booting the case's workload. role: peer, anysector, pinned (anysector with pins),
    floor (-kernel or the firmware's share) or readfloor (floor.py; built once anysector's first
    boot has listed its calls)."""

    def __init__(self, name, key, role, disk=None, direct=None, reason=None, marker=MARKER,
                 check=True, phase=None, load=None):
        self.name, self.key, self.role = name, key, role
        self.disk, self.direct, self.reason = disk, direct, reason
        self.marker, self.check = marker, check
        self.phase = phase  # (start text, end text) of the loader's own time in the serial log
        self.load = load    # (start, end): its time for the kernel and initrd's calls (floors)
        self.lspans = []    # (wall, cpu) of load per round, None when it does not show
        self.passes = []    # read floor: per round, pass_spans
        self.phases = []    # anysector: read_phases per round
        self.calls = None   # the read floor: calls it makes
        self.pending = None  # the read floor: builds its disk from anysector's serial log
        self.initrd_at = None  # anysector: where it put the initrd
        self.samples = []   # wall seconds, None for a failed run
        self.cpu = []       # QEMU cpu seconds, None for a failed run
        self.spans = []     # (wall, cpu) of the phase per successful run, when it shows
        self.kspans = []    # (wall, cpu) from the EFI stub's first line to the marker (UEFI)
        self.io = None      # stage2's (drive, calls, bytes), anysector under SeaBIOS only
        self.reads = []     # read commands the disk received per successful run (QEMU trace)
        self.why = None     # why the first failed run failed

    @property
    def short(self):
        return self.name.split(" (")[0].split()[0]


def disk_sizes(size):
    """(disk, ESP) bytes for a workload: the standard disk, or room for a large initrd."""
    return (DISK_SIZE, ESP_SIZE) if size is None else (size + 512 * disks.MiB,
                                                        size + 256 * disks.MiB)


def prepare(work, tmp, kernel, initrds, label, build, workloads, firmwares):
    """Builds the disk images of each workload (profile, initrd size); returns {workload: {key:
    path or '!reason'}} with keys anysector, base and one per peer or floor image."""
    tool = os.path.join(build, "tools", "anysector")
    stages = os.path.join(build, "stages")
    images = {}
    for wl in workloads:
        prof, size = wl
        lss, pss = PROFILES[prof]
        disk_size, esp_size = disk_sizes(size)
        initrd_path = initrds[size]
        tag = f"{label}-{prof}" + (f"-{size_label(size)}" if size else "")
        img = images[wl] = {}
        paths = None
        asimg = os.path.join(work, f"anysector-{tag}.img")
        if not os.path.exists(tool):
            img[ANYSECTOR] = f"!not available: {tool} is not built"
        else:
            try:
                paths = disks.make_anysector(tool, stages, asimg, lss, pss, disk_size, label,
                                             kernel, initrd_path, CMDLINE, tmp, esp_size)
                img[ANYSECTOR] = asimg
            except disks.DiskError as e:
                img[ANYSECTOR] = f"!not available: {e}"
        img[PINNED] = img[ANYSECTOR] if not paths else "!not measured with large initrds"
        if paths:
            img["kernel_path"] = paths["kernel"]
        if paths and size is None:
            pimg = os.path.join(work, f"pinned-{tag}.img")
            try:
                disks.make_anysector(tool, stages, pimg, lss, pss, disk_size, label, kernel,
                                     initrd_path, CMDLINE, tmp, esp_size, pin=True)
                img[PINNED] = pimg
            except disks.DiskError as e:
                img[PINNED] = f"!not available: {e}"
        if paths:
            base = asimg     # peers get anysector's very disk, loader swapped
        else:
            base = os.path.join(work, f"base-{tag}.img")
            paths = disks.make_base(base, lss, disk_size, label, kernel, initrd_path, tmp,
                                    esp_size)
        img["base"] = base
        for key, make in peer_makers(firmwares[wl], size, base, paths, kernel, initrd_path, tmp):
            out = os.path.join(work, f"{key}-{tag}.img")
            try:
                make(out)
                img[key] = out
            except disks.DiskError as e:
                img[key] = f"!{e}"
    return images


def peer_makers(firmwares, size, base, paths, kernel, initrd_path, tmp):
    """[(key, make(out))] of the peers' and floors' disks a workload needs: every peer on the
    64 MiB workload; GRUB on FAT (BIOS), systemd-boot and GRUB (UEFI) with a large initrd."""
    makers = []
    if "bios" in firmwares:
        makers.append(("grub-fat", lambda out: disks.make_grub(base, out, paths, CMDLINE, tmp)))
        if size is None:
            makers += [
                ("grub-ext2", lambda out: disks.make_grub_ext2(base, out, kernel, initrd_path,
                                                               CMDLINE, tmp)),
                ("syslinux", lambda out: disks.make_syslinux(base, out, paths, CMDLINE, tmp))]
    if "uefi" in firmwares:
        makers += [
            ("sdboot", lambda out: disks.make_sdboot(base, out, paths, CMDLINE, tmp)),
            ("firmware", lambda out: disks.make_efi_floor(base, out, lib_paths.EFI_PAYLOAD))]
        if size is not None:
            makers.append(("grub-efi", lambda out: disks.make_grub_efi(base, out, paths,
                                                                      CMDLINE, tmp)))
    return makers


def loaders_for(fw, wl, images, kernel, initrd_path, work, tmp):
    """The case's loaders in the order every round runs them: the floor and anysector first
    (their times bound how long a hanging peer is waited for), the read floor (built from
    anysector's first boot) and pinned anysector, then the peers. A large initrd's case has no
    pinned anysector: its read floor shows whether the loader's time for hundreds of MiB is
    the firmware's, where its own fixed cost per boot no longer counts."""
    img = images[wl]
    prof, size = wl

    def from_image(name, key, role, **kw):
        v = img[key]
        if v.startswith("!"):
            return Loader(name, key, role, reason=v[1:], **kw)
        return Loader(name, key, role, disk=v, **kw)

    kpath = img.get("kernel_path", "/")
    lw = load_window(fw, kpath)
    rf = Loader("read floor", READ_FLOOR, READ_FLOOR, marker=floor.MARKER[fw], check=False,
                load=(floor.first_line(fw), floor.pass_line(1)),
                reason="not built: anysector did not boot, so its calls are not known")
    if not img[ANYSECTOR].startswith("!"):
        rf.pending = lambda log: build_read_floor(rf, fw, prof, img, log, work, tmp, size)
    extra = [rf]
    if size is None:
        stage2 = (STAGE2_START, STAGE2_END) if fw == "bios" else (UEFI_LOADER_START,
                                                                  UEFI_KERNEL_START)
        extra.append(from_image("anysector, pinned", PINNED, PINNED, phase=stage2, load=lw))
    if fw == "bios":
        grub = f"GRUB {pkg_version('grub-pc-bin', True)}"
        peers = [from_image(f"{grub} (FAT)", "grub-fat", "peer")]
        if size is None:
            peers += [
                from_image(f"{grub} (ext2)", "grub-ext2", "peer"),
                from_image(f"syslinux {pkg_version('syslinux', True)} (FAT)", "syslinux", "peer")]
        return [
            Loader("-kernel", "kernel", "floor", disk=img["base"],
                   direct=(kernel, initrd_path, CMDLINE)),
            from_image(ANYSECTOR, ANYSECTOR, "anysector", phase=(STAGE2_START, STAGE2_END),
                       load=lw),
        ] + extra + peers
    uefi_phase = (UEFI_LOADER_START, UEFI_KERNEL_START)
    peers = [from_image(f"systemd-boot {pkg_version('systemd-boot-efi', True)}", "sdboot", "peer",
                        phase=uefi_phase)]
    if size is not None:
        peers.append(from_image(f"GRUB {pkg_version('grub-efi-amd64-bin', True)} (UEFI, FAT)",
                                "grub-efi", "peer", phase=uefi_phase))
    return [
        from_image("firmware", "firmware", "floor", marker=FLOOR_MARKER, check=False,
                   phase=(UEFI_LOADER_START, FLOOR_MARKER)),
        from_image(ANYSECTOR, ANYSECTOR, "anysector", phase=uefi_phase, load=lw),
    ] + extra + peers


def build_read_floor(rf, fw, prof, img, log, work, tmp, size=None):
    """The read floor's disk from the calls anysector listed in its serial log: rf gets a disk,
    or the reason it has none."""
    rf.pending = None
    out = os.path.join(work, f"{READ_FLOOR}-{fw}-{prof}{'' if size is None else f'-{size}'}.img")
    try:
        with open(log, "rb") as f:
            runs = floor.recorded_calls(f.read().decode(errors="replace"), fw)
        lss = PROFILES[prof][0]
        if fw == "bios":
            rf.calls = floor.make_bios(img[ANYSECTOR], out, FLOOR_BIOS, runs, lss)
        else:
            rf.calls = floor.make_efi(img[ANYSECTOR], out, FLOOR_EFI, runs, lss, tmp)
    except (floor.FloorError, disks.DiskError, OSError) as e:
        rf.reason = f"not built: {e}"
        return
    rf.disk, rf.reason = out, None
    rf.check = floor.marker_check(fw, rf.calls)


def run_timeout(loaders, limit):
    """A boot taking six times the slowest successful boot of a loader of its case (at least
    30 s) is counted as failed: a loader that hangs costs less than BENCH_TIMEOUT on every case.
    The floors do not count: they read no initrd, and with a 1 GiB one six times the firmware's
    share (3.9 s under OVMF) cut every loader off at 30 s."""
    done = [s for ld in loaders if ld.role not in ("floor", READ_FLOOR)
            for s in ld.samples if s is not None]
    return min(limit, max(30.0, 6 * max(done))) if done else limit


class HostLoad:
    """CPU time the whole host spent busy while the bench ran, from /proc/stat, so the report
    can say how much of the 2 CPUs other work took (the bench's own QEMU is subtracted)."""

    def __init__(self):
        self.t0, self.busy0 = time.monotonic(), self._busy()
        self.load_start = os.getloadavg()

    @staticmethod
    def _busy():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return (sum(v[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def others(self, own_cpu):
        """Average CPUs kept busy by other processes over the run."""
        span = time.monotonic() - self.t0
        return max(0.0, (self._busy() - self.busy0 - own_cpu) / span) if span > 0 else 0.0


def run_one(res, ld, r, check, timeout, logs, tmp, w, own_cpu, floor_pair=False):
    """Round r of loader ld in case res: one timed boot, its spans and counts recorded on ld and
    in the samples csv; returns "key seconds" for the round's line. floor_pair: a round of
    anysector and its read floor only (FLOOR_RUNS), which adds to their load spans and phases
    but not to the boot seconds compared with the peers."""
    fw, fe, name, loaders = res["fw"], res["fe"], res["name"], res["loaders"]
    vars_copy = os.path.join(tmp, "OVMF_VARS.fd") if fw == "uefi" else None
    mon = os.path.join(tmp, "qemu.mon") if fw == "bios" else None
    if mon and os.path.exists(mon):
        os.unlink(mon)
    log = os.path.join(logs, f"{name}-{ld.key}-{r + 1}.serial")
    trace = log + ".trace"
    if os.path.exists(trace):
        os.unlink(trace)
    cmd = boot.qemu_cmd(fw, fe, res["lss"], res["pss"], ld.disk, vars_copy, ld.direct, mon,
                        trace, memory=res["memory"], prealloc=res["size"] is None)
    boot.warm_files([ld.disk] + list(ld.direct[:2] if ld.direct else []))
    load1 = os.getloadavg()[0]
    secs, why, cpu = boot.timed_boot(cmd, ld.marker, run_timeout(loaders, timeout), log,
                                     ld.check if callable(ld.check) else
                                     check if ld.check else None, mon)
    own_cpu[0] += cpu
    ok = secs is not None
    if not floor_pair:
        ld.samples.append(secs)
        ld.cpu.append(cpu if ok else None)
    if fw == "bios" and ld.role == "anysector" and ok and ld.io is None:
        ld.io = stage2_io(log)
    if ld.role == "anysector" and ok:
        ld.initrd_at = ld.initrd_at or initrd_address(log)
        for other in loaders:
            if other.pending:
                other.pending(log)
    if ld.load:
        # one entry per round (None when missing), so rounds pair up across loaders
        ld.lspans.append(span(log + ".times", *ld.load) if ok else None)
        ld.passes.append(pass_spans(log + ".times", fw) if ok and ld.role == READ_FLOOR
                         else None)
        ld.phases.append(read_phases(log + ".times", fw, ld.load[0])
                         if ok and ld.role != READ_FLOOR else None)
    if ok and ld.phase and not floor_pair:
        sp = span(log + ".times", *ld.phase)
        if sp:
            ld.spans.append(sp)
        if fw == "uefi" and ld.role != "floor":
            sp = span(log + ".times", UEFI_KERNEL_START, MARKER)
            if sp:
                ld.kspans.append(sp)
    n_reads = boot.count_reads(fe, trace)
    if ok and n_reads is not None and not floor_pair:
        ld.reads.append(n_reads)
    if os.path.exists(trace):
        os.unlink(trace)
    w.writerow([name, ld.name, r + 1, "" if secs is None else f"{secs:.4f}", f"{cpu:.3f}",
                why or ("read floor pair" if floor_pair else ""), f"{load1:.2f}", log])
    if secs is None and ld.why is None and not floor_pair:
        ld.why = f"{why}; serial: {boot.tail(log) or '(nothing)'}"
        if r == 0:
            # a loader that cannot boot here would only burn the timeout again
            ld.reason = f"failed: {ld.why}"
    return f"{ld.key} {report.fmt(secs)}"


def initrd_address(log):
    """Where anysector put the initrd, from its `initrd: ... at 0x...` line, or None."""
    try:
        with open(log, "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return None
    m = re.search(r"^initrd: .* at (0x[0-9a-f]+)\s*$", text, re.M)
    return int(m.group(1), 16) if m else None


def esp_only(work, esp, esp_cases, a, payload, started, load_start):
    """The report of a run of ESP cases only: $BUILD/bench/{RESULTS.md,results.txt}; when every
    ESP case ran and was measured, also bench/RESULTS.md's ESP section (espcost.splice)."""
    load = os.getloadavg()
    git = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                         text=True).stdout.strip() or "?"
    command = os.environ.get("BENCH_COMMAND") or "python3 bench/bench.py"
    rounds = f"{a.runs} round{'s' if a.runs != 1 else ''}"
    head = (f"Run {started:%Y-%m-%d %H:%M} UTC at git `{git}`: `{command}` ({rounds}, cases "
            f"{' '.join(esp_cases)}); "
            f"load average {load_start[0]:.2f} at the start, {load[0]:.2f} at the end, on "
            f"{os.cpu_count()} CPUs; {report.machine()}.")
    text = head + "\n" + espcost.text(esp[0], esp[1], payload) + "\n"
    with open(os.path.join(work, "results.txt"), "w") as f:
        f.write(text)
    section = espcost.markdown(esp[0], esp[1], payload, a.runs, head)
    md = os.path.join(work, "RESULTS.md")
    with open(md, "w") as f:
        f.write("# anysector benchmark results (ESP cases only)\n\n**Partial run**: "
                "`bench/RESULTS.md` keeps the last full run's boot tables.\n\n" + section)
    where = md
    if esp_cases == espcost.CASES and esp[0] and all("error" not in r for r in esp[0]):
        espcost.splice(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"),
                       section)
        where += " and bench/RESULTS.md's ESP section"
    print(text + f"bench: report in {where}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "5")))
    ap.add_argument("--cases", default=os.environ.get("BENCH_CASES", "*"))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("BENCH_TIMEOUT", "120")))
    ap.add_argument("--label", choices=["gpt", "mbr"], default=os.environ.get("BENCH_LABEL", "gpt"))
    ap.add_argument("--large-runs", type=int,
                    default=int(os.environ.get("BENCH_LARGE_RUNS", str(LARGE_RUNS))))
    ap.add_argument("--floor-runs", type=int,
                    default=int(os.environ.get("BENCH_FLOOR_RUNS", str(FLOOR_RUNS))))
    a = ap.parse_args()
    if a.runs < 1 or a.large_runs < 1 or a.floor_runs < 0:
        sys.exit("bench: BENCH_RUNS and BENCH_LARGE_RUNS must be at least 1, BENCH_FLOOR_RUNS "
                 "at least 0")

    build = os.environ.get("BUILD", "build")
    work = os.path.join(build, "bench")
    tmp = os.path.join(work, "tmp")
    logs = os.path.join(work, "logs")
    for d in (work, tmp, logs):
        os.makedirs(d, exist_ok=True)
    for old in glob.glob(os.path.join(logs, "*.serial")) + glob.glob(
            os.path.join(logs, "*.serial.times")):
        os.unlink(old)    # logs of an earlier bench would pass for this one's

    patterns = [p.strip() for p in a.cases.split(",") if p.strip()]
    cases = [c for c in CASES if any(fnmatch.fnmatch(case_name(*c), p) for p in patterns)]
    esp_cases = [n for n in espcost.CASES if any(fnmatch.fnmatch(n, p) for p in patterns)]
    if a.label == "mbr":
        cases = [c for c in cases if c[0] == "bios" and c[3] is None]   # UEFI peers need an ESP
    if not cases and not esp_cases:
        sys.exit(f"bench: no case matches {a.cases!r}; cases: "
                 + " ".join([case_name(*c) for c in CASES] + espcost.CASES))
    full = cases == CASES and esp_cases == espcost.CASES and a.runs >= FULL_RUNS \
        and a.label == "gpt" and "BENCH_KERNEL" not in os.environ

    started = datetime.datetime.now(datetime.timezone.utc)
    host = HostLoad()
    kernel = find_kernel()
    initrds, checks = {}, {}
    initrd_path, md5, pad_len, _ = initrd.write(os.path.join(work, "initrd.img"))
    initrds[None], checks[None] = initrd_path, marker_check(md5)
    for size in sorted({c[3] for c in cases if c[3]}):
        path, _, _, pad_md5 = initrd.write(os.path.join(work, f"initrd-{size_label(size)}.img"),
                                           size, check_pad=True)
        initrds[size], checks[size] = path, marker_check(md5, pad_md5)
    print(f"bench: kernel {kernel}, initrds " + ", ".join(
        f"{p} ({os.path.getsize(p)} bytes)" for p in initrds.values())
        + f", cmdline \"{CMDLINE}\", {a.label} disks", flush=True)
    load1 = os.getloadavg()[0]
    if load1 > max(1, (os.cpu_count() or 1) - 1):
        print(f"bench: warning: load average {load1:.1f} on {os.cpu_count()} CPUs; other work "
              "will widen the spread (compare the minimums, or raise BENCH_RUNS)", flush=True)
    esp = espcost.run(esp_cases, a.runs, build, kernel, initrd_path, tmp,
                      lambda line: print(line, flush=True)) if esp_cases else (None, "")
    if esp_cases and esp[0] is None:
        full = False
    if not cases:
        return esp_only(work, esp, esp_cases, a, os.path.getsize(kernel) +
                        os.path.getsize(initrd_path), started, host.load_start)
    workloads = sorted({(c[2], c[3]) for c in cases},
                       key=lambda x: (list(PROFILES).index(x[0]), x[1] or 0))
    firmwares = {wl: {c[0] for c in cases if (c[2], c[3]) == wl} for wl in workloads}
    images = prepare(work, tmp, kernel, initrds, a.label, build, workloads, firmwares)
    if any(images[wl][ANYSECTOR].startswith("!") for wl in workloads):
        full = False   # a table without anysector must not replace bench/RESULTS.md

    samples_path = os.path.join(work, "samples.csv")
    samples_f = open(samples_path, "w", newline="")
    w = csv.writer(samples_f)
    w.writerow(["case", "loader", "run", "seconds", "cpu_seconds", "status", "load1", "log"])
    own_cpu = [0.0]
    results = []
    for fw, fe, prof, size in cases:
        wl = (prof, size)
        runs = a.runs if size is None else a.large_runs
        loaders = loaders_for(fw, wl, images, kernel, initrds[size], work, tmp)
        res = {"name": case_name(fw, fe, prof, size), "fw": fw, "fe": fe, "profile": prof,
               "lss": PROFILES[prof][0], "pss": PROFILES[prof][1], "loaders": loaders,
               "size": size, "runs": runs, "memory": 512 if size is None else LARGE_MEMORY,
               "payload": os.path.getsize(kernel) + os.path.getsize(initrds[size])}
        timeout = a.timeout if size is None else max(a.timeout, LARGE_TIMEOUT)
        for r in range(runs):
            line = [run_one(res, ld, r, checks[size], timeout, logs, tmp, w, own_cpu)
                    for ld in loaders if not ld.reason]
            samples_f.flush()
            print(f"  {res['name']} round {r + 1}/{runs}: " + ", ".join(line), flush=True)
        pair = [ld for ld in loaders if ld.role in ("anysector", READ_FLOOR) and not ld.reason]
        for r in range(runs, a.floor_runs if size is None and len(pair) == 2 else 0):
            line = [run_one(res, ld, r, checks[size], timeout, logs, tmp, w, own_cpu, True)
                    for ld in pair]
            samples_f.flush()
            print(f"  {res['name']} read floor round {r + 1}/{a.floor_runs}: " + ", ".join(line),
                  flush=True)
        print(report.case_text(res, runs), flush=True)
        results.append(res)
    samples_f.close()

    layout = disks.read_layout(images[workloads[0]]["base"], PROFILES[workloads[0][0]][0])
    size_rows = sizes.collect(build, a.label, layout, tmp)
    finished = datetime.datetime.now(datetime.timezone.utc)
    meta = {
        "started": started, "finished": finished, "runs": a.runs, "label": a.label,
        "full": full, "cases": a.cases, "timeout": a.timeout,
        "command": os.environ.get("BENCH_COMMAND") or "python3 bench/bench.py " + " ".join(
            sys.argv[1:]),
        "git": subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                              text=True).stdout.strip() or "?",
        "kernel": kernel, "initrd_size": os.path.getsize(initrd_path), "pad_len": pad_len,
        "kernel_size": os.path.getsize(kernel),
        "cmdline": CMDLINE, "disk_size": DISK_SIZE,
        "load_start": host.load_start, "load_end": os.getloadavg(),
        "others_cpu": host.others(own_cpu[0]),
        "large_runs": a.large_runs, "large_memory": LARGE_MEMORY,
        "floor_runs": max(a.runs, a.floor_runs),
        "versions": {p: pkg_version(p) for p in report.PACKAGES},
    }
    payload = os.path.getsize(kernel) + os.path.getsize(initrd_path)
    text = report.text(meta, results, size_rows)
    if esp_cases:
        text += "\n" + espcost.text(esp[0], esp[1], payload) + "\n"
    with open(os.path.join(work, "results.txt"), "w") as f:
        f.write(text)
    print(report.summary_text(results))
    md_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md") if full \
        else os.path.join(work, "RESULTS.md")
    with open(md_path + ".tmp", "w") as f:
        f.write(report.markdown(meta, results, size_rows))
        if esp_cases:
            f.write("\n" + espcost.markdown(esp[0], esp[1], payload, a.runs,
                                             "Run with the boot cases above."))
    os.replace(md_path + ".tmp", md_path)
    print(f"bench: samples in {samples_path}, tables in {os.path.join(work, 'results.txt')}, "
          f"report in {md_path}"
          + ("" if full else f" (not a full run: bench/RESULTS.md is only written by every case "
             f"at BENCH_RUNS>={FULL_RUNS} on GPT with anysector built)"))


if __name__ == "__main__":
    try:
        main()
    except disks.DiskError as e:
        sys.exit(f"bench: {e}")
    except KeyboardInterrupt:
        sys.exit("bench: interrupted")
    except Exception:
        traceback.print_exc()
        sys.exit(1)
