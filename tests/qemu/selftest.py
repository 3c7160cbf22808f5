# SPDX-License-Identifier: BSD-2-Clause
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
  selftest-fault-checks       the fault judgements accept the loaders' real lines and reject
                              each wrong one; the blkdebug rules of each fault kind
"""
import os
import subprocess
import time

import cases as caselib
from lib import boot, console, paths, qemu
from lib.results import CaseFailure, Result, indent

HANG_TIMEOUT = 5


def payload_header(runner):
    p = paths.BIOS_PAYLOAD
    if not os.path.exists(p):
        return Result("selftest-payload-header", "FAIL", message=f"{p} is not built")
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
    return Result("selftest-payload-header", "FAIL" if problems else "PASS",
                   message="; ".join(problems))


def checker(runner):
    inp = runner.inputs
    cmd = "a=1 b=/x,y"
    good = (f'junk\nANYSECTOR-PAYLOAD proto=2.15 cmdline="{cmd}" initrd_size={inp.initrd_size} '
            f'initrd_crc32={inp.initrd_crc:08x}\n')
    problems = []
    if console.check_payload(good, "2.15", cmd, inp.initrd_size, inp.initrd_crc) is not None:
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
        if console.check_payload(*args) is None:
            problems.append(f"a wrong {what} was accepted")
    if console.escape_cmdline('a"b\\c\u00e9\u20ac') != "a\\x22b\\x5cc\\xe9\\u20ac":
        problems.append("escape_cmdline does not match the payloads' escaping")
    for text, want in (("x\nE4", True), ("E4\nmore", True), ("E820 map\nE42", False),
                       ("anysector: halted.", True), ("all fine", False)):
        if bool(console.gave_up(text, "")) != want:
            problems.append(f"give-up detection is wrong for {text!r}")
    # the menu check: title and countdown as both loaders print them (common/menu_draw.c)
    title = "anysector boot menu\n * 1) x\n"
    bios2 = title + "".join(f"booting 1) in {n} s; press a key for the menu \n" for n in (2, 1))
    efi2 = title + "".join(f"\rbooting 1) in {n} s; press a key for the menu " for n in (2, 1))
    old_efi = title + "".join(f"Booting x in {n} s; press any key for the menu. \n" for n in (2, 1))
    for text, fw, seconds, want in ((bios2, "seabios", 2, True), (efi2, "ovmf", 2, True),
                                    (title, "seabios", 0, True), (title, "ovmf", 0, True),
                                    (bios2, "seabios", 0, False), (bios2, "seabios", 3, False),
                                    (old_efi, "ovmf", 2, False), (efi2, "ovmf", 1, False),
                                    (title, "ovmf", 2, False), (bios2.replace(title, ""),
                                                                 "seabios", 2, False)):
        if (console.check_menu(text, fw, seconds) is None) != want:
            problems.append(f"the menu check is wrong for {fw} timeout {seconds} on {text!r}")
    lx = "ANYSECTOR-LINUX-OK cmdline=[console=ttyS0 anysector.test=k] filler_md5=" + "0" * 32
    if console.check_linux(lx, "anysector.test=k", "0" * 32) is not None:
        problems.append("the right Linux line was rejected")
    if console.check_linux(lx, "anysector.test=j", "0" * 32) is None or \
            console.check_linux(lx, "anysector.test=k", "1" * 32) is None:
        problems.append("a wrong Linux line was accepted")
    return Result("selftest-checker", "FAIL" if problems else "PASS",
                   message="; ".join(problems))


def _boot(runner, name, case, cmd_tail, firmware="seabios", timeout=30, watch_give_up=True):
    """Boots base args + firmware + cmd_tail; returns (rc, stopped, serial, debugcon, logs, s)."""
    logs = runner.log_paths(name)
    boot.fresh_logs(logs)
    vars_copy = os.path.join(runner.paths.work, name + ".OVMF_VARS.fd")
    cmd = (qemu.base_args(logs["serial.log"])
           + qemu.firmware_args(firmware, vars_copy, logs["debugcon.log"]) + cmd_tail)
    boot.write_cmd(logs, cmd)
    t0 = time.monotonic()
    rc, stopped = boot.boot(runner.guests, cmd, logs, timeout, watch_give_up)
    seconds = time.monotonic() - t0
    if os.path.exists(vars_copy):
        os.unlink(vars_copy)
    return (rc, stopped, console.read_log(logs["serial.log"]),
            console.read_log(logs["debugcon.log"]), logs, seconds)


def _finish(runner, name, status, why, serial, logs, seconds):
    if status == "FAIL":
        why += "\n  serial log tail:\n" + indent(console.tail(serial) or "(empty)")
        kept = tuple(f for f in logs.values() if os.path.exists(f))
    else:
        kept = ()
        for f in logs.values():
            if os.path.exists(f) and not runner.keep:
                os.unlink(f)
    return Result(name, status, seconds, why, kept)


def bios_direct(runner, name="selftest-bios-direct", kernel=None):
    kernel = kernel or paths.BIOS_PAYLOAD
    case = caselib.Case("seabios", "ide", "512n", "mbr", "bios-payload", timeout=30)
    if not os.path.exists(kernel):
        return Result(name, "FAIL", message=f"{kernel} is not built")
    tail = ["-kernel", kernel, "-initrd", runner.inputs.payload_initrd,
            "-append", case.cmdline]
    rc, stopped, serial, debugcon, logs, s = _boot(runner, name, case, tail)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    return _finish(runner, name, status, why, serial, logs, s)


def _hang_image(runner, sector):
    path = os.path.join(runner.paths.work, f"hang-{sector}.img")
    with open(path, "wb") as f:
        f.truncate(16 << 20)
        f.write(b"\xfa\xf4\xeb\xfd")          # cli; hlt; jmp back: never returns
        f.seek(510)
        f.write(b"\x55\xaa")
    return path


def hang_times_out(runner):
    name = "selftest-hang-times-out"
    case = caselib.Case("seabios", "virtio-blk", "512n", "mbr", "bios-payload", timeout=HANG_TIMEOUT)
    img = _hang_image(runner, 512)
    rc, stopped, serial, debugcon, logs, s = _boot(
        runner, name, case, qemu.disk_args("virtio-blk", img, 512, 512),
        timeout=HANG_TIMEOUT)
    os.unlink(img)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    if status == "FAIL" and stopped and stopped.startswith("timeout") and rc is None:
        return _finish(runner, name, "PASS", "", serial, logs, s)
    return _finish(runner, name, "FAIL",
                   f"a spinning boot sector should end as a timeout FAIL; got {status} "
                   f"({why or stopped})", serial, logs, s)


def seabios_refuses(runner):
    name = "selftest-seabios-refuses"
    case = caselib.Case("seabios", "virtio-blk", "4Kn", "gpt", "bios-payload",
                        expect="seabios-refuses", timeout=caselib.REFUSE_TIMEOUT)
    img = _hang_image(runner, 4096)
    rc, stopped, serial, debugcon, logs, s = _boot(
        runner, name, case, qemu.disk_args("virtio-blk", img, 4096, 4096),
        timeout=case.timeout)
    os.unlink(img)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    if status == "XFAIL":
        return _finish(runner, name, "PASS", "", serial, logs, s)
    return _finish(runner, name, "FAIL", f"SeaBIOS's refusal was not recognised: {why}",
                   serial, logs, s)


def dual_direct(runner):
    return bios_direct(runner, "selftest-dual-direct", paths.DUAL_PAYLOAD)


def efi_mockload(runner, name="selftest-efi-mockload", kernel=None):
    kernel = kernel or paths.EFI_PAYLOAD
    case = caselib.Case("ovmf", "virtio-blk", "512n", "gpt", "efi-payload", timeout=90)
    mock = paths.MOCKLOAD
    for p in (kernel, mock):
        if not os.path.exists(p):
            return Result(name, "FAIL", message=f"{p} is not built")
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
        subprocess.run(["mcopy", "-i", img, runner.inputs.payload_initrd, "::/initrd.bin"],
                       check=True, capture_output=True, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError) as e:
        return Result(name, "FAIL", message=f"cannot build the FAT image: {e}")
    rc, stopped, serial, debugcon, logs, s = _boot(
        runner, name, case, qemu.disk_args("virtio-blk", img, 512, 512),
        firmware="ovmf", timeout=case.timeout, watch_give_up=False)
    os.unlink(img)
    os.unlink(nsh)
    os.rmdir(os.path.dirname(nsh))
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    return _finish(runner, name, status, why, serial, logs, s)


def linux_direct(runner):
    """QEMU's -kernel boots the Debian kernel with our initramfs: the marker and the checks work."""
    name = "selftest-linux-direct"
    case = caselib.Case("seabios", "virtio-blk", "512n", "gpt", "linux", timeout=120)
    try:
        kernel, initrd = runner.inputs.files_for("linux")
    except CaseFailure as e:
        return Result(name, "FAIL", message=str(e))
    tail = ["-m", "512", "-kernel", kernel, "-initrd", initrd, "-append", case.cmdline]
    rc, stopped, serial, debugcon, logs, s = _boot(runner, name, case, tail,
                                                   timeout=case.timeout)
    status, why = runner.judge(case, rc, stopped, serial, debugcon)
    return _finish(runner, name, status, why, serial, logs, s)


def efi_mockload_dual(runner):
    return efi_mockload(runner, "selftest-efi-mockload-dual", paths.DUAL_PAYLOAD)


def fault_checks(runner):
    """The fault judgements accept the loaders' real lines and reject each wrong one (a check
    that cannot fail proves nothing). Lines as stage2 and BOOTX64.EFI print them."""
    problems = []

    def expect(ok, what):
        if not ok:
            problems.append(what)
    retry2 = "disk 0x80: LBA 1323+16 read on try 2, after BIOS error 0x0c\n"
    retry_efi = "disk: LBA 1330+256 read on try 2, after EFI_DEVICE_ERROR\n"
    expect(console.check_retry(retry2, 1323) is None and console.check_retry(retry2, 1338) is None
           and console.check_retry(retry_efi, 1585) is None, "a right retry line was rejected")
    expect(console.check_retry(retry2, 1339) and console.check_retry(retry2, 1322)
           and console.check_retry("", 5)
           and console.check_retry(retry2.replace("try 2", "try 1"), 1323),
           "a retry line not covering the LBA (or none, or a first try) was accepted")
    counts = ("disk 0x80: 120 int 13h AH=42h calls, 6393856 bytes read\n"
              "starting the kernel: a=1\n")
    expect(console.check_int13_counts(counts, 6393856) is None, "the right count line was rejected")
    expect(console.check_int13_counts(counts, 6393857) and console.check_int13_counts("", 1)
           and console.check_int13_counts(counts.replace("\nstarting", "\nx\nstarting"), 1)
           and console.check_int13_counts(counts + counts, 1),
           "a short, missing, misplaced or doubled count line was accepted")
    backup = ("warning: primary GPT header at LBA 1 is invalid (unreadable); using the backup GPT "
              "header at LBA 16383\n")
    expect(console.check_backup_gpt(backup, 16383) is None, "the right backup warning was rejected")
    expect(console.check_backup_gpt(backup, 16384) and console.check_backup_gpt("", 16383),
           "a wrong or missing backup warning was accepted")
    gave_up = ("disk 0x80: cannot read LBA 2 (512-byte sectors): BIOS int 13h error 0x0c after 3 "
               "tries\n")
    expect(console.check_sector_reads(gave_up, 2, 3) is None
           and console.check_sector_reads(gave_up, 2, 4) is None,
           "the tries stage2 told, with or without one read-ahead, were rejected")
    expect(console.check_sector_reads(gave_up, 2, 5) and console.check_sector_reads(gave_up, 2, 2)
           and console.check_sector_reads(gave_up, 3, 4) and console.check_sector_reads("", 2, 3),
           "a sector read again beyond its tries (a second read-ahead retry), fewer reads than "
           "told, another LBA or no give-up line was accepted")
    trace = "".join(f"blk_co_preadv blk 0x55c2 bs 0x55c3 offset {o} bytes {n} flags 0x0\n"
                    for o, n in ((0, 16384), (1024, 512), (512, 512), (1536, 512), (4096, 4096)))
    expect(qemu.read_trace_count(trace, 2) == 2 and qemu.read_trace_count(trace, 8) == 2
           and qemu.read_trace_count(trace, 32) == 0,
           "the read trace is not counted by the 512-byte units each read covers")
    bios_err = ("reading /payload.bzimage/payload-initrd.bin failed: disk 0x80 cannot read "
                "LBA 12350 (BIOS int 13h error 0x0c after 3 tries)\n"
                "booting 1) failed: device I/O error\n\nanysector boot menu\n"
                " * 1) payload.bzimage\n"
                "waiting for a key: 1-1 or Up/Down and Enter boot an entry; Esc leaves\n")
    efi_err = ("error: reading /payload.efi/payload-initrd.bin failed: the disk cannot read LBA "
               "1331 (EFI_DEVICE_ERROR)\nbooting 1) failed: device I/O error\n\n"
               "anysector boot menu\n * 1) payload.efi\n"
               "waiting for a key: 1-1 or Up/Down and Enter boot an entry; Esc leaves\n")
    expect(console.check_read_error(bios_err, "", "payload-initrd.bin", 12350) is None
           and console.check_read_error(efi_err, "", "PAYLOAD-initrd.bin", 1331) is None,
           "a right read-error sentence was rejected")
    payload = 'ANYSECTOR-PAYLOAD proto=2.15 cmdline="" initrd_size=1 initrd_crc32=00000000\n'
    expect(console.check_read_error(bios_err, "", "payload.bzImage", 12350)
           and console.check_read_error(bios_err, "", "payload-initrd.bin", 12351)
           and console.check_read_error(bios_err + payload, "", "payload-initrd.bin", 12350)
           and console.check_read_error(bios_err.split("booting")[0], "", "payload-initrd.bin", 12350)
           and console.check_read_error(efi_err.split("booting")[0], "", "payload-initrd.bin", 1331),
           "a read error naming the wrong file or LBA, followed by the payload, or without "
           "the wait at the menu was accepted")
    shell = "UEFI Interactive Shell v2.2\nMapping table\n     BLK0: Alias(s):\n  PciRoot(0x0)\n"
    expect(console.check_ovmf_no_partitions(shell) is None, "OVMF's measured give-up was rejected")
    expect(console.check_ovmf_no_partitions(shell + "  PciRoot(0x0)/HD(2,GPT,x)\n")
           and console.check_ovmf_no_partitions("anysector boot menu\n" + shell)
           and console.check_ovmf_no_partitions(""),
           "partitions, our menu or no shell were taken for OVMF's give-up")
    rules = qemu.blkdebug_rules(8, "after-repair", 999)
    expect(rules.count("[inject-error]") == 2 + qemu.REPAIR_READS
           and 'once = "on"' in qemu.blkdebug_rules(8, "once", 999)
           and 'once = "off"' in qemu.blkdebug_rules(8, "always", 999),
           "the blkdebug rules are not what the fault kinds say")
    return Result("selftest-fault-checks", "FAIL" if problems else "PASS",
                            message="; ".join(problems))


BIOS = [payload_header, checker, bios_direct, hang_times_out, seabios_refuses]
EFI = [efi_mockload, dual_direct, efi_mockload_dual]
LINUX = [linux_direct]
FAULTS = [fault_checks]
