#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-debian: a real Debian 12 system on anysector disks, booted to multi-user.target under
SeaBIOS and OVMF, looking after its own boot menu through a kernel update.

The system (tests/debian/rootfs.py): mmdebstrap minbase + systemd-sysv, udev, Debian's generic
kernel (linux-image-amd64), initramfs-tools and systemd-boot (bootctl, systemd-bless-boot; it
installs nothing on anysector's ESP) from the archive apt uses (tarball cached under
$BUILD/debian), with anysector's .deb (tools/mkdeb.sh, as `make deb`) installed, the ESP in
/etc/fstab at /boot/efi, and tests/debian/guest/: a unit that, once multi-user.target is
reached, prints on ttyS0

    ANYSECTOR-DEBIAN root=nvme0n1p3 disk=nvme0n1 lbs=4096 kernel=6.1.0-57-amd64 esp=vfat step=install

runs the step the host chose for this boot (QEMU -smbios type=11 "anysector-step=STEP": none;
install = dpkg -i of the cloud flavour of the same ABI, linux-image-6.1.0-57-cloud-amd64, placed
in /root/kernel/; purge = dpkg --purge of it), prints "ANYSECTOR-DEBIAN-STEP STEP rc=N
seconds=S", the ESP's files, and powers off. The disks are made by `anysector mkimage
--root-dir` from that tree, with one entry for the generic kernel named as the hooks name it
(ANYSECTOR_PREFIX + version); /etc/default/anysector in each image then names the disk as the
guest sees it and the image's root=PARTUUID= (debugfs, after mkimage made the GUID).

Cases, each one or more boots of one disk, each boot judged on its serial text (systemd's
multi-user.target reached before the marker; the marker's sector size, kernel, disk and mounted
ESP; the step's exit status; every installed kernel's vmlinuz and initrd on the ESP, the same
bytes as in /boot, the cloud kernel's files gone after purge; every installed kernel's files
pinned in anysector.cfg (their SHA-256 as a "sha256" line) where the case pins, none where it
does not; QEMU ended by the guest's power-off):
  512e-mbr        virtio-blk 512/4096 MBR, SeaBIOS: lbs=512, the generic kernel, no pins
  4kn-update      nvme 4Kn GPT, writable, pinned (mkimage --pin, ANYSECTOR_PIN=yes): SeaBIOS
                  boot 1 checks the generic kernel's pins and runs `dpkg -i` of the cloud kernel
                  (its postinst runs anysector's kernel hooks, which pin it, and the initramfs
                  hook pins the initrd update-initramfs then writes), OVMF boot 2 must start the
                  cloud kernel (the hooks' newest, now the default; BOOTX64.EFI checks its pins)
                  and purges it, SeaBIOS boot 3 must start the generic kernel again
  4kn-update-efi  (--full: make test-debian-full) the same with the firmwares swapped
  4kn-efi-entry   nvme 4Kn GPT, OVMF with one variable store for both boots and no bootindex (so
                  the firmware keeps BootOrder as the store has it): boot 1 (through the fallback
                  path mkimage wrote) runs `anysector install` on the live system, which must
                  write its firmware boot entry through efivarfs ('firmware boot entry Boot####
                  "anysector" starts \EFI\anysector\anysectorx64.efi') and put it first in
                  BootOrder; boot 2 must come through that entry: OVMF's 'BdsDxe: starting
                  Boot#### "anysector"', the guest's BootCurrent the same number and the Boot
                  Loader Interface's LoaderImageIdentifier that path
  4kn-kinstall    nvme 4Kn GPT, systemd's kernel-install with anysector's plugin (issue 26):
                  SeaBIOS boot 1 runs Debian 12's own `kernel-install add RELEASE-ki` of a copy
                  of the running kernel and initrd (outside /boot, so the Debian hooks leave it
                  to the plugin) with /etc/kernel/cmdline this boot's line plus anysector.ki=1:
                  the menu's default must be the plugin's entry TOKEN-RELEASE-ki; OVMF boot 2
                  must boot with anysector.ki=1 (the next boot follows the add) and runs
                  `kernel-install remove RELEASE-ki`: the default must be the hooks' entry
                  again; SeaBIOS boot 3 must boot without anysector.ki=1
  4kn-bli         nvme 4Kn GPT under OVMF, systemd's side of the Boot Loader Interface (issue
                  25): anysector.cfg's default the hooks' entry (mkimage --default) and a
                  counted entry /loader/entries/anysector-bli+1.conf (its kernel, command line
                  plus anysector.bli=1); one QEMU run without -no-reboot, so the firmware
                  restarts the guest (step bli, the boots told apart by their DONE lines).
                  Every boot: `bootctl status` names "anysector 0.1", `bootctl list` shows the
                  hooks' entry reported by the loader alone and anysector-bli.conf reported by
                  it too, `systemd-analyze time` has a "(loader)" time and the manager's loader
                  and firmware times are LoaderTimeExecUSec - LoaderTimeInitUSec and
                  LoaderTimeExecUSec. Boot 1 (the default, selected) runs `systemctl reboot
                  --boot-loader-entry=anysector-bli.conf`; boot 2 must be that entry
                  (anysector.bli=1, bootctl's "(selected)"), counted by anysector
                  (LoaderBootCountPath \loader\entries\anysector-bli+0-1.conf, the file's name
                  before systemd-bless-boot ran) and blessed (systemd-bless-boot.service
                  succeeded, "Marked boot as 'good'", the file now anysector-bli.conf), and
                  runs `systemctl reboot`; boot 3 must be the default again, and powers off

Every boot's wall time, the step's time in the guest and the host's load are printed with its
result. QEMU's time limits are hang guards, not assertions.

usage: test_debian.py [--full] [--only GLOB] [--keep] | --prepare
"""
import argparse
import concurrent.futures
import dataclasses
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import boot, console, mtools, paths, qemu, results, tool  # noqa: E402
from lib.results import CaseFailure, Result, indent  # noqa: E402
import rootfs  # noqa: E402  (beside this file: the script's directory is on sys.path)

SUITE = "debian"
MEMORY_MB = 1024
IMAGE_SIZE = "2G"          # sparse: the tree (~700 MB) and the second kernel (~110 MB) fit
CMDLINE = "console=ttyS0,115200 rw"     # mkimage --root-dir adds root=PARTUUID=...
BOOT_GUARD = 1200          # s; the hang guards of a boot, and of a boot with a package step
STEP_GUARD = {"none": BOOT_GUARD, "install": 2400, "purge": 1800,
              "anysector-install": BOOT_GUARD, "kinstall-add": BOOT_GUARD,
              "kinstall-remove": BOOT_GUARD, "bli": BOOT_GUARD}
POWEROFF_GRACE = 300       # s from the last line to QEMU's exit (the guest's power-off)
MAX_JOBS = 2
# Rough wall seconds of a boot to the marker under TCG, and of each step in the guest (from
# make test's log): only to start the longest cases first, so that two QEMUs stay busy to the
# end (in list order the last case started alone once the others were done: 370 s for 300 s of
# work a QEMU).
BOOT_SECONDS = 35
STEP_SECONDS = {"none": 0, "install": 100, "purge": 15, "anysector-install": 2,
                "kinstall-add": 8, "kinstall-remove": 8, "bli": 20}
GUEST_DISK = {"nvme": "/dev/nvme0n1", "virtio-blk": "/dev/vda"}
LINUX_TYPES = ("Linux", "Linux filesystem")     # anysector info's names of the root partition

MARKER_RE = re.compile(r"ANYSECTOR-DEBIAN root=(?P<root>\S+) disk=(?P<disk>\S+) lbs=(?P<lbs>\d+) "
                       r"kernel=(?P<kernel>\S+) esp=(?P<esp>\S+) step=(?P<step>\S+)")
STEP_RE = re.compile(r"ANYSECTOR-DEBIAN-STEP (?P<step>\S+) rc=(?P<rc>-?\d+) seconds=(?P<s>\d+)")
ESP_RE = re.compile(r"ANYSECTOR-DEBIAN-ESP (\S+) (vmlinuz=\S+ initrd=\S+)")
PIN_RE = re.compile(r"ANYSECTOR-DEBIAN-PIN (\S+) (vmlinuz=\S+ initrd=\S+)")
EFI_RE = re.compile(r"ANYSECTOR-DEBIAN-EFI current=(?P<current>\S*) order=(?P<order>\S*) "
                    r"loader=(?P<loader>\S+)")
# what `anysector install` says after writing the firmware boot entry (tools/ops/install_efi.c)
ENTRY_RE = re.compile(r'firmware boot entry Boot(?P<id>[0-9A-F]{4}) "anysector" starts '
                      r'(?P<path>\S+) on partition')
OWN_LOADER = "\\EFI\\anysector\\anysectorx64.efi"   # install's loader beside another system
MENU_RE = re.compile(r"ANYSECTOR-DEBIAN-MENU default=(?P<default>\S+) cmdline=\[(?P<cmdline>[^\]]*)\]")
KI_MARK = "anysector.ki=1"         # /etc/kernel/cmdline's word in the kinstall case
# The bli case: its counted Boot Loader Specification entry (the file the host puts on the ESP),
# the identifier systemd's tools give it (the guest's `systemctl reboot --boot-loader-entry=`),
# its command line's word, and the names anysector and systemd-bless-boot give the file.
BLI_FILE = "anysector-bli+1.conf"
BLI_ID = "anysector-bli.conf"
BLI_MARK = "anysector.bli=1"
BLI_TRIED = "anysector-bli+0-1.conf"
BLI_PRODUCT = "anysector 0.1"
BOOTCTL_RE = re.compile(r"ANYSECTOR-DEBIAN-BOOTCTL product=\[(?P<product>[^\]]*)\] "
                        r"entries=(?P<entries>\S*) selected=(?P<selected>\S+)")
ANALYZE_RE = re.compile(r"ANYSECTOR-DEBIAN-ANALYZE (?P<text>.*)")
TIMES_RE = re.compile(r"ANYSECTOR-DEBIAN-TIMES init=(?P<init>\d*) exec=(?P<exec>\d*) "
                      r"firmware=(?P<firmware>\d*) loader=(?P<loader>\d*)")
BLESS_RE = re.compile(r"ANYSECTOR-DEBIAN-BLESS prebless=\[(?P<prebless>[^\]]*)\] "
                      r"count=\[(?P<count>[^\]]*)\] after=\[(?P<after>[^\]]*)\] "
                      r"service=(?P<service>\S+) said=\[(?P<said>[^\]]*)\] "
                      r"status=\[(?P<status>[^\]]*)\]")
ASKED_RE = re.compile(r"ANYSECTOR-DEBIAN-ASKED (?P<id>\S+) rc=(?P<rc>\d+)")
DONE = "ANYSECTOR-DEBIAN-DONE"
MULTI_USER_RE = re.compile(r"Reached target .*multi-user\.target")


@dataclasses.dataclass
class Boot:
    firmware: str
    step: str
    kernel: str        # "base" (the tree's generic kernel) or "update" (the cloud one)


@dataclasses.dataclass
class Case:
    name: str
    label: str         # gpt | mbr
    frontend: str
    sectors: str       # lib.qemu.SECTORS key
    boots: list
    full_only: bool = False
    pin: bool = False  # mkimage --pin and ANYSECTOR_PIN=yes: every entry's files pinned
    efi_entry: bool = False  # one OVMF store for all boots, no bootindex; judged on Boot####
    kinstall: bool = False   # kernel-install's add and remove; judged on the default and cmdline
    bli: bool = False  # one QEMU run, the firmware restarting the guest; judged on systemd's tools


def cases():
    found = [Case("512e-mbr", "mbr", "virtio-blk", "512e", [Boot("seabios", "none", "base")])]
    for name, (a, b), full in (("4kn-update", ("seabios", "ovmf"), False),
                               ("4kn-update-efi", ("ovmf", "seabios"), True)):
        found.append(Case(name, "gpt", "nvme", "4Kn", [
            Boot(a, "install", "base"), Boot(b, "purge", "update"), Boot(a, "none", "base")],
            full, pin=True))
    found.append(Case("4kn-efi-entry", "gpt", "nvme", "4Kn", [
        Boot("ovmf", "anysector-install", "base"), Boot("ovmf", "none", "base")],
        efi_entry=True))
    found.append(Case("4kn-kinstall", "gpt", "nvme", "4Kn", [
        Boot("seabios", "kinstall-add", "base"), Boot("ovmf", "kinstall-remove", "base"),
        Boot("seabios", "none", "base")], kinstall=True))
    found.append(Case("4kn-bli", "gpt", "nvme", "4Kn", [Boot("ovmf", "bli", "base")] * 3,
                      bli=True))
    return found


def expected_seconds(case):
    """What the case's boots take, roughly: the order to start cases in, not an assertion."""
    return sum(BOOT_SECONDS + STEP_SECONDS[b.step] for b in case.boots)


def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


class System:
    """What every case boots: the tree with anysector's package, the two kernels' releases."""

    def __init__(self, work, log):
        self.work = work
        self.log = log
        t0 = time.monotonic()
        self.deb, self.tar, made, t1 = prepare(log)
        t2 = time.monotonic()
        self.base = rootfs.kernel_release(self.tar)
        self.update_pkg, self.update = rootfs.second_kernel(self.tar)
        self.tree = os.path.join(work, "tree")
        rootfs.make_tree(self.tar, self.tree, self.deb, log)
        self.prefix = rootfs.config_value(self.tree, "ANYSECTOR_PREFIX") or ""
        self.title = rootfs.config_value(self.tree, "ANYSECTOR_TITLE") or "Debian"
        t3 = time.monotonic()
        self.times = (f"package {t1 - t0:.0f} s, root filesystem tarball "
                      f"{'made by mmdebstrap' if made else 'cached'} {t2 - t1:.0f} s, tree "
                      f"{t3 - t2:.0f} s")


    def release(self, which):
        return self.base if which == "base" else self.update

    def image(self, case):
        """The case's disk: mkimage --root-dir from the tree, one entry for the tree's kernel
        as the hooks would name it, and /etc/default/anysector naming this disk and root."""
        logical, physical = qemu.SECTORS[case.sectors]
        img = os.path.join(self.work, case.name + ".img")
        kernel = os.path.join(self.tree, "boot", "vmlinuz-" + self.base)
        initrd = os.path.join(self.tree, "boot", "initrd.img-" + self.base)
        cmd = tool.mkimage_command(img, IMAGE_SIZE, case.label, logical, physical, paths.STAGES,
                                   kernel, initrd, CMDLINE, menu=0,
                                   extra=["--force", "--root-dir", self.tree, "--name",
                                          self.prefix + self.base, "--title",
                                          f"{self.title} {self.base}"]
                                   + (["--pin"] if case.pin else [])
                                   # the owner's default: else the counted entry would be
                                   # the newest kernel's, the default by the rule
                                   + (["--default"] if case.bli else []))
        out = rootfs.run(cmd, f"mkimage of {case.name}", log=self.log)
        m = re.search(r"root=PARTUUID=\S+", out)
        if not m:
            raise CaseFailure(f"mkimage of {case.name} named no root=PARTUUID=:\n{out[-1500:]}")
        info = json.loads(rootfs.run([paths.ANYSECTOR, "info", "--json", "--sector-size",
                                      str(logical), img], f"info of {case.name}"))
        roots = [p for p in info["partitions"] if p["type_name"] in LINUX_TYPES]
        if len(roots) != 1:
            raise CaseFailure(f"{img}: want one Linux partition, info shows {len(roots)}")
        config = os.path.join(self.work, case.name + ".anysector")
        with open(config, "w") as f:
            f.write(rootfs.config_text(self.tree, {
                "ANYSECTOR_DISK": GUEST_DISK[case.frontend],
                "ANYSECTOR_CMDLINE": f'"{CMDLINE} {m.group(0)}"',
                "ANYSECTOR_PIN": "yes" if case.pin else "no"}))
        rootfs.put_file(img, roots[0]["start"] * logical, "/etc/default/anysector", config,
                        self.log)
        if case.bli:
            esp = [p for p in info["partitions"] if p.get("boot_partition")]
            self.bli_entry(img, esp[0]["start"] * logical, f"{CMDLINE} {m.group(0)}")
        return img

    def bli_entry(self, img, offset, cmdline):
        """The bli case's counted entry on the ESP at byte offset: /loader/entries/BLI_FILE
        with anysector.cfg's kernel and initrd and cmdline plus BLI_MARK."""
        cfg = mtools.read_text(img, offset, "/anysector.cfg") or ""
        files = [re.search(rf"(?m)^\s*{k}\s+(\S+)", cfg) for k in ("kernel", "initrd")]
        if not all(files):
            raise CaseFailure(f"{img}: anysector.cfg names no kernel and initrd:\n{cfg}")
        local = os.path.join(self.work, BLI_FILE)
        with open(local, "w") as f:
            f.write(f"title anysector BLI test\nversion {self.base}\nlinux {files[0][1]}\n"
                    f"initrd {files[1][1]}\noptions {cmdline} {BLI_MARK}\n")
        for d in ("/loader", "/loader/entries"):
            mtools.run(["mmd", f"::{d}"], img, offset)
        r = mtools.run(["mcopy", local, f"::/loader/entries/{BLI_FILE}"], img, offset)
        if r.returncode:
            raise CaseFailure(f"mcopy of {BLI_FILE} into {img}: "
                              + r.stderr.decode(errors="replace"))


def prepare(log):
    """What every case needs and no case changes: anysector's .deb (tools/mkdeb.sh
    --if-changed) and the root filesystem tarball (made by mmdebstrap when not cached). Each
    waits while another run makes it (make test's background job, --prepare). (deb, tarball,
    whether this run made the tarball, when the .deb was ready)."""
    out = subprocess.run([os.path.join(paths.ROOT, "tools", "mkdeb.sh"), "--no-lintian",
                          "--if-changed", paths.BUILD], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=1800)
    if out.returncode:
        raise CaseFailure("tools/mkdeb.sh (make deb) failed:\n"
                          + (out.stdout + out.stderr)[-2000:])
    deb = out.stdout.strip().split("\n")[-1]
    t1 = time.monotonic()
    tar, made = rootfs.tarball(rootfs.debian_sources(), rootfs.packages(deb), log)
    return deb, tar, made, t1


def skip_reason():
    """Why the suite cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (mmdebstrap, the tree's owners, dpkg -i in a chroot)"
    for prog in ("mmdebstrap", "apt-get", "dpkg-buildpackage", "mkfs.ext4"):
        if not shutil.which(prog):
            return f"{prog} is not installed (run make deps)"
    return qemu.MISSING_PACKAGES if qemu.missing() else None


def prepare_only():
    """--prepare (make test's background job test-debian-prepare): the .deb and the tarball,
    so that the suite finds them made; nothing when the suite would be skipped. Exit 0, or 1
    when one failed (the suite then tries again and reports it)."""
    why = skip_reason()
    if why:
        print(f"debian prepare: nothing to do ({why})")
        return 0
    log = paths.build("debian", "prepare.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    t0 = time.monotonic()
    try:
        _, tar, made, t1 = prepare(log)
    except CaseFailure as e:
        print(f"debian prepare: FAIL {e}")
        return 1
    print(f"debian prepare: package {t1 - t0:.0f} s, root filesystem tarball "
          f"{'made by mmdebstrap' if made else 'cached'} {time.monotonic() - t1:.0f} s: {tar}")
    return 0


def judge_efi(text, marker_end, step, boot_, case, seen):
    """The firmware boot entry of an efi_entry case: written by `anysector install` (its number
    into seen["entry"]), then the one the next boot came through. None, or why not."""
    efi = EFI_RE.search(text, step.end())
    if not efi:
        return "no ANYSECTOR-DEBIAN-EFI line: the guest has no efivarfs"
    if boot_.step == "anysector-install":
        m = ENTRY_RE.search(text, marker_end, step.start())
        if not m:
            return "anysector install wrote no firmware boot entry (no 'firmware boot entry' line)"
        if m["path"].lower() != OWN_LOADER.lower():
            return f"the boot entry starts {m['path']}, want {OWN_LOADER}"
        if efi["order"].split(",")[0] != m["id"]:
            return f"BootOrder is {efi['order']} after install, want Boot{m['id']} first"
        seen["entry"] = m["id"]
        return None
    entry = seen.get("entry")
    if not entry:
        return "no boot entry from an earlier boot of this disk to come through"
    if f'BdsDxe: starting Boot{entry} "anysector"' not in text[:marker_end]:
        started = re.findall(r"BdsDxe: starting Boot[0-9A-F]{4} \"[^\"]*\"", text[:marker_end])
        return f"OVMF did not start Boot{entry} \"anysector\": {started or 'no BdsDxe line'}"
    if efi["current"] != entry:
        return f"the guest's BootCurrent is {efi['current'] or 'missing'}, want {entry}"
    if efi["loader"].lower() != OWN_LOADER.lower():
        return f"LoaderImageIdentifier is {efi['loader']}, want {OWN_LOADER}"
    return None


def judge_kinstall(text, step, boot_, system):
    """The kernel-install case: the command line this boot got (the plugin's entry between the
    add and the remove, the hooks' before and after) and the menu's default after the step.
    None, or why not."""
    menu = MENU_RE.search(text, step.end())
    if not menu:
        return "no ANYSECTOR-DEBIAN-MENU line"
    ki = f"-{system.base}-ki"
    marked = KI_MARK in menu["cmdline"].split()
    if marked != (boot_.step == "kinstall-remove"):
        return (f"this boot's command line {'has' if marked else 'lacks'} {KI_MARK}: "
                f"[{menu['cmdline']}]")
    hooks = system.prefix + system.base
    want = "the plugin's entry" if boot_.step == "kinstall-add" else f"'{hooks}'"
    if (menu["default"].endswith(ki) if boot_.step == "kinstall-add"
            else menu["default"].lower() == hooks.lower()):
        return None
    return f"after step {boot_.step} the menu's default is '{menu['default']}', want {want}"


def entries_of(bootctl):
    """bootctl list's entries from the BOOTCTL line: {id: how}."""
    return dict(e.rsplit(":", 1) for e in bootctl["entries"].split(",") if ":" in e)


def judge_bli_tools(text, hooks):
    """What every boot of the bli case shows through systemd's tools: bootctl names anysector
    and lists the hooks' anysector.cfg entry (only the loader reports it) and the counted file
    (reported by the loader too); systemd-analyze has a loader time, which is the loader's own
    variables' (the manager's LoaderTimestampMonotonic is LoaderTimeExecUSec -
    LoaderTimeInitUSec, its FirmwareTimestampMonotonic LoaderTimeExecUSec). (bootctl line, None)
    or (None, why not)."""
    b, a, t = BOOTCTL_RE.search(text), ANALYZE_RE.search(text), TIMES_RE.search(text)
    if not (b and a and t):
        return None, "no ANYSECTOR-DEBIAN-BOOTCTL, -ANALYZE and -TIMES lines"
    if b["product"] != BLI_PRODUCT:
        return None, f"bootctl status names the boot loader '{b['product']}', want '{BLI_PRODUCT}'"
    got = entries_of(b)
    for want, how in ((hooks, "loader"), (BLI_ID, "reported")):
        match = [i for i in got if i.lower() == want.lower()]
        if not match or got[match[0]] != how:
            return None, (f"bootctl list shows {b['entries']}: want {want} as '{how}' (reported "
                          f"by the loader{' alone' if how == 'loader' else ''})")
    if "(loader)" not in a["text"]:
        return None, f"systemd-analyze reports no loader time: {a['text']}"
    try:
        init, exe, fw, ld = (int(t[k]) for k in ("init", "exec", "firmware", "loader"))
    except ValueError:
        return None, f"a time is missing: {t.group(0)}"
    if not (0 < init < exe and ld == exe - init and fw == exe):
        return None, ("the manager's loader time is not the loader's variables' (want "
                      f"loader=exec-init, firmware=exec): {t.group(0)}")
    return b, None


def judge_bli(text, n, system):
    """Boot n of the bli case, after judge(): boot 1 boots the default (the hooks' entry) and
    asks for BLI_ID once; boot 2 must be that entry (its command line's BLI_MARK, bootctl's
    selected), counted by anysector (LoaderBootCountPath, the file BLI_TRIED before
    systemd-bless-boot) and blessed by systemd-bless-boot (the file BLI_ID, 'good'); boot 3 the
    default again, the entry staying BLI_ID. None, or why not."""
    hooks = system.prefix + system.base
    bootctl, why = judge_bli_tools(text, hooks)
    if why:
        return why
    menu, bless = MENU_RE.search(text), BLESS_RE.search(text)
    if not (menu and bless):
        return "no ANYSECTOR-DEBIAN-MENU and -BLESS lines"
    once = n == 2
    want_sel = BLI_ID if once else hooks
    if bootctl["selected"].lower() != want_sel.lower():
        return f"bootctl list shows '{bootctl['selected']}' selected, want '{want_sel}'"
    if (BLI_MARK in menu["cmdline"].split()) != once:
        return (f"this boot's command line {'lacks' if once else 'has'} {BLI_MARK}: "
                f"[{menu['cmdline']}]")
    want = {"after": BLI_FILE if n == 1 else BLI_ID,
            "count": f"\\loader\\entries\\{BLI_TRIED}" if once else ""}
    if once:
        want.update(prebless=BLI_TRIED, service="success/active", said="Marked boot as 'good'",
                    status="good")
    for k, v in want.items():
        if bless[k].strip() != v:
            return f"{k} is [{bless[k]}], want [{v}]: {bless.group(0)}"
    return None


def judge(text, boot_, case, system, seen):
    """None when the serial text shows this boot right, else why not (seen: what the case's
    earlier boots left for the later ones)."""
    logical, _ = qemu.SECTORS[case.sectors]
    m = MARKER_RE.search(text)
    if not m:
        return "no ANYSECTOR-DEBIAN marker line on ttyS0"
    if not MULTI_USER_RE.search(text[:m.start()]):
        return "the marker came without systemd's 'Reached target ... multi-user.target' before it"
    want = {"lbs": str(logical), "disk": os.path.basename(GUEST_DISK[case.frontend]),
            "esp": "vfat", "step": boot_.step, "kernel": system.release(boot_.kernel)}
    for k, v in want.items():
        if m.group(k) != v:
            return f"marker says {k}={m.group(k)}, want {v}: {m.group(0)}"
    s = STEP_RE.search(text, m.end())
    if not s:
        return f"no ANYSECTOR-DEBIAN-STEP line after the marker (step {boot_.step})"
    if s.group("rc") != "0":
        return f"step {boot_.step} exited {s.group('rc')} in the guest"
    if DONE not in text[s.end():]:
        return f"no {DONE} after the step's line"
    # the ESP's files as the guest listed them after the step (find /boot/efi -type f)
    esp = re.findall(r"(?m)^/boot/efi/\S+", text[s.end():text.index(DONE, s.end())])
    new = f"/boot/efi/{system.prefix}{system.update}/vmlinuz-{system.update}"
    if boot_.step == "install" and new not in esp:
        return f"after dpkg -i the ESP has no {new}: " + " ".join(esp)
    # every installed kernel's vmlinuz and initrd on the ESP, byte for byte
    copies = dict(ESP_RE.findall(text, s.end()))
    installed = [system.base] + ([system.update] if boot_.step == "install" else [])
    for v in installed:
        if copies.get(v) != "vmlinuz=same initrd=same":
            return (f"after step {boot_.step} the ESP's copies of kernel {v} are not /boot's: "
                    f"{copies.get(v, 'no ANYSECTOR-DEBIAN-ESP line')}")
    if sorted(copies) != sorted(installed):
        return f"the guest's /boot has kernels {sorted(copies)}, want {sorted(installed)}"
    # and whether anysector.cfg pins them: the SHA-256 of /boot's files as "sha256" lines
    pins = dict(PIN_RE.findall(text, s.end()))
    want_pin = "vmlinuz=pinned initrd=pinned" if case.pin else "vmlinuz=unpinned initrd=unpinned"
    for v in installed:
        if pins.get(v) != want_pin:
            return (f"after step {boot_.step} anysector.cfg's pins of kernel {v}: "
                    f"{pins.get(v, 'no ANYSECTOR-DEBIAN-PIN line')}, want {want_pin}")
    if boot_.step == "purge" and any(system.update in f for f in esp):
        return f"after dpkg --purge the ESP still has {system.update}'s files: " + " ".join(esp)
    if case.kinstall:
        return judge_kinstall(text, s, boot_, system)
    return judge_efi(text, m.end(), s, boot_, case, seen) if case.efi_entry else None


def run_boot(guests, case, n, boot_, img, system, log_dir, seen):
    """One boot of the case's disk; the Result."""
    name = (f"{case.name} boot {n} {boot_.firmware} step={boot_.step} "
            f"kernel={system.release(boot_.kernel)}")
    logs = qemu.log_paths(os.path.join(log_dir, f"{case.name}-{n}-{boot_.firmware}"))
    boot.fresh_logs(logs)
    logical, physical = qemu.SECTORS[case.sectors]
    writable = len(case.boots) > 1
    # an efi_entry case's boots are one machine: the store boot 1 starts fresh, the next keep it
    store = f"{case.name}.vars.fd" if case.efi_entry else f"{case.name}-{n}.vars.fd"
    cmd = boot.command(boot_.firmware, case.frontend, img, logical, physical, logs,
                       os.path.join(system.work, store), MEMORY_MB,
                       snapshot=not writable,
                       cache="unsafe" if writable else None,
                       keep_vars=case.efi_entry and n > 1, bootindex=not case.efi_entry)
    cmd += ["-smbios", f"type=11,value=anysector-step={boot_.step}"]
    boot.write_cmd(logs, cmd)

    def watch():
        text = console.read_log(logs["serial.log"])
        if DONE in text:
            return "done"
        return console.gave_up(text, console.read_log(logs["debugcon.log"]))

    before = load()
    run = guests.run(cmd, logs["qemu.log"], STEP_GUARD[boot_.step], watch, POWEROFF_GRACE)
    text = console.read_log(logs["serial.log"])
    s = STEP_RE.search(text)
    timing = (f"boot {run.seconds:.0f} s wall, QEMU {run.cpu_seconds:.0f} s CPU, step "
              f"{s.group('s') if s else '?'} s in the guest; host {before} before, {load()} after")
    why = None
    if run.interrupted:
        why = "interrupted"
    elif run.timed_out:
        why = f"hang guard: QEMU still running after {STEP_GUARD[boot_.step]} s"
    elif run.why not in (None, "done"):
        why = run.why
    why = why or judge(text, boot_, case, system, seen)
    if not why and run.lingered:
        why = f"the guest did not power off within {POWEROFF_GRACE} s of its last line"
    if not why and run.rc != 0:
        why = f"QEMU ended with {qemu.describe_exit(run.rc)}, not the guest's power-off"
    if why:
        m = MARKER_RE.search(text)
        shown = ("the serial log from the marker on:\n" + indent(console.tail(
            text[m.start():text.find(DONE, m.start()) if DONE in text[m.start():] else None], 40))
            if m else "the serial log's tail:\n" + indent(console.tail(text, 30)))
        return Result(name, "FAIL", run.seconds, why + "\n" + timing + "\n" + shown,
                      tuple(f for f in logs.values() if os.path.exists(f)))
    return Result(name, "PASS", run.seconds, timing)


def run_bli(guests, tally, case, img, system, log_dir):
    """The bli case: one QEMU run without -no-reboot, so the firmware restarts the guest, its
    boots told apart by ANYSECTOR-DEBIAN-DONE; each boot judged on its part of the serial text
    (judge, then judge_bli), into the tally in order; after a failure the rest are SKIPs."""
    n = len(case.boots)
    logs = qemu.log_paths(os.path.join(log_dir, f"{case.name}-ovmf"))
    boot.fresh_logs(logs)
    logical, physical = qemu.SECTORS[case.sectors]
    cmd = boot.command("ovmf", case.frontend, img, logical, physical, logs,
                       os.path.join(system.work, f"{case.name}.vars.fd"), MEMORY_MB,
                       snapshot=False, cache="unsafe")
    cmd = [a for a in cmd if a != "-no-reboot"]
    cmd += ["-smbios", f"type=11,value=anysector-step={case.boots[0].step}"]
    boot.write_cmd(logs, cmd)
    t0 = time.monotonic()
    ends = []          # when each boot's DONE was first seen

    def watch():
        text = console.read_log(logs["serial.log"])
        while len(ends) < text.count(DONE):
            ends.append(time.monotonic())
        if len(MARKER_RE.findall(text)) > n:
            return f"the guest booted more than {n} times"
        if len(ends) >= n:
            return "done"
        return console.gave_up(text, console.read_log(logs["debugcon.log"]))

    before = load()
    guard = sum(STEP_GUARD[b.step] for b in case.boots)
    run = guests.run(cmd, logs["qemu.log"], guard, watch, POWEROFF_GRACE)
    text = console.read_log(logs["serial.log"])
    timing = (f"{len(ends)} boots in {run.seconds:.0f} s wall, QEMU {run.cpu_seconds:.0f} s CPU; "
              f"host {before} before, {load()} after")
    start, last = 0, "PASS"
    for i, b in enumerate(case.boots, 1):
        name = f"{case.name} boot {i} {b.firmware} step={b.step} kernel={system.release(b.kernel)}"
        if last != "PASS":
            tally.add(Result(name, "SKIP", 0.0, f"boot {i - 1} of this disk did not pass"))
            continue
        end = text.find(DONE, start)
        part = text[start:end + len(DONE)] if end >= 0 else text[start:]
        asked = ASKED_RE.search(part)    # the boot before's, after its DONE, when it failed
        why = None if end >= 0 else (
            f"systemctl reboot --boot-loader-entry={asked['id']} failed in boot {i - 1} (exit "
            f"{asked['rc']})" if asked and asked["rc"] != "0" else
            "interrupted" if run.interrupted else
            f"hang guard: QEMU still running after {guard} s" if run.timed_out else
            run.why if run.why not in (None, "done") else
            f"the guest stopped after {i - 1} boots (QEMU {qemu.describe_exit(run.rc)})")
        why = why or judge(part, b, case, system, {}) or judge_bli(part, i, system)
        if not why and i == n and run.lingered:
            why = f"the guest did not power off within {POWEROFF_GRACE} s of its last line"
        if not why and i == n and run.rc != 0:
            why = f"QEMU ended with {qemu.describe_exit(run.rc)}, not the guest's power-off"
        marks = [t0] + ends
        took = (marks[i] if i < len(marks) else time.monotonic()) - marks[min(i, len(marks)) - 1]
        if why:
            tally.add(Result(name, "FAIL", took, why + "\n" + timing + "\nthis boot's serial "
                             "log:\n" + indent(console.tail(part, 40)),
                             tuple(f for f in logs.values() if os.path.exists(f))))
        else:
            tally.add(Result(name, "PASS", took, f"boot {i} of {timing}"))
        last = "FAIL" if why else "PASS"
        start = end + len(DONE) if end >= 0 else len(text)


def run_case(guests, tally, case, img, system, log_dir):
    """The case's boots in order, each on the disk the one before left, into the tally as they
    end; after a failure the rest are SKIPs (they would judge a disk in an unknown state)."""
    if case.bli:
        return run_bli(guests, tally, case, img, system, log_dir)
    last = "PASS"
    seen = {}
    for n, b in enumerate(case.boots, 1):
        if last != "PASS":
            tally.add(Result(f"{case.name} boot {n} {b.firmware} step={b.step}", "SKIP", 0.0,
                             f"boot {n - 1} of this disk did not pass"))
            continue
        r = run_boot(guests, case, n, b, img, system, log_dir, seen)
        tally.add(r)
        last = r.status


def start_cases(pool, guests, tally, todo, system, log_dir, setup_log, label):
    """Makes each case's disk and starts its boots in the pool at once, longest first, so the
    first QEMUs run while the other disks are made; the futures."""
    futures = []
    t_img = time.monotonic()
    for c in todo:
        t1 = time.monotonic()
        try:
            img = system.image(c)
        except CaseFailure as e:
            tally.add(Result(f"{c.name} image", "FAIL", time.monotonic() - t1, str(e),
                             (setup_log,)))
            continue
        futures.append(pool.submit(run_case, guests, tally, c, img, system, log_dir))
    # the tree is in the images now; gone, it costs no disk space and no make's find
    shutil.rmtree(system.tree)
    print(f"{label}: {len(futures)} disk images made in {time.monotonic() - t_img:.0f} s",
          flush=True)
    return futures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="also the cases of make test-debian-full")
    ap.add_argument("--only", help="run only cases whose name matches this glob")
    ap.add_argument("--keep", action="store_true", help="keep the disk images (in $BUILD/debian/work)")
    ap.add_argument("--prepare", action="store_true",
                    help="only make the package and the root filesystem tarball")
    args = ap.parse_args()
    if args.prepare:
        return prepare_only()
    label = "debian-full" if args.full else SUITE
    tally = results.Tally()
    why = skip_reason()
    if why:
        print(f"SKIP {label}: {why}")
        return results.finish(label, 0, 0, 1)

    work = paths.build("debian", "work")
    log_dir = paths.build("debian", "logs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.makedirs(log_dir, exist_ok=True)
    setup_log = os.path.join(log_dir, "setup.log")
    if os.path.exists(setup_log):
        os.unlink(setup_log)
    t0 = time.monotonic()
    print(f"{label}: host {load()}", flush=True)
    try:
        system = System(work, setup_log)
    except CaseFailure as e:
        tally.add(Result("setup", "FAIL", time.monotonic() - t0, str(e), (setup_log,)))
        return results.finish(label, *tally.counts())
    print(f"{label}: {system.times}; kernels {system.base}, then {system.update}", flush=True)

    todo = sorted((c for c in cases() if (args.full or not c.full_only)
                   and (not args.only or fnmatch.fnmatch(c.name, args.only))),
                  key=expected_seconds, reverse=True)
    guests = qemu.Guests()
    try:
        with concurrent.futures.ThreadPoolExecutor(MAX_JOBS) as pool:
            futures = start_cases(pool, guests, tally, todo, system, log_dir, setup_log, label)
            for f in concurrent.futures.as_completed(futures):
                f.result()
    except KeyboardInterrupt:
        guests.kill_all()
        raise
    npass, nfail, nskip = tally.counts()
    if not nfail and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return results.finish(label, npass, nfail, nskip,
                          note=f" ({time.monotonic() - t0:.0f} s; host {load()})")


if __name__ == "__main__":
    sys.exit(main())
