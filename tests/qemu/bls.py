#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-bls: Boot Loader Specification entries (/loader/entries/*.conf, as systemd's
kernel-install writes them) boot under stage2 (SeaBIOS) and BOOTX64.EFI (OVMF).

STAGE2_READS_BLS (with tools/esp/bootmenu.h's) turns the SeaBIOS cases into SKIPs should stage2 ever
have to drop the reader to fit the legacy gap.

Each image is made by `anysector mkimage` (one anysector.cfg entry, the "decoy"), then given, with
mtools on its boot partition, what kernel-install would add: two entries of one machine-id
(versions 6.1.0-18 and 6.1.0-9, sharing a kernel directory layout), each booting the test payload
with the payload initrd split in two `initrd` lines and its command line split in two `options`
lines, plus an entry without a linux line. Scenarios:

  loader   anysector.cfg rewritten without timeout and default; /loader/loader.conf says
           "timeout 0" and "default 0123*-6.1.0-*.conf": the newest matching entry (6.1.0-18,
           sorted first by version) boots at once, with no countdown;
  blsonly  anysector.cfg deleted, no loader.conf: the menu is the BLS entries alone, the default
           is the first in the specification's order (6.1.0-18), the countdown is the built-in
           3 s;
  cfgdef   anysector.cfg with "timeout 0" and "default 0123...-6.1.0-9-amd64": a cfg default may
           name a BLS entry, and loader.conf's default ("...-18") does not override it;
  keys     anysector.cfg's entry with "timeout 30", no loader.conf, typed at over COM1 (a socket,
           tests/lib/serial.py): the one boot menu (common/menu.c) lists anysector.cfg's entry as
           1), then the BLS entries newest first with their versions in the titles (2) 6.1.0-18,
           3) 6.1.0-9), the broken entry not at all; with no default set the default rule marks
           the newest kernel, 2); the key 3 boots 6.1.0-9;
  kinstall no hand-written entries: Debian's own `kernel-install add` (systemd 252, layout=bls,
           entry-token "anysectortest", /etc/kernel/cmdline) installs the payload as kernel
           6.1.0-99-amd64 into a tmpfs mounted as the ESP would be (kernel-install writes paths
           relative to the mount point), and that tree is copied onto the boot partition;
           anysector.cfg names the entry as its default. Needs root (the mount) and
           kernel-install; skipped without them;
  twenty   issue 29's directory: 20 entries, versions 6.1.0-1 to 6.1.0-20, written oldest first
           (so FAT lists them so), anysector.cfg's entry with "timeout 1" and no default,
           loader.conf's "default @saved" (refused with its sentence): the menu shows all 21
           rows, the BLS ones newest first, the default row (*) is 2) 6.1.0-20 (the default
           rule: the newest distribution kernel) and it boots;
  counted  a boot-counted pair written bad first: foo+0-2.conf ("foo BAD", no tries left) then
           foo.conf ("foo GOOD"), anysector.cfg's entry with "timeout 1" and "default gone",
           which names no entry, and a débian.conf (a name the specification's rule refuses):
           both foo files are rows, the good one 2) and the default, the bad one 3) marked
           "(failed)", the menu says the default names nothing, débian.conf is left out with
           the name rule's sentence as check and list say it, and the good one boots;
  full     70 entries deb-6.1.0-1.conf to deb-6.1.0-70.conf written oldest first, anysector.cfg's
           entry with "timeout 1": the menu holds 64 rows (the loaders' cap, anysector.cfg's entry
           among them: stage2's menu at 0x70000 full), 6.1.0-70 down to 6.1.0-8, the newest the
           default and booted, and each of the 7 oldest is named as left out;
  gapfull  the same 70 entries on an MBR disk whose partition 1 starts at LBA 63 (partition
           --dos-compat, install, add), so stage2 is its legacy-gap build: the same 64 rows, the
           newest the default and booted, and the 7 left out without a word (FEATURE_NOTICES).

Each case asserts the payload's line (the BLS entry's command line, both initrds joined: the size
and CRC32 of the whole payload initrd), the countdown (or its absence), and the broken entry's
sentence with its file name on the serial line.

usage: bls.py [--only GLOB] [--keep]
"""
import argparse
import concurrent.futures
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import boot, console, gpt, mbr, mtools, paths, payloads, qemu, results, tool  # noqa: E402
from lib.results import Result, indent  # noqa: E402
from lib.serial import Guest  # noqa: E402

MID = "0123456789abcdef0123456789abcdef"
NEW, OLD = "6.1.0-18-amd64", "6.1.0-9-amd64"
SPLIT = 3 * 1024 * 1024        # a multiple of 4: the two parts join back into the same bytes
TIMEOUT = 60
MAX_JOBS = 2

# FIRMWARE FRONTEND SECTORS LABEL SCENARIO
CASES = [
    ("seabios", "nvme", "4Kn", "gpt", "loader"),
    ("seabios", "ide", "512e", "mbr", "blsonly"),
    ("seabios", "virtio-scsi", "512e", "gpt", "cfgdef"),
    ("ovmf", "nvme", "4Kn", "gpt", "loader"),
    ("ovmf", "virtio-blk", "512e", "gpt", "blsonly"),
    ("ovmf", "nvme", "4Kn", "gpt", "cfgdef"),
    ("seabios", "nvme", "4Kn", "gpt", "keys"),
    ("ovmf", "nvme", "4Kn", "gpt", "keys"),
    ("seabios", "nvme", "512e", "gpt", "kinstall"),
    ("ovmf", "nvme", "512e", "gpt", "kinstall"),
    ("seabios", "nvme", "4Kn", "gpt", "twenty"),
    ("ovmf", "nvme", "4Kn", "gpt", "twenty"),
    ("seabios", "virtio-scsi", "512e", "gpt", "counted"),
    ("ovmf", "virtio-blk", "512e", "gpt", "counted"),
    ("seabios", "nvme", "512e", "gpt", "full"),
    ("ovmf", "nvme", "512e", "gpt", "full"),
    ("seabios", "ide", "512n", "mbr", "gapfull"),
]
STAGE2_READS_BLS = True
KI_TOKEN, KI_VERSION = "anysectortest", "6.1.0-99-amd64"
KI_CMDLINE = "anysector.test=kernel-install console=ttyS0"


class Skipped(Exception):
    pass


def kernel_install(kernel, initrd, work, image, offset):
    """Runs kernel-install into a tmpfs and copies what it made onto the boot partition."""
    if os.geteuid() != 0 or not shutil.which("kernel-install"):
        raise Skipped("needs root (a tmpfs mount) and kernel-install (Debian package systemd)")
    base = image + ".ki"
    esp, etc = os.path.join(base, "esp"), os.path.join(base, "etc")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(esp)
    os.makedirs(etc)
    for name, text in (("install.conf", "layout=bls\n"), ("cmdline", KI_CMDLINE + "\n"),
                       ("entry-token", KI_TOKEN + "\n")):
        with open(os.path.join(etc, name), "w") as f:
            f.write(text)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", esp], check=True)
    try:
        env = dict(os.environ, KERNEL_INSTALL_CONF_ROOT=etc, BOOT_ROOT=esp)
        r = subprocess.run(["kernel-install", "add", KI_VERSION, kernel, initrd], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"kernel-install failed: {r.stdout}{r.stderr}")
        items = [os.path.join(esp, n) for n in sorted(os.listdir(esp))]
        r = mtools.run(["mcopy", "-s", "-o"] + items + ["::/"], image, offset)
        if r.returncode:
            raise RuntimeError(f"mcopy -s: {r.stderr.decode(errors='replace')}")
    finally:
        subprocess.run(["umount", esp])
        shutil.rmtree(base, ignore_errors=True)


def entry_text(version, options):
    d = f"/{MID}/{version}"
    return (f"# Boot Loader Specification type#1 entry\n"
            f"title      Debian GNU/Linux 12 (bookworm)\n"
            f"version    {version}\n"
            f"machine-id {MID}\n"
            f"sort-key   debian\n"
            f"options    {options[0]}\n"
            f"options    {options[1]}\n"
            f"linux      {d}/linux\n"
            f"initrd     {d}/initrd-a\n"
            f"initrd     {d}/initrd-b\n"
            f"an-unknown-key is ignored\n")


def shared_entry(title, version, options):
    """An entry booting the one shared kernel and initrd pair of /MID/shared."""
    d = f"/{MID}/shared"
    return (f"title {title}\n" + (f"version {version}\n" if version else "") +
            f"machine-id {MID}\nsort-key debian\noptions {options[0]} {options[1]}\n"
            f"linux {d}/linux\ninitrd {d}/initrd-a\ninitrd {d}/initrd-b\n")


TWENTY = [f"6.1.0-{n}-amd64" for n in range(1, 21)]   # the order they are written in
FULL = [f"6.1.0-{n}" for n in range(1, 71)]           # as kernel-install would name them: short
FULL_KEPT = 63                                         # CFG_MENU_MAX 64, anysector.cfg's one
DEBIAN = "Debian GNU/Linux 12 (bookworm)"
ROW_RE = re.compile(r" [ *] \d+\) ")


def rows_wanted(scenario):
    """The menu's entry rows as drawn on the serial line, for the scenarios that assert them."""
    if scenario == "twenty":
        return [MENU_LINE.format(mark="*" if n == 2 else " ", n=n, version=v)
                for n, v in enumerate(reversed(TWENTY), 2)]
    if scenario == "counted":
        return [" * 2) foo GOOD", "   3) foo BAD (failed)"]
    if scenario in ("full", "gapfull"):
        return [MENU_LINE.format(mark="*" if n == 2 else " ", n=n, version=v)
                for n, v in enumerate(list(reversed(FULL))[:FULL_KEPT], 2)]
    return None


# What the serial line must also say: the default rule's notices (common/config.c, menu_draw.c).
SAID = {
    "twenty": ["/loader/loader.conf: default @saved is not supported; ignored"],
    "counted": ["anysector.cfg: default 'gone' names no entry; 2) foo boots by default",
                "\ndefault 'gone' names no entry: * marks what boots\n",
                "/loader/entries/d?bian.conf: not NAME.conf of at most 255 characters A-Z a-z "
                "0-9 + - _ .; left out"],
    "full": [f"/loader/entries/deb-{v}.conf left out: the menu is full of entries sorting "
             f"before it" for v in FULL[:len(FULL) - FULL_KEPT]],
}
NOT_SAID = {"gapfull": ["left out"]}


def rows_shown(serial):
    """The rows of the last menu drawn: the lines after its title that are rows."""
    rows = []
    for ln in serial[serial.rindex(console.MENU_TITLE):].splitlines()[1:]:
        if not ROW_RE.match(ln):
            break
        rows.append(ln.rstrip())
    return rows


def build_spec(scenario, image, off, kdata, data, body, work):
    """twenty, counted, full and gapfull: entries sharing one kernel pair."""
    mkdirs(image, off, f"/{MID}/shared")
    put(image, off, f"/{MID}/shared/linux", kdata, work)
    put(image, off, f"/{MID}/shared/initrd-a", data[:SPLIT], work)
    put(image, off, f"/{MID}/shared/initrd-b", data[SPLIT:], work)
    put(image, off, "/loader/entries/broken.conf", b"title no kernel here\n", work)
    if scenario == "twenty":
        put(image, off, "/anysector.cfg", f"timeout 1\n{body}".encode(), work)
        put(image, off, "/loader/loader.conf", b"default @saved\n", work)
        for v in TWENTY:
            put(image, off, f"/loader/entries/{MID}-{v}.conf",
                shared_entry(DEBIAN, v, cmdline(v)).encode(), work)
        return image, TWENTY[-1], 1
    if scenario in ("full", "gapfull"):
        put(image, off, "/anysector.cfg", f"timeout 1\n{body}".encode(), work)
        for v in FULL:
            put(image, off, f"/loader/entries/deb-{v}.conf",
                shared_entry(DEBIAN, v, cmdline(v)).encode(), work)
        return image, FULL[-1], 1
    put(image, off, "/anysector.cfg", f"timeout 1\ndefault gone\n{body}".encode(), work)
    put(image, off, "/loader/entries/d\u00e9bian.conf",
        shared_entry("debian", "", cmdline("debian")).encode(), work)
    for name, title, v in (("foo+0-2", "foo BAD", "bad"), ("foo", "foo GOOD", "good")):
        put(image, off, f"/loader/entries/{name}.conf",
            shared_entry(title, "", cmdline(v)).encode(), work)
    return image, "good", 1


def cmdline(version):
    return (f"anysector.test=bls-{version} console=ttyS0", "quiet")


def boot_partition(image, label, logical):
    """Byte offset of the boot partition (the GPT ESP, or the MBR's FAT partition)."""
    if label == "gpt":
        first, _ = gpt.find_partition(image, logical)
        return first * logical
    for e in mbr.read_entries(image)[0]:
        if e["type"] in (0x01, 0x04, 0x06, 0x0B, 0x0C, 0x0E, 0xEF):
            return e["first"] * logical
    raise RuntimeError("the MBR has no FAT partition")


def put(image, offset, path, data, work):
    src = image + ".put"   # one per image: cases run in parallel
    with open(src, "wb") as f:
        f.write(data)
    r = mtools.run(["mcopy", "-o", src, f"::{path}"], image, offset)
    os.unlink(src)
    if r.returncode:
        raise RuntimeError(f"mcopy {path}: {r.stderr.decode(errors='replace')}")


def mkdirs(image, offset, *dirs):
    for d in dirs:
        r = mtools.run(["mmd", f"::{d}"], image, offset)
        if r.returncode:
            raise RuntimeError(f"mmd {d}: {r.stderr.decode(errors='replace')}")


def legacy_gap_image(image, kernel, initrd):
    """A 64 MiB MBR disk with partition 1 at LBA 63: install puts stage2's legacy-gap build in
    the 62 sectors before it (said in its warning), then add writes the decoy entry."""
    with open(image, "wb") as f:
        f.truncate(64 << 20)
    said = ""
    for args in (["partition", image, "--label", "mbr", "--dos-compat"],
                 ["install", image, "--sector-size", "512", "--stages", paths.STAGES,
                  "--backup", image + ".b"],
                 ["add", image, "--sector-size", "512", "--kernel", kernel, "--initrd", initrd,
                  "--cmdline", "anysector.test=decoy console=ttyS0", "--backup", image + ".a"]):
        r = subprocess.run([paths.ANYSECTOR] + args, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"anysector {args[0]} exited {r.returncode}: {r.stderr}")
        said += r.stdout + r.stderr
    for f in (image + ".b", image + ".a"):
        os.unlink(f)
    if "legacy-gap build of stage2" not in said:
        raise RuntimeError("install did not put stage2's legacy-gap build before LBA 63:\n" +
                           indent(said))


def build(case, inputs, work):
    firmware, frontend, sectors, label, scenario = case
    logical, physical = qemu.SECTORS[sectors]
    payload = "bios-payload" if firmware == "seabios" else "efi-payload"
    kernel, initrd = inputs.files_for(payload)
    image = os.path.join(work, "-".join(case) + ".img")
    if os.path.exists(image):
        os.unlink(image)
    if scenario == "gapfull":
        legacy_gap_image(image, kernel, initrd)
    else:
        r = subprocess.run(tool.mkimage_command(image, "64M", label, logical, physical,
                                                paths.STAGES, kernel, initrd,
                                                "anysector.test=decoy console=ttyS0", 0),
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"mkimage failed: {r.stdout}{r.stderr}")
    off = boot_partition(image, label, logical)
    with open(initrd, "rb") as f:
        data = f.read()
    with open(kernel, "rb") as f:
        kdata = f.read()
    cfg = mtools.read_text(image, off, "/anysector.cfg")
    body = cfg[cfg.index("entry "):]
    if scenario == "kinstall":
        kernel_install(kernel, initrd, work, image, off)
        put(image, off, "/anysector.cfg",
            f"timeout 0\ndefault {KI_TOKEN}-{KI_VERSION}\n{body}".encode(), work)
        return image, None, 0
    mkdirs(image, off, "/loader", "/loader/entries", f"/{MID}")
    if scenario in ("twenty", "counted", "full", "gapfull"):
        return build_spec(scenario, image, off, kdata, data, body, work)
    for v in (NEW, OLD):
        mkdirs(image, off, f"/{MID}/{v}")
        put(image, off, f"/{MID}/{v}/linux", kdata, work)
        put(image, off, f"/{MID}/{v}/initrd-a", data[:SPLIT], work)
        put(image, off, f"/{MID}/{v}/initrd-b", data[SPLIT:], work)
        put(image, off, f"/loader/entries/{MID}-{v}.conf",
            entry_text(v, cmdline(v)).encode(), work)
    put(image, off, "/loader/entries/broken.conf", b"title no kernel here\n", work)
    if scenario == "loader":
        put(image, off, "/anysector.cfg", body.encode(), work)
        put(image, off, "/loader/loader.conf",
            b"# systemd-boot's file\ntimeout 0\neditor no\ndefault 0123*-6.1.0-*.conf\n", work)
        return image, NEW, 0
    if scenario == "keys":
        put(image, off, "/anysector.cfg", f"timeout 30\n{body}".encode(), work)
        return image, OLD, None
    if scenario == "blsonly":
        r = mtools.run(["mdel", "::/anysector.cfg"], image, off)
        if r.returncode:
            raise RuntimeError("mdel anysector.cfg failed")
        return image, NEW, 3
    put(image, off, "/anysector.cfg", f"timeout 0\ndefault {MID}-{OLD}\n{body}".encode(), work)
    put(image, off, "/loader/loader.conf", f"default {MID}-{NEW}\ntimeout 5\n".encode(), work)
    return image, OLD, 0


MENU_LINE = " {mark} {n}) Debian GNU/Linux 12 (bookworm) ({version})"


def keys_case(firmware, image, work, inputs):
    """The menu as drawn on COM1, then the key 3. Returns why it failed, or None."""
    g = Guest(firmware, image, work)
    try:
        if not g.wait_for(b"press a key for the menu"):
            return "no countdown on the serial line:\n" + indent(console.tail(g.text()))
        text = g.text()
        menu = text[text.rindex("anysector boot menu"):]
        lines = [l.rstrip() for l in menu.splitlines()]
        # the default rule: no default set, so the newest distribution kernel (row 2)
        want = [MENU_LINE.format(mark="*", n=2, version=NEW),
                MENU_LINE.format(mark=" ", n=3, version=OLD)]
        if lines[2:4] != want or not lines[1].startswith("   1) ") or " 4) " in menu:
            return f"the menu is not anysector.cfg's entry then the BLS entries newest " \
                   f"first, the newest the default:\n{indent(menu)}"
        if "/loader/entries/broken.conf: no linux line" not in text:
            return "the broken entry's sentence is missing"
        g.send(b"3")
        if not g.wait_for(b"ANYSECTOR-PAYLOAD"):
            return "no payload report after the key 3:\n" + indent(console.tail(g.text()))
        g.wait_for(b"\n", 10)
        proto = "2.15" if firmware == "seabios" else "efi"
        return console.check_payload(g.text(), proto, " ".join(cmdline(OLD)),
                                     inputs.initrd_size, inputs.initrd_crc)
    finally:
        g.close()


def run_case(case, inputs, guests, root, keep):
    name = "-".join(case)
    t0 = time.monotonic()
    if case[0] == "seabios" and not STAGE2_READS_BLS:
        return Result(name, "SKIP", 0.0, "stage2 does not read /loader/entries yet (size budget)")
    logs = qemu.log_paths(os.path.join(root, "logs", name))
    boot.fresh_logs(logs)
    work = os.path.join(root, "bls")
    os.makedirs(work, exist_ok=True)
    try:
        image, version, countdown = build(case, inputs, work)
    except Skipped as e:
        return Result(name, "SKIP", time.monotonic() - t0, str(e))
    except (RuntimeError, OSError, ValueError, subprocess.CalledProcessError) as e:
        return Result(name, "FAIL", time.monotonic() - t0, f"building the image: {e}")
    firmware, frontend, sectors = case[0], case[1], case[2]
    if countdown is None:
        kwork = os.path.join(work, name)
        shutil.rmtree(kwork, ignore_errors=True)
        os.makedirs(kwork)
        try:
            why = keys_case(firmware, image, kwork, inputs)
        except (OSError, RuntimeError) as e:
            why = f"{type(e).__name__}: {e}"
        shutil.rmtree(kwork, ignore_errors=True)
        if not (why or keep):
            os.unlink(image)
        return Result(name, "FAIL" if why else "PASS", time.monotonic() - t0, why or "")
    logical, physical = qemu.SECTORS[sectors]
    vars_copy = os.path.join(work, name + ".OVMF_VARS.fd")
    cmd = boot.command(firmware, frontend, image, logical, physical, logs, vars_copy)
    boot.write_cmd(logs, cmd)
    rc, stopped = boot.boot(guests, cmd, logs, TIMEOUT + countdown)
    serial = console.read_log(logs["serial.log"])
    proto = "2.15" if firmware == "seabios" else "efi"
    want_cmdline = KI_CMDLINE if version is None else " ".join(cmdline(version))
    why = console.check_payload(serial, proto, want_cmdline, inputs.initrd_size,
                                inputs.initrd_crc)
    why = why or console.check_menu(serial, firmware, countdown)
    if not why and version and "/loader/entries/broken.conf: no linux line" not in serial:
        why = "the broken entry's sentence (/loader/entries/broken.conf: no linux line) is missing"
    want_rows = rows_wanted(case[4])
    if not why and want_rows and rows_shown(serial)[1:] != want_rows:
        why = "the menu's rows are not\n" + indent("\n".join(want_rows)) + "\nbut\n" + \
            indent("\n".join(rows_shown(serial)))
    if not why and want_rows and "booting 2) in 1 s" not in serial:
        why = "the countdown does not name 2), the default rule's entry"
    for said in SAID.get(case[4], []) if not why else []:
        if said not in serial:
            why = f"the serial line does not say {said.strip()!r}"
            break
    for said in NOT_SAID.get(case[4], []) if not why else []:
        if said in serial:
            why = f"the serial line says {said!r}, which the legacy-gap build leaves to check"
    if not why:
        want = qemu.EXIT_PAYLOAD_REPORTED if proto == "2.15" else 0
        if rc != want:
            why = f"QEMU ended with {qemu.describe_exit(rc)}, expected {want}"
    for f in (vars_copy, image if not (why or keep) else None):
        if f and os.path.exists(f):
            os.unlink(f)
    if why:
        why += f" ({stopped or 'QEMU ended by itself'})\n  serial log tail:\n" + \
            indent(console.tail(serial) or "(empty)")
        return Result(name, "FAIL", time.monotonic() - t0, why)
    if not keep:
        boot.fresh_logs(logs)
    return Result(name, "PASS", time.monotonic() - t0, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="*")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    gone = qemu.missing()
    if gone:
        print(f"qemu-bls: missing {', '.join(gone)} ({qemu.MISSING_PACKAGES})")
        return results.finish("qemu-bls", 0, len(CASES), 0)
    if not shutil.which("mcopy"):
        print("qemu-bls: mtools is not installed")
        return results.finish("qemu-bls", 0, len(CASES), 0)
    root = paths.build("qemu")
    os.makedirs(os.path.join(root, "logs"), exist_ok=True)
    os.environ["LC_ALL"] = "C.UTF-8"    # mcopy makes a non-ASCII name's long name from UTF-8
    inputs = payloads.Inputs(root, False)
    guests = qemu.Guests()
    tally = results.Tally()
    todo = [c for c in CASES if fnmatch.fnmatch("-".join(c), args.only)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=MAX_JOBS) as pool:
        try:
            for r in pool.map(lambda c: run_case(c, inputs, guests, root, args.keep), todo):
                tally.add(r, details=False)
        except KeyboardInterrupt:
            guests.kill_all()
            raise
    return results.finish("qemu-bls", *tally.counts())


if __name__ == "__main__":
    sys.exit(main())
