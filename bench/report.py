# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark's tables: plain text for the terminal and results.txt, Markdown for RESULTS.md."""
import os
import platform
import statistics

MiB = 1 << 20
PACKAGES = ["qemu-system-x86", "seabios", "ovmf", "grub-pc-bin", "syslinux", "systemd-boot-efi",
            "linux-image-cloud-amd64", "busybox-static"]
SEABIOS_MAX_CALL_BYTES = 64 << 10   # SeaBIOS fails an AH=42h call moving more (AH=09h)
SEABIOS_CALLS_PER_MIB = MiB // SEABIOS_MAX_CALL_BYTES
ANYSECTOR_KEY = "anysector"
# The goals of issue 17 (bench/RESULTS.md's medians of a full run)
GOAL_BIOS_NVME_OVER_S = 0.3
GOAL_BIOS_IDE_RATIO = 0.85
GOAL_UEFI_RATIO = 0.7
GOAL_CALLS_PER_MIB = 16.5


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
    refs = [p for p in peers if p.key.startswith("grub")] if res["fw"] == "bios" else peers
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
        "kspan": {ld.key: _span_median(ld.kspans) for ld in lds},
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
        f"{ld.key} {_over_text(s, ld.key)}" for ld in lds if ld.role != "floor"))
    if s["ref"]:
        out.append(f"  anysector / {s['ref'].key}: {fmt(s['ratio'])}")
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


def goals(results):
    """[(goal, measured text, met: True/False/None, what bounds it or '')] from the medians."""
    out = []
    by = {r["name"]: r for r in results}

    def stage2_rate(res):
        """stage2's span and MiB/s from its first line to 'starting the kernel'."""
        s = stats(res)
        sp, io = s["span"].get(ANYSECTOR_KEY), io_numbers(s["anysector"])
        if sp is None or not io:
            return ""
        return (f"stage2 itself took {sp:.2f} s from its first line to `starting the kernel`, "
                f"reading {io[2] / MiB:.1f} MiB ({io[2] / MiB / sp:.1f} MiB/s)")

    r = by.get("bios-nvme-4Kn")
    if r:
        s = stats(r)
        o = s["over"].get(ANYSECTOR_KEY)
        met = None if o is None else o <= GOAL_BIOS_NVME_OVER_S
        why = ""
        io = io_numbers(s["anysector"])
        sp = s["span"].get(ANYSECTOR_KEY)
        if met is False and io and sp:
            least = -(-io[2] // (SEABIOS_MAX_CALL_BYTES))
            rest = o - sp
            why = (f"{stage2_rate(r)} in {io[1]} AH=42h calls ({sp / io[1] * 1000:.2f} ms "
                   "each), "
                   + (f"and {rest:.2f} s went elsewhere (firmware, stage1, the kernel); "
                      if rest > 0.05 else "which is the whole overhead; ")
                   + f"SeaBIOS moves at most 64 KiB per call, so those bytes "
                   f"take at least {least} calls, and under TCG a call costs about 0.3 ms "
                   f"even for 4 KiB (docs/FIRMWARE.md, SeaBIOS): {least} × 0.3 ms = "
                   f"{least * 0.0003:.2f} s before a byte is copied, while the -kernel floor "
                   f"loads the same files over fw_cfg DMA without a disk command")
        out.append((f"BIOS NVMe 4Kn: anysector's overhead over -kernel at most "
                    f"{GOAL_BIOS_NVME_OVER_S} s", "-" if o is None else f"{o:.2f} s", met, why))
    r = by.get("bios-ide-512e")
    if r:
        s = stats(r)
        ratio, ref = s["ratio"], s["ref"]
        met = None if ratio is None else ratio <= GOAL_BIOS_IDE_RATIO
        why = ""
        if met is False:
            nv = by.get("bios-nvme-4Kn")
            why = (f"SeaBIOS reads IDE by PIO (ATA READ SECTORS, one 16-bit port read per 2 "
                   f"bytes; its Debian build has neither ATA DMA nor 32-bit PIO), the same for "
                   f"every int 13h loader: {stage2_rate(r)}"
                   + (f", against {stage2_rate(nv).split('(')[-1].rstrip(')')} on NVMe" if nv
                      and stage2_rate(nv) else ""))
        out.append((f"BIOS IDE 512e: at most {GOAL_BIOS_IDE_RATIO} of the faster GRUB's time",
                    "-" if ratio is None else f"{ratio:.2f} (against {ref.name})", met, why))
    for name in ("uefi-virtio-512e", "uefi-nvme-4Kn"):
        r = by.get(name)
        if not r:
            continue
        s = stats(r)
        ratio, ref = s["ratio"], s["ref"]
        met = None if ratio is None else ratio <= GOAL_UEFI_RATIO
        why = ""
        if met is False and ref:
            fw = s["median"][s["floor"].key]
            k = s["kspan"].get(ANYSECTOR_KEY)
            own = s["over"].get(ANYSECTOR_KEY)
            peer_t = s["median"][ref.key]
            if None not in (fw, k, own, peer_t):
                why = (f"the firmware's share ({fw:.2f} s to the trivial application's line) "
                       f"and the kernel's (EFI stub's first line to the marker, {k:.2f} s) are "
                       f"the same for every loader; anysector's own time is {own:.2f} s"
                       + (f" against {ref.name}'s {s['over'][ref.key]:.2f} s"
                          if s["over"].get(ref.key) is not None else "") + ", so even "
                       f"a loader taking no time would give ({fw:.2f} + {k:.2f}) / "
                       f"{peer_t:.2f} = {(fw + k) / peer_t:.2f}")
        out.append((f"{name}: at most {GOAL_UEFI_RATIO} of systemd-boot's time",
                    "-" if ratio is None else f"{ratio:.2f}", met, why))
    for res in results:
        if res["fw"] != "bios":
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
    add(f"- Machine: {machine()}; QEMU `-accel tcg`, `-smp 1`, `-m 512`")
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
            "floor" if ld.role == "floor" else _over_text(s, ld.key) for ld in lds) + " |")
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
