#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Firmware and Linux meeting a dual-GPT image (`mkimage --sector-size any`), beyond the boot
matrix of tests/qemu/cases/dual.txt:

- OVMF restores a damaged primary GPT itself on a writable disk (edk2's
  PartitionRestoreGptTable). On an NVMe disk of 512-byte sectors whose 512-byte primary header
  is broken, it boots the payload and writes the 512-byte primary back with its entry array at
  LBA 2, over the 4096-byte primary header: check must name that (exit 2) and repair must give
  back the bytes mkimage wrote. On a 4Kn NVMe disk whose 4096-byte primary is broken, it boots
  and its restore keeps the layout: check is clean and the GPT regions are mkimage's bytes.
- Linux (Debian's cloud kernel, started by QEMU's -kernel with an initramfs that lists
  /sys/block) finds the same partitions at 512 and at 4096-byte sectors, with no GPT complaint.

Run by `make test-qemu-dual` after the boot matrix; suite name qemu-dual-firmware."""
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import boot, console, initramfs, paths, payloads, qemu, results, tool  # noqa: E402
from lib import dual as D  # noqa: E402
from lib.disk import MIB, copy_sparse, read_at, sha256 as sha  # noqa: E402
from lib.results import CaseFailure, Result, Skip  # noqa: E402

SIZE = 64 * MIB
GEO = D.geometry(SIZE)
WORK = paths.build("qemu", "dual-firmware")
BOOT_TIMEOUT = 120      # hang guard: OVMF reaches the payload in 5-35 s under TCG here
CMDLINE = "anysector.test=dual-firmware console=ttyS0"

LINUX_INIT = """#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sys /sys
for d in /sys/block/nvme*; do
  n=$($bb basename $d)
  echo "DISK $n lss=$($bb cat $d/queue/logical_block_size)"
  for p in $d/${n}p*; do
    [ -d $p ] && echo "PART $($bb basename $p) start=$($bb cat $p/start) size=$($bb cat $p/size)"
  done
done
echo "ANYSECTOR-LINUX-OK cmdline=[$($bb cat /proc/cmdline)] filler_md5=$($bb md5sum /proc/cmdline | $bb cut -d' ' -f1)"
$bb poweroff -f
"""


def run_tool(*args):
    """anysector (ASan+UBSan) with its output; CaseFailure on a sanitizer report."""
    p = tool.run([str(a) for a in args], binary=paths.ASAN_ANYSECTOR, timeout=120)
    out = p.stdout + p.stderr
    if tool.sanitizer_report(out):
        raise CaseFailure("sanitizer report:\n" + out[-3000:])
    return p.returncode, out


def expect(rc_out, rc, has=(), what=""):
    got, out = rc_out
    missing = [h for h in has if h not in out]
    if got != rc or missing:
        raise CaseFailure("%s: exit %d (want %d)%s\n%s" % (what, got, rc, ", lacks %r" % missing
                                                           if missing else "", out[-2500:]))


def regions(path):
    return (read_at(path, 0, GEO["first_usable_byte"]),
            read_at(path, GEO["end_usable_byte"], SIZE - GEO["end_usable_byte"]))


def make_image(inputs):
    img = os.path.join(WORK, "dual.img")
    kernel, initrd = inputs.files_for("dual-payload")
    cmd = tool.mkimage_command(img, "64M", "any", 0, 0, paths.STAGES, kernel, initrd, CMDLINE, 0)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise CaseFailure("mkimage --sector-size any failed:\n" + p.stdout + p.stderr)
    return img


def ovmf_repairs(guests, inputs, img, lss):
    """OVMF on a writable copy whose lss-byte primary header is broken; what is left after."""
    name = "ovmf-repairs-%d" % lss
    disk = os.path.join(WORK, name + ".img")
    copy_sparse(img, disk)
    D.break_header(D.File(disk, SIZE), SIZE, lss, "primary")
    expect(run_tool("check", disk), 2, ["the %d-byte GPT's primary header" % lss], "before")
    logs = qemu.log_paths(os.path.join(WORK, name))
    boot.fresh_logs(logs)
    cmd = boot.command("ovmf", "nvme", disk, lss, lss, logs, os.path.join(WORK, name + ".vars"),
                       snapshot=False)
    boot.write_cmd(logs, cmd)
    _, stopped = boot.boot(guests, cmd, logs, BOOT_TIMEOUT)
    serial = console.read_log(logs["serial.log"])
    why = console.check_payload(serial, "efi", CMDLINE, inputs.initrd_size, inputs.initrd_crc)
    if why:
        raise CaseFailure("OVMF did not boot the payload (%s%s):\n%s" % (
            why, "; " + stopped if stopped else "", console.tail(serial)))
    if lss == D.SMALL:
        expect(run_tool("check", disk), 2, [
            "dual.overlap", "the 512-byte GPT's primary entry array (bytes 1024..17407) overlaps "
            "the 4096-byte GPT's primary header", "the 4096-byte GPT's primary header at byte "
            "4096 is invalid"], "after OVMF's restore at 512")
        expect(run_tool("repair", disk, "--backup", disk + ".bak"), 0,
               ["both GPTs valid and agreeing"], "repair")
    expect(run_tool("check", disk), 0, ["both GPTs valid and agreeing"], "at the end")
    if regions(disk) != regions(img):
        raise CaseFailure("the GPT regions differ from what mkimage wrote")
    return "OVMF restored the %d-byte primary GPT%s" % (
        lss, "; check named the clobbered 4096-byte primary, repair mended it" if lss == D.SMALL
        else "; the dual GPT stayed whole")


def linux_sees(guests, img, lss):
    """The partitions (start and size in 512-byte units, from sysfs) Linux finds on img as an
    NVMe disk of lss-byte sectors."""
    kernel = payloads.debian_kernel()
    if not kernel or not os.path.exists("/bin/busybox"):
        raise Skip("needs /boot/vmlinuz-*-cloud-amd64 and /bin/busybox (make deps)")
    initrd = os.path.join(WORK, "linux-list.cpio.gz")
    if not os.path.exists(initrd):
        with open(initrd, "wb") as f:
            f.write(initramfs.build(init=LINUX_INIT, with_filler=False))
    logs = qemu.log_paths(os.path.join(WORK, "linux-%d" % lss))
    boot.fresh_logs(logs)
    cmd = (qemu.base_args(logs["serial.log"], 512) +
           ["-kernel", kernel, "-initrd", initrd, "-append", "console=ttyS0 panic=-1",
            "-drive", "if=none,id=d0,format=raw,snapshot=on,file=" + img,
            "-device", "nvme,drive=d0,serial=dual0,logical_block_size=%d,physical_block_size=%d"
            % (lss, lss)])
    boot.write_cmd(logs, cmd)
    _, stopped = boot.boot(guests, cmd, logs, BOOT_TIMEOUT)
    serial = console.read_log(logs["serial.log"])
    if not console.LINUX_RE.search(serial):
        raise CaseFailure("Linux did not report (%s):\n%s" % (stopped, console.tail(serial)))
    if "DISK nvme0n1 lss=%d" % lss not in serial:
        raise CaseFailure("no %d-byte NVMe disk:\n%s" % (lss, console.tail(serial)))
    if re.search(r"\bGPT:", serial):
        raise CaseFailure("Linux complains about the GPT:\n" + "\n".join(
            ln for ln in serial.splitlines() if "GPT" in ln))
    return re.findall(r"^PART (\S+ start=\d+ size=\d+)", serial, re.M)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    tally = results.Tally()
    missing = qemu.missing()
    if missing:
        print("SKIP all: missing " + ", ".join(missing))
        return results.finish("qemu-dual-firmware", 0, 0, 3)
    inputs = payloads.Inputs(paths.build("qemu"), need_linux=False)
    guests = qemu.Guests()
    try:
        img = make_image(inputs)
    except CaseFailure as e:
        tally.add(Result("mkimage", "FAIL", 0, str(e)))
        return results.finish("qemu-dual-firmware", *tally.counts())
    seen = {}
    for name, run in (("ovmf-repairs-512", lambda: ovmf_repairs(guests, inputs, img, D.SMALL)),
                      ("ovmf-repairs-4096", lambda: ovmf_repairs(guests, inputs, img, D.LARGE)),
                      ("linux-512", lambda: seen.setdefault(512, linux_sees(guests, img, 512))),
                      ("linux-4096", lambda: seen.setdefault(4096, linux_sees(guests, img, 4096)))):
        t0 = time.time()
        try:
            note = run()
            tally.add(Result(name, "PASS", time.time() - t0,
                             note if isinstance(note, str) else " ".join(note)))
        except Skip as e:
            tally.add(Result(name, "SKIP", time.time() - t0, str(e)))
        except CaseFailure as e:
            tally.add(Result(name, "FAIL", time.time() - t0, str(e)))
    if len(seen) == 2:
        ok = seen[512] == seen[4096] and len(seen[512]) >= 2
        tally.add(Result("linux-same-partitions", "PASS" if ok else "FAIL", 0,
                         "at 512: %s; at 4096: %s" % (seen[512], seen[4096])))
    return results.finish("qemu-dual-firmware", *tally.counts())


if __name__ == "__main__":
    sys.exit(main())
