#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A locked configuration on the installer's side (suite 56, `make test-lockcfg`): the SHA-256
of anysector.cfg in the loader's .cfglock section (common/cfg_lock.h), read here from the ESP's
loader with objcopy and compared with sha256 of the ESP's anysector.cfg (hashlib), never with
the installer's own words:

- mkimage/install --lock-config with --sign-key/--sign-cert lock the loader to anysector.cfg,
  pin what they add, and the signed loader verifies; without a key it is a usage error (64);
  an unpinned entry is refused (exit 3, the image's SHA-256 unchanged);
- add, remove and set-default on a locked menu: without --sign-key exit 3 and the SHA-256
  unchanged; with it the loader is locked to the new file (and the one before it) and signed;
- one byte of anysector.cfg changed: check exits 2 with the loader's sentence (both hash
  prefixes), a change is refused, install --lock-config locks again;
- check reports the lock; a Boot Loader Specification entry is not part of a locked menu;
- with --shim the loader shim starts (grubx64.efi) is locked, shim itself untouched;
- through a mounted ESP (Debian's /boot/efi, declared in a mountinfo file as test-live-tools
  does): add without the key changes nothing, with it the loader in the mount is locked to the
  new file and the one before it, signed, and renamed into place before anysector.cfg (strace);
- an add stopped dead after every write K (ANYSECTOR_TEST_CRASH_AFTER_WRITE) leaves an ESP
  whose loader takes its anysector.cfg and whose FAT is whole: the old state, the middle one
  (the new loader with the old file) or the new one.
Booting locked loaders under Secure Boot is tests/qemu/secboot.py's job."""
import hashlib
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import gpt, keys, mtools, paths, strace  # noqa: E402
from lib.disk import Loop, sha256  # noqa: E402
from lib.live import MOUNTINFO, declare_mounted  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have, need_loop  # noqa: E402

LSS = 512
LOADER = "/EFI/BOOT/BOOTX64.EFI"
MAGIC = b"anysector cfglck"


def esp_offset(img):
    return gpt.find_partition(img, LSS)[0] * LSS


def esp_read(img, path):
    return mtools.read(img, esp_offset(img), path)


def cfg_sha(img):
    data = esp_read(img, "/anysector.cfg")
    return hashlib.sha256(data or b"").hexdigest()


def lock_of(s, img, path=LOADER):
    """(locked, [hex hashes]) from the loader's .cfglock section, as objcopy extracts it."""
    return lock_in(s, esp_read(img, path))


def lock_in(s, data):
    """lock_of for a loader's bytes."""
    if data is None:
        return None
    pe, sec = s.path("lock-pe.efi"), s.path("lock.bin")
    with open(pe, "wb") as f:
        f.write(data)
    r = subprocess.run(["objcopy", "-O", "binary", "--only-section=.cfglock", pe, sec],
                       capture_output=True, text=True)
    block = open(sec, "rb").read() if r.returncode == 0 and os.path.exists(sec) else b""
    if len(block) < 128 or block[:16] != MAGIC:
        return None
    version, flags, n = struct.unpack_from("<III", block, 16)
    return bool(flags & 1), [block[32 + 32 * i:64 + 32 * i].hex() for i in range(n)]


def verifies(s, img, cert, path=LOADER):
    out = s.path("verify.efi")
    with open(out, "wb") as f:
        f.write(esp_read(img, path) or b"")
    return keys.verifies(out, cert)


def mkimage(s, img, *extra, rc=0, has=(), lacks=()):
    return s.anysector("mkimage", img, "--size", "64M", "--stages", paths.STAGES, "--kernel",
                       paths.EFI_PAYLOAD, "--timeout", "0", *extra, rc=rc, has=has, lacks=lacks)


def locked_image(s, name):
    key, cert = keys.snakeoil(s.work)
    img = s.path(name)
    mkimage(s, img, "--lock-config", "--sign-key", key, "--sign-cert", cert,
            has=["locked: 1 loader on partition 2 holds the SHA-256 of anysector.cfg"])
    return img, key, cert


def t_mkimage_locked(s):
    """mkimage --lock-config: the loader holds the SHA-256 of the ESP's anysector.cfg and
    nothing else, verifies with the certificate, the entry is pinned; check says it matches."""
    img, key, cert = locked_image(s, "locked.img")
    s.eq(lock_of(s, img), (True, [cfg_sha(img)]), "the lock after mkimage")
    s.check(verifies(s, img, cert), "the locked loader does not verify with the certificate")
    s.check(b"\nsha256 " in (esp_read(img, "/anysector.cfg") or b"").replace(b"  ", b" ")
            or b"sha256" in (esp_read(img, "/anysector.cfg") or b""),
            "mkimage --lock-config wrote no sha256 line")
    s.anysector("check", img, has=["boot.lock", "is locked to anysector.cfg %s..." %
                                   cfg_sha(img)[:8], "and anysector.cfg matches",
                                   "boot.lock_bios", "stage2 follows the lock under BIOS too (not "
                                   "its legacy-gap build), but BIOS has no Secure Boot"])
    plain = s.path("plain.img")
    mkimage(s, plain)
    s.eq(lock_of(s, plain), (False, []), "an unlocked loader's block")
    s.anysector("check", plain, has=["anysector.cfg is not locked to the loader"],
                lacks=["boot.lock_bios"])


def t_usage(s):
    """--lock-config without a key is a usage error before anything is made; add's
    --sign-key alone too."""
    key, cert = keys.snakeoil(s.work)
    img = s.path("usage.img")
    mkimage(s, img, "--lock-config", rc=64, has=["--lock-config needs --sign-key and --sign-cert"])
    s.check(not os.path.exists(img), "an image was left after a usage error")
    mkimage(s, img)
    before = sha256(img)
    s.anysector("install", "--stages", paths.STAGES, "--lock-config", img, rc=64,
                has=["--lock-config needs --sign-key"])
    s.anysector("add", img, "--kernel", paths.EFI_PAYLOAD, "--sign-key", key, rc=64,
                has=["--sign-key and --sign-cert go together"])
    s.eq(sha256(img), before, "image after usage errors")


def t_unpinned_refused(s):
    """install --lock-config on a menu with an unpinned entry: exit 3, the sentence naming the
    entry and its file, the image's SHA-256 unchanged, no backup left."""
    key, cert = keys.snakeoil(s.work)
    img = s.path("unpinned.img")
    mkimage(s, img)
    before = sha256(img)
    bak = s.path("unpinned.bak")
    s.anysector("install", "--stages", paths.STAGES, "--lock-config", "--sign-key", key,
                "--sign-cert", cert, "--backup", bak, img, rc=3,
                has=["entry 'payload.efi': /payload.efi/payload.efi has no sha256 line, and a "
                     "locked anysector.cfg pins every file it boots", "nothing was written"])
    s.eq(sha256(img), before, "image after a refused lock")
    s.check(not os.path.exists(bak), "a refused lock left its backup file")


def t_changes_need_key(s):
    """add, remove and set-default on a locked menu without --sign-key: exit 3, the sentence,
    the image's SHA-256 unchanged."""
    img, key, cert = locked_image(s, "nokey.img")
    before = sha256(img)
    said = "is locked (the loader holds the SHA-256 of anysector.cfg"
    s.anysector("add", img, "--kernel", paths.EFI_PAYLOAD, "--name", "two", rc=3,
                has=[said, "give --sign-key and --sign-cert; nothing was written"])
    s.anysector("set-default", img, "payload.efi", rc=3, has=[said])
    s.anysector("remove", img, "payload.efi", "--force", rc=3, has=[said])
    s.eq(sha256(img), before, "image after refused changes")


def t_changes_with_key(s):
    """With the key: add pins the new entry and locks the loader to the new anysector.cfg (and
    the one before it), signed; set-default and remove the same; check is clean each time."""
    img, key, cert = locked_image(s, "withkey.img")
    sign = ["--sign-key", key, "--sign-cert", cert]
    old = cfg_sha(img)
    # journalled like any change: restore gives the image back byte for byte
    before, bak = sha256(img), s.path("withkey.bak")
    s.anysector("add", img, "--kernel", paths.EFI_PAYLOAD, "--name", "two", "--backup", bak,
                *sign)
    s.anysector("restore", img, bak, has=["restored"])
    s.eq(sha256(img), before, "image after restore of a locked add")
    s.anysector("add", img, "--kernel", paths.EFI_PAYLOAD, "--name", "two", *sign,
                has=["entry 'two'", "pinned by SHA-256", "locked: 1 loader"])
    new = cfg_sha(img)
    s.check(new != old, "add did not change anysector.cfg")
    s.eq(lock_of(s, img), (True, [new, old]), "the lock after add")
    s.check(verifies(s, img, cert), "the re-signed loader does not verify")
    s.anysector("check", img, has=["and anysector.cfg matches"], lacks=["\nerror "])
    for args in (("set-default", img, "two"), ("remove", img, "payload.efi")):
        prev = cfg_sha(img)
        s.anysector(*args, *sign, has=["locked: 1 loader"])
        s.eq(lock_of(s, img), (True, [cfg_sha(img), prev]), "the lock after " + args[0])
        s.anysector("check", img, has=["and anysector.cfg matches"], lacks=["\nerror "])


def t_tampered(s):
    """One byte of anysector.cfg changed: check exits 2 with the loader's sentence and both
    hash prefixes; a change with the key is refused (exit 3, unchanged); install --lock-config
    locks to the file as it is."""
    img, key, cert = locked_image(s, "tampered.img")
    locked = cfg_sha(img)
    data = bytearray(esp_read(img, "/anysector.cfg"))
    at = data.index(b"timeout 0") + len("timeout ")
    data[at] = ord("5")
    changed = s.path("changed.cfg")
    open(changed, "wb").write(data)
    mtools.run(["mcopy", "-o", changed, "::/anysector.cfg"], img, esp_offset(img))
    got = cfg_sha(img)
    sentence = ("anysector.cfg (SHA-256 %s...) is not the configuration BOOTX64.EFI is locked "
                "to (SHA-256 %s...), so nothing is booted" % (got[:8], locked[:8]))
    s.anysector("check", img, rc=2, has=["cfg.locked_mismatch", sentence])
    before = sha256(img)
    s.anysector("add", img, "--kernel", paths.EFI_PAYLOAD, "--name", "two", "--sign-key", key,
                "--sign-cert", cert, rc=3, has=[sentence, "install --lock-config",
                                                "nothing was written"])
    s.eq(sha256(img), before, "image after a change refused on a mismatching lock")
    s.anysector("install", "--stages", paths.STAGES, "--lock-config", "--sign-key", key,
                "--sign-cert", cert, img, has=["locked: 1 loader"])
    s.eq(lock_of(s, img), (True, [got]), "the lock after install --lock-config")
    s.anysector("check", img, has=["and anysector.cfg matches"], lacks=["\nerror "])
    s.anysector("install", "--stages", paths.STAGES, "--sign-key", key, "--sign-cert", cert, img,
                has=["was locked to anysector.cfg; the one installed now is not"])
    s.eq(lock_of(s, img), (False, []), "the lock after install without --lock-config")


def t_bls_not_in_locked_menu(s):
    """A Boot Loader Specification entry dropped on a locked ESP is in no locked menu: check
    counts none, set-default cannot name it, install --lock-config says it is not read."""
    img, key, cert = locked_image(s, "bls.img")
    conf = s.path("extra.conf")
    open(conf, "w").write("title Dropped\nlinux /payload.efi/payload.efi\n")
    off = esp_offset(img)
    mtools.run(["mmd", "::/loader", "::/loader/entries"], img, off)
    mtools.run(["mcopy", conf, "::/loader/entries/extra.conf"], img, off)
    s.anysector("check", img, has=["boot menu: 1 entry", "0 from /loader/entries",
                                   "and anysector.cfg matches"])
    before = sha256(img)
    s.anysector("set-default", img, "extra", "--sign-key", key, "--sign-cert", cert, rc=3,
                has=["has no entry named 'extra'"])
    s.eq(sha256(img), before, "image after set-default of a BLS entry on a locked menu")
    s.anysector("install", "--stages", paths.STAGES, "--lock-config", "--sign-key", key,
                "--sign-cert", cert, img, has=["/loader/entries on partition 2 holds 1 entry "
                                               "that the locked loader does not read"])


def t_shim(s):
    """--shim --lock-config: grubx64.efi (the loader shim starts) holds the lock and verifies;
    shim, as BOOTX64.EFI, is shim's bytes; add with the key locks grubx64.efi again."""
    key, cert = keys.snakeoil(s.work)
    shim = keys.sign(keys.SHIM_UNSIGNED, s.path("shimx64.efi"), key, cert)
    img = s.path("shim.img")
    mkimage(s, img, "--shim", shim, "--lock-config", "--sign-key", key, "--sign-cert", cert)
    second = "/EFI/BOOT/grubx64.efi"
    s.eq(lock_of(s, img, second), (True, [cfg_sha(img)]), "grubx64.efi's lock")
    s.eq(esp_read(img, LOADER), open(shim, "rb").read(), "BOOTX64.EFI is the shim")
    s.check(verifies(s, img, cert, second), "grubx64.efi does not verify")
    old = cfg_sha(img)
    s.anysector("add", img, "--kernel", paths.EFI_PAYLOAD, "--name", "two", "--sign-key", key,
                "--sign-cert", cert)
    s.eq(lock_of(s, img, second), (True, [cfg_sha(img), old]), "grubx64.efi's lock after add")
    s.eq(esp_read(img, LOADER), open(shim, "rb").read(), "BOOTX64.EFI after add")


def t_crash_points(s):
    """add on a locked menu stopped dead after each write K: the loader on the ESP takes the
    anysector.cfg on the ESP (old, or new), and check finds no error."""
    img, key, cert = locked_image(s, "crash.img")
    args = ["add", None, "--kernel", paths.EFI_PAYLOAD, "--name", "two", "--sign-key", key,
            "--sign-cert", cert]
    seen = set()
    for k in range(1, 200):
        cur = s.path("crash-%d.img" % k)
        subprocess.run(["cp", "--sparse=always", img, cur], check=True)
        args[1] = cur
        tmp = s.path("tmp-%d" % k)   # a run stopped dead leaves its temporary files
        os.makedirs(tmp)
        out, err = s.anysector(*args, rc=None, env={"ANYSECTOR_TEST_CRASH_AFTER_WRITE": str(k),
                                                     "TMPDIR": tmp})
        lock = lock_of(s, cur)
        s.check(lock and lock[0] and cfg_sha(cur) in lock[1],
                "K=%d: the loader's lock %r does not take anysector.cfg %s" % (k, lock,
                                                                              cfg_sha(cur)))
        s.anysector("check", cur, lacks=["\nerror "], rc=None)
        seen.add(cfg_sha(cur))
        os.unlink(cur)
        if "stopping dead" not in err:
            break
    s.check(k > 5, "the locked add made only %d writes" % k)
    s.eq(len(seen), 2, "anysector.cfg states seen over the crash points (old and new)")
    s.eq(os.listdir(tmp), [], "temporary files left by the add that finished")


def tree(top):
    """{relative path: SHA-256} of every file under top."""
    out = {}
    for d, _, files in os.walk(top):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), top)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def t_mounted_esp(s):
    """A locked menu changed through the mounted ESP: without the key nothing in the mount or on
    the disk changes (exit 3); with it add writes the re-signed loader and the new anysector.cfg
    through the mount, the loader locked to both files and renamed into place first, and no
    sector of the ESP is written."""
    need_loop(())
    if not have("strace"):
        raise Skip("strace is not installed")
    img, key, cert = locked_image(s, "mounted.img")
    sign = ["--sign-key", key, "--sign-cert", cert]
    with Loop(img, LSS) as lo:
        lo.scan()
        esp = lo.dev + "p2"
        mnt = os.path.realpath(s.path("boot-efi"))
        os.makedirs(mnt)
        r = mtools.run(["mcopy", "-s", "-n", "::/*", mnt + "/"], esp, 0)
        s.check(r.returncode == 0, "mcopy -s: %r" % r.stderr)
        declare_mounted(s, lo, esp, mnt)
        try:
            raw, files = sha256(esp), tree(mnt)
            old = hashlib.sha256(open(os.path.join(mnt, "anysector.cfg"), "rb").read()).hexdigest()
            s.anysector("add", lo.dev, "--kernel", paths.EFI_PAYLOAD, "--name", "two", rc=3,
                        has=["give --sign-key and --sign-cert; nothing was written"])
            # (the ESP's lock file, tools/esp/espfs.h, is made empty by any writer)
            s.eq({k: v for k, v in tree(mnt).items() if k != "anysector.lock"}, files,
                 "the mount after add without the key")
            ops = strace.traced(s, "add", lo.dev, "--kernel", paths.EFI_PAYLOAD, "--name", "two",
                                *sign)
            cfg = open(os.path.join(mnt, "anysector.cfg"), "rb").read()
            new = hashlib.sha256(cfg).hexdigest()
            loader = open(os.path.join(mnt, "EFI", "BOOT", "BOOTX64.EFI"), "rb").read()
            s.check(b"entry two" in cfg and cfg.count(b"sha256") == 2, "the new entry is not "
                    "pinned in the mount's anysector.cfg: %r" % cfg)
            s.eq(lock_in(s, loader), (True, [new, old]), "the lock of the mount's loader")
            signed = s.path("mounted-loader.efi")
            with open(signed, "wb") as f:
                f.write(loader)
            s.check(keys.verifies(signed, cert), "the mount's loader does not verify")
            order = [o.dst for o in ops if o.kind == "rename"]
            at = {os.path.relpath(d, mnt): i for i, d in enumerate(order)}
            s.check("EFI/BOOT/BOOTX64.EFI" in at and "anysector.cfg" in at and
                    at["EFI/BOOT/BOOTX64.EFI"] < at["anysector.cfg"],
                    "the loader is not renamed into place before anysector.cfg: %r" % order)
            s.eq(sha256(esp), raw, "the mounted ESP's sectors")
            s.check(not [n for n in os.listdir(mnt) if n.startswith(".anysector-new")],
                    "a temporary file was left in the mount")
        finally:
            os.environ.pop(MOUNTINFO, None)


if __name__ == "__main__":
    for prog in ("sbsign", "sbverify", "sbattach", "objcopy", "mtype"):
        if not have(prog):
            print("lockcfg: %s is missing (sbsigntool, binutils, mtools)" % prog)
            sys.exit(1)
    for f in (keys.SNAKEOIL_KEY, keys.SHIM_UNSIGNED):
        if not os.path.exists(f):
            print("lockcfg: %s is missing (ovmf, shim-unsigned)" % f)
            sys.exit(1)
    # two at a time, t_crash_points (more than half the time) first
    sys.exit(Suite("lockcfg").run([t_crash_points, t_mkimage_locked, t_usage,
                                   t_unpinned_refused, t_changes_need_key, t_changes_with_key,
                                   t_tampered, t_bls_not_in_locked_menu, t_shim, t_mounted_esp],
                                  jobs=2))
