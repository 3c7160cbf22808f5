#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""test-qemu-tpm: measured boot (docs/SECURITY.md "Measured boot") under OVMF (NVMe 4Kn,
virtio-blk 512e) and SeaBIOS (NVMe 4Kn, IDE 512e), each with its own swtpm TPM 2.0.

Each boot is Debian's cloud kernel with a busybox initramfs whose /init prints every PCR of the
four banks swtpm has active (sha1, sha256, sha384, sha512) and the event log Linux exposes
(base64), then powers off. On the host, tpm2-tools' tpm2_eventlog replays the log; the case
judges:
  - the replay equals the PCRs the guest read, in every bank;
  - anysector's events are in the log with the digests the host computes, in every bank:
    anysector.cfg's bytes (PCR 5), the command line as systemd-boot measures it (PCR 12: UTF-16LE
    with its NUL unit); under SeaBIOS also stage2 as installed (PCR 4) and the kernel and the
    initrd (PCR 9); under OVMF, the initrd's digest in Linux's EFI stub's own PCR 9 event (why
    anysector adds none there);
and, on the NVMe disks, against the first boot of the same image:
  repeat   an identical boot gives identical PCRs 0..15 (but IMA's 10) in every bank;
  comment  a comment line appended to anysector.cfg changes PCR 5 and no other;
  edit     one character of the command line changed at the menu's editor: the PCR 12 event is
           the edited line's digest, and no PCR anysector measures into but 12 changes (under
           OVMF the EFI stub's own LoadOptions event in PCR 9 changes too, and only that event).
And the legacy-gap build of stage2 (an MBR disk whose partition 1 starts at LBA 63, SeaBIOS IDE
512n): install puts it there, it boots the same kernel with the TPM present, and it measures
nothing (no event of anysector's, nothing in PCR 12), the replay still equal to the PCRs.
A locked loader (ovmf-nvme-4Kn-locked: mkimage --lock-config with the snakeoil key, OVMF
without Secure Boot, which a lock does not need to be enforced) measures anysector.cfg and the
command line as the unlocked one does.
A unified kernel image under SeaBIOS (seabios-nvme-4Kn-uki, issue 26: the cloud kernel as
.linux, the initramfs as .initrd, CMDLINE as .cmdline, an `uki` entry made by mkimage --uki):
stage2 measures .linux as the kernel and .initrd as the initrd into PCR 9 and .cmdline into PCR
12, each with the digest of that part as the host computes it, and the replay equals the PCRs.
The kernel and initramfs are cached under $BUILD/qemu. Cases skip when swtpm, tpm2-tools, the
cloud kernel or busybox are missing (Debian packages; make deps)."""
import base64
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
from lib import bootinfo as B  # noqa: E402
from lib import disk, initramfs, keys, mtools, paths, payloads, qemu, serial, stages  # noqa: E402
from lib import uki as ukilib  # noqa: E402
from lib.serial import BACKSPACE, END_VT  # noqa: E402

CMDLINE = "console=ttyS0 quiet anysector.tpm=1"
EDITED = CMDLINE[:-1] + "2"
COMMENT = b"# a comment changes only the config's PCR\n"
BANKS = ("sha1", "sha256", "sha384", "sha512")
# PCR 10 is IMA's: the kernel extends it with its boot aggregate (a digest of PCRs 0..9) and
# logs that in its own log, not the firmware's; it follows every change below PCR 10.
PCRS = [i for i in range(16) if i != 10]
PCR_LOADER, PCR_CONFIG, PCR_FILES, PCR_CMDLINE = 4, 5, 9, 12
INITRD = paths.build("qemu", "tpm-initramfs.cpio.gz")
PROFILES = (("ovmf", "nvme", "4Kn", True), ("ovmf", "virtio-blk", "512e", False),
            ("seabios", "nvme", "4Kn", True), ("seabios", "ide", "512e", False))

INIT = """#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t securityfs securityfs /sys/kernel/security
for bank in sha1 sha256 sha384 sha512; do
  for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    echo "TPMTEST-PCR $bank $i $($bb cat /sys/class/tpm/tpm0/pcr-$bank/$i)"
  done
done
echo "TPMTEST-LOG-BEGIN"
$bb base64 /sys/kernel/security/tpm0/binary_bios_measurements
echo "TPMTEST-LOG-END cmdline=[$($bb cat /proc/cmdline)]"
$bb poweroff -f
"""
PCR_RE = re.compile(r"^TPMTEST-PCR (\w+) (\d+) ([0-9A-Fa-f]+)\s*$", re.M)
LOG_RE = re.compile(r"TPMTEST-LOG-BEGIN\n(.*?)TPMTEST-LOG-END cmdline=\[(.*?)\]", re.S)


def hashes(data):
    return {b: hashlib.new(b, data).hexdigest() for b in BANKS}


def utf16(cmdline):
    return cmdline.encode("latin-1").decode("latin-1").encode("utf-16-le") + b"\0\0"


class Swtpm:
    """One swtpm TPM 2.0 for one QEMU run (its state directory must be absolute)."""

    def __init__(self, work):
        self.dir = os.path.abspath(os.path.join(work, "tpm"))
        os.makedirs(self.dir, exist_ok=True)
        self.sock = os.path.join(self.dir, "sock")
        self.proc = subprocess.Popen(
            ["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={self.dir}",
             "--ctrl", f"type=unixio,path={self.sock}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while not os.path.exists(self.sock):
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("swtpm did not start: "
                                   + self.proc.stderr.read().decode(errors="replace"))
            time.sleep(0.05)

    def qemu_args(self):
        return ["-chardev", f"socket,id=chrtpm,path={self.sock}",
                "-tpmdev", "emulator,id=tpm0,chardev=chrtpm", "-device", "tpm-tis,tpmdev=tpm0"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def parse_eventlog(text):
    """tpm2_eventlog's YAML as (events, replay): each event a dict with pcr, type, digests
    {bank: hex} and the raw text of its event data; replay {bank: {pcr: hex}}."""
    events, replay, ev, bank, section = [], {}, None, None, "events"
    alg = None
    for line in text.splitlines():
        if line.startswith("pcrs:"):
            section = "pcrs"
            continue
        if section == "pcrs":
            m = re.match(r"^  (\w+):\s*$", line)
            if m:
                bank = m[1]
                replay[bank] = {}
            m = re.match(r"^    (\d+)\s*: 0x([0-9a-f]+)", line)
            if m and bank:
                replay[bank][int(m[1])] = m[2]
            continue
        if line.startswith("- EventNum:"):
            ev = {"pcr": None, "type": None, "digests": {}, "text": ""}
            events.append(ev)
        elif ev is None:
            continue
        elif m := re.match(r"^  PCRIndex: (\d+)", line):
            ev["pcr"] = int(m[1])
        elif m := re.match(r"^  EventType: (\w+)", line):
            ev["type"] = m[1]
        elif m := re.match(r"^  - AlgorithmId: (\w+)", line):
            alg = m[1]
        elif (m := re.match(r'^    Digest: "([0-9a-f]+)"', line)) and alg:
            ev["digests"][alg] = m[1]
            alg = None
        else:
            ev["text"] += line + "\n"
    return events, replay


class Boot:
    """What one boot showed: the guest's PCRs, the log's events and its replay."""

    def __init__(self, text, work, name):
        self.pcrs = {(m[1], int(m[2])): m[3].lower() for m in PCR_RE.finditer(text)
                     if int(m[2]) in PCRS}
        m = LOG_RE.search(text)
        if not m or len(self.pcrs) != len(BANKS) * len(PCRS):
            raise RuntimeError("the guest did not print its PCRs and event log")
        self.cmdline = m[2]
        log = os.path.join(work, f"{name}.eventlog")
        with open(log, "wb") as f:
            f.write(base64.b64decode("".join(m[1].split())))
        r = subprocess.run(["tpm2_eventlog", log], capture_output=True, text=True, timeout=60)
        if r.returncode:
            raise RuntimeError(f"tpm2_eventlog failed: {r.stderr.strip()}")
        self.events, self.replay = parse_eventlog(r.stdout)

    def replay_problems(self):
        out = []
        for bank in BANKS:
            for i in PCRS:
                want = self.replay.get(bank, {}).get(i, "0" * (2 * hashlib.new(bank).digest_size))
                if self.pcrs[(bank, i)] != want:
                    out.append(f"{bank} PCR {i}: the guest reads {self.pcrs[(bank, i)][:16]}..., "
                               f"the log replays to {want[:16]}...")
        return out

    def find(self, pcr, digests, etype="EV_IPL", text=None):
        """The events in pcr of etype whose digests equal digests in every bank (and whose event
        data contains text)."""
        return [e for e in self.events if e["pcr"] == pcr and e["type"] == etype
                and all(e["digests"].get(b) == d for b, d in digests.items())
                and (text is None or text in e["text"])]

    def differing(self, other):
        return sorted({i for (b, i) in self.pcrs if self.pcrs[(b, i)] != other.pcrs[(b, i)]})


def esp_offset(image):
    r = subprocess.run([paths.ANYSECTOR, "info", "--json", image], capture_output=True,
                       text=True, check=True)
    info = json.loads(r.stdout)
    esp = next(p for p in info["partitions"] if p.get("boot_partition"))
    return esp["start"] * info["topology"]["logical_sector_size"]


def make_image(work, lss, physical, kernel, *extra):
    image = os.path.join(work, "disk.img")
    args = [paths.ANYSECTOR, "mkimage", image, "--size", "64M", "--sector-size", str(lss),
            "--stages", paths.STAGES, "--kernel", kernel, "--initrd", INITRD,
            "--cmdline", CMDLINE, "--timeout", "30", *extra]
    if physical != lss:
        args += ["--physical-size", str(physical)]
    subprocess.run(args, check=True, capture_output=True)
    return image


def boot(firmware, frontend, lss, physical, image, work, name, keys):
    """Boots image with a fresh TPM; keys(g) types at the menu. Returns a Boot."""
    tpm = Swtpm(os.path.join(work, name))
    g = None
    try:
        g = serial.Guest(firmware, image, os.path.join(work, name),
                         tpm.qemu_args() + ["-m", "512"], disk=(frontend, lss, physical))
        if not g.wait_for(b"press a key for the menu"):
            raise RuntimeError("no menu countdown on the serial line:\n" + g.text()[-1500:])
        why = keys(g)
        if why:
            raise RuntimeError(why)
        if not g.wait_for(b"TPMTEST-LOG-END", 240) or not g.wait_for(b"]", 30):
            raise RuntimeError("the guest did not report:\n" + g.text()[-1500:])
        return Boot(g.text(), work, name)
    finally:
        if g:
            g.close()
        tpm.close()


def boot_default(g):
    g.send(b"1")


def edit_one_char(g):
    g.send(b"e")
    if not g.wait_for(b"command line: Enter boots it once"):
        return "e at the countdown did not open the editor"
    g.send(END_VT, BACKSPACE, EDITED[-1].encode(), b"\r")
    return None


def expected_events(b, firmware, image, off, cmdline, kernel):
    """anysector's events (and the EFI stub's initrd event) with the host's digests."""
    cfg = mtools.read(image, off, "/anysector.cfg")
    want = [(PCR_CONFIG, hashes(cfg), "EV_IPL", "anysector config /anysector.cfg"),
            (PCR_CMDLINE, hashes(utf16(cmdline)), "EV_IPL", None)]
    with open(INITRD, "rb") as f:
        initrd = f.read()
    if firmware == "seabios":
        with open(kernel, "rb") as f:
            kern = f.read()
        want += [(PCR_LOADER, hashes(stages.installed_stage2(image)[1]), "EV_IPL",
                  "anysector stage2"),
                 (PCR_FILES, hashes(kern), "EV_IPL", "anysector kernel /"),
                 (PCR_FILES, hashes(initrd), "EV_IPL", "anysector initrd /")]
    else:
        want.append((PCR_FILES, hashes(initrd), "EV_EVENT_TAG", None))
    out = []
    for pcr, digests, etype, text in want:
        if len(b.find(pcr, digests, etype, text)) != 1:
            out.append(f"no single {etype} event in PCR {pcr}{' (' + text + ')' if text else ''} "
                       f"with the host's digests (sha256 {digests['sha256'][:16]}...)")
    return out


def profile_case(firmware, frontend, sectors, variants):
    lss, physical = qemu.SECTORS[sectors]

    def run(work):
        kernel = payloads.debian_kernel()
        image = make_image(work, lss, physical, kernel)
        off = esp_offset(image)
        problems = []
        first = boot(firmware, frontend, lss, physical, image, work, "first", boot_default)
        problems += first.replay_problems()
        problems += expected_events(first, firmware, image, off, CMDLINE, kernel)
        if first.cmdline != CMDLINE:
            problems.append(f"the kernel got [{first.cmdline}], not [{CMDLINE}]")
        if variants and not problems:
            problems += compare_variants(firmware, frontend, lss, physical, image, off, work,
                                         first, kernel)
        return "; ".join(problems) or None, None
    return run


def compare_variants(firmware, frontend, lss, physical, image, off, work, first, kernel):
    problems = []
    again = boot(firmware, frontend, lss, physical, image, work, "repeat", boot_default)
    if again.differing(first):
        problems.append(f"an identical boot changed PCRs {again.differing(first)}")
    edit = boot(firmware, frontend, lss, physical, image, work, "edit", edit_one_char)
    problems += edit.replay_problems()
    if edit.cmdline != EDITED:
        problems.append(f"the edited boot's kernel got [{edit.cmdline}], not [{EDITED}]")
    if not edit.find(PCR_CMDLINE, hashes(utf16(EDITED))):
        problems.append("no PCR 12 event with the edited command line's digest")
    allowed = {PCR_CMDLINE} | ({PCR_FILES} if firmware == "ovmf" else set())
    if set(edit.differing(first)) != allowed:
        problems.append(f"editing one character changed PCRs {edit.differing(first)}, "
                        f"not {sorted(allowed)}")
    if firmware == "ovmf":
        changed = [e for e in edit.events if e["pcr"] == PCR_FILES
                   and e not in [x for x in first.events if x["pcr"] == PCR_FILES]]
        if len(changed) != 1 or b"LOADED_IMAGE::LoadOptions".hex() not in changed[0]["text"]:
            problems.append("under OVMF the PCR 9 events changed beyond the EFI stub's "
                            "LoadOptions event")
    with open(os.path.join(work, "anysector.cfg"), "wb") as f:
        f.write(mtools.read(image, off, "/anysector.cfg") + COMMENT)
    r = mtools.run(["mcopy", "-o", os.path.join(work, "anysector.cfg"), "::/anysector.cfg"],
                   image, off)
    if r.returncode:
        raise RuntimeError("mcopy anysector.cfg: " + r.stderr.decode(errors="replace"))
    comment = boot(firmware, frontend, lss, physical, image, work, "comment", boot_default)
    problems += comment.replay_problems()
    problems += expected_events(comment, firmware, image, off, CMDLINE, kernel)
    if comment.differing(first) != [PCR_CONFIG]:
        problems.append(f"a comment in anysector.cfg changed PCRs {comment.differing(first)}, "
                        f"not [{PCR_CONFIG}]")
    return problems


def uki_case(work):
    """A UKI's parts measured by stage2 as a kernel entry's files are (common/measure.h)."""
    why = ukilib.missing()
    if why:
        return f"cannot build a UKI: {why}", None
    kernel = payloads.debian_kernel()
    u = os.path.join(work, "tpm.efi")
    ukilib.build(u, kernel, CMDLINE, 'PRETTY_NAME="anysector TPM test"\nVERSION_ID=1\nID=tpm\n',
                 initrd=INITRD)
    image = os.path.join(work, "disk.img")
    subprocess.run([paths.ANYSECTOR, "mkimage", image, "--size", "64M", "--sector-size", "4096",
                    "--stages", paths.STAGES, "--uki", u, "--timeout", "30"], check=True,
                   capture_output=True)
    off = esp_offset(image)
    first = boot("seabios", "nvme", 4096, 4096, image, work, "first", boot_default)
    problems = first.replay_problems()
    problems += expected_events(first, "seabios", image, off, CMDLINE, kernel)
    if first.cmdline != CMDLINE:
        problems.append(f"the kernel got [{first.cmdline}], not .cmdline's [{CMDLINE}]")
    return "; ".join(problems) or None, None


def gap_case(work):
    """The legacy-gap build boots and measures nothing (common/features.h)."""
    image = os.path.join(work, "disk.img")
    disk.sparse(image, 64 * 1024 * 1024)

    def tool(*args):
        r = subprocess.run([paths.ANYSECTOR, *args], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"anysector {args[0]} exited {r.returncode}: {r.stderr}")
        return r.stdout + r.stderr
    tool("partition", image, "--label", "mbr", "--dos-compat")
    said = tool("install", image, "--sector-size", "512", "--stages", paths.STAGES,
                "--backup", image + ".b")
    tool("add", image, "--sector-size", "512", "--kernel", payloads.debian_kernel(),
         "--initrd", INITRD, "--cmdline", CMDLINE, "--default", "--timeout", "30",
         "--backup", image + ".a")
    stage2 = stages.installed_stage2(image)[1]
    problems = []
    if "legacy-gap build of stage2" not in said or not (
            stages.stage2_field(stage2, B.STAGE2_FLAGS_OFF) & B.STAGE2_FLAG_GAP_BUILD):
        problems.append("install did not put the legacy-gap build of stage2 on the LBA 63 disk")
    b = boot("seabios", "ide", 512, 512, image, work, "gap", boot_default)
    problems += b.replay_problems()
    if b.cmdline != CMDLINE:
        problems.append(f"the kernel got [{b.cmdline}], not [{CMDLINE}]")
    ours = [e for e in b.events if "anysector" in e["text"] or e["pcr"] == PCR_CMDLINE]
    if ours:
        problems.append(f"the legacy-gap build measured {len(ours)} events")
    return "; ".join(problems) or None, None


def locked_case(work):
    """A locked loader (mkimage --lock-config, docs/SECURITY.md "A locked configuration") reads
    anysector.cfg through its own path (common/cfg_fat.c cfg_load_fat_locked) and measures it the
    same: the config and command-line events with the host's digests, the replay equal."""
    kernel = payloads.debian_kernel()
    key, cert = keys.snakeoil(work)
    image = make_image(work, 4096, 4096, kernel, "--lock-config", "--sign-key", key,
                       "--sign-cert", cert)
    off = esp_offset(image)
    b = boot("ovmf", "nvme", 4096, 4096, image, work, "locked", boot_default)
    problems = b.replay_problems()
    problems += expected_events(b, "ovmf", image, off, CMDLINE, kernel)
    if b.cmdline != CMDLINE:
        problems.append(f"the kernel got [{b.cmdline}], not [{CMDLINE}]")
    return "; ".join(problems) or None, None


def missing(name):
    gone = [p for p in (paths.ANYSECTOR, os.path.join(paths.STAGES, "stage2.bin"))
            if not os.path.exists(p)]
    gone += [p for p in ("swtpm", "tpm2_eventlog") if not shutil.which(p)]
    gone += qemu.missing()
    if not payloads.debian_kernel():
        gone.append("/boot/vmlinuz-*-cloud-amd64")
    if not os.path.exists("/bin/busybox"):
        gone.append("/bin/busybox")
    if name.endswith("-locked") and not os.path.exists(keys.SNAKEOIL_KEY):
        gone.append(keys.SNAKEOIL_KEY)
    return gone


def main():
    if not missing(""):
        disk.write_if_changed(INITRD, initramfs.build(init=INIT, with_filler=False))
    cases = [(f"{fw}-{fe}-{sec}", profile_case(fw, fe, sec, variants))
             for fw, fe, sec, variants in PROFILES]
    cases.append(("seabios-ide-512n-legacy-gap-build", gap_case))
    cases.append(("ovmf-nvme-4Kn-locked", locked_case))
    cases.append(("seabios-nvme-4Kn-uki", uki_case))
    only = os.environ.get("TPM_ONLY")
    if only:
        cases = [c for c in cases if re.search(only, c[0])]
    return serial.run_cases("qemu-tpm", cases, missing,
                            "Debian packages swtpm, tpm2-tools, linux-image-cloud-amd64, "
                            "busybox-static; run make deps")


if __name__ == "__main__":
    sys.exit(main())
