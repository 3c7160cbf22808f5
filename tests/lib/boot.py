# SPDX-License-Identifier: BSD-2-Clause
"""Booting a disk under QEMU until the guest's last word: the command line for a firmware, a
front-end and a sector profile, the log files of the run, and the watch that ends it when the
test payload or the Linux initramfs has reported or a firmware, loader or kernel has given up
(lib.console's signs). Shared by the boot matrix, the crash tests and the self-tests.

    guests = qemu.Guests()
    logs = qemu.log_paths(os.path.join(log_dir, name))
    cmd = boot.command("seabios", "nvme", image, 4096, 4096, logs, vars_copy)
    rc, stopped = boot.boot(guests, cmd, logs, timeout=45)
    why = console.check_payload(console.read_log(logs["serial.log"]), ...)
"""
import os
import shlex

from lib import console, qemu

EXIT_GRACE = 5          # seconds a guest gets to leave QEMU by itself after its last word


def command(firmware, frontend, image, logical, physical, logs, vars_copy, memory_mb=256,
            blkdebug=None, snapshot=True, trace_reads=False, cache=None, keep_vars=False,
            bootindex=True):
    """QEMU booting image on its front-end under firmware, serial and debug port to logs;
    trace_reads: every read of the disk to logs["reads.log"] (qemu.read_trace_count); cache:
    qemu.disk_args's; keep_vars: qemu.firmware_args's; bootindex False: the disk has none, so
    OVMF keeps BootOrder as its variable store has it (docs/FIRMWARE.md "OVMF")."""
    disk = qemu.disk_args(frontend, image, logical, physical, snapshot, blkdebug, cache)
    if not bootindex:
        disk = [a.replace(",bootindex=1", "") for a in disk]
    return (qemu.base_args(logs["serial.log"], memory_mb)
            + qemu.firmware_args(firmware, vars_copy, logs["debugcon.log"], keep_vars)
            + disk
            + (qemu.read_trace_args(logs["reads.log"]) if trace_reads else []))


def fresh_logs(logs):
    """Removes what an earlier run left in the log files."""
    for f in logs.values():
        if os.path.exists(f):
            os.unlink(f)


def write_cmd(logs, cmd, note=""):
    """Keeps the command line (and a note, e.g. the blkdebug rules) beside the logs."""
    with open(logs["cmd"], "w") as f:
        f.write(shlex.join(cmd) + "\n" + note)


def boot(guests, cmd, logs, timeout, watch_give_up=True, grace=EXIT_GRACE):
    """Runs QEMU until it exits, the guest has said its last word (the payload's or Linux's
    report line; unless watch_give_up is false, a give-up sign too), or timeout; after the
    last word it gets `grace` seconds to leave by itself.
    Returns (exit status or None when killed, why it was stopped or None)."""
    def watch():
        text = console.read_log(logs["serial.log"])
        debugcon = console.read_log(logs["debugcon.log"])
        gave_up = console.gave_up(text, debugcon) if watch_give_up else None
        if gave_up:
            return gave_up
        if console.payload_reported(text) or console.LINUX_RE.search(text):
            return f"the guest reported but did not leave QEMU within {grace} s"
        return None

    run = guests.run(cmd, logs["qemu.log"], timeout, watch, grace)
    if run.interrupted:
        return run.rc, "interrupted"
    if run.timed_out:
        return run.rc, f"timeout: QEMU still running after {timeout} s"
    return run.rc, run.why if run.lingered else None
