#!/usr/bin/env python3
"""Side-by-side boot benchmarks: anysector against GRUB (BIOS) and systemd-boot (UEFI).

Each case is one firmware, one disk front-end and one sector size. Every loader in a case boots
the same Debian kernel and busybox initramfs with the same command line from a disk with the same
partition table and FAT (only the loader differs; see disks.py), plus, under SeaBIOS, QEMU's
direct `-kernel` as a floor. Runs alternate between the loaders (the order rotates every round) so drift on the host
hits all of them alike. The time of one run is QEMU start -> marker on the serial console.

Results: a table per case on stdout and in $BUILD/bench/results.txt, every sample in
$BUILD/bench/samples.csv, every serial log in $BUILD/bench/logs/.

usage: bench.py [--runs N] [--cases GLOB,...] [--timeout S] [--label gpt|mbr]
Environment: BUILD (default build), BENCH_RUNS, BENCH_CASES, BENCH_TIMEOUT, BENCH_LABEL,
BENCH_KERNEL.
"""
import argparse
import csv
import datetime
import fnmatch
import glob
import importlib.util
import json
import re
import os
import statistics
import subprocess
import sys
import traceback

sys.dont_write_bytecode = True   # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boot    # noqa: E402
import disks   # noqa: E402

# The initramfs is the QEMU tests' (one builder in the tree): its /init prints
# "ANYSECTOR-LINUX-OK cmdline=[...] filler_md5=..." over a ~6 MiB initrd and powers off.
_spec = importlib.util.spec_from_file_location(
    "qemu_initramfs", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                   "qemu", "initramfs.py"))
initramfs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(initramfs)

MARKER = "ANYSECTOR-LINUX-OK"
CMDLINE = "console=ttyS0 quiet panic=-1"
DISK_SIZE = 128 * disks.MiB
GRUB_4KN_REASON = ("cannot boot 4Kn: boot.img/diskboot count in 512-byte sectors "
                   "(REFERENCE.md: hangs after \"GRUB \" on 4Kn NVMe)")

# (firmware, front-end, logical sector size); SeaBIOS cannot boot 4Kn virtio-blk or IDE.
CASES = [
    ("bios", "ide", 512), ("bios", "virtio", 512), ("bios", "nvme", 512), ("bios", "nvme", 4096),
    ("uefi", "virtio", 512), ("uefi", "nvme", 512),
    ("uefi", "virtio", 4096), ("uefi", "nvme", 4096),
]
FLOOR = "-kernel"
ANYSECTOR = "anysector"


def case_name(fw, fe, lss):
    return f"{fw}-{fe}-{'512n' if lss == 512 else '4Kn'}"


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


def build_initrd(work):
    """The busybox initramfs from tests/qemu/initramfs.py; returns (path, filler md5)."""
    out = os.path.join(work, "initrd.img")
    data = initramfs.build()
    if not os.path.exists(out) or open(out, "rb").read() != data:
        with open(out + ".tmp", "wb") as f:
            f.write(data)
        os.replace(out + ".tmp", out)
    return out, initramfs.filler_md5()


def marker_check(md5):
    """The marker line must show our command line and the initrd's md5: a loader that
    truncated the initrd or lost the command line does not get a time."""
    def check(line):
        m = re.search(r"cmdline=\[(.*)\] filler_md5=([0-9a-f]+)", line)
        if not m:
            return f"marker line malformed: {line.strip()!r}"
        if CMDLINE not in m.group(1):
            return f"kernel command line is {m.group(1)!r}, not {CMDLINE!r}"
        if m.group(2) != md5:
            return f"initrd filler md5 {m.group(2)}, expected {md5} (initrd damaged)"
        return None
    return check


class Loader:
    def __init__(self, name, disk=None, direct=None, reason=None):
        self.name, self.disk, self.direct, self.reason = name, disk, direct, reason
        self.samples = []   # wall seconds, None for a failed run
        self.cpu = []       # QEMU cpu seconds of the successful runs

    @property
    def usable(self):
        return self.reason is None


def prepare(work, tmp, kernel, initrd, label, build):
    """Builds every disk image; returns {lss: {'base', 'anysector', 'grub', 'sdboot'}} where
    each value is an image path or an error string ('!' prefix)."""
    tool = os.path.join(build, "tools", "anysector")
    stages = os.path.join(build, "stages")
    images = {}
    for lss in (512, 4096):
        tag = "512n" if lss == 512 else "4Kn"
        img = images[lss] = {}
        paths = None
        asimg = os.path.join(work, f"anysector-{label}-{tag}.img")
        if not os.path.exists(tool):
            img[ANYSECTOR] = f"!not available yet: {tool} is not built"
        else:
            try:
                paths = disks.make_anysector(tool, stages, asimg, lss, DISK_SIZE, label, kernel,
                                             initrd, CMDLINE, tmp)
                img[ANYSECTOR] = asimg
            except disks.DiskError as e:
                img[ANYSECTOR] = f"!not available yet: {e}"
        if paths:
            base = asimg     # peers get anysector's very disk, loader swapped
        else:
            base = os.path.join(work, f"base-{label}-{tag}.img")
            paths = disks.make_base(base, lss, DISK_SIZE, label, kernel, initrd, tmp)
        img["base"] = base
        img["paths"] = paths
        for peer, make in (("grub", disks.make_grub), ("sdboot", disks.make_sdboot)):
            out = os.path.join(work, f"{peer}-{label}-{tag}.img")
            if peer == "grub" and lss != 512:
                img[peer] = "!" + GRUB_4KN_REASON
                continue
            try:
                make(base, out, paths, CMDLINE, tmp)
                img[peer] = out
            except disks.DiskError as e:
                img[peer] = f"!{e}"
    return images


def loaders_for(fw, lss, images, kernel, initrd):
    img = images[lss]

    def from_image(name, key):
        v = img[key]
        return Loader(name, reason=v[1:]) if v.startswith("!") else Loader(name, disk=v)

    peer = (from_image(f"GRUB {pkg_version('grub-pc-bin', True)}", "grub") if fw == "bios"
            else from_image(f"systemd-boot {pkg_version('systemd-boot-efi', True)}", "sdboot"))
    loaders = [peer, from_image(ANYSECTOR, ANYSECTOR)]
    if fw == "bios":
        # Under OVMF, -kernel is no floor: OVMF pulls kernel and initrd through fw_cfg and runs
        # its own loader, measured slower than systemd-boot; it is left out there.
        loaders.insert(0, Loader(FLOOR, disk=img["base"], direct=(kernel, initrd, CMDLINE)))
    return loaders


def run_timeout(loaders, limit):
    """A boot taking six times the slowest successful boot of its case (at least 20 s) is
    counted as failed: a loader that hangs costs less than BENCH_TIMEOUT on every case."""
    done = [s for ld in loaders for s in ld.samples if s is not None]
    return min(limit, max(20.0, 6 * max(done))) if done else limit


def fmt(x):
    return "-" if x is None else f"{x:.2f}"


def table(name, fw, fe, lss, loaders, runs):
    """The case's table and its median wall-time ratio anysector/peer (None when n/a)."""
    peer = loaders[-2]
    pname = peer.name.split()[0]
    fwname = "SeaBIOS" if fw == "bios" else "OVMF"
    lines = [f"{name}: {fwname}, {fe}, {lss}-byte sectors, tcg, {runs} alternating runs",
             f"  {'loader':<20}{'median s':>9}{'min':>7}{'max':>7}{'cpu s':>7}{'ok':>7}"]
    med, low, cpu = {}, {}, {}
    for ld in loaders:
        ok = [x for x in ld.samples if x is not None]
        if ok:
            med[ld.name], low[ld.name] = statistics.median(ok), min(ok)
            cpu[ld.name] = statistics.median(ld.cpu)
            lines.append(f"  {ld.name:<20}{med[ld.name]:>9.2f}{low[ld.name]:>7.2f}{max(ok):>7.2f}"
                         f"{cpu[ld.name]:>7.2f}{len(ok):>4}/{len(ld.samples)}"
                         + (f"  ({ld.reason})" if ld.reason else ""))
        else:
            lines.append(f"  {ld.name:<20}{'-':>9}{'':>28}  {ld.reason or 'no sample'}")
    if ANYSECTOR in med and peer.name in med:
        ratio = med[ANYSECTOR] / med[peer.name]
        lines.append(f"  ratio anysector/{pname}: {ratio:.2f} median, "
                     f"{low[ANYSECTOR] / low[peer.name]:.2f} min, "
                     f"{cpu[ANYSECTOR] / cpu[peer.name]:.2f} cpu")
    else:
        ratio = None
        lines.append(f"  ratio anysector/{pname}: n/a")
    if FLOOR in med:
        lines.append("  above -kernel (median): " + ", ".join(
            f"{n.split()[0]} {med[n] - med[FLOOR]:+.2f} s" for n in med if n != FLOOR))
    return "\n".join(lines), ratio


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "5")))
    ap.add_argument("--cases", default=os.environ.get("BENCH_CASES", "*"))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("BENCH_TIMEOUT", "90")))
    ap.add_argument("--label", choices=["gpt", "mbr"], default=os.environ.get("BENCH_LABEL", "gpt"))
    a = ap.parse_args()
    if a.runs < 1:
        sys.exit("bench: BENCH_RUNS must be at least 1")

    build = os.environ.get("BUILD", "build")
    work = os.path.join(build, "bench")
    tmp = os.path.join(work, "tmp")
    logs = os.path.join(work, "logs")
    for d in (work, tmp, logs):
        os.makedirs(d, exist_ok=True)
    for old in glob.glob(os.path.join(logs, "*.serial")):
        os.unlink(old)    # logs of an earlier bench would pass for this one's

    patterns = [p.strip() for p in a.cases.split(",") if p.strip()]
    cases = [c for c in CASES if any(fnmatch.fnmatch(case_name(*c), p) for p in patterns)]
    if a.label == "mbr":
        cases = [c for c in cases if c[0] == "bios"]   # UEFI peers need an ESP
    if not cases:
        sys.exit(f"bench: no case matches {a.cases!r}; cases: "
                 + " ".join(case_name(*c) for c in CASES))

    kernel = find_kernel()
    initrd, md5 = build_initrd(work)
    check = marker_check(md5)
    print(f"bench: kernel {kernel}, initrd {initrd} ({os.path.getsize(initrd)} bytes), "
          f"cmdline \"{CMDLINE}\", {a.label} disks of {DISK_SIZE >> 20} MiB", flush=True)
    load1 = os.getloadavg()[0]
    if load1 > max(1, (os.cpu_count() or 1) - 1):
        print(f"bench: warning: load average {load1:.1f} on {os.cpu_count()} CPUs; other work "
              "will widen the spread (compare the minimums, or raise BENCH_RUNS)", flush=True)
    images = prepare(work, tmp, kernel, initrd, a.label, build)

    samples_path = os.path.join(work, "samples.csv")
    samples_f = open(samples_path, "w", newline="")
    w = csv.writer(samples_f)
    w.writerow(["case", "loader", "run", "seconds", "cpu_seconds", "status", "load1", "log"])

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    report = [f"anysector boot benchmark {datetime.datetime.now().isoformat(timespec='seconds')}"
              f"  git {head or '?'}  qemu {pkg_version('qemu-system-x86')}  runs {a.runs}",
              f"kernel {os.path.basename(kernel)}, initrd {os.path.getsize(initrd)} bytes, "
              f"cmdline \"{CMDLINE}\", {a.label} disk {DISK_SIZE >> 20} MiB; "
              "seconds = QEMU start -> marker on serial; host load average at start "
              + " ".join("%.1f" % x for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"]
    results = {}
    for fw, fe, lss in cases:
        name = case_name(fw, fe, lss)
        loaders = loaders_for(fw, lss, images, kernel, initrd)
        live = [ld for ld in loaders if ld.usable]
        for r in range(a.runs):
            order = live[r % len(live):] + live[:r % len(live)] if live else []
            line = []
            for ld in order:
                if not ld.usable:
                    continue
                vars_copy = os.path.join(tmp, "OVMF_VARS.fd") if fw == "uefi" else None
                cmd = boot.qemu_cmd(fw, fe, lss, ld.disk, vars_copy, ld.direct)
                log = os.path.join(logs, f"{name}-{ld.name.split()[0].lstrip('-')}-{r + 1}.serial")
                load1 = os.getloadavg()[0]
                secs, why, cpu = boot.timed_boot(cmd, MARKER, run_timeout(loaders, a.timeout), log,
                                            vars_copy, check)
                ld.samples.append(secs)
                if secs is not None:
                    ld.cpu.append(cpu)
                w.writerow([name, ld.name, r + 1, "" if secs is None else f"{secs:.4f}",
                            f"{cpu:.3f}", why, f"{load1:.2f}", log])
                samples_f.flush()
                line.append(f"{ld.name.split()[0]} {fmt(secs)}")
                if secs is None and r == 0:
                    # a loader that cannot boot here would only burn the timeout again
                    ld.reason = f"failed: {why}; serial: {boot.tail(log) or '(nothing)'}"
            print(f"  {name} run {r + 1}/{a.runs}: " + ", ".join(line), flush=True)
        text, ratio = table(name, fw, fe, lss, loaders, a.runs)
        print(text, flush=True)
        report.append(text)
        results[name] = {"ratio": ratio, "loaders": {
            ld.name: {"samples": ld.samples, "reason": ld.reason} for ld in loaders}}
    samples_f.close()

    summary = ["summary (median ratio anysector/peer):"] + [
        f"  {n:<18} {('%.2f' % v['ratio']) if v['ratio'] is not None else 'n/a'}"
        for n, v in results.items()]
    print("\n".join(summary))
    report.append("\n".join(summary))
    with open(os.path.join(work, "results.txt"), "w") as f:
        f.write("\n\n".join(report) + "\n")
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"bench: samples in {samples_path}, tables in {os.path.join(work, 'results.txt')}")


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
