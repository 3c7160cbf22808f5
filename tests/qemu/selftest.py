"""The runner's own tests, run at the start of the QEMU suites so a broken harness cannot pass a
broken loader. None needs stage1/stage2, BOOTX64.EFI or the installer:

  selftest-payload-header     the BIOS payload's setup header is what the README promises
  selftest-checker            the line checks accept the right report and reject each wrong field;
                              the menu check accepts only the countdown of the case's timeout
  selftest-bios-direct        SeaBIOS + QEMU's own -kernel/-initrd loader boot the BIOS payload;
                              judged exactly like a matrix case
  selftest-hang-times-out     a disk whose boot sector spins forever ends as a timeout FAIL
  selftest-seabios-refuses    the same disk on virtio-blk 4Kn: SeaBIOS's refusal is recognised
  selftest-efi-mockload       OVMF shell -> mockload.efi (a minimal LoadFile2 loader) -> the EFI
                              payload; judged like a matrix case
  selftest-dual-direct        the dual payload (bzImage + PE) through QEMU's -kernel: BIOS half
  selftest-efi-mockload-dual  the dual payload through mockload.efi: EFI half
  selftest-linux-direct       QEMU's -kernel boots the Debian kernel + our initramfs: the marker
                              line and its checks work
"""
import os
import subprocess

import cases as caselib
import check
import qemu_cmd

HANG_TIMEOUT = 5


def _result(run_mod, name, status, seconds=0.0, message="", kept=()):
    case = caselib.Case("seabios", "ide", "512n", "mbr", "bios-payload")
    r = run_mod.Result(case, status, seconds, message, kept)
    r.display_name = name
    return r


def payload_header(run_mod, runner):
    p = runner.paths.bios_payload
    if not os.path.exists(p):
        return _result(run_mod, "selftest-payload-header", "FAIL", message=f"{p} is not built")
    data = open(p, "rb").read()
    le = lambda off, n: int.from_bytes(data[off:off + n], "little")  # noqa: E731
    setup = (data[0x1F1] + 1) * 512
    problems = []
    if data[0x202:0x206] != b"HdrS" or le(0x1FE, 2) != 0xAA55:
        problems.append("no HdrS / 0xAA55")
    if le(0x206, 2) != 0x020F:
        problems.append(f"protocol 0x{le(0x206, 2):04x}, not 0x020f")
    if not data[0x211] & 1:
        problems.append("not LOADED_HIGH")
    if le(0x1F4, 4) * 16 < len(data) - setup or le(0x1F4, 4) * 16 > len(data) - setup + 15:
        problems.append(f"syssize {le(0x1F4, 4)} does not cover the {len(data) - setup} bytes after setup")
    ki = setup + le(0x268, 4)
    if data[ki:ki + 4] != b"LToP":
        problems.append("kernel_info (LToP) not at kernel_info_offset")
    if le(0x214, 4) != 0x100000:
        problems.append("code32_start is not 0x100000")
    return _result(run_mod, "selftest-payload-header", "FAIL" if problems else "PASS",
                   message="; ".join(problems))


def checker(run_mod, runner):
    inp = runner.inputs
    cmd = "a=1 b=/x,y"
    good = (f'junk\nANYSECTOR-PAYLOAD proto=2.15 cmdline="{cmd}" initrd_size={inp.initrd_size} '
            f'initrd_crc32={inp.initrd_crc:08x}\n')
    problems = []
    if check.check_payload(good, "2.15", cmd, inp.initrd_size, inp.initrd_crc) is not None:
        problems.append("the right line was rejected")
    wrong = {
        "cmdline": (good, "2.15", cmd + "x", inp.initrd_size, inp.initrd_crc),
        "size": (good, "2.15", cmd, inp.initrd_size + 1, inp.initrd_crc),
        "crc": (good, "2.15", cmd, inp.initrd_size, inp.initrd_crc ^ 1),
        "proto": (good, "efi", cmd, inp.initrd_size, inp.initrd_crc),
        "twice": (good + good, "2.15", cmd, inp.initrd_size, inp.initrd_crc),
        "none": (good.replace("\n", " initrd=none\n").replace("junk initrd=none", "junk"),
                 "2.15", cmd, inp.initrd_size, inp.initrd_crc),
        "error": (good + "ANYSECTOR-PAYLOAD-ERROR x\n", "2.15", cmd, inp.initrd_size, inp.initrd_crc),
        "empty": ("", "2.15", cmd, inp.initrd_size, inp.initrd_crc),
    }
    for what, args in wrong.items():
        if check.check_payload(*args) is None:
            problems.append(f"a wrong {what} was accepted")
    if check.escape_cmdline('a"b\\c\u00e9\u20ac') != "a\\x22b\\x5cc\\xe9\\u20ac":
        problems.append("escape_cmdline does not match the payloads' escaping")
    for text, want in (("x\nE4", True), ("E4\nmore", True), ("E820 map\nE42", False),
                       ("anysector: halted.", True), ("all fine", False)):
        if bool(check.gave_up(text, "")) != want:
            problems.append(f"give-up detection is wrong for {text!r}")
    # the menu check: title and countdown as stage2 and BOOTX64.EFI print them
    title = "anysector boot menu\n * 1) x\n"
    bios2 = title + "".join(f"booting 1) in {n} s; press a key for the menu \n" for n in (2, 1))
    efi2 = title + "".join(f"Booting x in {n} s; press any key for the menu. \n" for n in (2, 1))
    for text, fw, seconds, want in ((bios2, "seabios", 2, True), (efi2, "ovmf", 2, True),
                                    (title, "seabios", 0, True), (title, "ovmf", 0, True),
                                    (bios2, "seabios", 0, False), (bios2, "seabios", 3, False),
                                    (efi2, "seabios", 2, False), (efi2, "ovmf", 1, False),
                                    (title, "ovmf", 2, False), (bios2.replace(title, ""),
                                                                 "seabios", 2, False)):
        if (check.check_menu(text, fw, seconds) is None) != want:
            problems.append(f"the menu check is wrong for {fw} timeout {seconds} on {text!r}")
    lx = "ANYSECTOR-LINUX-OK cmdline=[console=ttyS0 anysector.test=k] filler_md5=" + "0" * 32
    if check.check_linux(lx, "anysector.test=k", "0" * 32) is not None:
        problems.append("the right Linux line was rejected")
    if check.check_linux(lx, "anysector.test=j", "0" * 32) is None or \
            check.check_linux(lx, "anysector.test=k", "1" * 32) is None:
        problems.append("a wrong Linux line was accepted")
    return _result(run_mod, "selftest-checker", "FAIL" if problems else "PASS",
                   message="; ".join(problems))


def _boot(run_mod, runner, name, case, cmd_tail, firmware="seabios", timeout=30,
          watch_give_up=True):
    """Boots base args + firmware + cmd_tail; returns (rc, stopped, serial, debugcon, logs, s)."""
    logs = runner.log_paths(caselib.Case(case.firmware, case.frontend, case.sectors, case.label,
                                         case.payload))
    logs = {k: v.replace(case.name, name) for k, v in logs.items()}
    for f in logs.values():
        if os.path.exists(f):
            os.unlink(f)
    vars_copy = os.path.join(runner.paths.work, name + ".OVMF_VARS.fd")
    cmd = (qemu_cmd.base_args(logs["serial.log"])
           + qemu_cmd.firmware_args(firmware, vars_copy, logs["debugcon.log"]) + cmd_tail)
    with open(logs["cmd"], "w") as f:
        f.write(" ".join(cmd) + "\n")
    import time
    t0 = time.monotonic()
    rc, stopped = runner.boot(cmd, logs, timeout, watch_give_up)
    seconds = time.monotonic() - t0
    if os.path.exists(vars_copy):
        os.unlink(vars_copy)
    return (rc, stopped, check.read_log(logs["serial.log"]), check.read_log(logs["debugcon.log"]),
            logs, seconds)


def _finish(run_mod, runner, name, status, why, serial, logs, seconds):
    if status == "FAIL":
        why += "\n  serial log tail:\n" + run_mod.indent(check.tail(serial) or "(empty)")
        kept = tuple(f for f in logs.values() if os.path.exists(f))
    else:
        kept = ()
        for f in logs.values():
            if os.path.exists(f) and not runner.keep:
                os.unlink(f)
    return _result(run_mod, name, status, seconds, why, kept)


def bios_direct(run_mod, runner, name="selftest-bios-direct", kernel=None):
    kernel = kernel or runner.paths.bios_payload
    case = caselib.Case("seabios", "ide", "512n", "mbr", "bios-payload", timeout=30)
    if not os.path.exists(kernel):
        return _result(run_mod, name, "FAIL", message=f"{kernel} is not built")
    tail = ["-kernel", kernel, "-initrd", runner.paths.payload_initrd,
            "-append", case.cmdline]
    rc, stopped, serial, debugcon, logs, s = _boot(run_mod, runner, name, case, tail)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    return _finish(run_mod, runner, name, status, why, serial, logs, s)


def _hang_image(runner, sector):
    path = os.path.join(runner.paths.work, f"hang-{sector}.img")
    with open(path, "wb") as f:
        f.truncate(16 << 20)
        f.write(b"\xfa\xf4\xeb\xfd")          # cli; hlt; jmp back: never returns
        f.seek(510)
        f.write(b"\x55\xaa")
    return path


def hang_times_out(run_mod, runner):
    name = "selftest-hang-times-out"
    case = caselib.Case("seabios", "virtio-blk", "512n", "mbr", "bios-payload", timeout=HANG_TIMEOUT)
    img = _hang_image(runner, 512)
    rc, stopped, serial, debugcon, logs, s = _boot(
        run_mod, runner, name, case, qemu_cmd.disk_args("virtio-blk", img, 512, 512),
        timeout=HANG_TIMEOUT)
    os.unlink(img)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    if status == "FAIL" and stopped and stopped.startswith("timeout") and rc is None:
        return _finish(run_mod, runner, name, "PASS", "", serial, logs, s)
    return _finish(run_mod, runner, name, "FAIL",
                   f"a spinning boot sector should end as a timeout FAIL; got {status} "
                   f"({why or stopped})", serial, logs, s)


def seabios_refuses(run_mod, runner):
    name = "selftest-seabios-refuses"
    case = caselib.Case("seabios", "virtio-blk", "4Kn", "gpt", "bios-payload",
                        expect="seabios-refuses", timeout=caselib.REFUSE_TIMEOUT)
    img = _hang_image(runner, 4096)
    rc, stopped, serial, debugcon, logs, s = _boot(
        run_mod, runner, name, case, qemu_cmd.disk_args("virtio-blk", img, 4096, 4096),
        timeout=case.timeout)
    os.unlink(img)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    if status == "XFAIL":
        return _finish(run_mod, runner, name, "PASS", "", serial, logs, s)
    return _finish(run_mod, runner, name, "FAIL", f"SeaBIOS's refusal was not recognised: {why}",
                   serial, logs, s)


def dual_direct(run_mod, runner):
    return bios_direct(run_mod, runner, "selftest-dual-direct", runner.paths.dual_payload)


def efi_mockload(run_mod, runner, name="selftest-efi-mockload", kernel=None):
    kernel = kernel or runner.paths.efi_payload
    case = caselib.Case("ovmf", "virtio-blk", "512n", "gpt", "efi-payload", timeout=90)
    mock = os.path.join(os.path.dirname(runner.paths.efi_payload), "mockload.efi")
    for p in (kernel, mock):
        if not os.path.exists(p):
            return _result(run_mod, name, "FAIL", message=f"{p} is not built")
    img = os.path.join(runner.paths.work, name + "-fat.img")
    nsh = os.path.join(runner.paths.work, name + "-nsh", "startup.nsh")
    os.makedirs(os.path.dirname(nsh), exist_ok=True)
    with open(nsh, "w", newline="") as f:
        f.write(f"fs0:\r\nmockload.efi payload.efi initrd.bin {case.cmdline}\r\n")
    if os.path.exists(img):
        os.unlink(img)
    try:
        subprocess.run(["mkfs.fat", "-C", img, "16384"], check=True, capture_output=True, timeout=60)
        subprocess.run(["mcopy", "-i", img, mock, nsh, "::/"],
                       check=True, capture_output=True, timeout=60)
        subprocess.run(["mcopy", "-i", img, kernel, "::/payload.efi"],
                       check=True, capture_output=True, timeout=60)
        subprocess.run(["mcopy", "-i", img, runner.paths.payload_initrd, "::/initrd.bin"],
                       check=True, capture_output=True, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError) as e:
        return _result(run_mod, name, "FAIL", message=f"cannot build the FAT image: {e}")
    rc, stopped, serial, debugcon, logs, s = _boot(
        run_mod, runner, name, case, qemu_cmd.disk_args("virtio-blk", img, 512, 512),
        firmware="ovmf", timeout=case.timeout, watch_give_up=False)
    os.unlink(img)
    os.unlink(nsh)
    os.rmdir(os.path.dirname(nsh))
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    return _finish(run_mod, runner, name, status, why, serial, logs, s)


def linux_direct(run_mod, runner):
    """QEMU's -kernel boots the Debian kernel with our initramfs: the marker and the checks work."""
    name = "selftest-linux-direct"
    case = caselib.Case("seabios", "virtio-blk", "512n", "gpt", "linux", timeout=120)
    try:
        kernel, initrd = runner.inputs.files_for("linux")
    except run_mod.CaseFailure as e:
        return _result(run_mod, name, "FAIL", message=str(e))
    tail = ["-m", "512", "-kernel", kernel, "-initrd", initrd, "-append", case.cmdline]
    rc, stopped, serial, debugcon, logs, s = _boot(run_mod, runner, name, case, tail,
                                                   timeout=case.timeout)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    return _finish(run_mod, runner, name, status, why, serial, logs, s)


def efi_mockload_dual(run_mod, runner):
    return efi_mockload(run_mod, runner, "selftest-efi-mockload-dual", runner.paths.dual_payload)


BIOS = [payload_header, checker, bios_direct, hang_times_out, seabios_refuses]
EFI = [efi_mockload, dual_direct, efi_mockload_dual]
LINUX = [linux_direct]
