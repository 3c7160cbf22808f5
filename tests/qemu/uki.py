#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-uki: unified kernel images (common/uki.h) under SeaBIOS (stage2 boots .linux by the
BIOS boot protocol) and OVMF (BOOTX64.EFI starts the file with LoadImage/StartImage).

The images are built here, once per run, from Debian 12's systemd-boot-efi stub with objcopy and
computed section addresses (tests/lib/uki.py): the cloud kernel; an initramfs whose /init
prints the command line it got, the md5 of a 5 MiB file inside it, and which of .ucode and
.initrd came last (a file both hold); a .ucode cpio with a marker of its own; .osrel with a
PRETTY_NAME of its own; .cmdline. The same file, byte for byte (its SHA-256 on the boot
partition is compared with the host's), boots on every disk of the matrix:

  type2-*   copied into /EFI/Linux (as kernel-install or a package would), made the default
            with `anysector set-default` (SeaBIOS IDE 512e, OVMF NVMe 4Kn);
  cfg-*     `anysector mkimage --uki FILE --pin --default` (an uki entry of anysector.cfg
            pinning the whole file; SeaBIOS NVMe 4Kn, OVMF virtio-blk 512e);
  edit-*    the menu's editor: the entry's line gains a word, and the kernel sees it (the
            editor is allowed: no Secure Boot), under both firmwares;
  editoff-* `editor off` in anysector.cfg: 'e' says the editor is off, the text typed after it
            changes nothing, and the kernel gets .cmdline exactly (SeaBIOS: a Type #2 entry
            made the default; OVMF: an uki entry of anysector.cfg);
  big-*     a kernel padded past 16 MiB (fixed section addresses 16 MiB apart would overlap);
  damaged-* a UKI cut inside .initrd in /EFI/Linux (left out of the menu with its sentence) and
            an uki entry, the default, whose .linux points past the file's end (its sentence
            when the menu is read and again when it is booted, then the menu waits): nothing
            starts;
  pin-*     one byte of .osrel changed on the disk after add --pin: refused by the pin (the
            whole file is what is pinned, not only what boots);
  sb-*      OVMF's snakeoil build with Secure Boot on, the loader signed: a UKI signed with the
            snakeoil key boots, the unsigned one is refused with the Secure Boot sentence.

Each boot asserts the guest's line: the command line is exactly .cmdline's (or the edited one),
the md5 is the host's, the marker of .ucode is there under SeaBIOS (stage2 joins .ucode before
.initrd; Debian 12's stub 252 ignores .ucode, so OVMF boots are not asked), .initrd came last;
and the menu line shows PRETTY_NAME.

usage: uki.py [CASE...]
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console, gpt, initramfs, keys, mtools, paths, payloads, qemu  # noqa: E402
from lib import serial, uki  # noqa: E402
from lib.serial import Guest  # noqa: E402

PRETTY = "anysector UKI test 6.1"
OSREL = (f'NAME="anysector UKI test"\nPRETTY_NAME="{PRETTY}"\nVERSION_ID="6.1"\n'
         f'ID=anysectortest\n')
CMDLINE = "console=ttyS0 panic=-1 anysector.test=uki quiet"
UKI_RE = re.compile(r"ANYSECTOR-UKI order=(?P<order>\w*) ucode=(?P<ucode>[\w-]*)")
INIT = """#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
echo "ANYSECTOR-UKI order=$($bb cat /order.txt) ucode=$($bb cat /ucode.txt 2>/dev/null)"
echo "ANYSECTOR-LINUX-OK cmdline=[$($bb cat /proc/cmdline)] filler_md5=$($bb md5sum /filler.bin | $bb cut -d' ' -f1)"
$bb poweroff -f
"""
WAIT = 240                      # seconds until the guest's line (TCG on a loaded host)
SB_WAIT = 300
MIB = 1024 * 1024
NAME = "anysector-6.1.0-uki"    # the entry's name: its file is /EFI/Linux/NAME.efi
DISKS = {"ide-512e": ("ide", 512, 4096), "nvme-4Kn": ("nvme", 4096, 4096),
         "virtio-512e": ("virtio-blk", 512, 4096)}
MENU_WAIT = b"waiting for a key"


class Parts:
    """The UKIs of a run, built once under $BUILD/qemu/uki."""

    def __init__(self):
        self.dir = paths.build("qemu", "uki")
        os.makedirs(self.dir, exist_ok=True)
        kernel = payloads.debian_kernel()
        rd = initramfs.build(init=INIT, extra=[("order.txt", b"initrd\n")])
        ucode = initramfs.cpio({"order.txt": b"ucode\n", "ucode.txt": b"from-ucode\n"})
        self.main = self.path("uki.efi")
        uki.build(self.main, kernel, CMDLINE + "\n", OSREL, initrd=rd, ucode=ucode,
                  uname="6.1.0-uki-test")
        big = self.path("vmlinuz-big")
        with open(kernel, "rb") as src, open(big, "wb") as dst:
            data = src.read()
            dst.write(data + b"\0" * (17 * MIB - len(data)))
        self.big = self.path("uki-big.efi")
        uki.build(self.big, big, CMDLINE + "\n", OSREL, initrd=rd, ucode=ucode)
        os.unlink(big)
        secs = uki.sections(self.main)
        self.cut = self.path("uki-cut.efi")
        ioff, isize = secs[".initrd"]
        self.cut_len = ioff + isize // 2
        uki.truncate(self.main, self.cut, self.cut_len)
        self.cut_initrd = (ioff, ioff + isize)
        self.outside = self.path("uki-outside.efi")
        uki.section_outside(self.main, self.outside, ".linux")
        self.size = os.path.getsize(self.main)
        self.sha = sha256(self.main)
        self.md5 = initramfs.filler_md5()

    def path(self, name):
        return os.path.join(self.dir, name)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def anysector(*args):
    r = subprocess.run([paths.ANYSECTOR, *args], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"anysector {args[0]} exit {r.returncode}: {r.stderr.strip()}")
    return r


def mkimage(work, disk, *entry, timeout=0):
    image = os.path.join(work, "disk.img")
    _, lss, pss = DISKS[disk]
    size = ["--sector-size", str(lss)] + (["--physical-size", str(pss)] if pss != lss else [])
    anysector("mkimage", image, "--size", "128M", *size, "--stages", paths.STAGES,
              "--timeout", str(timeout), *entry)
    return image


def esp(image, disk):
    lss = DISKS[disk][1]
    return gpt.find_partition(image, lss)[0] * lss


def put(image, disk, src, dst):
    off = esp(image, disk)
    mtools.run(["mmd", "::/EFI/Linux"], image, off)
    r = mtools.run(["mcopy", "-o", src, "::" + dst], image, off)
    if r.returncode:
        raise RuntimeError(f"mcopy {dst}: {r.stderr.decode(errors='replace')}")


def same_file(image, disk, path, parts):
    data = mtools.read(image, esp(image, disk), path)
    if data is None or hashlib.sha256(data).hexdigest() != parts.sha:
        return f"{path} on the boot partition is not the UKI built here, byte for byte"
    return None


def boot(fw, image, work, disk, until, timeout=WAIT):
    g = Guest(fw, image, work, disk=DISKS[disk])
    deadline = time.time() + timeout
    while time.time() < deadline and g.proc.poll() is None:
        if any(r.search(g.text()) for r in until):
            break
        g.pump(1)
    g.pump(1)
    return g


def check_guest(g, fw, parts, cmdline=CMDLINE):
    """None when the guest's lines say the UKI booted as built, else why not."""
    text = g.text()
    if PRETTY not in "\n".join(l for l in text.splitlines() if ") " in l):
        return f"no menu line shows .osrel's PRETTY_NAME ({PRETTY})"
    m = console.LINUX_RE.search(text)
    if not m:
        return "no ANYSECTOR-LINUX-OK line: the UKI's kernel did not run its initrd"
    if m["cmdline"] != cmdline:
        return f"the kernel's command line is [{m['cmdline']}], not [{cmdline}]"
    if m["md5"] != parts.md5:
        return f"the initrd's filler md5 is {m['md5']}, not {parts.md5}"
    u = UKI_RE.search(text)
    if not u or u["order"] != "initrd":
        return f".initrd did not come last in the initrd block ({u and u['order']})"
    if fw == "seabios" and u["ucode"] != "from-ucode":
        return "stage2 did not hand .ucode to the kernel (its marker is missing)"
    return None


def t_type2(parts, fw, disk):
    def case(work):
        image = mkimage(work, disk, "--kernel", paths.BIOS_PAYLOAD, "--name", "decoy")
        put(image, disk, parts.main, f"/EFI/Linux/{NAME}.efi")
        anysector("set-default", image, NAME)
        why = same_file(image, disk, f"/EFI/Linux/{NAME}.efi", parts)
        g = boot(fw, image, work, disk, [console.LINUX_RE])
        return why or check_guest(g, fw, parts), g
    return case


def t_cfg(parts, fw, disk):
    def case(work):
        image = mkimage(work, disk, "--uki", parts.main, "--name", NAME, "--pin", "--default")
        why = same_file(image, disk, f"/EFI/Linux/{NAME}.efi", parts)
        listed = json.loads(anysector("list", "--json", image).stdout)["entries"]
        if not why and [(e["kind"], e["kernel_sha256"], e["title"]) for e in listed] != \
                [("uki", parts.sha, PRETTY)]:
            why = f"list --json does not show the uki entry with its pin and title: {listed}"
        g = boot(fw, image, work, disk, [console.LINUX_RE])
        return why or check_guest(g, fw, parts), g
    return case


def t_edit(parts, fw):
    disk = "nvme-4Kn"

    def case(work):
        image = mkimage(work, disk, "--uki", parts.main, "--name", NAME, timeout=30)
        g = Guest(fw, image, work, disk=DISKS[disk])
        if not g.wait_for(b"press a key for the menu", WAIT):
            return "no countdown to stop", g
        g.send(b" ")
        g.send(b"e")
        g.send(serial.END)
        for ch in b" anysector.edited=1":
            g.send(bytes([ch]))
        g.send(b"\r")
        g.wait_for(b"ANYSECTOR-LINUX-OK", WAIT)
        g.pump(2)
        return check_guest(g, fw, parts, CMDLINE + " anysector.edited=1"), g
    return case


def t_editoff(parts, fw, type2):
    """editor off in anysector.cfg: 'e' at the menu says so, the keys typed after it change
    nothing, and the UKI boots with its own .cmdline (a Type #2 entry, or an uki entry)."""
    disk = "nvme-4Kn"

    def case(work):
        if type2:
            image = mkimage(work, disk, "--kernel", paths.BIOS_PAYLOAD, "--name", "decoy",
                            timeout=30)
            put(image, disk, parts.main, f"/EFI/Linux/{NAME}.efi")
            anysector("set-default", image, NAME)
        else:
            image = mkimage(work, disk, "--uki", parts.main, "--name", NAME, timeout=30)
        off = esp(image, disk)
        cfg = os.path.join(work, "anysector.cfg")
        with open(cfg, "w") as f:
            f.write("editor off\n" + mtools.read_text(image, off, "/anysector.cfg"))
        mtools.run(["mcopy", "-o", cfg, "::/anysector.cfg"], image, off)
        g = Guest(fw, image, work, disk=DISKS[disk])
        if not g.wait_for(b"press a key for the menu", WAIT):
            return "no countdown to stop", g
        g.send(b"e")
        if not g.wait_for(b"editing is turned off (anysector.cfg: editor off)", 60):
            return "e with 'editor off' did not say the editor is off", g
        g.send(serial.END)
        for ch in b" anysector.edited=x":
            g.send(bytes([ch]))
        g.send(b"\r")
        g.wait_for(b"ANYSECTOR-LINUX-OK", WAIT)
        g.pump(2)
        return check_guest(g, fw, parts), g
    return case


def t_big(parts, fw):
    disk = "nvme-4Kn"

    def case(work):
        image = mkimage(work, disk, "--uki", parts.big, "--name", NAME)
        if uki.sections(parts.big)[".linux"][1] <= 16 * MIB:
            return "the big UKI's .linux is not over 16 MiB", None
        g = boot(fw, image, work, disk, [console.LINUX_RE])
        return check_guest(g, fw, parts), g
    return case


def t_damaged(parts, fw):
    disk = "nvme-4Kn"

    def case(work):
        image = mkimage(work, disk, "--kernel", paths.BIOS_PAYLOAD, "--name", "decoy")
        put(image, disk, parts.cut, "/EFI/Linux/cut.efi")
        put(image, disk, parts.outside, "/EFI/Linux/outside.efi")
        cfg = os.path.join(work, "anysector.cfg")
        off = esp(image, disk)
        text = mtools.read_text(image, off, "/anysector.cfg")
        with open(cfg, "w") as f:
            f.write(text + "\ndefault outside\n\nentry outside\n  uki /EFI/Linux/outside.efi\n")
        mtools.run(["mcopy", "-o", cfg, "::/anysector.cfg"], image, off)
        a, b = parts.cut_initrd
        cut = (f"/EFI/Linux/cut.efi: section .initrd (bytes {a}..{b}) runs past the end of the "
               f"{parts.cut_len}-byte file: it is cut short")
        outside = (f"/EFI/Linux/outside.efi: section .linux points at bytes "
                   f"{parts.size + 0x10000}..")
        g = boot(fw, image, work, disk, [re.compile(re.escape(MENU_WAIT.decode())),
                                         re.compile("Press any key to return"),
                                         console.LINUX_RE])
        text = g.text()
        if cut not in text:
            return f"no sentence for the cut UKI (want: {cut})", g
        if text.count(outside) < 2:
            return (f"the sentence for the UKI whose .linux points outside the file is not "
                    f"there both when the menu is read and when it is booted ({outside})"), g
        if "starting the kernel" in text or "Starting /EFI/Linux" in text or \
                console.LINUX_RE.search(text) or "Linux version" in text:
            return "a damaged UKI was started", g
        if "cut.efi" in "\n".join(l for l in text.splitlines() if re.match(r"\s*\*?\s*\d+\) ", l)):
            return "the cut UKI is in the menu", g
        return None, g
    return case


def t_pin(parts, fw):
    disk = "nvme-4Kn"

    def case(work):
        image = mkimage(work, disk, "--uki", parts.main, "--name", NAME, "--pin", "--default")
        off = esp(image, disk)
        data = bytearray(mtools.read(image, off, f"/EFI/Linux/{NAME}.efi"))
        osrel = uki.sections(parts.main)[".osrel"][0]
        data[data.index(b"UKI test", osrel)] ^= 0x20     # "uKI test": .osrel, never loaded
        changed = os.path.join(work, "changed.efi")
        with open(changed, "wb") as f:
            f.write(data)
        mtools.run(["mcopy", "-o", changed, f"::/EFI/Linux/{NAME}.efi"], image, off)
        g = boot(fw, image, work, disk, [re.compile("differs from the pinned one"),
                                         console.LINUX_RE])
        text = g.text()
        want = (f"the SHA-256 of /EFI/Linux/{NAME}.efi ({hashlib.sha256(data).hexdigest()[:8]}...) "
                f"differs from the pinned one ({parts.sha[:8]}...)")
        if want not in text:
            return f"no pin refusal naming the file and both hashes ({want})", g
        if console.LINUX_RE.search(text):
            return "the changed UKI booted", g
        return None, g
    return case


SB_REFUSED = re.compile(r"entry \S+: Secure Boot: the firmware refuses unified kernel image "
                        r"(/\S+) \(EFI_(ACCESS_DENIED|SECURITY_VIOLATION)\)")


def t_secboot(parts, signed, key, cert):
    disk = "nvme-4Kn"

    def case(work):
        src = parts.main
        if signed:
            src = keys.sign(parts.main, os.path.join(work, f"{NAME}.efi"), key, cert)
        image = mkimage(work, disk, "--uki", src, "--name", NAME, "--sign-key", key,
                        "--sign-cert", cert)
        g = boot("ovmf-secboot", image, work, disk, [console.LINUX_RE, SB_REFUSED],
                 timeout=SB_WAIT)
        text = g.text()
        if signed:
            return check_guest(g, "ovmf", parts), g
        m = SB_REFUSED.search(text)
        if not m or m.group(1) != f"/EFI/Linux/{NAME}.efi":
            return "no Secure Boot refusal naming the unsigned UKI", g
        if console.LINUX_RE.search(text):
            return "the unsigned UKI booted", g
        return None, g
    return case


def cases(parts, key, cert):
    out = [("type2-seabios-ide-512e", t_type2(parts, "seabios", "ide-512e")),
           ("type2-ovmf-nvme-4Kn", t_type2(parts, "ovmf", "nvme-4Kn")),
           ("cfg-seabios-nvme-4Kn", t_cfg(parts, "seabios", "nvme-4Kn")),
           ("cfg-ovmf-virtio-512e", t_cfg(parts, "ovmf", "virtio-512e"))]
    for fw in ("seabios", "ovmf"):
        out += [(f"edit-{fw}", t_edit(parts, fw)),
                (f"editoff-{fw}", t_editoff(parts, fw, fw == "seabios")),
                (f"big-{fw}", t_big(parts, fw)),
                (f"damaged-{fw}", t_damaged(parts, fw)), (f"pin-{fw}", t_pin(parts, fw))]
    out += [("sb-signed", t_secboot(parts, True, key, cert)),
            ("sb-unsigned", t_secboot(parts, False, key, cert))]
    return out


def main(argv):
    only = set(argv)
    gone = [p for p in [paths.ANYSECTOR, paths.BIOS_PAYLOAD, "/bin/busybox", keys.SNAKEOIL_KEY,
                        qemu.OVMF_SB_CODE] if not os.path.exists(p)] + qemu.missing()
    gone += [] if payloads.debian_kernel() else ["/boot/vmlinuz-*-cloud-amd64"]
    why = uki.missing()
    gone += [why] if why else []
    os.makedirs(paths.build("qemu"), exist_ok=True)
    parts = Parts() if not gone else None
    keydir = paths.build("qemu", "uki", "keys")
    os.makedirs(keydir, exist_ok=True)
    key, cert = keys.snakeoil(keydir) if not gone else (None, None)
    try:
        todo = [(n, c) for n, c in cases(parts, key, cert) if not only or n in only]
        return serial.run_cases("qemu-uki", todo, lambda name: gone,
                                skip_note="Debian packages systemd-boot-efi, binutils, ovmf, "
                                "seabios, busybox-static, linux-image-cloud-amd64; run make deps")
    finally:
        shutil.rmtree(paths.build("qemu", "uki"), ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
