#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Booting under OVMF with Secure Boot on (make test-qemu-secboot): Debian's snakeoil OVMF build
(SMM, the test key in PK, KEK and db; lib.qemu firmware "ovmf-secboot"), the loader signed at
mkimage with that key (lib.keys), and:
- sb-signed-kernel: a kernel (the EFI test payload) signed with the key boots;
- sb-unsigned-kernel: the unsigned payload is refused with the sentence naming Secure Boot,
  the entry and the path, the loader is back at its menu, and its editor is off;
- sb-shim-debian-kernel: shim-unsigned's shim signed with the key, the loader as grubx64.efi,
  and Debian's own signed kernel (trusted by shim's built-in Debian certificate, not by db)
  boots Linux through SHIM_LOCK;
- sb-shim-unsigned-kernel: the same with the unsigned payload is refused by shim;
- sb-tampered-loader: the signed loader with one byte changed is refused by the firmware (the
  loader never prints its menu).
Each case is a fresh 64 MiB GPT image on NVMe with 4096-byte sectors."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console, gpt, initramfs, keys, mtools, paths, payloads, qemu  # noqa: E402
from lib import serial  # noqa: E402
from lib.serial import Guest  # noqa: E402

FW = "ovmf-secboot"
LSS = 4096
WAIT = 240          # seconds: SMM firmware under TCG on a loaded host
LINUX_TOKEN = "anysector.test=secboot"
REFUSED_RE = {
    "firmware": re.compile(r"entry \S+: Secure Boot: the firmware refuses kernel (/\S+) \(EFI_"
                           r"(ACCESS_DENIED|SECURITY_VIOLATION)\)"),
    "shim": re.compile(r"entry \S+: Secure Boot: shim refuses kernel (/\S+) \(EFI_\w+\)"),
}
MENU_WAIT = b"waiting for a key: "
EDITOR_OFF = b"editing is off under Secure Boot"


def mkimage(work, kernel, *extra):
    image = os.path.join(work, "disk.img")
    r = subprocess.run([paths.ANYSECTOR, "mkimage", image, "--size", "64M", "--sector-size",
                        str(LSS), "--stages", paths.STAGES, "--kernel", kernel, "--timeout", "0",
                        *extra], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"mkimage exit {r.returncode}: {r.stderr.strip()}")
    return image


def run(image, work, until, timeout=WAIT):
    """Boots until one of `until` (regexes on the cleaned serial text) matches; the guest."""
    g = Guest(FW, image, work)
    try:
        deadline = time.time() + timeout
        while time.time() < deadline and g.proc.poll() is None:
            if any(r.search(g.text()) for r in until):
                break
            g.pump(1)
    except Exception:
        g.close()
        raise
    return g


def signed_payload(work, key, cert):
    return keys.sign(paths.EFI_PAYLOAD, os.path.join(work, "payload.efi"), key, cert)


def signed_shim(work, key, cert):
    return keys.sign(keys.SHIM_UNSIGNED, os.path.join(work, "shimx64.efi"), key, cert)


def expect_refusal(g, kind, kernel_on_esp):
    text = g.text()
    m = REFUSED_RE[kind].search(text)
    if not m:
        return f"no \"Secure Boot: {kind} refuses kernel ...\" sentence"
    if m.group(1) != kernel_on_esp:
        return f"the sentence names {m.group(1)}, not {kernel_on_esp}"
    if console.PAYLOAD_RE.search(text):
        return "the refused payload ran"
    if not g.wait_for(MENU_WAIT, 60):
        return "the loader is not back at its menu after the refusal"
    g.send(b"e")
    if not g.wait_for(EDITOR_OFF, 30):
        return "the editor is not off under Secure Boot ('e' gave no note)"
    return None


def esp_kernel_path():
    """Where mkimage puts --kernel payload.efi (the entry named after the file)."""
    return "/payload.efi/payload.efi"


def t_signed_kernel(work, key, cert):
    image = mkimage(work, signed_payload(work, key, cert), "--sign-key", key, "--sign-cert", cert)
    g = run(image, work, [console.PAYLOAD_RE])
    if not console.PAYLOAD_RE.search(g.text()):
        return "no payload line: the signed loader or the signed kernel did not start", g
    return None, g


def t_unsigned_kernel(work, key, cert):
    image = mkimage(work, paths.EFI_PAYLOAD, "--sign-key", key, "--sign-cert", cert)
    g = run(image, work, [REFUSED_RE["firmware"], console.PAYLOAD_RE])
    return expect_refusal(g, "firmware", esp_kernel_path()), g


def t_shim_debian_kernel(work, key, cert):
    kernel = payloads.debian_kernel()
    rd = os.path.join(work, "initramfs.cpio.gz")
    with open(rd, "wb") as f:
        f.write(initramfs.build())
    image = mkimage(work, kernel, "--initrd", rd, "--cmdline",
                    f"console=ttyS0 panic=-1 {LINUX_TOKEN}", "--shim",
                    signed_shim(work, key, cert), "--sign-key", key, "--sign-cert", cert)
    g = run(image, work, [console.LINUX_RE, REFUSED_RE["shim"], REFUSED_RE["firmware"]],
            timeout=WAIT + 120)
    return console.check_linux(g.text(), LINUX_TOKEN, initramfs.filler_md5()), g


def t_shim_unsigned_kernel(work, key, cert):
    image = mkimage(work, paths.EFI_PAYLOAD, "--shim", signed_shim(work, key, cert),
                    "--sign-key", key, "--sign-cert", cert)
    g = run(image, work, [REFUSED_RE["shim"], REFUSED_RE["firmware"], console.PAYLOAD_RE])
    return expect_refusal(g, "shim", esp_kernel_path()), g


def t_tampered_loader(work, key, cert):
    image = mkimage(work, signed_payload(work, key, cert), "--sign-key", key, "--sign-cert", cert)
    off = gpt.find_partition(image, LSS)[0] * LSS
    data = bytearray(mtools.read(image, off, "/EFI/BOOT/BOOTX64.EFI"))
    at = data.find(b"anysector boot menu")
    if at < 0:
        return "the loader holds no \"anysector boot menu\" text to change", None
    data[at] ^= 0x20                       # one byte of signed content
    changed = os.path.join(work, "changed.efi")
    with open(changed, "wb") as f:
        f.write(data)
    mtools.run(["mcopy", "-o", changed, "::/EFI/BOOT/BOOTX64.EFI"], image, off)
    g = run(image, work, [re.compile(r"No bootable option or device was found"),
                          re.compile(console.MENU_TITLE, re.I)], timeout=WAIT)
    text = g.text()
    if re.search(console.MENU_TITLE, text, re.I) or console.PAYLOAD_RE.search(text):
        return "the changed loader ran", g
    if "No bootable option or device was found" not in text:
        return "OVMF did not say it found no bootable option", g
    return None, g


CASES = [("sb-signed-kernel", t_signed_kernel), ("sb-unsigned-kernel", t_unsigned_kernel),
         ("sb-shim-debian-kernel", t_shim_debian_kernel),
         ("sb-shim-unsigned-kernel", t_shim_unsigned_kernel),
         ("sb-tampered-loader", t_tampered_loader)]


def main(argv):
    only = set(argv)
    os.makedirs(paths.build("qemu"), exist_ok=True)
    needed = [paths.ANYSECTOR, paths.EFI_PAYLOAD, qemu.OVMF_SB_CODE, qemu.OVMF_SB_VARS,
              keys.SNAKEOIL_KEY, keys.SHIM_UNSIGNED] + qemu.missing()
    needed += [] if payloads.debian_kernel() else ["/boot/vmlinuz-*-cloud-amd64"]
    gone = [p for p in needed if not os.path.exists(p)]
    with tempfile.TemporaryDirectory(dir=paths.build("qemu")) as keydir:
        key, cert = keys.snakeoil(keydir) if not gone else (None, None)
        cases = [(name, lambda work, fn=fn: fn(work, key, cert)) for name, fn in CASES
                 if not only or name in only]
        return serial.run_cases("qemu-secboot", cases, lambda name: gone,
                                skip_note="Debian packages ovmf, shim-unsigned, sbsigntool, "
                                "linux-image-cloud-amd64; run make deps")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
