#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-rollback: a kernel that does not come up is not the end (issue 25). Debian's cloud
kernel with a busybox initramfs whose /init reads its role from the command line ("rb=NAME",
"rbact=reboot|oneshot|off"), prints every Boot Loader Interface variable it finds in efivarfs
("RB-VAR NAME HEX", attributes first) and "RB-BOOT role=NAME", then reboots or powers off. The
firmware restarts the guest (no -no-reboot), so one QEMU run is a sequence of boots, read back
from Linux's own "Command line:" lines. Scenarios:

  bli      OVMF: the variables of systemd's Boot Loader Interface after a boot (LoaderInfo,
           firmware, features, entries, the selected entry, the ESP's GUID, the image's path,
           the two times); the entry sets LoaderEntryOneShot=other (and a mark of its own) and
           reboots: "other" boots once, with the one-shot gone, then the default again.
  oneshot  SeaBIOS and OVMF: set-default --once through the boot state block boots once.
  torn     SeaBIOS: a state write torn by a power cut; the other copy's one-shot boots.
  count    SeaBIOS and OVMF: Boot Loader Specification boot counting (new+2.conf that panics
           boots twice, then the next entry; a counted entry that comes up: OVMF renames it
           and sets LoaderBootCountPath, stage2 records it in the boot state block; bless
           makes it fine.conf, which then boots uncounted).
  cfgtries SeaBIOS and OVMF: anysector.cfg's "tries 2" on a default entry that panics, counted
           in the boot state block: new, new, then good; new shown "(failed)".
  ukicount SeaBIOS NVMe 4Kn: the same counting for unified kernel images in /EFI/Linux
           (new+2.efi panics: new, new, good; fine+1.efi comes up and is counted in the boot
           state block; bless renames it fine.efi, keeping .efi, and it boots uncounted).

usage: rollback.py [--only GLOB] [--keep]
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console, initramfs, mtools, paths, payloads, qemu, results, uki  # noqa: E402
from lib.serial import JOBS  # noqa: E402

GUID = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
EFIVARFS = "/lib/modules/{}/kernel/fs/efivarfs/efivarfs.ko"
TIMEOUT = 300           # seconds for a run of up to four Linux boots under TCG on a loaded host
MAX_BOOTS = 6           # a run that boots more often than this loops

INIT = r"""#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
role=; act=
for w in $($bb cat /proc/cmdline); do
  case "$w" in rb=*) role="${w#rb=}";; rbact=*) act="${w#rbact=}";; esac
done
V=/sys/firmware/efi/efivars
G=%(guid)s
if [ -d /sys/firmware/efi ]; then
  $bb insmod /efivarfs.ko
  $bb mount -t efivarfs efivarfs $V
  for f in $V/Loader*-$G; do
    [ -e "$f" ] && echo "RB-VAR $($bb basename $f -$G) $($bb od -An -v -tx1 $f | $bb tr -d ' \n')"
  done
fi
echo "RB-BOOT role=$role act=$act"
case "$act" in
oneshot)
  if [ ! -e $V/AnysectorTestMark-$G ]; then
    $bb printf '%(mark)s' > $V/AnysectorTestMark-$G
    $bb printf '%(oneshot)s' > $V/LoaderEntryOneShot-$G
    echo "RB-ONESHOT set"
    $bb reboot -f
  fi
  $bb poweroff -f;;
reboot) $bb reboot -f;;
*) $bb poweroff -f;;
esac
"""

ONESHOT_TARGET = "other"


def octal(data):
    return "".join(f"\\{b:03o}" for b in data)


def efi_string(text, attributes=7):
    """An efivarfs file's bytes: the attributes (NV, boot service, runtime), then UCS-2."""
    return attributes.to_bytes(4, "little") + (text + "\0").encode("utf-16-le")


def build_initramfs(kernel, out):
    version = os.path.basename(kernel)[len("vmlinuz-"):]
    with open(EFIVARFS.format(version), "rb") as f:
        ko = f.read()
    init = INIT % {"guid": GUID, "mark": octal(efi_string("1")),
                   "oneshot": octal(efi_string(ONESHOT_TARGET))}
    with open(out, "wb") as f:
        f.write(initramfs.build(init=init, with_filler=False, extra=[("efivarfs.ko", ko)]))


class Run:
    """One QEMU run: boots until the guest powers off (or MAX_BOOTS, or TIMEOUT)."""

    def __init__(self, text, rc, why):
        self.text, self.rc, self.why = text, rc, why
        self.roles = re.findall(r"Command line: .*?\brb=(\S+)", text)
        self.boots = [b for b in re.split(r"(?=Command line: )", text)[1:]]

    def vars_of(self, i):
        """The RB-VAR lines of boot i: name -> bytes (attributes dropped)."""
        out = {}
        for name, hexs in re.findall(r"RB-VAR (\w+) ([0-9a-f]*)", self.boots[i]):
            out[name] = bytes.fromhex(hexs)[4:]
        return out


def utf16(value):
    return value.decode("utf-16-le").rstrip("\0")


def guest(firmware, frontend, image, lss, pss, work, tag):
    """Boots image until the guest stops; the OVMF variables persist in work/vars.fd across
    the runs of one case."""
    serial = os.path.join(work, f"{tag}.serial.log")
    qlog = os.path.join(work, f"{tag}.qemu.log")
    for f in (serial, qlog):
        if os.path.exists(f):
            os.unlink(f)
    cmd = [a for a in qemu.base_args(serial, 512) if a != "-no-reboot"]
    vars_path = os.path.join(work, "vars.fd")
    fresh = os.path.join(work, "vars-fresh.fd")
    fw = qemu.firmware_args(firmware, fresh, None)
    if firmware == "ovmf":
        if not os.path.exists(vars_path):
            shutil.copyfile(fresh, vars_path)
        fw = [a.replace(fresh, vars_path) for a in fw]
    cmd += fw + qemu.disk_args(frontend, image, lss, pss, snapshot=False)
    with open(os.path.join(work, f"{tag}.cmd"), "w") as f:
        f.write(" ".join(cmd) + "\n")

    def watch():
        text = console.read_log(serial)
        n = len(re.findall(r"Command line: ", text))
        return f"the guest booted {n} times" if n > MAX_BOOTS else None

    r = qemu.Guests().run(cmd, qlog, TIMEOUT, watch, 5)
    why = f"timeout: still running after {TIMEOUT} s" if r.timed_out else r.why
    return Run(console.read_log(serial), r.rc, why)


def tool(*args, rc=0):
    """anysector ARGS; rc None: any exit status."""
    r = subprocess.run([paths.ANYSECTOR] + [str(a) for a in args], capture_output=True,
                       text=True, errors="replace")
    if rc is not None and r.returncode != rc:
        raise RuntimeError(f"anysector {' '.join(map(str, args))}: exit {r.returncode}, not "
                           f"{rc}\n{r.stdout}{r.stderr}")
    return r


def make_image(work, label, lss, pss, kernel, initrd, entries):
    """A GPT/MBR image whose anysector.cfg holds entries [(name, cmdline, extra args)], the
    first the default."""
    image = os.path.join(work, "disk.img")
    args = ["mkimage", image, "--size", "96M", "--label", label, "--sector-size", lss]
    if pss != lss:
        args += ["--physical-size", pss]
    name, cmdline, extra = entries[0]
    tool(*args, "--stages", paths.STAGES, "--kernel", kernel, "--initrd", initrd, "--name",
         name, "--cmdline", cmdline, "--timeout", "1", *extra)
    topo = ["--sector-size", lss] + (["--physical-size", pss] if pss != lss else []) \
        if label == "mbr" else []
    for name, cmdline, extra in entries[1:]:
        tool("add", image, *topo, "--kernel", kernel, "--initrd", initrd, "--name", name,
             "--cmdline", cmdline, *extra)
    return image


def cmdline(role, act="off"):
    return f"console=ttyS0 rb={role} rbact={act}"


def esp_guid(image):
    info = json.loads(tool("info", "--json", image).stdout)
    for p in info.get("partitions", []):
        if p.get("boot_partition"):
            return p["uuid"]
    raise RuntimeError("info --json names no ESP")


def expect(cond, why):
    if not cond:
        raise AssertionError(why)


def case_bli(work, inputs):
    kernel, initrd = inputs
    image = make_image(work, "gpt", 4096, 4096, kernel, initrd,
                       [("setter", cmdline("setter", "oneshot"), ()),
                        (ONESHOT_TARGET, cmdline(ONESHOT_TARGET, "reboot"), ())])
    run = guest("ovmf", "nvme", image, 4096, 4096, work, "run1")
    expect(run.roles == ["setter", ONESHOT_TARGET, "setter"],
           f"boots {run.roles}, not setter, {ONESHOT_TARGET} (the one-shot), setter")
    v = run.vars_of(0)
    expect(utf16(v.get("LoaderInfo", b"")) == "anysector 0.1",
           f"LoaderInfo {v.get('LoaderInfo')!r}")
    expect(utf16(v.get("LoaderFirmwareType", b"")).startswith("UEFI 2."),
           f"LoaderFirmwareType {v.get('LoaderFirmwareType')!r}")
    expect(utf16(v.get("LoaderFirmwareInfo", b"")).startswith("EDK II "),
           f"LoaderFirmwareInfo {v.get('LoaderFirmwareInfo')!r}")
    expect(int.from_bytes(v.get("LoaderFeatures", b"\0"), "little") == 0x11F,
           f"LoaderFeatures {v.get('LoaderFeatures')!r}, not 0x11F")
    entries = [e for e in utf16(v.get("LoaderEntries", b"")).split("\0") if e]
    expect(entries == ["setter", ONESHOT_TARGET], f"LoaderEntries {entries}")
    expect(utf16(v.get("LoaderEntrySelected", b"")) == "setter",
           f"LoaderEntrySelected {v.get('LoaderEntrySelected')!r}")
    expect(utf16(v.get("LoaderImageIdentifier", b"")).upper() == "\\EFI\\BOOT\\BOOTX64.EFI",
           f"LoaderImageIdentifier {v.get('LoaderImageIdentifier')!r}")
    part = utf16(v.get("LoaderDevicePartUUID", b""))
    want = esp_guid(image)
    expect(part.lower() == str(want).lower(), f"LoaderDevicePartUUID {part!r}, not {want}")
    t0, t1 = (int(utf16(v.get(n, "0".encode("utf-16-le"))) or 0)
              for n in ("LoaderTimeInitUSec", "LoaderTimeExecUSec"))
    expect(0 < t0 < t1, f"LoaderTimeInitUSec {t0}, LoaderTimeExecUSec {t1}")
    v1 = run.vars_of(1)
    expect(utf16(v1.get("LoaderEntrySelected", b"")) == ONESHOT_TARGET,
           f"boot 2: LoaderEntrySelected {v1.get('LoaderEntrySelected')!r}")
    expect("LoaderEntryOneShot" not in v1, "boot 2: LoaderEntryOneShot is still set")
    expect(utf16(run.vars_of(2).get("LoaderEntrySelected", b"")) == "setter",
           "boot 3: LoaderEntrySelected is not the default again")


def state_text(image, topo):
    """check's line about the boot state block."""
    out = tool("check", *topo, image, rc=None).stdout
    line = [ln for ln in out.splitlines() if "boot.state" in ln]
    return line[0] if line else out


def case_oneshot(firmware, frontend, label, lss, pss, work, inputs):
    """set-default --once: the entry boots once, then the default again, and the state block
    holds no one-shot after it; a second run boots the default."""
    kernel, initrd = inputs
    topo = ["--sector-size", lss] + (["--physical-size", pss] if pss != lss else []) \
        if label == "mbr" else []
    image = make_image(work, label, lss, pss, kernel, initrd,
                       [("good", cmdline("good"), ()), ("once", cmdline("once", "reboot"), ())])
    tool("set-default", "--once", *topo, image, "once")
    expect("one-shot 'once'" in state_text(image, topo), "set-default --once left no one-shot: "
           + state_text(image, topo))
    run = guest(firmware, frontend, image, lss, pss, work, "run1")
    expect(run.roles == ["once", "good"], f"boots {run.roles}, not once (the one-shot), good")
    st = state_text(image, topo)
    loader = "stage2" if firmware == "seabios" else "BOOTX64.EFI"
    expect("one-shot 'once'" not in st and f"'once' started last by {loader}, as the one-shot"
           in st,
           f"after the boot the state block should hold no one-shot, and 'once' as booted: {st}")
    run = guest(firmware, frontend, image, lss, pss, work, "run2")
    expect(run.roles == ["good"], f"second run boots {run.roles}, not good")


def state_place(image, topo):
    """(byte offset of copy 0, the copy holding the state) from check."""
    m = re.search(r"boot state block at byte (\d+): copy (\d)", state_text(image, topo))
    if not m:
        raise RuntimeError("check names no boot state block: " + state_text(image, topo))
    return int(m.group(1)), int(m.group(2))


def case_torn(work, inputs):
    """A state write torn by a power cut: set-default --once b stopped by the crash hook after
    its one write, then that copy's bytes after its 32-byte head put back as they were (the
    drive wrote only its start): check warns about the copy, and stage2 boots the one-shot of
    the other copy."""
    kernel, initrd = inputs
    image = make_image(work, "gpt", 4096, 4096, kernel, initrd,
                       [("good", cmdline("good"), ()), ("a", cmdline("a"), ()),
                        ("b", cmdline("b"), ())])
    tool("set-default", "--once", image, "a")
    base, live = state_place(image, [])
    other = base + (1 - live) * 4096
    with open(image, "rb") as f:
        f.seek(other)
        before = f.read(4096)
    r = subprocess.run([paths.ANYSECTOR, "set-default", "--once", image, "b"],
                       env=dict(os.environ, ANYSECTOR_TEST_CRASH_AFTER_WRITE="1"),
                       capture_output=True, text=True)
    expect(r.returncode == 99, f"the crash hook did not stop set-default: exit {r.returncode}, "
           f"{r.stderr}")
    with open(image, "r+b") as f:
        f.seek(other)
        written = f.read(4096)
        expect(b"b" in written[32:64] and written != before, "the crash left no new copy")
        f.seek(other + 32)
        f.write(before[32:])
    st = tool("check", image, rc=1).stdout
    expect("boot.state_copy" in st and "one-shot 'a'" in st,
           f"check does not warn about the torn copy and keep one-shot 'a':\n{st}")
    run = guest("seabios", "nvme", image, 4096, 4096, work, "run1")
    expect(run.roles == ["a"], f"boots {run.roles}, not a (the other copy's one-shot)")



def esp_offset(image):
    info = json.loads(tool("info", "--json", image).stdout)
    lss = info["topology"]["logical_sector_size"]
    for p in info.get("partitions", []):
        if p.get("boot_partition"):
            return p["start"] * lss
    raise RuntimeError("info --json names no boot partition")


def esp_put(image, off, path, text):
    src = image + ".put"
    with open(src, "w") as f:
        f.write(text)
    r = mtools.run(["mcopy", "-o", src, f"::{path}"], image, off)
    os.unlink(src)
    if r.returncode:
        raise RuntimeError(f"mcopy {path}: {r.stderr.decode(errors='replace')}")


def entries_dir(image, off):
    """The file names in /loader/entries."""
    r = mtools.run(["mdir", "-b", "::/loader/entries"], image, off, text=True)
    return sorted(os.path.basename(n.strip().rstrip("/")) for n in r.stdout.splitlines()
                  if n.strip().lower().endswith(".conf"))


def bls_entry(kernel_path, initrd_path, version, options):
    return (f"title Rollback test\nversion {version}\nsort-key rollback\n"
            f"linux {kernel_path}\ninitrd {initrd_path}\noptions {options}\n")


def case_count(firmware, frontend, label, lss, pss, work, inputs):
    """Boot counting: /loader/entries/new+2.conf, whose kernel panics (panic=1, no usable
    init), is the newest entry and so the default; anysector.cfg's good entry has no default
    line. One run boots new twice, then, new having no tries left, good; new sorts last.
    OVMF: BOOTX64.EFI renames new+2.conf to new+1-1.conf, then new+0-2.conf, and says so.
    SeaBIOS: stage2 keeps the tries in the boot state block (check shows 0 left, 2 done) and
    the file keeps its name. Then a counted entry that comes up, fine+1.conf, boots once: OVMF
    renames it fine+0-1.conf and the running system sees LoaderBootCountPath naming that file
    (what systemd-bless-boot renames) and LoaderEntrySelected "fine.conf" (systemd's
    identifier: the name without the counter, ".conf" kept); SeaBIOS records it as the counted
    boot (what bless takes)."""
    kernel, initrd = inputs
    topo = ["--sector-size", lss] + (["--physical-size", pss] if pss != lss else []) \
        if label == "mbr" else []
    image = make_image(work, label, lss, pss, kernel, initrd, [("good", cmdline("good"), ())])
    off = esp_offset(image)
    cfg = mtools.read_text(image, off, "/anysector.cfg")
    kpath = re.search(r"^\s*kernel\s+(\S+)", cfg, re.M).group(1)
    ipath = re.search(r"^\s*initrd\s+(\S+)", cfg, re.M).group(1)
    for d in ("/loader", "/loader/entries"):
        mtools.run(["mmd", f"::{d}"], image, off)
    esp_put(image, off, "/loader/entries/new+2.conf",
            bls_entry(kpath, ipath, "2", "console=ttyS0 rb=new panic=1 rdinit=/none"))
    run = guest(firmware, frontend, image, lss, pss, work, "run1")
    expect(run.roles == ["new", "new", "good"], f"boots {run.roles}, not new, new, good")
    last_menu = run.text[run.text.rfind("anysector boot menu"):]
    expect(re.search(r"^ {3}\d\) Rollback test \(2\) \(failed\)\s*$", last_menu, re.M),
           "the last menu does not show new as '(failed)':\n" + last_menu[:600])
    names = entries_dir(image, off)
    st = state_text(image, topo)
    if firmware == "ovmf":
        for a, b in (("new+2.conf", "new+1-1.conf"), ("new+1-1.conf", "new+0-2.conf")):
            line = f"boot counting: /loader/entries/{a} is now {b}"
            expect(line in run.text, f"the console lacks '{line}'")
        expect(names == ["new+0-2.conf"], f"/loader/entries holds {names}, not new+0-2.conf")
    else:
        expect(names == ["new+2.conf"], f"stage2 renamed a file: /loader/entries holds {names}")
        expect("'new+2.conf' 0 tries left, 2 done" in st and "started last" not in st,
               f"the state block should hold new's tries (0 left, 2 done) and no counted "
               f"boot after good booted: {st}")
    esp_put(image, off, "/loader/entries/fine+1.conf",
            bls_entry(kpath, ipath, "3", cmdline("fine")))
    run = guest(firmware, frontend, image, lss, pss, work, "run2")
    expect(run.roles == ["fine"], f"second run boots {run.roles}, not fine")
    names = entries_dir(image, off)
    if firmware == "ovmf":
        path = utf16(run.vars_of(0).get("LoaderBootCountPath", b""))
        expect(path == "\\loader\\entries\\fine+0-1.conf",
               f"LoaderBootCountPath {path!r}, not \\loader\\entries\\fine+0-1.conf")
        expect(names == ["fine+0-1.conf", "new+0-2.conf"], f"/loader/entries holds {names}")
        # the identifiers systemd's bootctl and logind give these entries: the file's name
        # without the counter, ".conf" kept
        v = run.vars_of(0)
        sel = utf16(v.get("LoaderEntrySelected", b""))
        expect(sel == "fine.conf", f"LoaderEntrySelected {sel!r}, not 'fine.conf'")
        entries = [e for e in utf16(v.get("LoaderEntries", b"")).split("\0") if e]
        expect(sorted(entries) == ["fine.conf", "good", "new.conf"], f"LoaderEntries {entries}")
    else:
        st = state_text(image, topo)
        expect("'fine+1.conf' started last by stage2, counted" in st and
               "'fine+1.conf' 0 tries left, 1 done" in st,
               f"the state block should hold fine's try and its counted boot: {st}")
    # bless from the good system (here on the host: under OVMF with the LoaderBootCountPath the
    # guest saw, under SeaBIOS with no UEFI variables): fine stays the default, uncounted.
    # Without it fine has no tries left and good would boot.
    ev = os.path.join(work, "efivars")
    if firmware == "ovmf":
        os.makedirs(ev, exist_ok=True)
        with open(os.path.join(ev, f"LoaderBootCountPath-{GUID}"), "wb") as f:
            f.write(efi_string(path, 6))
    r = subprocess.run([paths.ANYSECTOR, "bless", *map(str, topo), image], capture_output=True,
                       text=True, env=dict(os.environ, ANYSECTOR_TEST_EFIVARS=ev))
    expect(r.returncode == 0 and "is now /loader/entries/fine.conf" in r.stdout + r.stderr,
           f"bless: exit {r.returncode}\n{r.stdout}{r.stderr}")
    run = guest(firmware, frontend, image, lss, pss, work, "run3")
    expect(run.roles == ["fine"], f"after bless the run boots {run.roles}, not fine")
    expect("boot counting:" not in run.text, "the blessed entry was counted again")
    names = entries_dir(image, off)
    expect(names == ["fine.conf", "new+0-2.conf" if firmware == "ovmf" else "new+2.conf"],
           f"after bless /loader/entries holds {names}")
    if firmware != "ovmf":
        st = state_text(image, topo)
        expect("fine" not in st, f"the state block still holds fine after bless: {st}")

def case_cfg_tries(firmware, frontend, label, lss, pss, work, inputs):
    """anysector.cfg's "tries 2" (add --tries 2 --default) on new, whose kernel panics: the
    boot state block counts it under either firmware; one run boots new, new, then good (new,
    failed, is no longer the default and is shown "(failed)"); check shows its tries used up;
    bless takes the line and the records out."""
    kernel, initrd = inputs
    topo = ["--sector-size", lss] + (["--physical-size", pss] if pss != lss else []) \
        if label == "mbr" else []
    image = make_image(work, label, lss, pss, kernel, initrd,
                       [("good", cmdline("good"), ()),
                        ("new", "console=ttyS0 rb=new panic=1 rdinit=/none",
                         ("--tries", "2", "--default"))])
    run = guest(firmware, frontend, image, lss, pss, work, "run1")
    expect(run.roles == ["new", "new", "good"], f"boots {run.roles}, not new, new, good")
    last_menu = run.text[run.text.rfind("anysector boot menu"):]
    expect(re.search(r"^ {3}\d\) new \(failed\)\s*$", last_menu, re.M),
           "the last menu does not show new as '(failed)':\n" + last_menu[:600])
    st = state_text(image, topo)
    expect("'new' 0 tries left, 2 done" in st and "started last" not in st,
           f"the state block should hold new's used-up tries and no counted boot: {st}")

def uki_osrel(version):
    return f'PRETTY_NAME="Rollback UKI"\nID=rollback\nVERSION_ID={version}\n'


def linux_dir(image, off):
    """The file names in /EFI/Linux."""
    r = mtools.run(["mdir", "-b", "::/EFI/Linux"], image, off, text=True)
    return sorted(os.path.basename(n.strip().rstrip("/")) for n in r.stdout.splitlines()
                  if n.strip().lower().endswith(".efi"))


def case_count_uki(work, inputs):
    """Boot counting of unified kernel images under SeaBIOS on NVMe 4Kn (issues 25, 26): the
    counter of /EFI/Linux/NAME+LEFT[-DONE].efi lives in the boot state block under BIOS, as a
    /loader/entries file's does. new+2.efi (the cloud kernel, this initramfs, a .cmdline whose
    kernel panics: panic=1, no usable init), the newest entry and so the default, boots twice,
    then anysector.cfg's good; the last menu shows it '(failed)'; the file keeps its name and
    the block holds 0 left, 2 done. fine+1.efi, newer, comes up: the block records its counted
    boot; bless renames it /EFI/Linux/fine.efi (not /loader/entries, and .efi kept), and it then
    boots uncounted while new+2.efi stays as it was."""
    kernel, initrd = inputs
    image = make_image(work, "gpt", 4096, 4096, kernel, initrd, [("good", cmdline("good"), ())])
    off = esp_offset(image)
    new, fine = os.path.join(work, "new.efi"), os.path.join(work, "fine.efi")
    uki.build(new, kernel, "console=ttyS0 rb=new panic=1 rdinit=/none\n", uki_osrel(2),
              initrd=initrd)
    uki.build(fine, kernel, cmdline("fine") + "\n", uki_osrel(3), initrd=initrd)
    mtools.run(["mmd", "::/EFI/Linux"], image, off)
    r = mtools.run(["mcopy", "-o", new, "::/EFI/Linux/new+2.efi"], image, off)
    expect(r.returncode == 0, f"mcopy new+2.efi: {r.stderr!r}")
    run = guest("seabios", "nvme", image, 4096, 4096, work, "run1")
    expect(run.roles == ["new", "new", "good"], f"boots {run.roles}, not new, new, good")
    last_menu = run.text[run.text.rfind("anysector boot menu"):]
    expect(re.search(r"^ {3}\d\) Rollback UKI \(2\) \(failed\)\s*$", last_menu, re.M),
           "the last menu does not show new as '(failed)':\n" + last_menu[:600])
    names = linux_dir(image, off)
    expect(names == ["new+2.efi"], f"stage2 renamed a file: /EFI/Linux holds {names}")
    st = state_text(image, [])
    expect("'new+2.efi' 0 tries left, 2 done" in st and "started last" not in st,
           f"the state block should hold new's tries (0 left, 2 done) and no counted boot "
           f"after good booted: {st}")
    r = mtools.run(["mcopy", "-o", fine, "::/EFI/Linux/fine+1.efi"], image, off)
    expect(r.returncode == 0, f"mcopy fine+1.efi: {r.stderr!r}")
    run = guest("seabios", "nvme", image, 4096, 4096, work, "run2")
    expect(run.roles == ["fine"], f"second run boots {run.roles}, not fine")
    st = state_text(image, [])
    expect("'fine+1.efi' started last by stage2, counted" in st and
           "'fine+1.efi' 0 tries left, 1 done" in st,
           f"the state block should hold fine's try and its counted boot: {st}")
    r = subprocess.run([paths.ANYSECTOR, "bless", image], capture_output=True, text=True,
                       env=dict(os.environ, ANYSECTOR_TEST_EFIVARS=os.path.join(work, "none")))
    expect(r.returncode == 0 and "/EFI/Linux/fine+1.efi is now /EFI/Linux/fine.efi" in
           r.stdout + r.stderr, f"bless: exit {r.returncode}\n{r.stdout}{r.stderr}")
    run = guest("seabios", "nvme", image, 4096, 4096, work, "run3")
    expect(run.roles == ["fine"], f"after bless the run boots {run.roles}, not fine")
    names = linux_dir(image, off)
    expect(names == ["fine.efi", "new+2.efi"], f"after bless /EFI/Linux holds {names}")
    st = state_text(image, [])
    expect("fine" not in st, f"the state block still holds fine after bless: {st}")


CASES = [
    ("ovmf-nvme-4Kn-gpt-bli", case_bli),
    ("seabios-ide-512e-mbr-oneshot",
     lambda w, i: case_oneshot("seabios", "ide", "mbr", 512, 4096, w, i)),
    ("seabios-nvme-4Kn-gpt-oneshot",
     lambda w, i: case_oneshot("seabios", "nvme", "gpt", 4096, 4096, w, i)),
    ("ovmf-nvme-4Kn-gpt-oneshot",
     lambda w, i: case_oneshot("ovmf", "nvme", "gpt", 4096, 4096, w, i)),
    ("seabios-nvme-4Kn-gpt-torn", case_torn),
    ("ovmf-nvme-4Kn-gpt-count",
     lambda w, i: case_count("ovmf", "nvme", "gpt", 4096, 4096, w, i)),
    ("seabios-ide-512e-mbr-count",
     lambda w, i: case_count("seabios", "ide", "mbr", 512, 4096, w, i)),
    ("seabios-nvme-4Kn-gpt-count",
     lambda w, i: case_count("seabios", "nvme", "gpt", 4096, 4096, w, i)),
    ("seabios-ide-512e-mbr-cfgtries",
     lambda w, i: case_cfg_tries("seabios", "ide", "mbr", 512, 4096, w, i)),
    ("ovmf-nvme-4Kn-gpt-cfgtries",
     lambda w, i: case_cfg_tries("ovmf", "nvme", "gpt", 4096, 4096, w, i)),
    ("seabios-nvme-4Kn-gpt-ukicount", case_count_uki),
]


def run_case(name, fn, root, parts, keep):
    """One case in its own directory under root (the cases share only the kernel and the
    initramfs, both read): (passed, the line to print). A failed case keeps its logs."""
    work = tempfile.mkdtemp(dir=root, prefix=name + ".")
    start = time.time()
    try:
        fn(work, parts)
        why = None
    except (AssertionError, RuntimeError, OSError, subprocess.SubprocessError) as e:
        why = f"{type(e).__name__}: {e}"
    took = time.time() - start
    if why:
        return False, f"FAIL  {took:5.1f}s  {name}\n    {why}\n    logs: {work}"
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return True, f"PASS  {took:5.1f}s  {name}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="*")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    kernel = payloads.debian_kernel()
    gone = qemu.missing() + [p for p in (paths.ANYSECTOR, paths.STAGES, "/bin/busybox")
                             if not os.path.exists(p)]
    if not kernel:
        gone.append("/boot/vmlinuz-*-cloud-amd64")
    elif not os.path.exists(EFIVARFS.format(os.path.basename(kernel)[len("vmlinuz-"):])):
        gone.append("the cloud kernel's efivarfs.ko")
    cases = [c for c in CASES if fnmatch.fnmatch(c[0], a.only)]
    no_uki = uki.missing()
    nskip = 0
    if no_uki and not gone:
        for name, _ in [c for c in cases if "uki" in c[0]]:
            print(f"SKIP         {name}: {no_uki}")
            nskip += 1
        cases = [c for c in cases if "uki" not in c[0]]
    if gone:
        for name, _ in cases:
            print(f"SKIP         {name}: missing {', '.join(gone)} (Debian packages "
                  "linux-image-cloud-amd64, busybox-static, qemu-system-x86, ovmf, seabios; "
                  "run make deps)")
        return results.finish("qemu-rollback", 0, 0, len(cases))
    root = paths.build("qemu")
    os.makedirs(root, exist_ok=True)
    initrd = os.path.join(root, "rollback-initramfs.cpio.gz")
    build_initramfs(kernel, initrd)
    npass = nfail = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        futures = [pool.submit(run_case, name, fn, root, (kernel, initrd), a.keep)
                   for name, fn in cases]
        for fut in concurrent.futures.as_completed(futures):
            ok, text = fut.result()
            npass += ok
            nfail += not ok
            print(text, flush=True)
    return results.finish("qemu-rollback", npass, nfail, nskip)


if __name__ == "__main__":
    sys.exit(main())
