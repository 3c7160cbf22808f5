# SPDX-License-Identifier: BSD-2-Clause
"""Launching QEMU: the command line (firmware, the disk on its front-end with a sector profile,
serial and debug ports, blkdebug read faults), and the run itself: QEMU in its own process
group, its logs watched until the guest has said its last word or the hang guard fires, and
always ended (docs/FIRMWARE.md "SeaBIOS" and "OVMF": the measured behaviour this relies on).

    guests = qemu.Guests()
    cmd = qemu.base_args(serial_log) + qemu.firmware_args("seabios", vars_copy, debugcon_log) \
        + qemu.disk_args("nvme", image, 4096, 4096)
    run = guests.run(cmd, qemu_log, timeout=45, watch=lambda: "done" if ... else None)
    run.rc, run.why, run.timed_out, run.lingered, run.seconds
"""
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import threading
import time

QEMU = "qemu-system-x86_64"
SEABIOS = "/usr/share/seabios/bios-256k.bin"   # bios.bin has no NVMe driver
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
# Secure Boot on, the snakeoil test key in PK, KEK and db (Debian ovmf's README.Debian); this
# build needs SMM, so a q35 machine with smm=on and the flash in secure mode.
OVMF_SB_CODE = "/usr/share/OVMF/OVMF_CODE_4M.snakeoil.fd"
OVMF_SB_VARS = "/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd"
DEBUG_EXIT = "isa-debug-exit,iobase=0xf4,iosize=0x04"

FIRMWARES = ("seabios", "ovmf")
FRONTENDS = ("ide", "virtio-blk", "virtio-scsi", "nvme")
# Sector profiles: (logical, physical) bytes per sector.
SECTORS = {"512n": (512, 512), "512e": (512, 4096), "4Kn": (4096, 4096)}

# Exit statuses that mean something to the harnesses.
EXIT_PAYLOAD_REPORTED = 33   # BIOS payload wrote 0x10 to isa-debug-exit
EXIT_PAYLOAD_ERROR = 35      # BIOS payload wrote 0x11

BLKDEBUG_UNIT = 512     # blkdebug's `sector` counts 512-byte units whatever the disk's sectors
POLL_SECONDS = 0.2


def missing():
    """What of QEMU and the firmware files is not installed (empty when all is there)."""
    gone = [p for p in (SEABIOS, OVMF_CODE, OVMF_VARS) if not os.path.exists(p)]
    return gone + ([QEMU] if shutil.which(QEMU) is None else [])


MISSING_PACKAGES = "Debian packages qemu-system-x86, seabios, ovmf; run make deps"


def disk_args(frontend, image, logical, physical, snapshot=True, blkdebug=None, cache=None):
    """blkdebug: a rules file (blkdebug_rules; docs/FIRMWARE.md "Fault injection") that makes
    chosen reads fail. cache: QEMU's cache mode for the image ("unsafe": the guest's flushes
    are not passed on to the host's disk, for a writable disk only the next QEMU reads)."""
    source = f"blkdebug:{blkdebug}:{image}" if blkdebug else image
    drive = f"if=none,id=disk0,format=raw,file={source}"
    if snapshot:
        drive += ",snapshot=on"    # the image stays as built; OVMF may rewrite a GPT
    if cache:
        drive += f",cache={cache}"
    sizes = f"logical_block_size={logical},physical_block_size={physical}"
    if frontend == "ide":
        if logical != 512:
            raise ValueError("QEMU's IDE disks cannot have 4096-byte logical sectors")
        dev = ["-device", f"ide-hd,drive=disk0,bus=ide.0,unit=0,{sizes},bootindex=1"]
    elif frontend == "virtio-blk":
        dev = ["-device", f"virtio-blk-pci,drive=disk0,{sizes},bootindex=1"]
    elif frontend == "virtio-scsi":
        dev = ["-device", "virtio-scsi-pci,id=scsi0",
               "-device", f"scsi-hd,bus=scsi0.0,drive=disk0,{sizes},bootindex=1"]
    elif frontend == "nvme":
        dev = ["-device", f"nvme,drive=disk0,serial=anysector0,{sizes},bootindex=1"]
    else:
        raise ValueError(f"unknown front-end {frontend}")
    return ["-drive", drive] + dev


def firmware_args(firmware, vars_copy=None, debugcon_log=None, keep_vars=False):
    """vars_copy: where this run's private copy of the OVMF variable store goes; keep_vars: an
    existing vars_copy is used as it is (the store an earlier boot of the same machine left)."""
    fresh = not (keep_vars and vars_copy and os.path.exists(vars_copy))
    if firmware == "seabios":
        # reboot-timeout=0: after "No bootable device." SeaBIOS resets at once, and -no-reboot
        # turns the reset into QEMU's exit, so a disk SeaBIOS cannot boot fails in a second.
        args = ["-bios", SEABIOS, "-boot", "strict=on,reboot-timeout=0"]
    elif firmware == "ovmf":
        if fresh:
            shutil.copyfile(OVMF_VARS, vars_copy)
        args = ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
    elif firmware == "ovmf-secboot":
        if fresh:
            shutil.copyfile(OVMF_SB_VARS, vars_copy)
        # a later -machine merges into base_args' one (the type and smm=on win)
        args = ["-machine", "q35,smm=on", "-global", "driver=cfi.pflash01,property=secure,value=on",
                "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_SB_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
    else:
        raise ValueError(f"unknown firmware {firmware}")
    if debugcon_log:
        # SeaBIOS's own log (and OVMF's, on debug builds) goes to port 0x402.
        args += ["-chardev", f"file,id=dbg,path={debugcon_log}",
                 "-device", "isa-debugcon,iobase=0x402,chardev=dbg"]
    return args


def base_args(serial, memory_mb=256):
    """serial: a log file path, or "stdio" for the terminal (make run)."""
    ser = ["-serial", "mon:stdio"] if serial == "stdio" else \
        ["-chardev", f"file,id=ser0,path={serial}", "-serial", "chardev:ser0"]
    return [QEMU, "-machine", "pc", "-accel", "tcg", "-m", str(memory_mb), "-nodefaults",
            "-vga", "std", "-display", "none", "-no-reboot", "-nic", "none",
            "-device", DEBUG_EXIT] + ser + (["-monitor", "none"] if serial != "stdio" else [])


def log_paths(base):
    """The files one run leaves: base.serial.log, .debugcon.log, .qemu.log (QEMU's own
    messages), .cmd (the command line) and, when traced (read_trace_args), .reads.log."""
    return {k: f"{base}.{k}"
            for k in ("serial.log", "debugcon.log", "qemu.log", "cmd", "reads.log")}


# QEMU's trace event for each read a disk front-end asks of the block layer (one line per
# guest request: IDE's per-sector PIO transfers are one each), with its byte offset and length.
READ_TRACE_EVENT = "blk_co_preadv"
READ_TRACE_RE = re.compile(READ_TRACE_EVENT
                           + r" .*\boffset (?P<offset>\d+) bytes (?P<bytes>\d+)")


def read_trace_args(path):
    """Traces every read of the disk to path (read_trace_count counts them)."""
    return ["-trace", f"enable={READ_TRACE_EVENT},file={path}"]


def read_trace_count(trace, sector):
    """How many traced reads include the BLKDEBUG_UNIT-byte unit `sector` of the image."""
    at = sector * BLKDEBUG_UNIT
    return sum(1 for m in READ_TRACE_RE.finditer(trace)
               if int(m["offset"]) <= at < int(m["offset"]) + int(m["bytes"]))


# After its first write (OVMF rewriting the primary GPT from the backup), this many reads pass
# before the sector fails again: OVMF's restore reads the backup array, then checks the new
# primary header and array and reads the array for its partitions (EDK2 PartitionDxe Gpt.c).
REPAIR_READS = 4


def blkdebug_rules(sector, kind, beyond):
    """QEMU blkdebug rules: reads of the BLKDEBUG_UNIT-byte unit `sector` of the image fail (EIO)
    - once: the first read only;
    - always: every read (and every write QEMU has to read it for);
    - after-repair: every read, except the REPAIR_READS reads that follow the first write, so
      OVMF can repair the primary GPT and boot while the loader still meets the error. The
      disk must be writable (no snapshot=on: its overlay would answer the reads itself).
    `beyond` is a sector past the image's end: the placeholder rules that keep blkdebug's
    active error rule from lingering between states (it stays active until another
    inject-error rule of the same event is processed)."""
    def inject(at, state=None, once=False):
        text = f'[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "{at}"\n'
        text += f'once = "{"on" if once else "off"}"\n'
        if state:
            text += f'iotype = "read"\nstate = "{state}"\n'
        return text + "\n"

    def set_state(event, state, new):
        return f'[set-state]\nevent = "{event}"\nstate = "{state}"\nnew_state = "{new}"\n\n'

    if kind != "after-repair":
        return inject(sector, once=kind == "once")
    rules = inject(sector, 1) + set_state("write_aio", 1, 2)
    for k in range(2, 2 + REPAIR_READS):
        rules += inject(beyond, k) + set_state("read_aio", k, k + 1)
    return rules + inject(sector, 2 + REPAIR_READS)


def cpu_seconds(pid):
    """utime + stime of a running process (all its threads), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def kill(proc):
    """Ends a QEMU we started: SIGTERM to its process group, SIGKILL if it lingers."""
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


def describe_exit(rc):
    if rc is None:
        return "no exit (killed by the runner)"
    if rc < 0:
        return f"signal {-rc}"
    return f"exit status {rc}"


@dataclasses.dataclass
class Run:
    """How one QEMU run ended."""
    rc: object          # QEMU's exit status, or None when it had to be killed
    why: object         # watch()'s answer that ended the watch, or None
    timed_out: bool     # the hang guard fired
    interrupted: bool   # Guests.kill_all() was called
    lingered: bool      # after watch()'s answer QEMU did not leave within the grace time
    seconds: float      # from the start to QEMU's exit, watch()'s answer or the hang guard
    cpu_seconds: float = 0.0    # QEMU's CPU time (all threads) as last seen: what the run
                                # would take on an idle host, TCG being one busy thread

    @property
    def exited(self):
        """QEMU ended by itself before watch() said anything."""
        return self.why is None and not self.timed_out and not self.interrupted


class Guests:
    """The QEMUs a harness has running (several threads may run one each)."""

    def __init__(self):
        self.procs = set()
        self.lock = threading.Lock()
        self.stopping = False

    def run(self, cmd, qemu_log, timeout, watch, grace=0.0, poll=POLL_SECONDS):
        """Runs cmd (stdout and stderr to qemu_log) until it exits, watch() returns something
        other than None (the guest has said its last word: it then gets `grace` seconds to
        leave by itself), or `timeout` seconds pass. QEMU is killed if still running."""
        with open(qemu_log, "wb") as out:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        with self.lock:
            self.procs.add(proc)
        t0 = time.monotonic()
        why, timed_out, interrupted, lingered, at, cpu = None, False, False, False, 0.0, 0.0
        try:
            while proc.poll() is None:
                at = time.monotonic() - t0
                cpu = cpu_seconds(proc.pid) or cpu
                if self.stopping:
                    interrupted = True
                    break
                if at >= timeout:
                    timed_out = True
                    break
                why = watch()
                if why is not None:
                    try:
                        proc.wait(grace)
                    except subprocess.TimeoutExpired:
                        lingered = True
                    break
                time.sleep(poll)
            else:
                at = time.monotonic() - t0
        finally:
            rc = proc.poll()
            if rc is None:
                kill(proc)
            with self.lock:
                self.procs.discard(proc)
        return Run(rc, why, timed_out, interrupted, lingered, at, cpu)

    def kill_all(self):
        self.stopping = True
        with self.lock:
            for p in list(self.procs):
                kill(p)
