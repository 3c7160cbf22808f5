#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
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
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cases as caselib  # noqa: E402
from lib import boot, console, paths, payloads, qemu, results, tool  # noqa: E402
from lib.results import CaseFailure, Result, indent  # noqa: E402

MAX_JOBS = 2
IMAGE_SIZE = "64M"
MKIMAGE_TIMEOUT = 180
WAIT_SETTLE = 1         # seconds a loader waiting at its menu (an expected failure) may say more


class Paths:
    """This suite's files under $BUILD/qemu, and the stages it installs (--stages)."""

    def __init__(self):
        self.stages = paths.STAGES
        self.root = paths.build("qemu")
        self.logs = os.path.join(self.root, "logs")
        self.images = os.path.join(self.root, "images")
        self.work = os.path.join(self.root, "work")

    def make_dirs(self):
        for d in (self.logs, self.images, self.work):
            os.makedirs(d, exist_ok=True)


def mkimage_command(stages, case, kernel, initrd, out):
    return tool.mkimage_command(out, IMAGE_SIZE, case.label, case.logical, case.physical, stages,
                                kernel, initrd, case.cmdline, case.menu)


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
        if not os.path.exists(paths.ANYSECTOR):
            raise CaseFailure(f"mkimage missing: {paths.ANYSECTOR} does not exist "
                              "(the installer $BUILD/tools/anysector is not built)")
        kernel, initrd = self.inputs.files_for(case.payload)
        out = os.path.join(self.paths.images, case.image_key + ".img")
        if os.path.exists(out):
            os.unlink(out)
        cmd = mkimage_command(self.paths.stages, case, kernel, initrd, out)
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               errors="replace", timeout=MKIMAGE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise CaseFailure(f"anysector mkimage did not finish in {MKIMAGE_TIMEOUT} s\n"
                              f"  command: {shlex.join(cmd)}")
        if r.returncode != 0 or not os.path.exists(out):
            said = console.tail(r.stderr + r.stdout, 12) or "(it printed nothing)"
            raise CaseFailure(f"anysector mkimage failed (exit {r.returncode}):\n"
                              + indent(said) + f"\n  command: {shlex.join(cmd)}")
        return out


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
        self.sector = offset // qemu.BLKDEBUG_UNIT
        self.lba = offset // case.logical               # what the loader must name
        self.backup_lba = len(data) // case.logical - 1
        self.kind = case.fault_kind
        self.beyond = len(data) // qemu.BLKDEBUG_UNIT + 8     # a sector no read ever reaches

    def rules(self):
        return qemu.blkdebug_rules(self.sector, self.kind, self.beyond)


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


class Runner:
    def __init__(self, paths, inputs, keep=False):
        self.paths, self.inputs, self.keep = paths, inputs, keep
        self.images = Images(paths, inputs)
        self.guests = qemu.Guests()

    def log_paths(self, name):
        return qemu.log_paths(os.path.join(self.paths.logs, name))

    def run(self, case):
        t0 = time.monotonic()
        logs = self.log_paths(case.name)
        boot.fresh_logs(logs)
        try:
            image = self.images.get(case)
        except CaseFailure as e:
            return Result(case.name, "FAIL", time.monotonic() - t0, str(e))
        vars_copy = os.path.join(self.paths.work, case.name + ".OVMF_VARS.fd")
        rules, fault = None, None
        if case.fault:
            try:
                fault = Fault(case, image, self.inputs)
            except CaseFailure as e:
                return Result(case.name, "FAIL", time.monotonic() - t0, str(e))
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
        cmd = boot.command(case.firmware, case.frontend, image, case.logical, case.physical, logs,
                           vars_copy, 512 if case.payload == "linux" else 256, blkdebug=rules,
                           snapshot=not writable, trace_reads=self.counts_reads(case))
        note = ""
        if fault:
            note = f"# {rules}:\n" + "".join("# " + ln + "\n" for ln in fault.rules().split("\n"))
        boot.write_cmd(logs, cmd, note)
        t_boot = time.monotonic()
        settle = WAIT_SETTLE if case.fault_outcome in ("read-error", "ovmf-no-partitions") \
            else boot.EXIT_GRACE
        rc, stopped = boot.boot(self.guests, cmd, logs, case.timeout, grace=settle)
        seconds = time.monotonic() - t_boot
        for f in (vars_copy, rules, image if image.startswith(self.paths.work) else None):
            if f and os.path.exists(f):
                os.unlink(f)
        serial = console.read_log(logs["serial.log"])
        debugcon = console.read_log(logs["debugcon.log"])
        if case.fault_outcome == "read-error":
            status, why = self.judge_read_error(case, fault, stopped, serial, debugcon)
        elif case.fault_outcome == "ovmf-no-partitions":
            why = console.check_ovmf_no_partitions(serial)
            status, why = ("FAIL", f"{why} ({stopped or 'QEMU ended by itself'})") if why \
                else ("XFAIL", "OVMF installs no partition on a disk whose primary GPT stays "
                               "unreadable and starts its shell")
        else:
            status, why = self.judge(case, rc, stopped, serial, debugcon)
        if status == "PASS":
            # Only matrix cases go through our loaders' menu (the self-tests boot without them).
            why = (console.check_menu(serial, case.firmware, case.menu)
                   or self.judge_more(case, fault, serial))
            status = "FAIL" if why else status
            why = why or ""
        if status == "FAIL" or self.keep:
            kept = tuple(f for f in logs.values() if os.path.exists(f))
        else:
            kept = ()
            boot.fresh_logs(logs)
        if status == "FAIL":
            why += "\n  serial log tail:\n" + indent(console.tail(serial) or "(empty)")
            if case.firmware == "seabios" and debugcon:
                why += "\n  SeaBIOS debug log tail:\n" + indent(console.tail(debugcon, 10))
            qemu_said = console.tail(console.read_log(logs["qemu.log"]), 5)
            if qemu_said:
                why += "\n  QEMU's own messages:\n" + indent(qemu_said)
        return Result(case.name, status, seconds, why, kept)

    def judge(self, case, rc, stopped, serial, debugcon):
        if case.expect == "seabios-refuses":
            return self.judge_refusal(case, rc, stopped, serial, debugcon)
        if case.payload == "linux":
            why = console.check_linux(serial, f"anysector.test={case.image_key}",
                                      self.inputs.linux_md5)
            want_rc = 0
        else:
            proto = "2.15" if case.firmware == "seabios" else "efi"
            why = console.check_payload(serial, proto, case.cmdline, self.inputs.initrd_size,
                                        self.inputs.initrd_crc)
            want_rc = qemu.EXIT_PAYLOAD_REPORTED if proto == "2.15" else 0
        if why is None and rc != want_rc:
            why = (f"the report is right but QEMU ended with {qemu.describe_exit(rc)}, "
                   f"expected exit status {want_rc}")
        if why is None:
            return "PASS", ""
        gave_up = console.gave_up(serial, debugcon)
        context = stopped or gave_up or f"QEMU ended with {qemu.describe_exit(rc)}"
        return "FAIL", f"{why} ({context})"

    def judge_more(self, case, fault, serial):
        """After a boot that passed: stage2's AH=42h count line (SeaBIOS), and the proof that
        the injected fault happened and was handled as it must be."""
        if case.fault_outcome == "read-error":
            return None         # judge_read_error saw it all: no kernel was started
        if case.firmware == "seabios":
            kernel, initrd = self.inputs.files_for(case.payload)
            loaded = os.path.getsize(kernel) + os.path.getsize(initrd)
            why = console.check_int13_counts(serial, loaded)
            if why:
                return why
        if case.fault_outcome == "retry":
            return console.check_retry(serial, fault.lba)
        if case.fault_outcome == "backup-gpt":
            why = console.check_backup_gpt(serial, fault.backup_lba)
            if why or not self.counts_reads(case):
                return why
            reads = qemu.read_trace_count(console.read_log(self.log_paths(case.name)["reads.log"]),
                                          fault.sector)
            return console.check_sector_reads(serial, fault.lba, reads)
        return None

    @staticmethod
    def counts_reads(case):
        """stage2 gives up on an unreadable GPT sector, which it reads one at a time: how often
        the disk was asked for it is checked (console.check_sector_reads)."""
        return case.firmware == "seabios" and case.fault_outcome == "backup-gpt"

    def judge_read_error(self, case, fault, stopped, serial, debugcon):
        why = console.check_read_error(serial, debugcon, fault.file_name, fault.lba)
        if why is None and stopped and stopped.startswith("timeout"):
            why = "the loader did not come back to its menu before the timeout"
        if why is None:
            return "PASS", ""
        return "FAIL", f"{why} ({stopped or 'QEMU ended by itself'})"

    def judge_refusal(self, case, rc, stopped, serial, debugcon):
        if console.payload_reported(serial):
            line = (console.PAYLOAD_RE.search(serial)
                    or console.PAYLOAD_ERROR_RE.search(serial)).group(0)
            return "FAIL", ("SeaBIOS was expected to refuse this disk, but the payload ran: "
                            + line)
        if "No bootable device" not in debugcon:
            return "FAIL", ("SeaBIOS was expected to give up with \"No bootable device\"; "
                            f"it did not ({stopped or 'QEMU ended with ' + qemu.describe_exit(rc)})")
        if stopped and stopped.startswith("timeout"):
            return "FAIL", f"SeaBIOS gave up but QEMU did not end ({stopped})"
        return "XFAIL", "SeaBIOS refused the disk: \"No bootable device\""


def run_suite(name, case_list, paths, jobs, keep, selftests=(), need_linux=False):
    paths.make_dirs()
    gone = qemu.missing()
    if gone:
        print(f"{name}: missing {', '.join(gone)} ({qemu.MISSING_PACKAGES})")
        return results.finish(name, 0, len(case_list), 0)
    inputs = payloads.Inputs(paths.root, need_linux or any(c.payload == "linux" for c in case_list))
    runner = Runner(paths, inputs, keep)
    t0 = time.monotonic()
    tally = results.Tally()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(jobs, MAX_JOBS))
    try:
        futures = [pool.submit(t, runner) for t in selftests]
        futures += [pool.submit(runner.run, c) for c in case_list]
        for fut in concurrent.futures.as_completed(futures):
            tally.add(fut.result(), details=False)
    except KeyboardInterrupt:
        runner.guests.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    # Images whose cases all passed are removed; the others stay for reproduction.
    keys = {c.name: c.image_key for c in case_list}
    failed_keys = {keys[r.name] for r in tally.results if r.status == "FAIL" and r.name in keys}
    for key, got in runner.images.built.items():
        if isinstance(got, str) and os.path.exists(got):
            if key in failed_keys or keep:
                print(f"{name}: image kept: {got}")
            else:
                os.unlink(got)
    npass, nfail, _ = tally.counts()
    return results.finish(name, npass, nfail, 0, note=f" in {time.monotonic() - t0:.0f}s")


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
    paths = Paths()
    if a.stages:
        paths.stages = a.stages

    import selftest
    selftests = {None: [], "bios": selftest.BIOS, "efi": selftest.EFI, "linux": selftest.LINUX,
                 "faults": selftest.FAULTS,
                 "all": selftest.BIOS + selftest.EFI + selftest.LINUX + selftest.FAULTS,
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
        results.write(a.suite, 0, 0, 0)
        return 0
    return run_suite(a.suite, case_list, paths, max(1, a.jobs), a.keep, selftests)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
