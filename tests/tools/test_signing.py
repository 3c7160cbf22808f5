#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Secure Boot on the installer's side: the .sbat section of BOOTX64.EFI, install and mkimage
with --sign-key/--sign-cert (sbverify --cert accepts what lands on the ESP; journalled and
restorable like every other write), --shim (shim as BOOTX64.EFI, the signed loader as
grubx64.efi, MokManager beside it), what `check` reports about them, and the refusals. The
real stages are used (a placeholder is no PE image sbsign could sign). Booting them under
Secure Boot is tests/qemu/secboot.py's job. Run by `make test-signing` (suite 43)."""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import gpt, keys, mtools, paths  # noqa: E402
from lib.disk import sha256  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

LSS = 512


def esp_offset(img):
    first, _ = gpt.find_partition(img, LSS)
    return first * LSS


def esp_file(s, img, path, name):
    """Copies a file of the image's ESP to the work directory; its path, or None."""
    data = mtools.read(img, esp_offset(img), path)
    if data is None:
        return None
    out = s.path(name)
    with open(out, "wb") as f:
        f.write(data)
    return out


def mkimage(s, img, *extra, rc=0, has=(), lacks=()):
    return s.anysector("mkimage", img, "--size", "64M", "--stages", paths.STAGES, "--kernel",
                       paths.EFI_PAYLOAD, "--timeout", "0", *extra, rc=rc, has=has, lacks=lacks)


def t_sbat(s):
    """BOOTX64.EFI has a .sbat section (objdump -h) holding efi/sbat.csv: shim's SBAT header line
    and anysector's component line with a whole generation number."""
    efi = paths.build("efi", "BOOTX64.EFI")
    r = subprocess.run(["objdump", "-h", efi], capture_output=True, text=True)
    s.check(" .sbat " in r.stdout, "objdump -h lists no .sbat:\n" + r.stdout)
    got = s.path("sbat.bin")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.sbat", efi, got], check=True)
    want = open(os.path.join(paths.ROOT, "efi", "sbat.csv"), "rb").read()
    s.eq(open(got, "rb").read(), want, ".sbat contents")
    lines = want.decode().splitlines()
    s.eq(lines[0], "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md",
         "SBAT header line")
    ours = [line.split(",") for line in lines[1:] if line.startswith("anysector,")]
    s.check(len(ours) == 1 and len(ours[0]) == 6 and ours[0][1].isdigit(),
            "anysector's SBAT line: %r" % lines[1:])


def t_mkimage_signed(s):
    """mkimage --sign-key/--sign-cert: the ESP's BOOTX64.EFI verifies with that certificate (and
    not with another), and check names the signer."""
    key, cert = keys.snakeoil(s.work)
    _, other = keys.new_pair(s.work, "other")
    img = s.path("signed.img")
    out, _ = mkimage(s, img, "--sign-key", key, "--sign-cert", cert,
                     has=["BOOTX64.EFI on partition 2, signed with " + cert])
    efi = esp_file(s, img, "/EFI/BOOT/BOOTX64.EFI", "signed.efi")
    s.check(efi and keys.verifies(efi, cert), "sbverify --cert snakeoil refuses the ESP's loader")
    s.check(efi and not keys.verifies(efi, other), "sbverify accepts it with another certificate")
    s.anysector("check", img, has=["BOOTX64.EFI present: anysector's loader 0.1 (SBAT generation 1), "
                                   "signed by " + keys.SNAKEOIL_SUBJECT])
    plain = s.path("plain.img")
    mkimage(s, plain)
    s.anysector("check", plain, has=["BOOTX64.EFI present: anysector's loader 0.1 (SBAT generation 1), "
                                     "unsigned"])


def t_install_signed(s):
    """install --sign-key on an installed disk: a dry run changes nothing; the real one journals
    the replaced sectors, the loader verifies with the new certificate, and restore gives back
    the image byte for byte."""
    key, cert = keys.new_pair(s.work, "anysector-test-db")
    img = s.path("install.img")
    mkimage(s, img)
    before = sha256(img)
    out, _ = s.anysector("install", "--dry-run", "--stages", paths.STAGES, "--sign-key", key,
                         "--sign-cert", cert, img, has=["dry run", "files on partition 2"])
    s.eq(sha256(img), before, "image after a dry run")
    backup = s.path("install.backup")
    s.anysector("install", "--stages", paths.STAGES, "--backup", backup, "--sign-key", key,
                "--sign-cert", cert, img, has=["saved the original bytes", "signed with"])
    efi = esp_file(s, img, "/EFI/BOOT/BOOTX64.EFI", "install.efi")
    s.check(efi and keys.verifies(efi, cert), "the installed loader does not verify")
    s.anysector("check", img, has=["signed by /CN=anysector-test-db"])
    s.anysector("restore", img, backup)
    s.eq(sha256(img), before, "image after restore")


def t_shim(s):
    """--shim: shim's bytes as BOOTX64.EFI, the signed loader as grubx64.efi, MokManager copied
    when it lies beside the shim; check names all three. Without --sign-key the loader is
    unsigned: install warns, and check warns (exit 1)."""
    key, cert = keys.snakeoil(s.work)
    sd = s.path("shimdir")
    os.makedirs(sd, exist_ok=True)
    shim = keys.sign(keys.SHIM_UNSIGNED, os.path.join(sd, "shimx64.efi"), key, cert)
    shutil.copy(os.path.join(os.path.dirname(keys.SHIM_UNSIGNED), "mmx64.efi"), sd)
    img = s.path("shim.img")
    mkimage(s, img, "--sign-key", key, "--sign-cert", cert, "--shim", shim,
            has=["BOOTX64.EFI on partition 2: shim from " + shim,
                 "grubx64.efi on partition 2: the loader shim starts, signed with",
                 "mmx64.efi on partition 2: MokManager from"])
    off = esp_offset(img)
    s.eq(mtools.read(img, off, "/EFI/BOOT/BOOTX64.EFI"), open(shim, "rb").read(),
         "BOOTX64.EFI present: the shim")
    s.eq(mtools.read(img, off, "/EFI/BOOT/mmx64.efi"),
         open(os.path.join(sd, "mmx64.efi"), "rb").read(), "mmx64.efi is MokManager")
    loader = esp_file(s, img, "/EFI/BOOT/grubx64.efi", "grubx64.efi")
    s.check(loader and keys.verifies(loader, cert), "grubx64.efi does not verify")
    s.anysector("check", img, has=["BOOTX64.EFI present: shim 16.", "signed by " + keys.SNAKEOIL_SUBJECT,
                                   "shim starts \\EFI\\BOOT\\grubx64.efi, anysector's loader",
                                   "mmx64.efi (MokManager) present"])
    bare = s.path("shim-unsigned.img")
    mkimage(s, bare, "--shim", keys.SHIM_UNSIGNED,
            has=["--shim " + keys.SHIM_UNSIGNED + " is not signed",
                 "--shim without --sign-key"])
    s.anysector("check", bare, rc=1, has=["boot.shim_unsigned", "BOOTX64.EFI present: shim 16.",
                                          "unsigned"])


def t_refusals(s):
    """Usage errors exit 64 before anything is made; a key that is not the certificate's exits
    2 with sbverify's verdict, leaving no image (mkimage) or the image unchanged (install)."""
    key, cert = keys.snakeoil(s.work)
    okey, _ = keys.new_pair(s.work, "mismatch")
    notpe = s.path("notpe.efi")
    open(notpe, "wb").write(b"not a PE image" * 100)
    img = s.path("refused.img")
    for args, said in ((["--sign-key", key], "--sign-key and --sign-cert go together"),
                       (["--sign-cert", cert], "--sign-key and --sign-cert go together"),
                       (["--sign-key", key, "--sign-cert", s.path("none.pem")], "none.pem"),
                       (["--shim", notpe], "is not an EFI program"),
                       (["--shim", s.path("none.efi")], "none.efi"),
                       (["--sign-key", key, "--sign-key", key, "--sign-cert", cert],
                        "--sign-key given twice")):
        mkimage(s, img, *args, rc=64, has=[said])
        s.check(not os.path.exists(img), "an image was left after %s" % args)
    mkimage(s, img, "--sign-key", okey, "--sign-cert", cert, rc=2,
            has=["sbsign could not sign", "private key does not match certificate",
                 "was not made"], lacks=["gaps between PE/COFF sections"])
    s.check(not os.path.exists(img), "an image was left after a mismatched key")
    mkimage(s, img)
    before = sha256(img)
    s.anysector("install", "--stages", paths.STAGES, "--sign-key", okey, "--sign-cert", cert, img,
                rc=2, has=["sbsign could not sign"])
    s.eq(sha256(img), before, "image after a refused signed install")
    leftovers = [f for f in os.listdir(s.work) if f.startswith("anysector-signed-")]
    s.eq(leftovers, [], "temporary signed loaders left behind")


if __name__ == "__main__":
    for prog in ("sbsign", "sbverify", "openssl", "objdump", "mtype"):
        if not have(prog):
            print("signing: %s is missing (sbsigntool, openssl, binutils, mtools)" % prog)
            sys.exit(1)
    for f in (keys.SNAKEOIL_KEY, keys.SHIM_UNSIGNED):
        if not os.path.exists(f):
            print("signing: %s is missing (ovmf, shim-unsigned)" % f)
            sys.exit(1)
    sys.exit(Suite("signing").run([t_sbat, t_mkimage_signed, t_install_signed, t_shim,
                                   t_refusals]))
