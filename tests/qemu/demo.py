#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make run: builds the demo disk with `anysector mkimage` (GPT, universal: stage1/stage2 and
BOOTX64.EFI) whose default entry is the dual test payload, boots it under SeaBIOS and then OVMF
with the serial console on this terminal, and says after each boot whether the payload's report
matches what is on the disk. Each boot ends by itself (the payload leaves QEMU).

Environment: KERNEL, INITRD, CMDLINE (a real kernel instead of the payload; console=ttyS0 is
appended), RUN_DISK=FRONTEND:SECTORS (default nvme:4Kn), RUN_STAGES (instead of $BUILD/stages), BUILD.
Quit a boot early with Ctrl-A X.
"""
import os
import shlex
import subprocess
import sys
import time

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console, paths, payloads, qemu, tool  # noqa: E402

PAYLOAD_TIMEOUT = 60
KERNEL_TIMEOUT = 900


def main():
    root = paths.build("qemu")
    work = os.path.join(root, "work")
    os.makedirs(work, exist_ok=True)
    stages = os.environ.get("RUN_STAGES") or paths.STAGES
    frontend, _, sectors = (os.environ.get("RUN_DISK") or "nvme:4Kn").partition(":")
    if frontend not in qemu.FRONTENDS or sectors not in qemu.SECTORS:
        sys.exit(f"make run: RUN_DISK={frontend}:{sectors}; want FRONTEND:SECTORS with FRONTEND "
                 f"in {', '.join(qemu.FRONTENDS)} and SECTORS in {', '.join(qemu.SECTORS)}")
    logical, physical = qemu.SECTORS[sectors]
    kernel = os.environ.get("KERNEL") or ""
    initrd = os.environ.get("INITRD") or ""
    if kernel:
        cmdline = " ".join(x for x in (os.environ.get("CMDLINE"), "console=ttyS0") if x)
        timeout = KERNEL_TIMEOUT
    else:
        kernel = paths.DUAL_PAYLOAD
        inputs = payloads.Inputs(root, need_linux=False)
        initrd = inputs.payload_initrd
        cmdline = "anysector.demo=1 console=ttyS0"
        timeout = PAYLOAD_TIMEOUT
    if not os.path.exists(paths.ANYSECTOR):
        sys.exit(f"make run: {paths.ANYSECTOR} does not exist (the installer is not built)")

    image = os.path.join(root, "demo.img")
    if os.path.exists(image):
        os.unlink(image)
    mk = tool.mkimage_command(image, "64M", "gpt", logical, physical, stages, kernel, initrd,
                              cmdline)
    print("make run: " + shlex.join(mk), flush=True)
    if subprocess.run(mk, stdin=subprocess.DEVNULL).returncode != 0:
        sys.exit("make run: anysector mkimage failed")

    failures = 0
    for firmware in ("seabios", "ovmf"):
        log = os.path.join(root, f"demo-{firmware}.serial.log")
        vars_copy = os.path.join(work, "demo.OVMF_VARS.fd")
        if os.path.exists(log):
            os.unlink(log)
        cmd = (qemu.base_args("stdio", 512) + qemu.firmware_args(firmware, vars_copy, None)
               + qemu.disk_args(frontend, image, logical, physical))
        # Also keep what the terminal shows, to check the payload's report afterwards.
        i = cmd.index("mon:stdio")
        cmd[i - 1:i + 1] = ["-chardev", f"stdio,id=con0,mux=on,signal=off,logfile={log}",
                            "-serial", "chardev:con0", "-mon", "chardev=con0,mode=readline"]
        print(f"\n===== make run: {firmware}, {frontend} {sectors} "
              f"({logical}/{physical}), Ctrl-A X quits =====", flush=True)
        t0 = time.monotonic()
        try:
            rc = subprocess.run(cmd, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = None
        finally:
            if sys.stdin.isatty():
                subprocess.run(["stty", "sane"])
            if os.path.exists(vars_copy):
                os.unlink(vars_copy)
        took = time.monotonic() - t0
        if rc is None:
            print(f"\nmake run: {firmware}: no exit after {timeout} s, stopped")
            failures += 1
            continue
        if kernel != paths.DUAL_PAYLOAD:
            print(f"\nmake run: {firmware}: QEMU exited with status {rc} after {took:.1f} s")
            continue
        proto = "2.15" if firmware == "seabios" else "efi"
        why = console.check_payload(console.read_log(log), proto, cmdline, inputs.initrd_size,
                                    inputs.initrd_crc)
        if why:
            failures += 1
            print(f"\nmake run: {firmware}: FAILED: {why} (log {log})")
        else:
            print(f"\nmake run: {firmware}: the payload received the command line and the "
                  f"{inputs.initrd_size}-byte initrd intact (crc32 {inputs.initrd_crc:08x}) "
                  f"in {took:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
