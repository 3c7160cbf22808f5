# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark's tables: plain text for the terminal and results.txt, Markdown for RESULTS.md."""
import os
import platform
import statistics

import floor

MiB = 1 << 20
PACKAGES = ["qemu-system-x86", "seabios", "ovmf", "grub-pc-bin", "syslinux", "systemd-boot-efi",
            "linux-image-cloud-amd64", "busybox-static"]
SEABIOS_MAX_CALL_BYTES = 64 << 10   # SeaBIOS fails an AH=42h call moving more (AH=09h)
SEABIOS_CALLS_PER_MIB = MiB // SEABIOS_MAX_CALL_BYTES
ANYSECTOR_KEY = "anysector"
# The goals (bench/RESULTS.md's medians of a full run): issue 17's reads in calls as large as
# SeaBIOS takes; issue 27's own time against the read floor (its peer ratios replaced by it)
GOAL_CALLS_PER_MIB = 16.5
GOAL_FLOOR_RATIO = 1.15
READ_FLOOR_KEY = "readfloor"
PINNED_KEY = "pinned"


def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def _ok(samples):
    return [s for s in samples if s is not None]


def _median(samples):
    ok = _ok(samples)
    return statistics.median(ok) if ok else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def _span_median(spans):
    return statistics.median(w for w, _ in spans) if spans else None


def stats(res):
    """Per-case numbers: the loaders by role, per-round rows, medians, the reference peer (the
    faster GRUB under SeaBIOS, systemd-boot under OVMF), ratios and overheads."""
    lds = res["loaders"]
    floor = next(ld for ld in lds if ld.role == "floor")
    anys = next(ld for ld in lds if ld.role == "anysector")
    peers = [ld for ld in lds if ld.role == "peer"]
    rounds = max(len(ld.samples) for ld in lds)

    def at(ld, i):
        return ld.samples[i] if i < len(ld.samples) else None

    med = {ld.key: _median(ld.samples) for ld in lds}
    refs = [p for p in peers if p.key.startswith("grub")] if res["fw"] == "bios" else \
        [p for p in peers if p.key == "sdboot"] or peers
    ok_refs = [p for p in refs if med[p.key] is not None]
    ref = min(ok_refs, key=lambda p: med[p.key]) if ok_refs else (refs[0] if refs else None)
    rows = [(i + 1, [at(ld, i) for ld in lds]) for i in range(rounds)]
    pair_ratios = [_ratio(at(anys, i), at(ref, i)) for i in range(rounds)] if ref else []
    pair_ratios = [r for r in pair_ratios if r is not None]
    mib = res["payload"] / MiB
    if res["fw"] == "bios":
        # over the -kernel floor: the whole boot minus what firmware and kernel cost alone
        over = {ld.key: (med[ld.key] - med[floor.key] if None not in (med[ld.key], med[floor.key])
                         else None) for ld in lds if ld is not floor}
    else:
        # the loader's own time: OVMF starting it to the EFI stub's first line
        over = {ld.key: _span_median(ld.spans) for ld in lds if ld is not floor}
    return {
        "floor": floor, "anysector": anys, "peers": peers, "ref": ref, "rows": rows,
        "median": med, "cpu": {ld.key: _median(ld.cpu) for ld in lds},
        "reads": {ld.key: (round(statistics.median(ld.reads)) if ld.reads else None)
                  for ld in lds},
        "ratio": _ratio(med[anys.key], med[ref.key]) if ref else None,
        "ratios": {p.key: _ratio(med[anys.key], med[p.key]) for p in peers},
        "ratio_of_pairs": statistics.median(pair_ratios) if pair_ratios else None,
        "over": over, "over_per_mib": {k: (v / mib if v is not None else None)
                                       for k, v in over.items()},
        "span": {ld.key: _span_median(ld.spans) for ld in lds},
        "load": {ld.key: _span_median(_ok(ld.lspans)) for ld in lds},
        "floor_stats": floor_stats(lds, res["fw"]),
        "kspan": {ld.key: _span_median(ld.kspans) for ld in lds},
    }


def _round_ratios(a, b, cpu=False):
    """a's span / b's span in each round both show in."""
    i = 1 if cpu else 0
    return [x[i] / y[i] for x, y in zip(a, b) if x and y and y[i] > 0]


def _paired(a, b, cpu=False):
    """Median over rounds of a's span / b's span in the same round: the host's drift between
    rounds cancels out."""
    r = _round_ratios(a, b, cpu)
    return statistics.median(r) if r else None


def _middle_half(v):
    """(rounds, lower quartile, upper quartile) of per-round ratios, or None below 4 rounds."""
    if len(v) < 4:
        return None
    q = statistics.quantiles(v, n=4, method="inclusive")
    return len(v), q[0], q[2]


# the read floor's pass (0-based) that lands the bytes in fresh memory: BIOS pass 3 (the copy
# out of the bounce buffer), UEFI pass 2 (the calls into fresh memory)
LANDING_PASS = {"bios": 2, "uefi": 1}


def floor_stats(lds, fw):
    """anysector's and pinned anysector's own time for the kernel and initrd against the read
    floor's (its pass 1), and the floor's later passes, for a case: {} without a read floor."""
    by = {ld.key: ld for ld in lds}
    rf, an, pn = by.get(READ_FLOOR_KEY), by.get(ANYSECTOR_KEY), by.get(PINNED_KEY)
    if not rf or not _ok(rf.lspans):
        return {}

    def med(spans, i=0):
        v = [x[i] for x in _ok(spans)]
        return statistics.median(v) if v else None

    def phase(ld, name):
        v = [p[name][0] for p in _ok(ld.phases) if name in p] if ld else []
        return statistics.median(v) if v else None

    npass = max((len(p) for p in _ok(rf.passes)), default=0)
    passes = [[p[k] for p in _ok(rf.passes)] for k in range(npass)]
    # the pass that also lands every byte in memory never written before, as the loader must
    k = LANDING_PASS[fw] if npass > LANDING_PASS[fw] else None
    landing = [(p[k] if p and k is not None else None) for p in rf.passes]
    names = ("open", "kernel", "initrd", "read", "calls", "copies", "console", "rest",
             "slow_copies", "slow_n")
    return {
        "calls": rf.calls, "floor": med(rf.lspans), "floor_cpu": med(rf.lspans, 1),
        "passes": [med(p) for p in passes], "passes_cpu": [med(p, 1) for p in passes],
        "own": med(an.lspans) if an else None, "own_cpu": med(an.lspans, 1) if an else None,
        "pinned": med(pn.lspans) if pn else None,
        "pinned_cpu": med(pn.lspans, 1) if pn else None,
        "ratio": _paired(an.lspans, rf.lspans) if an else None,
        "ratio_spread": _middle_half(_round_ratios(an.lspans, rf.lspans)) if an else None,
        "ratio_cpu": _paired(an.lspans, rf.lspans, True) if an else None,
        "landing": med(landing), "landing_pass": None if k is None else k + 1,
        "landing_ratio": _paired(an.lspans, landing) if an else None,
        "pinned_ratio": _paired(pn.lspans, rf.lspans) if pn else None,
        "pinned_ratio_cpu": _paired(pn.lspans, rf.lspans, True) if pn else None,
        "phases": {n: phase(an, n) for n in names if phase(an, n) is not None},
        "pinned_phases": {n: phase(pn, n) for n in names if phase(pn, n) is not None},
    }


def io_numbers(ld):
    """(drive, calls, bytes, calls per MiB) from stage2's line, or None."""
    if not ld.io:
        return None
    drive, calls, nbytes = ld.io
    return drive, calls, nbytes, (calls / (nbytes / MiB) if nbytes else None)


def per_mib(n, res):
    return None if n is None else n / (res["payload"] / MiB)


def _reads(n, res):
    return "-" if n is None else f"{n} ({per_mib(n, res):.1f}/MiB)"


def _title(res):
    fw = "SeaBIOS" if res["fw"] == "bios" else "OVMF"
    fe = {"ide": "IDE", "virtio": "virtio-blk", "nvme": "NVMe"}[res["fe"]]
    return f"{fw}, {fe}, {res['lss']}-byte logical / {res['pss']}-byte physical sectors"


def _status(ld):
    ok = len(_ok(ld.samples))
    return f"{ok}/{len(ld.samples)} ok" if ld.samples else "not run"


def _over_text(s, key):
    o, pm = s["over"].get(key), s["over_per_mib"].get(key)
    return "-" if o is None else f"{o:.2f} ({pm * 1000:.1f} ms/MiB)"


OVER_MEANING = {
    "bios": "boot time minus the -kernel floor's",
    "uefi": "the loader's own time, OVMF's \"BdsDxe: starting\" to the EFI stub's first line",
}


def case_text(res, runs):
    s = stats(res)
    lds = res["loaders"]
    out = [f"{res['name']}: {_title(res)}, tcg, {runs} round{'s' if runs != 1 else ''}"]
    out.append(f"  {'round':<7}" + "".join(f"{ld.key:>11}" for ld in lds))
    for n, vals in s["rows"]:
        out.append(f"  {n:<7}" + "".join(f"{fmt(v):>11}" for v in vals))
    out.append(f"  {'median':<7}" + "".join(f"{fmt(s['median'][ld.key]):>11}" for ld in lds))
    out.append(f"  {'cpu s':<7}" + "".join(f"{fmt(s['cpu'][ld.key]):>11}" for ld in lds))
    out.append(f"  overhead s ({OVER_MEANING[res['fw']]}): " + ", ".join(
        f"{ld.key} {_over_text(s, ld.key)}" for ld in lds
        if ld.role not in ("floor", READ_FLOOR_KEY)))
    if s["ref"]:
        out.append(f"  anysector / {s['ref'].key}: {fmt(s['ratio'])}")
    fs = s["floor_stats"]
    if fs:
        out.append(f"  kernel and initrd, own time s (median; / read floor, median of rounds): "
                   f"read floor {fmt(fs['floor'], 3)}, anysector {fmt(fs['own'], 3)} "
                   f"({fmt(fs['ratio'])}{_spread_text(fs)}), pinned {fmt(fs['pinned'], 3)} "
                   f"({fmt(fs['pinned_ratio'])}); cpu s: {fmt(fs['floor_cpu'], 3)}, "
                   f"{fmt(fs['own_cpu'], 3)} ({fmt(fs['ratio_cpu'])}), "
                   f"{fmt(fs['pinned_cpu'], 3)} ({fmt(fs['pinned_ratio_cpu'])})")
        out.append("  read floor passes s: " + ", ".join(
            f"{k + 1}) {fmt(v, 3)}" for k, v in enumerate(fs["passes"])))
    rd = s["reads"]
    out.append("  disk read commands (median, per MiB of kernel+initrd): " + ", ".join(
        f"{ld.key} {_reads(rd[ld.key], res)}" for ld in lds))
    for ld in lds:
        if ld.why or ld.reason:
            out.append(f"  {ld.name}: {_status(ld)}; {ld.reason or ld.why}")
    if res["fw"] == "bios":
        io = io_numbers(s["anysector"])
        out.append("  stage2: " + (
            f"disk 0x{io[0]:02x}: {io[1]} AH=42h calls, {io[2]} bytes, {fmt(io[3])} calls per MiB "
            f"(SeaBIOS limit {SEABIOS_CALLS_PER_MIB})" if io else
            "AH=42h calls n/a (stage2 printed no 'disk 0x..: N int 13h AH=42h calls' line)"))
    return "\n".join(out)


def summary_text(results):
    lines = ["summary (median seconds QEMU start -> marker; ratio anysector / reference peer):"]
    for res in results:
        s = stats(res)
        ref = s["ref"]
        lines.append(f"  {res['name']:<18} floor {fmt(s['median'][s['floor'].key])}"
                     f"  anysector {fmt(s['median'][ANYSECTOR_KEY])}"
                     + (f"  {ref.key} {fmt(s['median'][ref.key])}  ratio {fmt(s['ratio'])}"
                        if ref else ""))
    return "\n".join(lines)


def machine():
    model, flags = "?", ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() == "model name" and model == "?":
                    model = v.strip()
                elif k.strip() == "flags" and not flags:
                    flags = v
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError):
        mem = 0
    virt = "virtual machine" if " hypervisor" in flags else "no hypervisor flag"
    return (f"{os.cpu_count()} vCPU ({model}, {virt}), {mem / (1 << 30):.0f} GiB RAM, "
            f"Linux {platform.release()}")


def _load_sentence(meta):
    ls, le, oth = meta["load_start"], meta["load_end"], meta["others_cpu"]
    idle = oth < 0.25
    return (f"Host load: load average {ls[0]:.2f} at the start, {le[0]:.2f} at the end; other "
            f"processes kept {oth:.2f} of {os.cpu_count()} CPUs busy on average during the run"
            + (" (about idle)." if idle else
               " — the host was NOT idle: wall times are inflated and spread by that load; the "
               "cpu-second rows are less disturbed by it."))


def text(meta, results, size_rows):
    head = [f"anysector boot benchmark {meta['finished']:%Y-%m-%d %H:%M} UTC  git {meta['git']}",
            f"command: {meta['command']}", "machine: " + machine(), _load_sentence(meta),
            "packages: " + ", ".join(f"{p} {v}" for p, v in meta["versions"].items())]
    body = [case_text(r, meta["runs"]) for r in results]
    sz = ["sizes:"] + [f"  {w:<42}{'-' if b is None else b:>8}  {n}" for w, b, n in size_rows]
    return "\n\n".join(["\n".join(head)] + body + ["\n".join(sz), summary_text(results)]) + "\n"


def floor_why(res, fs):
    """What anysector's own time beyond the read floor's is spent on: the read floor's later
    passes add stage2's or BOOTX64.EFI's per-call work one piece at a time, and the loader's own
    lines mark its phases; measured, nothing assumed."""
    own, calls, ph, p = fs["own"], fs["calls"], fs["phases"], fs["passes"]
    if own is None or not calls or len(p) < 3 or None in p:
        return ""
    if res["fw"] == "bios" and len(p) >= 4:
        parts = [f"{ph[n]:.3f} s {w}" for n, w in (
            ("open", "before the first kernel byte (the kernel's header, the memory map, the "
                     "initrds' directory entries)"),
            ("kernel", "the kernel"), ("initrd", "the initrd")) if n in ph]
        return (f"anysector took {own:.3f} s ({', '.join(parts)}) for the {calls} AH=42h calls "
                f"the floor reader made in {p[0]:.3f} s ({p[0] / calls * 1000:.3f} ms per call). "
                f"Adding stage2's per-call work to the floor reader one piece at a time: the "
                f"switch to protected mode and back around each call {_signed(p[1] - p[0])} s; the "
                f"copy of each call's bytes out of the bounce buffer into memory never written "
                f"before {_signed(p[2] - p[1])} s, of which {_signed(p[2] - p[3])} s is that first "
                f"write (the same copies into memory already written: {_signed(p[3] - p[1])} s). "
                + (_clock_sentence(ph, "stage2", "AH=42h calls", p[0], "the floor reader's")
                   or f"What is left, {_signed(own - p[2])} s, is stage2's own work: finding and "
                   "walking the files, the memory map, the block layer"))
    rd = ph.get("read")
    return (f"anysector took {own:.3f} s for the {calls} ReadBlocks calls the floor application "
            f"made in {p[0]:.3f} s into one buffer. The same calls into fresh memory as large "
            f"as BOOTX64.EFI's buffers took {p[1]:.3f} s, and into that memory again "
            f"{p[2]:.3f} s: the guest's first write to memory costs {_signed(p[1] - p[2])} s. "
            + (_clock_sentence(ph, "BOOTX64.EFI", "ReadBlocks calls", p[1],
                               "the floor's into fresh memory")
               or f"What is left, {_signed(own - p[1])} s, is spent outside those calls' reads: "
               "BOOTX64.EFI finding and walking the files and allocating their buffers"
               + (f" ({rd:.3f} s to the end of the initrd's read, the rest offering the initrd "
                  "through LoadFile2 and listing the calls)" if rd is not None else "")))


def _signed(x):
    """x seconds with its sign, to the millisecond; a difference that rounds to nothing is
    "+0.000", never "-0.000"."""
    return f"{round(x, 3) + 0.0:+.3f}"


def _clock_sentence(ph, who, calls, floor_s, floor_what):
    """What the loader's own clock (bench.clock_phases) says its time went to, or "" when it
    gave no count."""
    if not all(k in ph for k in ("calls", "copies", "rest")):
        return ""
    rest = ("finding and walking the files, the memory map, the block layer" if who == "stage2"
            else "finding and walking the files, allocating their buffers, offering the "
            "initrd through LoadFile2")
    console = (f"{ph['console']:.3f} s writing its lines to the console (the floor writes one "
               "line in its stretch), " if "console" in ph else "")
    return (f"By {who}'s own clock (the guest's time stamp counter, as shares of its wall "
            f"time, up to its list's first line): {ph['calls']:.3f} s in the {calls} "
            f"({floor_what}: {floor_s:.3f} s), {ph['copies']:.3f} s copying out of its bounce "
            f"buffer{_slow_copies(ph)}, {console}{ph['rest']:.3f} s in everything else ({rest})")


def _slow_copies(ph):
    """Of stage2's copies, those at least twice as slow per byte as most, or "" when it gave no
    count or there were none."""
    if not ph.get("slow_n") or "slow_copies" not in ph:
        return ""
    n = round(ph["slow_n"])
    return (f" (of it {ph['slow_copies']:.3f} s in {n} {'copy' if n == 1 else 'copies'} at "
            "least twice as slow per byte as most: mostly QEMU's stores into pages holding code "
            "it translated, SeaBIOS's POST code, which it runs from the top of memory where the "
            "initrd goes; docs/FIRMWARE.md \"SeaBIOS\")")


def large_section(meta, large):
    """Markdown: each loader's seconds with a large initrd, or how it failed."""
    L = ["## Large initrds\n",
         f"Each case boots one initrd of the size named ({meta.get('large_runs', 1)} round(s); "
         "random bytes in an uncompressed cpio member, then the busybox archive, whose `/init` "
         "prints the md5 of that member: a run counts only when it is right) with `-m "
         f"{meta.get('large_memory', 4096)}` on NVMe 4Kn, every loader on the same disk. "
         "Seconds from starting QEMU to the marker (median), and where anysector put the "
         "initrd (docs/DESIGN.md \"Where the initrds go\"); the messages of failed boots are "
         "below the table.\n",
         "| case | initrd bytes | floor s | anysector s | anysector's initrd at | peers s |",
         "|---|---:|---:|---:|---:|---|"]
    notes = []
    for res in large:
        s = stats(res)
        peers = []
        for ld in res["loaders"]:
            if ld.why or ld.reason:
                notes.append(f"- {res['name']}, {ld.name} ({_status(ld)}): "
                             f"{ld.reason or ld.why}")
            if ld.role == "peer":
                t = s["median"][ld.key]
                peers.append(f"{ld.name} {fmt(t) if t is not None else 'fails'}")
        an = s["anysector"]
        L.append(f"| {res['name']} | {res['payload'] - meta['kernel_size']} | "
                 f"{fmt(s['median'][s['floor'].key])} | "
                 f"{fmt(s['median'][an.key]) if s['median'][an.key] is not None else 'fails'} | "
                 f"{f'0x{an.initrd_at:x}' if an.initrd_at else '-'} | {'; '.join(peers)} |")
    return "\n".join(L + [""] + notes + [""])


def _spread_text(fs):
    """How far the rounds' ratios spread: a median near the goal is only as sure as this."""
    sp = fs.get("ratio_spread")
    return f"; middle half of {sp[0]} rounds {sp[1]:.2f}-{sp[2]:.2f}" if sp else ""


def goals(results):
    """[(goal, measured text, met: True/False/None, what bounds it or '')] from the medians."""
    out = []
    for res in results:
        if res.get("size"):
            continue
        fs = stats(res)["floor_stats"]
        r = fs.get("ratio")
        met = None if r is None else r <= GOAL_FLOOR_RATIO
        out.append((f"{res['name']}: anysector's own time for the kernel and initrd at most "
                    f"{GOAL_FLOOR_RATIO}× the read floor's",
                    "-" if r is None else
                    f"{r:.2f} ({fs['own']:.3f} s / {fs['floor']:.3f} s{_spread_text(fs)})",
                    met, floor_why(res, fs) if met is False else ""))
    for res in results:
        if not res.get("size"):
            continue
        an = stats(res)["anysector"]
        ok = _ok(an.samples)
        out.append((f"{res['name']}: anysector boots a {res['size'] >> 20} MiB initrd with "
                    f"-m {res['memory']}, the guest's md5 of it right",
                    f"{len(ok)}/{len(an.samples)} boots" if an.samples else "not run",
                    bool(ok) if an.samples else None,
                    "" if ok else (an.reason or an.why or "")))
    for res in results:
        if res["fw"] != "bios" or res.get("size"):
            continue
        io = io_numbers(stats(res)["anysector"])
        v = io[3] if io else None
        out.append((f"{res['name']}: stage2 at most {GOAL_CALLS_PER_MIB} AH=42h calls per MiB",
                    "-" if v is None else f"{v:.2f}", None if v is None else
                    v <= GOAL_CALLS_PER_MIB, ""))
    return out


def markdown(meta, results, size_rows):
    L = []
    add = L.append
    add("# anysector boot benchmark results\n")
    add(f"Generated by `make bench` (`bench/bench.py`); do not edit by hand. Run "
        f"{meta['started']:%Y-%m-%d %H:%M}–{meta['finished']:%H:%M} UTC at git "
        f"`{meta['git']}`.\n")
    if not meta["full"]:
        add("**Partial run** (not every case, fewer than 5 rounds, not GPT, or anysector not "
            "built): this file is "
            "written under $BUILD only; `bench/RESULTS.md` keeps the last full run.\n")
    add(f"- Command: `{meta['command']}` ({meta['runs']} round{'s' if meta['runs'] != 1 else ''} "
        "per case, cases "
        f"`{meta['cases']}`, {meta['label'].upper()} disks, failure timeout {meta['timeout']:g} s)")
    add(f"- Machine: {machine()}; QEMU `-accel tcg`, `-smp 1`, `-m 512` (the large-initrd "
        f"cases: `-m {meta.get('large_memory', 4096)}`); the cases with a read floor also "
        "`-mem-prealloc` (the host backs all guest memory before the firmware starts, so no "
        "loader pays the host's first-touch page faults inside its timed stretch: each boot's "
        "seconds include that preallocation, the same for every loader) and QEMU in 4 KiB pages "
        "(prctl PR_SET_THP_DISABLE: the first touch of a new 2 MiB page of its translation "
        "cache stalled the guest 6-9 ms wherever its code first outgrew the page, docs/FIRMWARE.md "
        "\"OVMF\")")
    add(f"- {_load_sentence(meta)}")
    add("- Packages: " + ", ".join(f"{p} {v}" for p, v in meta["versions"].items()))
    add(f"- Workload, identical for every loader: kernel `{os.path.basename(meta['kernel'])}`; "
        f"initrd {meta['initrd_size']} bytes (64 MiB): an uncompressed cpio member of "
        f"{meta['pad_len']} random bytes, then the gzip'd busybox initramfs whose `/init` prints "
        f"the marker; command line `{meta['cmdline']}` (`efi=debug` makes the EFI stub print "
        f"its first line; the kernel stays quiet); a {meta['disk_size'] >> 20} MiB GPT disk made "
        "by `anysector mkimage` (BIOS boot partition, FAT ESP holding kernel and initrd, a third "
        "partition), each peer's disk a copy of it with only the loader swapped; GRUB (ext2) "
        "reads the same kernel and initrd from /boot on ext2 (4 KiB blocks, `mke2fs -d`) in the "
        "third partition, as Debian's installer lays /boot out.")
    add("- Floors: under SeaBIOS, QEMU's `-kernel` with the same disk front-end attached "
        "(firmware and kernel without a loader); under OVMF, whose own `-kernel` loader is "
        "slower than systemd-boot, the firmware's share: a trivial EFI application (the test "
        "payload) as BOOTX64.EFI on a copy of the disk, timed to its first line.")
    add("- Read floors (the limit each loader works against): the firmware's own read path for "
        "exactly the calls anysector made for the kernel and initrd in the case's first boot "
        "(stage2 and BOOTX64.EFI list them as runs of `LBA+sectors x calls` before starting the "
        "kernel). Under SeaBIOS a reader loaded by stage1 in stage2's place "
        "(`bench/floor/bios.asm`) makes the same AH=42h calls into stage2's bounce buffer from "
        "real mode; under OVMF an application in BOOTX64.EFI's place (`bench/floor/efi.c`) "
        "makes the same ReadBlocks calls on the same whole-disk BlockIo into one buffer. "
        "Neither copies, parses or hashes: the time between their line before the first call "
        "and their line after the last is the floor (pass 1); one untimed call before that "
        "line has QEMU translate the firmware's read path, as the loader's earlier reads have "
        "before its own stretch starts. Later passes make the same calls "
        "again, adding one piece of the loader's work each (listed below the table). "
        "anysector's own time is the same stretch of its own boot: from its line naming the "
        "kernel (`loading K`, `Loading TITLE: K`) to its list of calls, printed once the last "
        "initrd byte is read and every pin checked; pinned: the same disk made with "
        "`mkimage --pin`. Ratios are the median over rounds of the two times in the same "
        "round, so drift on the host between rounds cancels out; after the case's rounds of "
        f"every loader, anysector and its read floor boot in alternation until they have "
        f"{meta.get('floor_runs', meta['runs'])} rounds (the firmware's read calls take up to "
        "2-3 times as long in some boots as in others), and the goals give the middle half of "
        "the rounds' ratios.")
    add(f"- Overhead: under SeaBIOS, {OVER_MEANING['bios']}; under OVMF, {OVER_MEANING['uefi']}; "
        "per MiB of kernel + initrd.")
    add("- Disk reads: read commands the virtual disk received up to the marker (QEMU trace "
        "events `ide_exec_cmd` (READ opcodes), `virtio_blk_handle_read`, `pci_nvme_read`): "
        "firmware, loader and the kernel's partition scan alike; per MiB of kernel + initrd.")
    add("- Seconds: wall time from starting QEMU to reading the marker "
        "`ANYSECTOR-LINUX-OK` on the serial console; a run counts only when the marker line "
        "shows the command line and the initrd's md5. Each round runs every loader once, in the "
        "order of the tables' columns. Ratio = anysector / the reference peer (the faster GRUB "
        "under SeaBIOS, systemd-boot under OVMF; below 1: anysector faster).\n")
    add("## Goals\n")
    add("| goal | measured | met |")
    add("|---|---:|---|")
    gl = goals(results)
    for g, v, met, _ in gl:
        add(f"| {g} | {v} | {'-' if met is None else ('yes' if met else '**no**')} |")
    add("")
    for g, _, met, why in gl:
        if met is False and why:
            add(f"- {g}: not met. What bounds it: {why}.")
    add("")
    add("## Against the read floor\n")
    add("anysector's own time for the kernel and initrd against the read floor (pass 1), and "
        "what the floor's later passes add (medians, seconds):\n")
    add("| case | calls | read floor s | anysector s | ratio | pinned s | ratio | pass 2 | "
        "pass 3 | pass 4 | anysector / the pass landing the bytes | cpu s: floor / "
        "anysector / pinned |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for res in results:
        fs = stats(res)["floor_stats"]
        if not fs:
            add(f"| {res['name']} |" + " - |" * 11)
            continue
        p = fs["passes"] + [None] * (4 - len(fs["passes"]))
        add(f"| {res['name']} | {fs['calls']} | {fmt(fs['floor'], 3)} | {fmt(fs['own'], 3)} | "
            f"{fmt(fs['ratio'])} | {fmt(fs['pinned'], 3)} | {fmt(fs['pinned_ratio'])} | "
            f"{fmt(p[1], 3)} | {fmt(p[2], 3)} | {fmt(p[3], 3)} | "
            f"{fmt(fs['landing_ratio'])} (pass {fs['landing_pass'] or '-'}) | "
            f"{fmt(fs['floor_cpu'], 2)} / {fmt(fs['own_cpu'], 2)} / {fmt(fs['pinned_cpu'], 2)} |")
    add("")
    for fw in ("bios", "uefi"):
        if any(r["fw"] == fw for r in results):
            add(f"- Passes under {'SeaBIOS' if fw == 'bios' else 'OVMF'}: " + "; ".join(
                f"{k + 1}) {w}" for k, w in enumerate(floor.PASSES[fw])) + ".")
    if any(r.get("size") for r in results):
        add("- The large-initrd cases boot without `-mem-prealloc` (backing 4 GiB would add "
            "about 25 s to every boot), so the host's first touch of each page of guest memory "
            "falls inside whichever stretch first writes it, and not alike: under OVMF, "
            "BOOTX64.EFI's reads into fresh memory cost QEMU's host far more CPU than the "
            "floor's landing pass (its cpu column), while with `-mem-prealloc` the same reads "
            "took the floor's time (docs/FIRMWARE.md \"OVMF\"). These rows show where a large "
            "boot's time goes; they are no goal.")
    add("")
    large = [r for r in results if r.get("size")]
    if large:
        add(large_section(meta, large))
    add("## Summary\n")
    add("| case | floor s | anysector s | reference peer | peer s | ratio | anysector overhead "
        "s (per MiB) | peer overhead s (per MiB) | disk reads per MiB, peer / anysector | "
        "stage2 AH=42h calls per MiB |")
    add("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for res in results:
        s = stats(res)
        ref = s["ref"]
        io = io_numbers(s["anysector"]) if res["fw"] == "bios" else None
        rk = ref.key if ref else None
        add(f"| {res['name']} | {fmt(s['median'][s['floor'].key])} | "
            f"{fmt(s['median'][ANYSECTOR_KEY])} | {ref.name if ref else '-'} | "
            f"{fmt(s['median'][rk]) if rk and s['median'][rk] is not None else 'fails'} | "
            f"{fmt(s['ratio'])} | {_over_text(s, ANYSECTOR_KEY)} | "
            f"{_over_text(s, rk) if rk else '-'} | "
            f"{fmt(per_mib(s['reads'].get(rk), res), 1) if rk else '-'} / "
            f"{fmt(per_mib(s['reads'][ANYSECTOR_KEY], res), 1)} | "
            + (fmt(io[3]) if io else ("n/a" if res["fw"] == "bios" else "(UEFI)")) + " |")
    add("")
    for res in results:
        s = stats(res)
        lds = res["loaders"]
        add(f"## {res['name']}: {_title(res)}\n")
        add("| round | " + " | ".join(f"{ld.name} s" for ld in lds) + " |")
        add("|---|" + "---:|" * len(lds))
        for n, vals in s["rows"]:
            add(f"| {n} | " + " | ".join(fmt(v) for v in vals) + " |")
        add("| **median** | " + " | ".join(f"**{fmt(s['median'][ld.key])}**" for ld in lds)
            + " |")
        add("| QEMU cpu s (median) | " + " | ".join(fmt(s["cpu"][ld.key]) for ld in lds) + " |")
        add("| overhead s (per MiB) | " + " | ".join(
            "floor" if ld.role == "floor" else "" if ld.role == READ_FLOOR_KEY else
            _over_text(s, ld.key) for ld in lds) + " |")
        add("| kernel and initrd s (own time; read floor: its calls) | " + " | ".join(
            fmt(s["load"].get(ld.key), 3) if ld.load else "" for ld in lds) + " |")
        if res["fw"] == "uefi":
            add("| kernel: EFI stub line to marker s | " + " | ".join(
                fmt(s["kspan"].get(ld.key)) for ld in lds) + " |")
        add("| anysector / this | " + " | ".join(
            fmt(s["ratios"].get(ld.key)) if ld.role == "peer" else "" for ld in lds) + " |")
        add("| disk read commands (median) | " + " | ".join(
            _reads(s["reads"][ld.key], res) for ld in lds) + " |")
        add("")
        if s["ratio_of_pairs"] is not None:
            add(f"- Median of the per-round ratios anysector / {s['ref'].name}: "
                f"{fmt(s['ratio_of_pairs'])}.")
        for ld in lds:
            if ld.why or ld.reason:
                add(f"- {ld.name} ({_status(ld)}): {ld.reason or ld.why}")
        if res["fw"] == "bios":
            io = io_numbers(s["anysector"])
            sp = s["span"].get(ANYSECTOR_KEY)
            add("- anysector stage2: " + (
                f"`disk 0x{io[0]:02x}: {io[1]} int 13h AH=42h calls, {io[2]} bytes read` = "
                f"{io[2] / MiB:.1f} MiB in {io[1]} calls, **{fmt(io[3])} calls per MiB** "
                f"(SeaBIOS's limit: {SEABIOS_CALLS_PER_MIB} per MiB at 64 KiB per call)"
                + (f"; {sp:.2f} s from its first line to `starting the kernel`" if sp else "")
                if io else
                "n/a — stage2 printed no `disk 0x..: N int 13h AH=42h calls, B bytes read` line "
                "(the instrumentation is not in this build)"))
        add("")
    add("## Sizes\n")
    add("| piece | bytes | note |")
    add("|---|---:|---|")
    for what, b, note in size_rows:
        add(f"| {what} | {'-' if b is None else b} | {note} |")
    add("")
    return "\n".join(L)
