#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Installer crash-safety (docs/DESIGN.md "Crash-safety write order"): `anysector install`
stopped dead after each of its writes must leave a disk that boots the previous state or the new
one, and `anysector restore` must return it byte-identical.

For each scenario (firmware, disk front-end, sector sizes, label):
  1. "old" and "new" stages are made from the real ones ($BUILD/stages), so the two states differ
     where a torn install hurts: in one of them (per scenario) stage2 is 4 KiB longer (resealed)
     and BOOTX64.EFI 8 KiB longer; the old BOOTX64.EFI's configuration path "/anysector.cfg" is
     patched to "/old-state.cfg";
  2. the previous state P: `anysector mkimage` with the old stages and the test payload, command
     line "anysector.test=crash-new" in anysector.cfg; then old-state.cfg, the same file with
     "anysector.test=crash-old", is copied to the ESP and the installed stage2's configuration
     path patched to it (CRC resealed). So P boots "crash-old" under both firmwares, and a
     complete install of the new stages boots "crash-new". For `add` scenarios P is mkimage's
     image with the real stages booting "crash-old", and the operation is `add --default` of an
     entry booting "crash-new" (anysector.cfg is replaced);
  3. N = the number of writes the operation's --dry-run announces; for every K in 0..N, a copy
     of P gets the operation with ANYSECTOR_TEST_CRASH_AFTER_WRITE=K (it must die with exit 99
     saying so), then
       - the ESP file the operation replaces (BOOTX64.EFI; anysector.cfg for add), read with
         mtools, must be the old or the new file, whole;
       - `anysector check` must exit as it does for P (no new warning or error);
       - (install) installing again on a copy of the crashed disk must complete;
       - the disk is booted under QEMU (tests/qemu's modules) and the payload must report
         exactly one of the two command lines with the right initrd size and CRC32; P itself
         must boot "crash-old" and K = N "crash-new";
       - `anysector restore COPY BACKUP` must exit 0 and the copy's SHA-256 equal P's.

Host-only scenarios (firmware "none") skip the boot: a 512n MBR disk with a small FAT12 boot
partition (made by sfdisk and mkfs.fat, stages installed and one entry added), for the FAT12
paths of the ESP write order; the file checks and restore are the same.

usage: crash.py [--only GLOB] [--keep] [--no-ovmf]       (paths from $BUILD, default "build")
At most 2 QEMUs at a time. The last line is "crash: pass=N fail=M skip=K", also written to
$RESULTS/crash; the exit status is nonzero on any failure.
"""
import argparse
import concurrent.futures
import fnmatch
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import (boot, console, disk, fat, gpt, mbr, mtools, paths, payloads,  # noqa: E402
                 qemu, results, stages, tool)
from lib.results import indent  # noqa: E402
# tests/crash/state.py: the writers of the boot state block
import state as state_cases  # noqa: E402

CRASH_ENV = "ANYSECTOR_TEST_CRASH_AFTER_WRITE"
CRASH_EXIT = 99
OLD_CFG = "old-state.cfg"
CMDLINE_OLD = "anysector.test=crash-old"
CMDLINE_NEW = "anysector.test=crash-new"
STAGE2_PAD = 4096
EFI_PAD = 8192
BOOT_TIMEOUT = 45
MAX_JOBS = 2

# name: (firmware, frontend, logical, physical, label, operation)
# install-old-longer / install-new-longer: which state has the padded stages. The two directions
# fail differently when stage2 is overwritten in place: an old stage1 loading a longer new
# stage2 gets a truncated image, a shorter one a stale tail. add: a new default entry.
SCENARIOS = {
    "seabios-nvme-512e-gpt-install": ("seabios", "nvme", 512, 4096, "gpt", "install-old-longer"),
    "seabios-nvme-4Kn-mbr-install": ("seabios", "nvme", 4096, 4096, "mbr", "install-new-longer"),
    "seabios-nvme-512n-mbr-add": ("seabios", "nvme", 512, 512, "mbr", "add"),
    "ovmf-nvme-4Kn-gpt-install": ("ovmf", "nvme", 4096, 4096, "gpt", "install-old-longer"),
    # host only (no boot): the FAT12 paths of the ESP write order (12-bit FAT entries that
    # straddle sectors, the fixed root directory holding anysector.cfg)
    "host-512n-mbr-fat12-install": ("none", None, 512, 512, "mbr", "install-new-longer"),
    "host-512n-mbr-fat12-add": ("none", None, 512, 512, "mbr", "add"),
    # /EFI/BOOT full: the directory grows a cluster (FAT step 2b links it)
    "host-512n-mbr-fat12-install-dir-full": ("none", None, 512, 512, "mbr",
                                             "install-new-longer-dir-full"),
}


class Failure(Exception):
    pass


def make_stages(real, out, old, pad):
    """A copy of the real stages, padded (pad) and, for the old state (old), with BOOTX64.EFI's
    configuration path patched (see the module docstring)."""
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(os.path.join(real, "stage1.bin"), os.path.join(out, "stage1.bin"))
    s2 = open(os.path.join(real, "stage2.bin"), "rb").read()
    # The head unpacks the body at its link address, well above the loaded image: a tail of
    # filler after the LZMA stream is loaded and checked (CRC) but never read.
    if pad:
        s2 = stages.reseal(s2 + bytes((i * 7) & 0xFF for i in range(STAGE2_PAD)))
    with open(os.path.join(out, "stage2.bin"), "wb") as f:
        f.write(s2)
    efi = bytearray(open(os.path.join(real, "BOOTX64.EFI"), "rb").read())
    if old:
        at = efi.find(b"\0/anysector.cfg\0")
        if at < 0 or efi.find(b"\0/anysector.cfg\0", at + 1) >= 0:
            raise Failure("BOOTX64.EFI does not hold exactly one \"/anysector.cfg\" to patch")
        efi[at + 1:at + 15] = ("/" + OLD_CFG).encode()
    if pad:
        # Data after the last section is not part of the PE image: the loader ignores it.
        efi += bytes((i * 11) & 0xFF for i in range(EFI_PAD))
    with open(os.path.join(out, "BOOTX64.EFI"), "wb") as f:
        f.write(efi)


def esp_offset(path, lss, label):
    """Byte offset of the ESP (GPT) or the first partition (MBR)."""
    if label == "mbr":
        return mbr.read_entries(path)[0][0]["first"] * lss
    found = gpt.find_partition(path, lss, gpt.ESP_TYPE)
    if not found:
        raise Failure(f"{path}: no ESP in the GPT")
    return found[0] * lss


def esp_file(image, offset, path):
    return mtools.read(image, offset, path)


def run_tool(cmd, env=None, timeout=120):
    e = dict(os.environ)
    e.pop(CRASH_ENV, None)
    e.update(env or {})
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          errors="replace", env=e, timeout=timeout, cwd=tool.workdir())


def said(r):
    return console.tail((r.stderr or "") + (r.stdout or ""), 12) or "(nothing)"


class Scenario:
    def __init__(self, name, spec, inputs, guests, root, keep):
        self.name = name
        self.firmware, self.frontend, self.logical, self.physical, self.label, self.op = spec
        self.inputs, self.guests, self.keep = inputs, guests, keep
        self.dir = os.path.join(root, name)
        self.asan = paths.ASAN_ANYSECTOR
        self.payload = "efi-payload" if self.firmware == "ovmf" else "bios-payload"
        self.cmdline = CMDLINE_OLD if self.op == "add" else CMDLINE_NEW
        self.topo = ["--sector-size", str(self.logical), "--physical-size", str(self.physical)]
        self.prev = os.path.join(self.dir, "previous.img")

    def files(self):
        """(kernel, initrd) for add; a small initrd for the small host-only filesystems."""
        kernel, initrd = self.inputs.files_for(self.payload)
        if self.firmware == "none":
            initrd = os.path.join(self.dir, "small-initrd.bin")
            if not os.path.exists(initrd):
                with open(initrd, "wb") as f:
                    f.write(bytes((i * 37 + (i >> 8)) & 0xFF for i in range(70001)))
        return kernel, initrd

    def mkimage(self, stages):
        if self.firmware == "none":
            return self.fat12_image(stages)
        kernel, initrd = self.inputs.files_for(self.payload)
        r = run_tool(tool.mkimage_command(self.prev, "64M", self.label, self.logical,
                                          self.physical, stages, kernel, initrd, self.cmdline, 0),
                     timeout=180)
        if r.returncode:
            raise Failure(f"mkimage of the previous state failed (exit {r.returncode}): {said(r)}")
        self.esp = esp_offset(self.prev, self.logical, self.label)

    def fat12_image(self, stages):
        """A 512n MBR disk whose boot partition is a small FAT12 (no anysector layout makes
        one, but a disk may carry one), with the stages installed and one entry added."""
        if not shutil.which("sfdisk") or not shutil.which("mkfs.fat"):
            raise Failure("sfdisk and mkfs.fat are needed (Debian fdisk, dosfstools)")
        with open(self.prev, "wb") as f:
            f.truncate(16 << 20)
        subprocess.run(["sfdisk", "-q", "--no-reread", self.prev], check=True, text=True,
                       input="start=2048, size=16384, type=ef, bootable\n", capture_output=True)
        subprocess.run(["mkfs.fat", "-F", "12", "--offset", "2048", self.prev, "8192"],
                       check=True, capture_output=True)
        self.esp = 2048 * 512
        kernel, initrd = self.files()
        scratch = self.prev + ".setup-backup"
        for cmd in (["install", "--stages", stages],
                    ["add", "--kernel", kernel, "--initrd", initrd, "--cmdline", CMDLINE_OLD,
                     "--name", "crashold", "--default"]):
            r = run_tool([paths.ANYSECTOR, cmd[0], self.prev, *cmd[1:], *self.topo,
                          "--backup", scratch])
            if r.returncode:
                raise Failure(f"{cmd[0]} of the previous state failed (exit {r.returncode}): "
                              f"{said(r)}")
            os.unlink(scratch)
        if self.op.endswith("-dir-full"):
            self.fill_boot_dir()

    def fill_boot_dir(self):
        """Fills /EFI/BOOT's one cluster with empty files, so that the new BOOTX64.EFI's entry
        (under its temporary name) needs a new directory cluster: the directory grows."""
        bpb = fat.read_bpb(self.prev, self.esp)
        slots = bpb["bps"] * bpb["spc"] // 32 - 3          # ".", ".." and BOOTX64.EFI are there
        fill = os.path.join(self.dir, "fill")
        os.makedirs(fill, exist_ok=True)
        names = []
        for i in range(slots):
            names.append(os.path.join(fill, f"F{i:05d}.TXT"))
            open(names[-1], "wb").close()
        r = mtools.run(["mcopy"] + names + ["::/EFI/BOOT/"], self.prev, self.esp)
        if r.returncode:
            raise Failure(f"filling /EFI/BOOT failed: {r.stderr.decode(errors='replace')}")
        shutil.rmtree(fill)

    def command(self, image, backup, dry_run=False):
        """The operation under test on image."""
        if self.op == "add":
            kernel, initrd = self.files()
            cmd = [self.asan, "add", image, "--kernel", kernel, "--initrd", initrd, "--cmdline",
                   CMDLINE_NEW, "--name", "crashnew", "--default"]
        else:
            cmd = [self.asan, "install", image, "--stages", self.new]
        return cmd + self.topo + (["--dry-run"] if dry_run else ["--backup", backup])

    def prepare(self):
        """Builds P; returns the number of writes the complete operation makes."""
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        if self.op == "add":
            # P boots its only entry ("crash-old"); add makes a "crash-new" entry the default,
            # so the switch is anysector.cfg's replacement.
            self.mkimage(paths.STAGES)
            self.watched = "/anysector.cfg"
            self.old_file = esp_file(self.prev, self.esp, self.watched)
            final = os.path.join(self.dir, "final.img")
            disk.copy_sparse(self.prev, final)
            r = run_tool(self.command(final, final + ".backup"))
            if r.returncode:
                raise Failure(f"a complete add failed (exit {r.returncode}): {said(r)}")
            self.new_file = esp_file(final, self.esp, self.watched)
            os.unlink(final)
            os.unlink(final + ".backup")
        else:
            old = os.path.join(self.dir, "old-stages")
            self.new = os.path.join(self.dir, "new-stages")
            make_stages(paths.STAGES, old, True, self.op.startswith("install-old-longer"))
            make_stages(paths.STAGES, self.new, False,
                        self.op.startswith("install-new-longer"))
            self.watched = "/EFI/BOOT/BOOTX64.EFI"
            self.old_file = open(os.path.join(old, "BOOTX64.EFI"), "rb").read()
            self.new_file = open(os.path.join(self.new, "BOOTX64.EFI"), "rb").read()
            self.mkimage(old)
        if self.op != "add" and self.firmware != "none":
            cfg = esp_file(self.prev, self.esp, "/anysector.cfg")
            if cfg is None or CMDLINE_NEW.encode() not in cfg:
                raise Failure("the new image's anysector.cfg lacks the test command line")
            tmp = os.path.join(self.dir, OLD_CFG)
            with open(tmp, "wb") as f:
                f.write(cfg.replace(CMDLINE_NEW.encode(), CMDLINE_OLD.encode()))
            r = mtools.run(["mcopy", tmp, f"::/{OLD_CFG}"], self.prev, self.esp)
            if r.returncode:
                raise Failure(f"mcopy {OLD_CFG} failed: {r.stderr.decode(errors='replace')}")
            if not stages.patch_installed_config(self.prev, "/" + OLD_CFG):
                raise Failure(f"{self.prev}: no stage2 where stage1 points")
        if not self.old_file or not self.new_file or self.old_file == self.new_file:
            raise Failure(f"{self.watched}: the old and new files are not two distinct files")
        self.prev_hash = disk.sha256(self.prev)
        # install keeps a boot state block that has a whole copy, add never writes it
        self.state_at = state_cases.block_offset(self.prev)
        self.state_bytes = disk.read_at(self.prev, self.state_at, 2 * state_cases.COPY)
        self.check_rc = self.check(self.prev)
        if self.check_rc not in (0, 1):
            raise Failure(f"anysector check finds errors in the previous state: {self.said_check}")
        r = run_tool(self.command(self.prev, None, dry_run=True))
        last = [ln for ln in r.stdout.splitlines() if ln.startswith("dry run:")]
        if r.returncode or not last:
            raise Failure(f"{self.op.split('-')[0]} --dry-run failed (exit {r.returncode}): "
                          f"{said(r)}")
        return int(last[-1].split()[2])

    def check(self, image):
        """anysector check's exit status (0 clean, 1 warnings, 2 errors) for image."""
        r = run_tool([self.asan, "check", image] + self.topo)
        self.said_check = said(r)
        return r.returncode

    def boot(self, image, tag):
        """Boots image; returns "old" or "new", or raises Failure with the serial tail."""
        logs = qemu.log_paths(os.path.join(self.dir, tag))
        boot.fresh_logs(logs)
        vars_copy = os.path.join(self.dir, f"{tag}.OVMF_VARS.fd")
        cmd = boot.command(self.firmware, self.frontend, image, self.logical, self.physical, logs,
                           vars_copy)
        boot.write_cmd(logs, cmd)
        rc, stopped = boot.boot(self.guests, cmd, logs, BOOT_TIMEOUT)
        serial = console.read_log(logs["serial.log"])
        debugcon = console.read_log(logs["debugcon.log"])
        proto = "2.15" if self.firmware == "seabios" else "efi"
        want_rc = qemu.EXIT_PAYLOAD_REPORTED if proto == "2.15" else 0
        got, whys = None, []
        for state, cmdline in (("old", CMDLINE_OLD), ("new", CMDLINE_NEW)):
            why = console.check_payload(serial, proto, cmdline, self.inputs.initrd_size,
                                        self.inputs.initrd_crc)
            if why is None:
                got = state
            whys.append(why)
        if got and rc != want_rc:
            got, whys = None, [f"QEMU ended with {qemu.describe_exit(rc)}, not {want_rc}"]
        if got:
            for f in list(logs.values()) + [vars_copy]:
                if os.path.exists(f) and not self.keep:
                    os.unlink(f)
            return got
        context = stopped or console.gave_up(serial, debugcon) or qemu.describe_exit(rc)
        raise Failure(f"booted neither state ({whys[-1]}; {context})\n"
                      + indent(console.tail(serial, 8) or "(empty serial log)", "      "))

    def install_again(self, img, k):
        """What a user does after the crash: install again. It must complete (the lost clusters
        a crash can leave are no reason to refuse) and leave the new file."""
        again = os.path.join(self.dir, f"k{k}-again.img")
        disk.copy_sparse(img, again)
        try:
            r = run_tool(self.command(again, again + ".backup"))
            if r.returncode:
                raise Failure(f"installing again after the crash failed (exit {r.returncode}): "
                              f"{said(r)}")
            if esp_file(again, self.esp, self.watched) != self.new_file:
                raise Failure(f"installing again after the crash left another {self.watched}")
        finally:
            for f in (again, again + ".backup"):
                if os.path.exists(f):
                    os.unlink(f)

    def crash_at(self, k, n):
        """One K: the operation stopped after write k, the watched file, boot, restore."""
        img = os.path.join(self.dir, f"k{k}.img")
        backup = img + ".backup"
        for f in (img, backup):
            if os.path.exists(f):
                os.unlink(f)
        disk.copy_sparse(self.prev, img)
        t0 = time.monotonic()
        r = run_tool(self.command(img, backup), env={CRASH_ENV: str(k)})
        dead = f"{CRASH_ENV}={k}: stopping dead after write {k} of {n}"
        if r.returncode != CRASH_EXIT or dead not in r.stderr:
            raise Failure(f"{self.op.split('-')[0]} with {CRASH_ENV}={k} ended with exit "
                          f"{r.returncode}, not {CRASH_EXIT} and \"{dead}\": {said(r)}")
        got = esp_file(img, self.esp, self.watched)
        if got not in (self.old_file, self.new_file):
            what = "cannot be read" if got is None else f"is {len(got)} bytes, neither file"
            raise Failure(f"{self.watched} on the ESP {what} (old {len(self.old_file)}, new "
                          f"{len(self.new_file)} bytes)")
        file_state = "old" if got == self.old_file else "new"
        block = disk.read_at(img, self.state_at, 2 * state_cases.COPY)
        if self.state_at and block != self.state_bytes:
            raise Failure(f"the boot state block at byte {self.state_at} changed: "
                          f"{self.op.split('-')[0]} must keep it")
        # the installer's own checker must find the disk as consistent as before
        rc = self.check(img)
        if rc != self.check_rc:
            raise Failure(f"anysector check exits {rc}, {self.check_rc} for the previous state:"
                          f" {self.said_check}")
        if self.op != "add":
            self.install_again(img, k)
        state = self.boot(img, f"k{k}") if self.firmware != "none" else None
        if k == n and state not in ("new", None):
            raise Failure(f"the complete operation boots the {state} state")
        r = run_tool([self.asan, "restore", img, backup])
        if r.returncode:
            raise Failure(f"restore failed (exit {r.returncode}): {said(r)}")
        if disk.sha256(img) != self.prev_hash:
            raise Failure("after restore the image differs from the previous state")
        if not self.keep:
            os.unlink(img)
            os.unlink(backup)
        booted = f"boots {state}" if state else "not booted (host only)"
        return (f"{booted}, {self.watched} {file_state}, restored byte-identical",
                time.monotonic() - t0)


def run_ks(pool, name, sc, n):
    """Every K of one scenario, MAX_JOBS at a time; returns (passed, failed)."""
    futs = {pool.submit(sc.crash_at, k, n): k for k in range(n + 1)}
    done = {}
    for fut in concurrent.futures.as_completed(futs):
        k = futs[fut]
        try:
            done[k] = ("PASS", *fut.result())
        except (Failure, state_cases.Failure) as e:
            done[k] = ("FAIL", str(e), 0.0)
    npass = nfail = 0
    for k in sorted(done):
        status, msg, secs = done[k]
        print(f"{status:5} {secs:5.1f}s  {name} crash after write {k}/{n}: {msg}", flush=True)
        npass += status == "PASS"
        nfail += status == "FAIL"
    return npass, nfail


def main():
    ap = argparse.ArgumentParser(description="installer crash-safety under QEMU")
    ap.add_argument("--only", help="scenarios matching this glob")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-ovmf", action="store_true")
    a = ap.parse_args()
    root = paths.build("crash")
    names = [n for n in list(SCENARIOS) + list(state_cases.SCENARIOS)
             if (not a.only or fnmatch.fnmatch(n, a.only))
             and not (a.no_ovmf and SCENARIOS.get(n, ("",))[0] == "ovmf")]
    npass = nfail = 0
    t0 = time.monotonic()
    missing = [p for p in (paths.ANYSECTOR, paths.ASAN_ANYSECTOR, paths.STAGES)
               if not os.path.exists(p)]
    missing += qemu.missing() + ([] if shutil.which("mtype") else ["mtools"])
    if missing:
        print(f"crash: missing {', '.join(missing)}")
        return results.finish("crash", 0, 1, 0)
    inputs = payloads.Inputs(paths.build("qemu"), False)
    guests = qemu.Guests()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=MAX_JOBS)
    try:
        for name in names:
            booted = name in SCENARIOS and SCENARIOS[name][0] != "none"
            try:
                if name in SCENARIOS:
                    sc = Scenario(name, SCENARIOS[name], inputs, guests, root, a.keep)
                else:
                    sc = state_cases.StateScenario(name, state_cases.SCENARIOS[name], root,
                                                   a.keep)
                n = sc.prepare()
                if booted and sc.boot(sc.prev, "previous") != "old":
                    raise Failure("the previous state boots the new command line")
            except (Failure, state_cases.Failure) as e:
                print(f"FAIL  {name}: previous state: {e}", flush=True)
                nfail += 1
                continue
            print(f"      {name}: previous state {'boots old' if booted else 'made'}"
                  f"; the complete operation makes {n} writes",
                  flush=True)
            p, f = run_ks(pool, name, sc, n)
            npass, nfail = npass + p, nfail + f
            if nfail == 0 and not a.keep:
                os.unlink(sc.prev)
    except KeyboardInterrupt:
        guests.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results.finish("crash", npass, nfail, 0, note=f" in {time.monotonic() - t0:.0f}s")


if __name__ == "__main__":
    sys.exit(main())
