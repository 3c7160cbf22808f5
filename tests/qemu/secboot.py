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
A locked configuration (mkimage --lock-config, docs/SECURITY.md "A locked configuration"):
- sb-locked-boots: the locked, pinned menu boots the signed payload;
- sb-locked-changed-byte: one byte of anysector.cfg changed (a digit of its timeout) is refused
  with the loader's sentence naming anysector.cfg and both hash prefixes, and nothing boots;
- sb-locked-bls-editor: a Boot Loader Specification entry dropped on the ESP is not in the menu,
  'e' says the editor is off because of the lock, Enter boots the locked entry;
- sb-locked-add: add without the key exits 3 and leaves the image's SHA-256 as it was; add with
  it signs the loader again and its new default entry boots (its title on the serial line);
- sb-shim-locked: the same lock in the loader shim starts (grubx64.efi, signed with the MOK
  key), which boots the signed payload;
- sb-locked-unpinned: a config without its sha256 line, the loader locked to it and signed by
  hand (no anysector command locks an unpinned entry): the loader's sentence, nothing boots;
- bios-locked: under SeaBIOS (no Secure Boot) stage2 follows the lock it reads from the UEFI
  loader: the locked image boots the dual payload, and with one byte of anysector.cfg changed
  stage2 prints the same sentence and boots nothing;
- bios-locked-bls-editor: sb-locked-bls-editor's checks under SeaBIOS, with the dual payload.
Each case is a fresh 64 MiB GPT image on NVMe with 4096-byte sectors."""
import hashlib
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


def in_work(work):
    """The installer's environment: its temporary files in the case's directory."""
    return dict(os.environ, TMPDIR=work)


def mkimage(work, kernel, *extra, timeout="0"):
    image = os.path.join(work, "disk.img")
    r = subprocess.run([paths.ANYSECTOR, "mkimage", image, "--size", "64M", "--sector-size",
                        str(LSS), "--stages", paths.STAGES, "--kernel", kernel, "--timeout", timeout,
                        *extra], capture_output=True, text=True, env=in_work(work))
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


def locked_image(work, key, cert, *extra, timeout="0"):
    """A locked, pinned menu: the payload signed with the key, mkimage --lock-config."""
    return mkimage(work, signed_payload(work, key, cert), "--lock-config", "--sign-key", key,
                   "--sign-cert", cert, *extra, timeout=timeout)


def esp_cfg(image):
    return mtools.read(image, gpt.find_partition(image, LSS)[0] * LSS, "/anysector.cfg") or b""


def t_locked_boots(work, key, cert):
    g = run(locked_image(work, key, cert), work, [console.PAYLOAD_RE])
    if not console.PAYLOAD_RE.search(g.text()):
        return "no payload line: the locked menu did not boot its pinned entry", g
    return None, g


def t_locked_changed_byte(work, key, cert):
    image = locked_image(work, key, cert)
    off = gpt.find_partition(image, LSS)[0] * LSS
    locked = hashlib.sha256(esp_cfg(image)).hexdigest()
    data = bytearray(esp_cfg(image))
    at = data.index(b"timeout 0") + len("timeout ")
    data[at] = ord("1")                     # one byte: "timeout 1"
    changed = os.path.join(work, "anysector.cfg")
    with open(changed, "wb") as f:
        f.write(data)
    mtools.run(["mcopy", "-o", changed, "::/anysector.cfg"], image, off)
    got = hashlib.sha256(bytes(data)).hexdigest()
    sentence = (f"anysector.cfg (SHA-256 {got[:8]}...) is not the configuration BOOTX64.EFI is "
                f"locked to (SHA-256 {locked[:8]}...), so nothing is booted")
    g = run(image, work, [re.compile(re.escape(sentence)), console.PAYLOAD_RE])
    text = g.text()
    if console.PAYLOAD_RE.search(text):
        return "the changed anysector.cfg booted", g
    if sentence not in text:
        return f"no sentence \"{sentence}\"", g
    if not g.wait_for(b"cannot show a boot menu", 60):
        return "the loader did not say it shows no menu", g
    return None, g


def t_locked_bls_editor(work, key, cert, fw=FW):
    """Under fw: a /loader/entries file list shows is not in the locked menu, 'e' names the lock,
    Enter boots the locked entry (SeaBIOS: the dual payload, which stage2 boots)."""
    # a long countdown keeps the menu up for the keys (the lock covers the timeout line too)
    if fw == FW:
        image = locked_image(work, key, cert, "--title", "Locked entry", timeout="60")
    else:
        image = mkimage(work, paths.DUAL_PAYLOAD, "--lock-config", "--sign-key", key,
                        "--sign-cert", cert, "--title", "Locked entry", timeout="60")
    off = gpt.find_partition(image, LSS)[0] * LSS
    kernel = re.search(rb"^\s*(?:kernel|efi)\s+(\S+)", esp_cfg(image), re.M).group(1).decode()
    conf = os.path.join(work, "dropped.conf")
    with open(conf, "w") as f:
        f.write(f"title Dropped BLS entry\nlinux {kernel}\n")
    mtools.run(["mmd", "::/loader", "::/loader/entries"], image, off)
    mtools.run(["mcopy", conf, "::/loader/entries/dropped.conf"], image, off)
    # the file is an entry the loaders would show on an unlocked menu
    r = subprocess.run([paths.ANYSECTOR, "list", image], capture_output=True, text=True,
                       env=in_work(work))
    if "Dropped BLS entry" not in r.stdout:
        return "list does not show the dropped entry: it would prove nothing", None
    g = Guest(fw, image, work)
    if not g.wait_for(b"Locked entry", WAIT):
        return "the locked entry is not in the menu", g
    g.send(b" ")                             # stop the countdown
    g.pump(2)
    if "Dropped BLS entry" in g.text():
        return "the dropped /loader/entries file is in the locked menu", g
    g.send(b"e")
    if not g.wait_for(b"editing is off: anysector.cfg is locked", 30):
        return "'e' did not say the editor is off because of the lock", g
    g.send(b"\r")
    if not g.wait_for(b"ANYSECTOR-PAYLOAD ", 120):
        return "Enter did not boot the locked entry", g
    return None, g


def t_locked_add(work, key, cert):
    image = locked_image(work, key, cert)
    payload = os.path.join(work, "payload.efi")
    before = hashlib.sha256(open(image, "rb").read()).hexdigest()
    r = subprocess.run([paths.ANYSECTOR, "add", image, "--kernel", payload, "--name", "two",
                        "--title", "Added under the lock", "--default"],
                       capture_output=True, text=True, env=in_work(work))
    after = hashlib.sha256(open(image, "rb").read()).hexdigest()
    if r.returncode != 3 or "give --sign-key and --sign-cert" not in r.stderr:
        return f"add without the key: exit {r.returncode}, {r.stderr.strip()!r}", None
    if after != before:
        return "add without the key changed the image", None
    r = subprocess.run([paths.ANYSECTOR, "add", image, "--kernel", payload, "--name", "two",
                        "--title", "Added under the lock", "--default", "--sign-key", key,
                        "--sign-cert", cert], capture_output=True, text=True, env=in_work(work))
    if r.returncode:
        return f"add with the key: exit {r.returncode}: {r.stderr.strip()}", None
    g = run(image, work, [console.PAYLOAD_RE])
    text = g.text()
    if not console.PAYLOAD_RE.search(text):
        return "no payload line after add with the key", g
    if "Loading Added under the lock" not in text:
        return "the new default entry was not the one booted", g
    return None, g


def t_shim_locked(work, key, cert):
    image = locked_image(work, key, cert, "--shim", signed_shim(work, key, cert))
    g = run(image, work, [console.PAYLOAD_RE, REFUSED_RE["shim"], REFUSED_RE["firmware"]])
    if not console.PAYLOAD_RE.search(g.text()):
        return "no payload line: shim, the locked grubx64.efi or the payload did not start", g
    return None, g


def pe_section(data, name):
    """(file offset, size) of the PE section called name, from the section table."""
    nt = int.from_bytes(data[0x3C:0x40], "little")
    count = int.from_bytes(data[nt + 6:nt + 8], "little")
    table = nt + 24 + int.from_bytes(data[nt + 20:nt + 22], "little")
    for i in range(count):
        sec = data[table + 40 * i:table + 40 * (i + 1)]
        if sec[:8].rstrip(b"\0") == name:
            return (int.from_bytes(sec[20:24], "little"), int.from_bytes(sec[16:20], "little"))
    return None


def t_locked_unpinned(work, key, cert):
    """The loader's own rule, not the installer's: a config without its sha256 line, to which
    the loader is locked and signed by hand (as no anysector command would), boots nothing."""
    image = locked_image(work, key, cert)
    off = gpt.find_partition(image, LSS)[0] * LSS
    cfg = b"".join(line for line in esp_cfg(image).splitlines(keepends=True)
                   if not line.strip().startswith(b"sha256"))
    loader = bytearray(mtools.read(image, off, "/EFI/BOOT/BOOTX64.EFI"))
    where = pe_section(loader, b".cfglock")
    if not where or loader[where[0]:where[0] + 16] != b"anysector cfglck":
        return "no .cfglock block in the locked loader", None
    at = where[0]
    loader[at + 20:at + 128] = ((1).to_bytes(4, "little") + (1).to_bytes(4, "little") + bytes(4)
                                + hashlib.sha256(cfg).digest() + bytes(64))
    plain, signed = os.path.join(work, "relocked.efi"), os.path.join(work, "relocked-signed.efi")
    with open(plain, "wb") as f:
        f.write(loader)
    subprocess.run(["sbattach", "--remove", plain], check=True, capture_output=True)
    keys.sign(plain, signed, key, cert)
    changed = os.path.join(work, "anysector.cfg")
    with open(changed, "wb") as f:
        f.write(cfg)
    mtools.run(["mcopy", "-o", changed, "::/anysector.cfg"], image, off)
    mtools.run(["mcopy", "-o", signed, "::/EFI/BOOT/BOOTX64.EFI"], image, off)
    said = re.compile(r"anysector\.cfg is locked, but \S+ has no sha256 line, so it is not booted")
    g = run(image, work, [said, console.PAYLOAD_RE])
    text = g.text()
    if console.PAYLOAD_RE.search(text):
        return "the unpinned entry of a locked config booted", g
    if not said.search(text):
        return "no sentence naming the file without a sha256 line", g
    return None, g


def t_bios_locked(work, key, cert):
    """stage2 follows the lock it finds in the UEFI loader on the ESP: under SeaBIOS the locked
    image boots its pinned entry, and with one byte of anysector.cfg changed it prints the
    loaders' sentence and boots nothing. The dual-boot payload boots under both firmwares."""
    image = mkimage(work, paths.DUAL_PAYLOAD, "--lock-config", "--sign-key", key, "--sign-cert",
                    cert)
    g = Guest("seabios", image, work)
    try:
        if not g.wait_for(b"ANYSECTOR-PAYLOAD ", 120):
            return "the locked menu did not boot its pinned entry under SeaBIOS", g
    finally:
        g.close()
    off = gpt.find_partition(image, LSS)[0] * LSS
    locked = hashlib.sha256(esp_cfg(image)).hexdigest()
    data = bytearray(esp_cfg(image))
    at = data.index(b"timeout 0") + len("timeout ")
    data[at] = ord("1")
    changed = os.path.join(work, "anysector.cfg")
    with open(changed, "wb") as f:
        f.write(data)
    mtools.run(["mcopy", "-o", changed, "::/anysector.cfg"], image, off)
    got = hashlib.sha256(bytes(data)).hexdigest()
    sentence = (f"anysector.cfg (SHA-256 {got[:8]}...) is not the configuration BOOTX64.EFI is "
                f"locked to (SHA-256 {locked[:8]}...), so nothing is booted")
    os.makedirs(os.path.join(work, "changed"), exist_ok=True)
    g = Guest("seabios", image, os.path.join(work, "changed"))
    g.wait_for(sentence.encode(), 60)
    g.pump(3)
    text = g.text()
    if console.PAYLOAD_RE.search(text):
        return "the changed anysector.cfg booted under SeaBIOS", g
    if sentence not in text:
        return f"no sentence \"{sentence}\" under SeaBIOS", g
    return None, g


CASES = [("sb-signed-kernel", t_signed_kernel), ("sb-unsigned-kernel", t_unsigned_kernel),
         ("sb-shim-debian-kernel", t_shim_debian_kernel),
         ("sb-shim-unsigned-kernel", t_shim_unsigned_kernel),
         ("sb-tampered-loader", t_tampered_loader),
         ("sb-locked-boots", t_locked_boots), ("sb-locked-changed-byte", t_locked_changed_byte),
         ("sb-locked-bls-editor", t_locked_bls_editor), ("sb-locked-add", t_locked_add),
         ("sb-shim-locked", t_shim_locked), ("sb-locked-unpinned", t_locked_unpinned),
         ("bios-locked", t_bios_locked),
         ("bios-locked-bls-editor", lambda w, k, c: t_locked_bls_editor(w, k, c, "seabios"))]


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
