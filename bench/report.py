"""The benchmark's tables: plain text for the terminal and results.txt, Markdown for RESULTS.md."""
import os
import platform
import statistics

MiB = 1 << 20
PACKAGES = ["qemu-system-x86", "seabios", "ovmf", "grub-pc-bin", "systemd-boot-efi",
            "linux-image-cloud-amd64", "busybox-static"]
SEABIOS_CALLS_PER_MIB = 16   # SeaBIOS moves at most 64 KiB per AH=42h call (128 sectors of 512)


def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def _ok(samples):
    return [s for s in samples if s is not None]


def _median(samples):
    ok = _ok(samples)
    return statistics.median(ok) if ok else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def stats(res):
    """Per-case numbers: peer, anysector and floor loaders, per-round rows, medians, ratios."""
    lds = res["loaders"]
    peer, anys = lds[0], lds[1]
    floor = lds[2] if len(lds) > 2 else None
    rounds = max(len(ld.samples) for ld in lds)

    def at(ld, i):
        return ld.samples[i] if ld and i < len(ld.samples) else None

    rows = [(i + 1, at(peer, i), at(anys, i), _ratio(at(anys, i), at(peer, i)), at(floor, i))
            for i in range(rounds)]
    pair_ratios = [r[3] for r in rows if r[3] is not None]
    med = {ld.name: _median(ld.samples) for ld in lds}
    reads = {ld.name: (round(statistics.median(ld.reads)) if ld.reads else None) for ld in lds}
    cpu = {ld.name: _median(ld.cpu) for ld in lds}
    return {
        "peer": peer, "anysector": anys, "floor": floor, "rows": rows,
        "median": med, "cpu": cpu, "reads": reads,
        "ratio": _ratio(med[anys.name], med[peer.name]),
        "ratio_of_pairs": statistics.median(pair_ratios) if pair_ratios else None,
        "cpu_ratio": _ratio(cpu[anys.name], cpu[peer.name]),
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


def case_text(res, runs):
    s = stats(res)
    peer, anys, floor = s["peer"], s["anysector"], s["floor"]
    out = [f"{res['name']}: {_title(res)}, tcg, {runs} round{'s' if runs != 1 else ''}"]
    out.append(f"  {'round':<7}{peer.short:>14}{'anysector':>11}{'ratio':>7}"
               + (f"{'-kernel':>9}" if floor else ""))
    for n, p, a, r, fl in s["rows"]:
        out.append(f"  {n:<7}{fmt(p):>14}{fmt(a):>11}{fmt(r):>7}"
                   + (f"{fmt(fl):>9}" if floor else ""))
    out.append(f"  {'median':<7}{fmt(s['median'][peer.name]):>14}{fmt(s['median'][anys.name]):>11}"
               f"{fmt(s['ratio']):>7}" + (f"{fmt(s['median'][floor.name]):>9}" if floor else ""))
    out.append(f"  cpu s  {fmt(s['cpu'][peer.name]):>14}{fmt(s['cpu'][anys.name]):>11}"
               f"{fmt(s['cpu_ratio']):>7}" + (f"{fmt(s['cpu'][floor.name]):>9}" if floor else ""))
    rd = s["reads"]
    out.append(f"  disk read commands (median, per MiB of kernel+initrd): {peer.short} "
               f"{_reads(rd[peer.name], res)}, anysector {_reads(rd[anys.name], res)}"
               + (f", -kernel {_reads(rd[floor.name], res)}" if floor else ""))
    for ld in res["loaders"]:
        if ld.why or ld.reason:
            out.append(f"  {ld.name}: {_status(ld)}; {ld.reason or ld.why}")
    if res["fw"] == "bios":
        io = io_numbers(anys)
        out.append("  stage2: " + (
            f"disk 0x{io[0]:02x}: {io[1]} AH=42h calls, {io[2]} bytes, {fmt(io[3])} calls per MiB "
            f"(SeaBIOS limit {SEABIOS_CALLS_PER_MIB})" if io else
            "AH=42h calls n/a (stage2 printed no 'disk 0x..: N int 13h AH=42h calls' line)"))
    return "\n".join(out)


def summary_text(results):
    lines = ["summary (median seconds QEMU start -> marker; ratio anysector/peer):"]
    for res in results:
        s = stats(res)
        lines.append(f"  {res['name']:<18} {s['peer'].short} {fmt(s['median'][s['peer'].name])}"
                     f"  anysector {fmt(s['median'][s['anysector'].name])}"
                     f"  ratio {fmt(s['ratio'])}")
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
        f"the marker; command line `{meta['cmdline']}`; a {meta['disk_size'] >> 20} MiB disk "
        "made by `anysector mkimage` (BIOS boot partition + FAT ESP holding kernel and initrd), "
        "each peer's disk a copy of it with only the loader swapped.")
    add("- Disk reads: read commands the virtual disk received up to the marker (QEMU trace "
        "events `ide_exec_cmd` (READ opcodes), `virtio_blk_handle_read`, `pci_nvme_read`): "
        "firmware, loader and the kernel's partition scan alike; per MiB of kernel + initrd. The "
        "-kernel column shows what firmware and kernel read without a loader.")
    add("- Seconds: wall time from starting QEMU to reading the marker "
        "`ANYSECTOR-LINUX-OK` on the serial console; a run counts only when the marker line "
        "shows the command line and the initrd's md5. Rounds run peer, anysector (, -kernel): "
        "A B A B. Ratio = anysector / peer (below 1: anysector faster).\n")
    add("## Summary\n")
    add("| case | firmware, disk | peer | peer s | anysector s | ratio | -kernel s | "
        "disk reads per MiB, peer / anysector | stage2 AH=42h calls per MiB |")
    add("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for res in results:
        s = stats(res)
        io = io_numbers(s["anysector"]) if res["fw"] == "bios" else None
        peer_med = s["median"][s["peer"].name]
        add(f"| {res['name']} | {_title(res)} | {s['peer'].name} | "
            f"{fmt(peer_med) if peer_med is not None else 'fails: see below'} | "
            f"{fmt(s['median'][s['anysector'].name])} | {fmt(s['ratio'])} | "
            f"{fmt(s['median'][s['floor'].name]) if s['floor'] else 'n/a'} | "
            f"{fmt(per_mib(s['reads'][s['peer'].name], res), 1)} / "
            f"{fmt(per_mib(s['reads'][s['anysector'].name], res), 1)} | "
            + (fmt(io[3]) if io else ("n/a" if res["fw"] == "bios" else "(UEFI)")) + " |")
    add("")
    for res in results:
        s = stats(res)
        peer, anys, floor = s["peer"], s["anysector"], s["floor"]
        add(f"## {res['name']}: {_title(res)}\n")
        add(f"| round | {peer.name} s | anysector s | ratio |"
            + (" -kernel s |" if floor else ""))
        add("|---|---:|---:|---:|" + ("---:|" if floor else ""))
        for n, p, a, r, fl in s["rows"]:
            add(f"| {n} | {fmt(p)} | {fmt(a)} | {fmt(r)} |" + (f" {fmt(fl)} |" if floor else ""))
        add(f"| **median** | **{fmt(s['median'][peer.name])}** | "
            f"**{fmt(s['median'][anys.name])}** | **{fmt(s['ratio'])}** |"
            + (f" **{fmt(s['median'][floor.name])}** |" if floor else ""))
        add(f"| QEMU cpu s (median) | {fmt(s['cpu'][peer.name])} | {fmt(s['cpu'][anys.name])} | "
            f"{fmt(s['cpu_ratio'])} |" + (f" {fmt(s['cpu'][floor.name])} |" if floor else ""))
        rd = s["reads"]
        add(f"| disk read commands (median) | {_reads(rd[peer.name], res)} | "
            f"{_reads(rd[anys.name], res)} | "
            f"{fmt(_ratio(rd[anys.name], rd[peer.name]))} |"
            + (f" {_reads(rd[floor.name], res)} |" if floor else ""))
        add("")
        if s["ratio_of_pairs"] is not None:
            add(f"- Median of the per-round ratios: {fmt(s['ratio_of_pairs'])}.")
        for ld in res["loaders"]:
            if ld.why or ld.reason:
                add(f"- {ld.name} ({_status(ld)}): {ld.reason or ld.why}")
        if res["fw"] == "bios":
            io = io_numbers(anys)
            add("- anysector stage2: " + (
                f"`disk 0x{io[0]:02x}: {io[1]} int 13h AH=42h calls, {io[2]} bytes read` = "
                f"{io[2] / MiB:.1f} MiB in {io[1]} calls, **{fmt(io[3])} calls per MiB** "
                f"(SeaBIOS's limit: {SEABIOS_CALLS_PER_MIB} per MiB at 64 KiB per call)" if io else
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
