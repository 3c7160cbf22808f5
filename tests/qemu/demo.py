#!/usr/bin/env python3
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as caselib  # noqa: E402
import check  # noqa: E402
import qemu_cmd  # noqa: E402
import run  # noqa: E402

PAYLOAD_TIMEOUT = 60
KERNEL_TIMEOUT = 900


def main():
    paths = run.Paths(os.environ.get("BUILD") or "build")
    paths.make_dirs()
    if os.environ.get("RUN_STAGES"):
        paths.stages = os.environ["RUN_STAGES"]
    frontend, _, sectors = (os.environ.get("RUN_DISK") or "nvme:4Kn").partition(":")
    if frontend not in caselib.FRONTENDS or sectors not in caselib.SECTORS:
        sys.exit(f"make run: RUN_DISK={frontend}:{sectors}; want FRONTEND:SECTORS with FRONTEND "
                 f"in {', '.join(caselib.FRONTENDS)} and SECTORS in {', '.join(caselib.SECTORS)}")
    logical, physical = caselib.SECTORS[sectors]
    kernel = os.environ.get("KERNEL") or ""
    initrd = os.environ.get("INITRD") or ""
    if kernel:
        cmdline = " ".join(x for x in (os.environ.get("CMDLINE"), "console=ttyS0") if x)
        timeout = KERNEL_TIMEOUT
    else:
        kernel = paths.dual_payload
        inputs = run.Inputs(paths, need_linux=False)
        initrd = paths.payload_initrd
        cmdline = "anysector.demo=1 console=ttyS0"
        timeout = PAYLOAD_TIMEOUT
    if not os.path.exists(paths.anysector):
        sys.exit(f"make run: {paths.anysector} does not exist (the installer is not built)")

    image = os.path.join(paths.root, "demo.img")
    if os.path.exists(image):
        os.unlink(image)
    mk = [paths.anysector, "mkimage", image, "--size", "64M", "--label", "gpt",
          "--sector-size", str(logical)]
    if physical != logical:
        mk += ["--physical-size", str(physical)]
    mk += ["--stages", paths.stages, "--kernel", kernel, "--cmdline", cmdline]
    if initrd:
        mk += ["--initrd", initrd]
    print("make run: " + shlex.join(mk), flush=True)
    if subprocess.run(mk, stdin=subprocess.DEVNULL).returncode != 0:
        sys.exit("make run: anysector mkimage failed")

    failures = 0
    for firmware in ("seabios", "ovmf"):
        log = os.path.join(paths.root, f"demo-{firmware}.serial.log")
        vars_copy = os.path.join(paths.work, "demo.OVMF_VARS.fd")
        if os.path.exists(log):
            os.unlink(log)
        cmd = (qemu_cmd.base_args("stdio", 512) + qemu_cmd.firmware_args(firmware, vars_copy, None)
               + qemu_cmd.disk_args(frontend, image, logical, physical))
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
        if kernel != paths.dual_payload:
            print(f"\nmake run: {firmware}: QEMU exited with status {rc} after {took:.1f} s")
            continue
        proto = "2.15" if firmware == "seabios" else "efi"
        why = check.check_payload(check.read_log(log), proto, cmdline, inputs.initrd_size,
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
