# SPDX-License-Identifier: BSD-2-Clause
"""One timed boot: start QEMU, read its serial console through a pipe, stop at the marker.

The time is wall clock from just before QEMU is started to the moment the marker's last byte is
read, so firmware, loader, kernel and initramfs are all inside it and nothing else is.
"""
import ctypes
import os
import resource
import select
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from lib import qemu  # noqa: E402

# the bench's front-end and firmware names -> tests/lib's
FRONTENDS = {"ide": "ide", "virtio": "virtio-blk", "nvme": "nvme"}
FIRMWARES = {"bios": "seabios", "uefi": "ovmf"}

# front-end -> QEMU trace event fired once per read command the guest sends to the disk
READ_EVENTS = {"ide": "ide_exec_cmd", "virtio": "virtio_blk_handle_read", "nvme": "pci_nvme_read"}
ATA_READS = {0x20, 0x24, 0x25, 0x29, 0xC4, 0xC8}   # READ SECTORS/DMA/MULTIPLE (EXT)

PR_SET_THP_DISABLE = 41   # <linux/prctl.h>; kept across fork and execve
_LIBC = ctypes.CDLL(None, use_errno=True)


def _no_huge_pages():
    """Runs in the child before QEMU starts: its memory is backed in 4 KiB pages, not 2 MiB
    ones. QEMU asks for huge pages for its translation cache, and on this host the first touch
    of a new 2 MiB page of it stalled the vCPU for 6-9 ms at whatever point the guest's code
    first outgrew the page: inside BOOTX64.EFI's timed stretch on OVMF NVMe in most boots
    (docs/FIRMWARE.md "OVMF"), never inside the read floor's, which translates nothing new in
    its stretch. In 4 KiB pages that cost follows the code translated, as every loader's does."""
    if _LIBC.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_THP_DISABLE)")


def qemu_cmd(firmware, frontend, lss, pss, disk, vars_copy=None, direct=None, monitor=None,
             trace=None, memory=512, prealloc=False):
    """firmware: bios|uefi; lss/pss: logical/physical sector size (IDE: logical 512 only);
    vars_copy: where this run's fresh copy of the OVMF variables goes; direct: (kernel, initrd,
    cmdline) for a `-kernel` boot; monitor: a unix socket path for the human monitor (used to
    read the text screen of a boot that never reached the marker); trace: a file that gets one
    line per read command the disk receives (count_reads); prealloc: the host backs all guest
    memory before the firmware starts (-mem-prealloc). The firmware and the disk come
    from tests/lib; the serial line is a pipe here, so each line is timed as it arrives."""
    mon = f"unix:{monitor},server=on,wait=off" if monitor else "none"
    cmd = [qemu.QEMU, "-accel", "tcg", "-m", str(memory), "-smp", "1",
           "-display", "none", "-nic", "none", "-monitor", mon, "-serial", "stdio",
           "-no-reboot", "-machine", "pc" if firmware == "bios" else "q35"]
    if prealloc:
        # The host backs guest memory only when it is first written: without this, whichever
        # loader first writes a page pays the host's page fault inside its timed stretch
        # (measured: BOOTX64.EFI's reads into its new buffers 0.526 s, with it 0.062 s), and
        # the read floor, reading into one reused buffer, never does.
        cmd.append("-mem-prealloc")
    cmd += qemu.firmware_args(FIRMWARES[firmware], vars_copy)
    dev = qemu.disk_args(FRONTENDS[frontend], disk, lss, pss)
    if direct:
        # the floor boots -kernel; the disk is only attached, as the loaders' boots have it
        dev = [a.replace(",bootindex=1", "") for a in dev]
    cmd += dev
    if trace:
        cmd += ["-trace", f"enable={READ_EVENTS[frontend]}", "-D", trace]
    if direct:
        kernel, initrd, cmdline = direct
        cmd += ["-kernel", kernel, "-initrd", initrd, "-append", cmdline]
    return cmd


def warm_files(paths):
    """Reads the data of each file whole (holes skipped), so that the host's page cache holds
    every byte a boot may read before it starts: a loader whose disk image had left the cache
    (another program's drop_caches, memory pressure) would pay the host's disk inside its
    timed reads, while the read floor, whose disk is written just before its first boot, would
    not."""
    buf = bytearray(1 << 20)
    for p in paths:
        if not p or not os.path.isfile(p):
            continue
        with open(p, "rb", buffering=0) as f:
            fd, end, at = f.fileno(), os.fstat(f.fileno()).st_size, 0
            while at < end:
                try:
                    at = os.lseek(fd, at, os.SEEK_DATA)
                    stop = os.lseek(fd, at, os.SEEK_HOLE)
                except OSError:   # no data after at (ENXIO), or no SEEK_DATA here
                    break
                os.lseek(fd, at, os.SEEK_SET)
                while at < stop:
                    n = f.readinto(buf)
                    if not n:
                        break
                    at += n


def screen_text(monitor, out_path, wait=3.0):
    """The VGA text screen (80x25 at 0xB8000) of a running guest, through the monitor's
    pmemsave: what a BIOS loader printed there before it stopped (GRUB writes only there).
    Returns the non-empty lines, or [] when the monitor does not answer."""
    if os.path.exists(out_path):
        os.unlink(out_path)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(wait)
            s.connect(monitor)
            s.sendall(f'pmemsave 0xb8000 4000 "{os.path.abspath(out_path)}"\n'.encode())
            end = time.monotonic() + wait
            while time.monotonic() < end and not (os.path.exists(out_path)
                                                  and os.path.getsize(out_path) == 4000):
                time.sleep(0.05)
    except OSError:
        return []
    try:
        with open(out_path, "rb") as f:
            cells = f.read()
        os.unlink(out_path)
    except OSError:
        return []
    rows = [bytes(cells[r * 160 + 2 * c] for c in range(80)).decode("cp437").strip()
            for r in range(len(cells) // 160)]
    return [r for r in rows if r]


def proc_cpu(pid):
    """CPU seconds (user + system, all threads) a running process has used so far, from
    /proc/PID/stat in clock ticks; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_boot(cmd, marker, timeout, log_path, check=None, monitor=None):
    """Returns (seconds or None, reason, cpu seconds). The time is taken when the marker
    arrives; the rest of its line is then read and the whole line given to check(line), which
    returns None or what is wrong. cpu is QEMU's user+system time (all its threads), which other
    load on the host disturbs much less than the wall time. The serial output is written to
    log_path; with a monitor socket, a boot that times out also gets its text screen there.
    log_path.times gives each serial line the second it arrived and the CPU seconds QEMU had
    used by then (where the time of a boot goes; the CPU column is what other load on the host
    disturbs least)."""
    needle = marker.encode()
    buf = bytearray()
    reason = "timeout"
    at = -1
    arrivals = []   # (seconds since start, QEMU cpu seconds, end offset in buf) per line
    errf = open(log_path + ".stderr", "w+b")
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # the boots whose own-time stretches are compared (those with -mem-prealloc) run without
    # huge pages; the large-initrd boots keep them (4 GiB backed in 4 KiB pages is slower)
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errf,
                         start_new_session=True,   # its own process group, as qemu.kill wants
                         preexec_fn=_no_huge_pages if "-mem-prealloc" in cmd else None)
    elapsed = None
    err = ""
    try:
        fd = p.stdout.fileno()
        os.set_blocking(fd, False)
        deadline = t0 + timeout
        while True:
            if at >= 0 and buf.find(b"\n", at) >= 0:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                p.wait()
                if at < 0:
                    reason = f"QEMU exited ({p.returncode}) before the marker"
                break
            # search only the tail that could hold a marker split across reads
            start = max(0, len(buf) - len(needle))
            buf += chunk
            now = time.monotonic() - t0
            cpu_now = proc_cpu(p.pid)
            arrivals.extend((now, cpu_now, len(buf) - len(chunk) + i + 1)
                            for i, c in enumerate(chunk) if c == 0x0A)
            if at < 0:
                at = buf.find(needle, start)
                if at >= 0:
                    elapsed = time.monotonic() - t0
                    reason = "ok"
    finally:
        screen = []
        if monitor and elapsed is None and p.poll() is None:
            screen = screen_text(monitor, log_path + ".vga")
        if p.poll() is None:
            qemu.kill(p)
        p.wait()
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        p.stdout.close()
        errf.seek(0)
        err = errf.read().decode(errors="replace")
        errf.close()
        os.unlink(log_path + ".stderr")
        with open(log_path, "wb") as f:
            f.write(buf)
            if screen:
                f.write(b"\n--- screen ---\n" + "\n".join(screen).encode() + b"\n")
            if err:
                f.write(b"\n--- qemu stderr ---\n" + err.encode())
        with open(log_path + ".times", "w") as f:
            begin = 0
            for secs, cpu_at, end in arrivals:
                text = buf[begin:end].decode(errors="replace").strip()
                begin = end
                if text:
                    # microseconds: the own-time stretches compared are 10-40 ms long
                    f.write(f"{secs:11.6f} {'-' if cpu_at is None else f'{cpu_at:7.2f}'} {text}\n")
    if elapsed is not None and check:
        line = buf[buf.rfind(b"\n", 0, at) + 1:].split(b"\n", 1)[0].decode(errors="replace")
        bad = check(line)
        if bad:
            return None, bad, cpu
    if elapsed is None and reason == "timeout":
        reason = f"no marker within {timeout:g} s"
    # QEMU's own last words, but not the note it makes when the bench itself ends it
    said = [ln for ln in err.strip().splitlines() if "terminating on signal" not in ln]
    if elapsed is None and said:
        reason += ": " + said[-1]
    if elapsed is None and screen:
        reason += "; screen: " + " | ".join(screen[-3:])
    return elapsed, reason, cpu


def count_reads(frontend, trace):
    """Read commands the disk received (firmware, loader and kernel alike), from a trace file
    made by qemu_cmd(trace=...); None when there is no trace."""
    try:
        with open(trace, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    ev = READ_EVENTS[frontend]
    if frontend == "ide":
        return sum(1 for ln in lines if ln.startswith(ev)
                   and int(ln.rsplit("cmd ", 1)[-1], 16) in ATA_READS)
    return sum(1 for ln in lines if ln.startswith(ev))


def tail(log_path, n=3):
    """The last non-empty serial lines, for a failure report."""
    try:
        with open(log_path, "rb") as f:
            text = f.read().split(b"\n--- ")[0].decode(errors="replace")
    except OSError:
        return ""
    lines = [l.strip() for l in text.replace("\r", "\n").split("\n") if l.strip()]
    return " | ".join(lines[-n:])
