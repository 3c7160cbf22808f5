#!/usr/bin/env python3
"""The QEMU boot matrix: for each case, build a disk image with `anysector mkimage`, boot it
under SeaBIOS or OVMF (TCG) on the chosen front-end and sector sizes, and assert what the payload
or the kernel printed on the serial console.

usage: run.py --suite NAME [--self-test bios|efi|linux|faults] CASEFILE...
                                 run the runner's self-tests (selftest.py), then the cases; write
                                 pass/fail/skip to $RESULTS/NAME
       run.py --self-test all     only the self-tests (no loaders or installer needed)
       run.py --list CASEFILE...  print the case names
options: --only GLOB (case names), --jobs N (at most 2), --keep (keep logs and images of passes),
         --stages DIR (instead of $BUILD/stages, e.g. real BOOTX64.EFI + a placeholder stage2)

Paths come from $BUILD (default "build"). Per case: one line PASS/FAIL/XFAIL with seconds; on
failure the reason, the tail of the serial (and SeaBIOS debug) log, and the kept log files under
$BUILD/qemu/logs/.
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import zlib

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as caselib  # noqa: E402
import check  # noqa: E402
import initramfs  # noqa: E402
import qemu_cmd  # noqa: E402

MAX_JOBS = 2
IMAGE_SIZE = "64M"
PAYLOAD_INITRD_BYTES = 6 * 1024 * 1024 + 12345   # >= 6 MiB and not a multiple of 4096
PAYLOAD_INITRD_SEED = 0x6A5EC7
MKIMAGE_TIMEOUT = 180
POLL_SECONDS = 0.2
EXIT_GRACE = 5          # seconds a guest gets to leave QEMU by itself after its last word
WAIT_SETTLE = 1         # seconds a loader waiting at its menu (an expected failure) may say more
BLKDEBUG_UNIT = 512     # blkdebug's `sector` counts 512-byte units whatever the disk's sectors


class CaseFailure(Exception):
    pass


class Paths:
    def __init__(self, build):
        self.build = build
        self.anysector = os.path.join(build, "tools", "anysector")
        self.stages = os.path.join(build, "stages")
        self.bios_payload = os.path.join(build, "payload", "bios", "payload.bzImage")
        self.efi_payload = os.path.join(build, "payload", "efi", "payload.efi")
        self.dual_payload = os.path.join(build, "payload", "dual", "payload-dual.bzImage")
        self.root = os.path.join(build, "qemu")
        self.logs = os.path.join(self.root, "logs")
        self.images = os.path.join(self.root, "images")
        self.work = os.path.join(self.root, "work")
        self.payload_initrd = os.path.join(self.root, "payload-initrd.bin")
        self.linux_initrd = os.path.join(self.root, "linux-initramfs.cpio.gz")

    def make_dirs(self):
        for d in (self.logs, self.images, self.work):
            os.makedirs(d, exist_ok=True)


def debian_kernel():
    """The newest /boot/vmlinuz-*-cloud-amd64, or None."""
    found = glob.glob("/boot/vmlinuz-*-cloud-amd64")

    def version(p):
        return [int(x) if x.isdigit() else x for x in
                os.path.basename(p).replace("-", ".").split(".")]
    return max(found, key=version) if found else None


def write_if_changed(path, data):
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class Inputs:
    """The files a case boots and what the guest must report about them."""

    def __init__(self, paths, need_linux):
        self.paths = paths
        data = random.Random(PAYLOAD_INITRD_SEED).randbytes(PAYLOAD_INITRD_BYTES)
        write_if_changed(paths.payload_initrd, data)
        self.initrd_size = len(data)
        self.initrd_crc = zlib.crc32(data)
        self.kernel = debian_kernel()
        self.linux_md5 = None
        if need_linux and os.path.exists("/bin/busybox"):
            write_if_changed(paths.linux_initrd, initramfs.build())
            self.linux_md5 = initramfs.filler_md5()

    def files_for(self, payload):
        """(kernel, initrd) for a payload kind; CaseFailure naming what is missing."""
        p = self.paths
        if payload == "linux":
            if not self.kernel:
                raise CaseFailure("no /boot/vmlinuz-*-cloud-amd64 (Debian package "
                                  "linux-image-cloud-amd64; run make deps)")
            if not self.linux_md5:
                raise CaseFailure("no /bin/busybox for the initramfs (Debian package "
                                  "busybox-static; run make deps)")
            return self.kernel, p.linux_initrd
        kernel = {"bios-payload": p.bios_payload, "efi-payload": p.efi_payload,
                  "dual-payload": p.dual_payload}[payload]
        if not os.path.exists(kernel):
            raise CaseFailure(f"test payload {kernel} is not built")
        return kernel, p.payload_initrd


def mkimage_command(paths, case, kernel, initrd, out):
    cmd = [paths.anysector, "mkimage", out, "--size", IMAGE_SIZE, "--label", case.label,
           "--sector-size", str(case.logical)]
    if case.physical != case.logical:
        cmd += ["--physical-size", str(case.physical)]
    return cmd + ["--stages", paths.stages, "--kernel", kernel, "--initrd", initrd,
                  "--cmdline", case.cmdline, "--timeout", str(case.menu)]


class Images:
    """One image per image key, built on first use; cases sharing a key boot it with snapshot=on."""

    def __init__(self, paths, inputs):
        self.paths, self.inputs = paths, inputs
        self.lock = threading.Lock()
        self.key_locks = {}
        self.built = {}       # key -> path or CaseFailure

    def get(self, case):
        with self.lock:
            key_lock = self.key_locks.setdefault(case.image_key, threading.Lock())
        with key_lock:
            if case.image_key not in self.built:
                try:
                    self.built[case.image_key] = self._build(case)
                except CaseFailure as e:
                    self.built[case.image_key] = e
            got = self.built[case.image_key]
        if isinstance(got, CaseFailure):
            raise got
        return got

    def _build(self, case):
        p = self.paths
        if not os.path.exists(p.anysector):
            raise CaseFailure(f"mkimage missing: {p.anysector} does not exist "
                              "(the installer tools/anysector is not built)")
        kernel, initrd = self.inputs.files_for(case.payload)
        out = os.path.join(p.images, case.image_key + ".img")
        if os.path.exists(out):
            os.unlink(out)
        cmd = mkimage_command(p, case, kernel, initrd, out)
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               errors="replace", timeout=MKIMAGE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise CaseFailure(f"anysector mkimage did not finish in {MKIMAGE_TIMEOUT} s\n"
                              f"  command: {shlex.join(cmd)}")
        if r.returncode != 0 or not os.path.exists(out):
            said = check.tail(r.stderr + r.stdout, 12) or "(it printed nothing)"
            raise CaseFailure(f"anysector mkimage failed (exit {r.returncode}):\n"
                              + indent(said) + f"\n  command: {shlex.join(cmd)}")
        return out


def indent(text, by="    "):
    return "\n".join(by + ln for ln in text.split("\n"))


class Fault:
    """Where a case's injected read error goes and what the loader must then say."""

    def __init__(self, case, image, inputs):
        with open(image, "rb") as f:
            data = f.read()
        place = case.fault_place
        self.file_name = ""
        if place == "gpt-header":
            offset = case.logical
        elif place == "gpt-entries":
            offset = 2 * case.logical
        elif place == "config":
            offset = unique_offset(data, b"cmdline " + case.cmdline.encode(), "anysector.cfg")
        else:
            kernel, initrd = inputs.files_for(case.payload)
            path = kernel if place == "kernel" else initrd
            self.file_name = os.path.basename(path)
            offset = file_middle_offset(data, path)
        self.sector = offset // BLKDEBUG_UNIT
        self.lba = offset // case.logical               # what the loader must name
        self.backup_lba = len(data) // case.logical - 1
        self.kind = case.fault_kind
        self.beyond = len(data) // BLKDEBUG_UNIT + 8     # a sector no read ever reaches

    def rules(self):
        return qemu_cmd.blkdebug_rules(self.sector, self.kind, self.beyond)


def unique_offset(data, needle, what):
    at = data.find(needle)
    if at < 0 or data.find(needle, at + 1) >= 0:
        raise CaseFailure(f"cannot place the fault: {what} is {'not' if at < 0 else 'not once'} "
                          "on the image")
    return at


def file_middle_offset(data, path):
    """The image offset of a 4 KiB-aligned block of the file, as near its middle as a block
    found exactly once on the image allows (files start on a cluster, so this is a sector)."""
    with open(path, "rb") as f:
        content = f.read()
    block = 4096
    middle = len(content) // 2 // block * block
    for off in sorted(range(0, len(content), block), key=lambda o: abs(o - middle)):
        chunk = content[off:off + block]
        if len(chunk) < 256:
            continue
        at = data.find(chunk)
        if at >= 0 and data.find(chunk, at + 1) < 0:
            return at
    raise CaseFailure(f"cannot place the fault: no block of {path} is found exactly once on "
                      "the image")


class Result:
    def __init__(self, case, status, seconds, message="", kept=()):
        self.case, self.status, self.seconds, self.message, self.kept = \
            case, status, seconds, message, kept


class Runner:
    def __init__(self, paths, inputs, keep=False):
        self.paths, self.inputs, self.keep = paths, inputs, keep
        self.images = Images(paths, inputs)
        self.procs = set()
        self.procs_lock = threading.Lock()
        self.print_lock = threading.Lock()
        self.stopping = False

    def log_paths(self, case):
        base = os.path.join(self.paths.logs, case.name)
        return {k: f"{base}.{k}" for k in ("serial.log", "debugcon.log", "qemu.log", "cmd")}

    def run(self, case):
        t0 = time.monotonic()
        logs = self.log_paths(case)
        for f in logs.values():
            if os.path.exists(f):
                os.unlink(f)
        try:
            image = self.images.get(case)
        except CaseFailure as e:
            return Result(case, "FAIL", time.monotonic() - t0, str(e))
        vars_copy = os.path.join(self.paths.work, case.name + ".OVMF_VARS.fd")
        rules, fault = None, None
        if case.fault:
            try:
                fault = Fault(case, image, self.inputs)
            except CaseFailure as e:
                return Result(case, "FAIL", time.monotonic() - t0, str(e))
            rules = os.path.join(self.paths.work, case.name + ".blkdebug")
            with open(rules, "w") as f:
                f.write(fault.rules())
            if fault.kind == "after-repair":
                # OVMF's repair must reach the image (snapshot=on would answer it from its
                # overlay), so this case writes to a private copy.
                copy = os.path.join(self.paths.work, case.name + ".img")
                shutil.copyfile(image, copy)
                image = copy
        writable = bool(fault) and fault.kind == "after-repair"
        cmd = qemu_cmd.case_command(case, image, logs["serial.log"], logs["debugcon.log"], vars_copy,
                                    blkdebug=rules, snapshot=not writable)
        with open(logs["cmd"], "w") as f:
            f.write(shlex.join(cmd) + "\n")
            if fault:
                f.write(f"# {rules}:\n" + "".join("# " + ln + "\n" for ln in
                                                  fault.rules().split("\n")))
        t_boot = time.monotonic()
        settle = WAIT_SETTLE if case.fault_outcome in ("read-error", "ovmf-no-partitions") \
            else EXIT_GRACE
        rc, stopped = self.boot(cmd, logs, case.timeout, grace=settle)
        seconds = time.monotonic() - t_boot
        for f in (vars_copy, rules, image if image.startswith(self.paths.work) else None):
            if f and os.path.exists(f):
                os.unlink(f)
        serial = check.read_log(logs["serial.log"])
        debugcon = check.read_log(logs["debugcon.log"])
        if case.fault_outcome == "read-error":
            status, why = self.judge_read_error(case, fault, stopped, serial, debugcon)
        elif case.fault_outcome == "ovmf-no-partitions":
            why = check.check_ovmf_no_partitions(serial)
            status, why = ("FAIL", f"{why} ({stopped or 'QEMU ended by itself'})") if why \
                else ("XFAIL", "OVMF installs no partition on a disk whose primary GPT stays "
                               "unreadable and starts its shell")
        else:
            status, why = self.judge(case, rc, stopped, serial, debugcon)
        if status == "PASS":
            # Only matrix cases go through our loaders' menu (the self-tests boot without them).
            why = (check.check_menu(serial, case.firmware, case.menu)
                   or self.judge_more(case, fault, serial))
            status = "FAIL" if why else status
            why = why or ""
        if status == "FAIL" or self.keep:
            kept = tuple(f for f in logs.values() if os.path.exists(f))
        else:
            kept = ()
            for f in logs.values():
                if os.path.exists(f):
                    os.unlink(f)
        if status == "FAIL":
            why += "\n  serial log tail:\n" + indent(check.tail(serial) or "(empty)")
            if case.firmware == "seabios" and debugcon:
                why += "\n  SeaBIOS debug log tail:\n" + indent(check.tail(debugcon, 10))
            qemu_said = check.tail(check.read_log(logs["qemu.log"]), 5)
            if qemu_said:
                why += "\n  QEMU's own messages:\n" + indent(qemu_said)
        return Result(case, status, seconds, why, kept)

    def boot(self, cmd, logs, timeout, watch_give_up=True, grace=EXIT_GRACE):
        """Runs QEMU until it exits, the guest gives up (unless watch_give_up is false), or
        timeout; after the guest's last word it gets `grace` seconds to leave by itself.
        Returns (exit status or None when killed, why it was stopped or None)."""
        with open(logs["qemu.log"], "wb") as out:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        with self.procs_lock:
            self.procs.add(proc)
        deadline = time.monotonic() + timeout
        stopped = None
        try:
            while proc.poll() is None:
                if self.stopping:
                    stopped = "interrupted"
                    break
                if time.monotonic() >= deadline:
                    stopped = f"timeout: QEMU still running after {timeout} s"
                    break
                serial = check.read_log(logs["serial.log"])
                debugcon = check.read_log(logs["debugcon.log"])
                last_word = check.payload_reported(serial) or check.LINUX_RE.search(serial)
                why = check.gave_up(serial, debugcon) if watch_give_up else None
                if last_word or why:
                    # The guest has said what it will say; it should leave QEMU by itself.
                    try:
                        proc.wait(grace)
                    except subprocess.TimeoutExpired:
                        stopped = why or (f"the guest reported but did not leave QEMU within "
                                          f"{grace} s")
                    break
                time.sleep(POLL_SECONDS)
        finally:
            rc = proc.poll()
            if rc is None:
                kill(proc)
            with self.procs_lock:
                self.procs.discard(proc)
        return rc, stopped

    def judge(self, case, rc, stopped, serial, debugcon):
        if case.expect == "seabios-refuses":
            return self.judge_refusal(case, rc, stopped, serial, debugcon)
        if case.payload == "linux":
            why = check.check_linux(serial, f"anysector.test={case.image_key}", self.inputs.linux_md5)
            want_rc = 0
        else:
            proto = "2.15" if case.firmware == "seabios" else "efi"
            why = check.check_payload(serial, proto, case.cmdline, self.inputs.initrd_size,
                                      self.inputs.initrd_crc)
            want_rc = qemu_cmd.EXIT_PAYLOAD_REPORTED if proto == "2.15" else 0
        if why is None and rc != want_rc:
            why = (f"the report is right but QEMU ended with {describe_exit(rc)}, "
                   f"expected exit status {want_rc}")
        if why is None:
            return "PASS", ""
        gave_up = check.gave_up(serial, debugcon)
        context = stopped or gave_up or f"QEMU ended with {describe_exit(rc)}"
        return "FAIL", f"{why} ({context})"

    def judge_more(self, case, fault, serial):
        """After a boot that passed: stage2's AH=42h count line (SeaBIOS), and the proof that
        the injected fault happened and was handled as it must be."""
        if case.fault_outcome == "read-error":
            return None         # judge_read_error saw it all: no kernel was started
        if case.firmware == "seabios":
            kernel, initrd = self.inputs.files_for(case.payload)
            loaded = os.path.getsize(kernel) + os.path.getsize(initrd)
            why = check.check_int13_counts(serial, loaded)
            if why:
                return why
        if case.fault_outcome == "retry":
            return check.check_retry(serial, fault.lba)
        if case.fault_outcome == "backup-gpt":
            return check.check_backup_gpt(serial, fault.backup_lba)
        return None

    def judge_read_error(self, case, fault, stopped, serial, debugcon):
        why = check.check_read_error(serial, debugcon, fault.file_name, fault.lba)
        if why is None and stopped and stopped.startswith("timeout"):
            why = "the loader did not come back to its menu before the timeout"
        if why is None:
            return "PASS", ""
        return "FAIL", f"{why} ({stopped or 'QEMU ended by itself'})"

    def judge_refusal(self, case, rc, stopped, serial, debugcon):
        if check.payload_reported(serial):
            line = (check.PAYLOAD_RE.search(serial) or check.PAYLOAD_ERROR_RE.search(serial)).group(0)
            return "FAIL", ("SeaBIOS was expected to refuse this disk, but the payload ran: "
                            + line)
        if "No bootable device" not in debugcon:
            return "FAIL", ("SeaBIOS was expected to give up with \"No bootable device\"; "
                            f"it did not ({stopped or 'QEMU ended with ' + describe_exit(rc)})")
        if stopped and stopped.startswith("timeout"):
            return "FAIL", f"SeaBIOS gave up but QEMU did not end ({stopped})"
        return "XFAIL", "SeaBIOS refused the disk: \"No bootable device\""

    def kill_all(self):
        self.stopping = True
        with self.procs_lock:
            for p in list(self.procs):
                kill(p)

    def report(self, r):
        with self.print_lock:
            name = getattr(r, "display_name", None) or r.case.name
            print(f"{r.status:5} {r.seconds:6.1f}s  {name}", flush=True)
            if r.status == "FAIL":
                print(indent(r.message, "  "), flush=True)
                if r.kept:
                    print("  logs kept: " + " ".join(r.kept), flush=True)


def fault_checker(run_mod, runner):
    """The fault judgements accept the loaders' real lines and reject each wrong one (a check
    that cannot fail proves nothing). Lines as stage2 and BOOTX64.EFI print them."""
    import selftest
    problems = []

    def expect(ok, what):
        if not ok:
            problems.append(what)
    retry2 = "disk 0x80: LBA 1323+16 read on try 2, after BIOS error 0x0c\n"
    retry_efi = "disk: LBA 1330+256 read on try 2, after EFI_DEVICE_ERROR\n"
    expect(check.check_retry(retry2, 1323) is None and check.check_retry(retry2, 1338) is None
           and check.check_retry(retry_efi, 1585) is None, "a right retry line was rejected")
    expect(check.check_retry(retry2, 1339) and check.check_retry(retry2, 1322)
           and check.check_retry("", 5)
           and check.check_retry(retry2.replace("try 2", "try 1"), 1323),
           "a retry line not covering the LBA (or none, or a first try) was accepted")
    counts = ("disk 0x80: 120 int 13h AH=42h calls, 6393856 bytes read\n"
              "starting the kernel: a=1\n")
    expect(check.check_int13_counts(counts, 6393856) is None, "the right count line was rejected")
    expect(check.check_int13_counts(counts, 6393857) and check.check_int13_counts("", 1)
           and check.check_int13_counts(counts.replace("\nstarting", "\nx\nstarting"), 1)
           and check.check_int13_counts(counts + counts, 1),
           "a short, missing, misplaced or doubled count line was accepted")
    backup = ("warning: primary GPT header at LBA 1 is invalid (unreadable); using the backup GPT "
              "header at LBA 16383\n")
    expect(check.check_backup_gpt(backup, 16383) is None, "the right backup warning was rejected")
    expect(check.check_backup_gpt(backup, 16384) and check.check_backup_gpt("", 16383),
           "a wrong or missing backup warning was accepted")
    bios_err = ("reading /payload.bzimage/payload-initrd.bin failed: disk 0x80 cannot read "
                "LBA 12350 (BIOS int 13h error 0x0c after 3 tries)\n"
                "booting 1) failed: device I/O error\n\nanysector boot menu\n"
                " * 1) payload.bzimage\n"
                "waiting for a key: 1-1 boots an entry; Up/Down and Enter choose\n")
    efi_err = ("error: reading /payload.efi/payload-initrd.bin failed: the disk cannot read LBA "
               "1331 (EFI_DEVICE_ERROR)\nPress any key to return to the menu.\n")
    expect(check.check_read_error(bios_err, "", "payload-initrd.bin", 12350) is None
           and check.check_read_error(efi_err, "", "PAYLOAD-initrd.bin", 1331) is None,
           "a right read-error sentence was rejected")
    payload = 'ANYSECTOR-PAYLOAD proto=2.15 cmdline="" initrd_size=1 initrd_crc32=00000000\n'
    expect(check.check_read_error(bios_err, "", "payload.bzImage", 12350)
           and check.check_read_error(bios_err, "", "payload-initrd.bin", 12351)
           and check.check_read_error(bios_err + payload, "", "payload-initrd.bin", 12350)
           and check.check_read_error(bios_err.split("booting")[0], "", "payload-initrd.bin", 12350)
           and check.check_read_error(efi_err.split("Press")[0], "", "payload-initrd.bin", 1331),
           "a read error naming the wrong file or LBA, followed by the payload, or without "
           "the wait at the menu was accepted")
    shell = "UEFI Interactive Shell v2.2\nMapping table\n     BLK0: Alias(s):\n  PciRoot(0x0)\n"
    expect(check.check_ovmf_no_partitions(shell) is None, "OVMF's measured give-up was rejected")
    expect(check.check_ovmf_no_partitions(shell + "  PciRoot(0x0)/HD(2,GPT,x)\n")
           and check.check_ovmf_no_partitions("anysector boot menu\n" + shell)
           and check.check_ovmf_no_partitions(""),
           "partitions, our menu or no shell were taken for OVMF's give-up")
    rules = qemu_cmd.blkdebug_rules(8, "after-repair", 999)
    expect(rules.count("[inject-error]") == 2 + qemu_cmd.REPAIR_READS
           and 'once = "on"' in qemu_cmd.blkdebug_rules(8, "once", 999)
           and 'once = "off"' in qemu_cmd.blkdebug_rules(8, "always", 999),
           "the blkdebug rules are not what the fault kinds say")
    return selftest._result(run_mod, "selftest-fault-checks", "FAIL" if problems else "PASS",
                            message="; ".join(problems))


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


def run_suite(name, case_list, paths, jobs, keep, selftests=(), need_linux=False):
    paths.make_dirs()
    if shutil_which(qemu_cmd.QEMU) is None or qemu_cmd.missing_files():
        missing = qemu_cmd.missing_files() or [qemu_cmd.QEMU]
        print(f"{name}: missing {', '.join(missing)} (Debian packages qemu-system-x86, seabios, "
              "ovmf; run make deps)")
        write_results(name, 0, len(case_list), 0)
        return 1
    inputs = Inputs(paths, need_linux or any(c.payload == "linux" for c in case_list))
    runner = Runner(paths, inputs, keep)
    t0 = time.monotonic()
    results = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(jobs, MAX_JOBS))
    try:
        futures = [pool.submit(t, sys.modules[__name__], runner) for t in selftests]
        futures += [pool.submit(runner.run, c) for c in case_list]
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            runner.report(r)
            results.append(r)
    except KeyboardInterrupt:
        runner.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    # Images whose cases all passed are removed; the others stay for reproduction.
    failed_keys = {r.case.image_key for r in results
                   if r.status == "FAIL" and not getattr(r, "display_name", None)}
    for key, got in runner.images.built.items():
        if isinstance(got, str) and os.path.exists(got):
            if key in failed_keys or keep:
                print(f"{name}: image kept: {got}")
            else:
                os.unlink(got)
    npass = sum(r.status in ("PASS", "XFAIL") for r in results)
    nfail = sum(r.status == "FAIL" for r in results)
    print(f"{name}: pass={npass} fail={nfail} skip=0 in {time.monotonic() - t0:.0f}s")
    write_results(name, npass, nfail, 0)
    return 0 if nfail == 0 else 1


def shutil_which(prog):
    import shutil
    return shutil.which(prog)


def write_results(name, npass, nfail, nskip):
    results = os.environ.get("RESULTS")
    if results:
        os.makedirs(results, exist_ok=True)
        with open(os.path.join(results, name), "w") as f:
            f.write(f"pass={npass} fail={nfail} skip={nskip}\n")


def main():
    ap = argparse.ArgumentParser(description="QEMU boot matrix for anysector")
    ap.add_argument("casefiles", nargs="*")
    ap.add_argument("--suite", help="suite name for $RESULTS/NAME")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--self-test", choices=("bios", "efi", "linux", "faults", "all"),
                    help="run the runner's own tests first (bios, efi, linux) or only them (all)")
    ap.add_argument("--only", help="run only cases whose name matches this glob")
    ap.add_argument("--jobs", type=int, default=MAX_JOBS)
    ap.add_argument("--keep", action="store_true", help="keep logs and images of passing cases")
    ap.add_argument("--stages", help="stage directory for mkimage (default $BUILD/stages)")
    a = ap.parse_args()
    paths = Paths(os.environ.get("BUILD") or "build")
    if a.stages:
        paths.stages = a.stages

    import selftest
    selftests = {None: [], "bios": selftest.BIOS, "efi": selftest.EFI, "linux": selftest.LINUX,
                 "faults": [fault_checker],
                 "all": selftest.BIOS + selftest.EFI + selftest.LINUX + [fault_checker],
                 }[a.self_test]
    if a.self_test == "all" and not a.casefiles:
        return run_suite(a.suite or "qemu-selftest", [], paths, max(1, a.jobs), a.keep, selftests,
                         need_linux=True)
    if not a.casefiles:
        ap.error("no case files given")
    try:
        case_list = [c for f in a.casefiles for c in caselib.load(f)]
    except (caselib.CaseError, OSError) as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2
    if a.only:
        case_list = [c for c in case_list if fnmatch.fnmatch(c.name, a.only)]
    if a.list:
        for c in case_list:
            fault = f" fault={c.fault}" if c.fault else ""
            print(f"{c.name}  expect={c.expect} timeout={c.timeout}s menu={c.menu}s{fault}")
        return 0
    if not a.suite:
        ap.error("--suite NAME is required to run cases")
    if not case_list and not selftests:
        print(f"{a.suite}: no cases selected")
        write_results(a.suite, 0, 0, 0)
        return 0
    return run_suite(a.suite, case_list, paths, max(1, a.jobs), a.keep, selftests)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
