# SPDX-License-Identifier: BSD-2-Clause
"""Boot cases: what one QEMU run is, and the case-list files (tests/qemu/cases/*.txt) that name
them.

A case-list line is

    FIRMWARE FRONTEND SECTORS LABEL PAYLOAD [expect=boot|seabios-refuses] [timeout=SECONDS]
                                            [menu=SECONDS] [fault=WHERE:once|always]

    FIRMWARE  seabios | ovmf
    FRONTEND  ide | virtio-blk | virtio-scsi | nvme
    SECTORS   512n | 512e (512 logical, 4096 physical) | 4Kn (4096 both)
    LABEL     gpt | mbr | any (one GPT image for 512- and 4096-byte sectors, a dual GPT: mkimage
              --sector-size any; every "any" case of a payload boots the same image file)
    PAYLOAD   bios-payload | efi-payload | dual-payload | linux
    timeout   the hang guard (default: DEFAULT_TIMEOUT for the payload)
    menu      the boot menu's countdown written into anysector.cfg (mkimage --timeout), default 0:
              most cases boot at once; the few with a countdown must show it on the serial line
    fault     a read error QEMU's blkdebug injects (tests/qemu/cases/faults.txt): WHERE is a block
              of the kernel or initrd file (middle of the file), of anysector.cfg (config), the
              primary GPT header (gpt-header, LBA 1) or its entry array (gpt-entries, LBA 2);
              once: the first read of it fails, the loader must retry and boot; always: every
              read fails, so the loader must name the file and LBA and wait at its menu
              (kernel, initrd) or boot from the backup GPT with a warning (gpt-header,
              gpt-entries); after-repair (gpt-header, gpt-entries, OVMF): every read fails but
              the few after OVMF rewrote the primary GPT from the backup, so OVMF boots and
              BOOTX64.EFI itself must fall back to the backup GPT, with a warning

'#' starts a comment. The case name is the columns joined by '-' (seabios-nvme-4Kn-gpt-bios-payload), then the
fault's place and kind (seabios-nvme-4Kn-gpt-bios-payload-initrd-once).
"""
import dataclasses
import os

from lib.qemu import FIRMWARES, FRONTENDS, SECTORS

LABELS = ("gpt", "mbr", "any")
PAYLOADS = ("bios-payload", "efi-payload", "dual-payload", "linux")
EXPECTS = ("boot", "seabios-refuses")
FAULT_PLACES = ("kernel", "initrd", "config", "gpt-header", "gpt-entries")
FAULT_KINDS = ("once", "always", "after-repair")

# Hang guards, not performance checks: seconds from QEMU start to the payload's line, about 3x
# what a case takes under TCG on a loaded 2-core machine (tests/qemu/README.md has the measured
# times). Linux needs more: a 14 MB kernel read through int13 or BlockIo, then its own boot.
DEFAULT_TIMEOUT = {"bios-payload": 45, "efi-payload": 45, "dual-payload": 45, "linux": 120}
REFUSE_TIMEOUT = 30
MENU_MAX = 10           # a countdown longer than this only costs time


class CaseError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Case:
    firmware: str
    frontend: str
    sectors: str
    label: str
    payload: str
    expect: str = "boot"
    timeout: int = 0
    menu: int = 0
    fault: str = ""         # "" or "WHERE:once|always"

    @property
    def name(self):
        name = "-".join((self.firmware, self.frontend, self.sectors, self.label, self.payload))
        return f"{name}-{self.fault.replace(':', '-')}" if self.fault else name

    @property
    def fault_kind(self):
        return self.fault.partition(":")[2]

    @property
    def fault_place(self):
        return self.fault.partition(":")[0]

    @property
    def fault_outcome(self):
        """What an injected fault must lead to: "" (no fault), "retry" (read again, then
        boot), "read-error" (a sentence naming file and LBA, back to the menu, no boot),
        "backup-gpt" (boot from the backup GPT, with a warning) or "ovmf-no-partitions" (OVMF
        itself gives up on the disk and starts its shell; our loader never runs)."""
        if not self.fault:
            return ""
        place, _, kind = self.fault.partition(":")
        if kind == "once":
            return "retry"
        if kind == "after-repair":
            return "backup-gpt"
        if place.startswith("gpt-"):
            # Measured (tests/qemu/README.md): OVMF's partition driver installs no partition
            # when the primary GPT stays unreadable, so BOOTX64.EFI never starts.
            return "ovmf-no-partitions" if self.firmware == "ovmf" else "backup-gpt"
        return "read-error"

    @property
    def logical(self):
        return SECTORS[self.sectors][0]

    @property
    def physical(self):
        return SECTORS[self.sectors][1]

    @property
    def image_key(self):
        """Cases with equal keys boot the same image (QEMU runs it with snapshot=on)."""
        key = f"{self.sectors}-{self.label}-{self.payload}"
        if self.label == "any":
            key = f"any-{self.payload}"   # one image whatever the disk's sectors
        return f"{key}-menu{self.menu}" if self.menu else key

    @property
    def cmdline(self):
        """What the test puts in anysector.cfg and expects the payload or kernel to receive."""
        if self.payload == "linux":
            return f"console=ttyS0 panic=-1 anysector.test={self.image_key}"
        return f"anysector.test={self.image_key} root=/dev/null console=ttyS0,115200n8 list=a,b path=/x/y.z"


def parse_line(text, where):
    words = text.split("#", 1)[0].split()
    if not words:
        return None
    if len(words) < 5:
        raise CaseError(f"{where}: need FIRMWARE FRONTEND SECTORS LABEL PAYLOAD, got {text.strip()!r}")
    fw, fe, sec, label, payload = words[:5]
    for value, allowed, what in ((fw, FIRMWARES, "firmware"), (fe, FRONTENDS, "front-end"),
                                 (sec, tuple(SECTORS), "sector profile"), (label, LABELS, "label"),
                                 (payload, PAYLOADS, "payload")):
        if value not in allowed:
            raise CaseError(f"{where}: unknown {what} {value!r} (one of {', '.join(allowed)})")
    expect, timeout, menu, fault = "boot", 0, 0, ""
    for opt in words[5:]:
        key, _, val = opt.partition("=")
        if key == "expect" and val in EXPECTS:
            expect = val
        elif key == "timeout" and val.isdigit() and int(val) > 0:
            timeout = int(val)
        elif key == "menu" and val.isdigit() and int(val) <= MENU_MAX:
            menu = int(val)
        elif key == "fault" and val.partition(":")[0] in FAULT_PLACES and \
                val.partition(":")[2] in FAULT_KINDS and val != "config:always" and \
                (not val.endswith(":after-repair") or val.startswith("gpt-")):
            fault = val
        else:
            raise CaseError(f"{where}: bad option {opt!r} (expect={'|'.join(EXPECTS)}, "
                            f"timeout=SECONDS, menu=0..{MENU_MAX}, "
                            f"fault={'|'.join(FAULT_PLACES)}:{'|'.join(FAULT_KINDS)}, "
                            "not config:always; after-repair only for gpt-*)")
    if not timeout:
        timeout = REFUSE_TIMEOUT if expect == "seabios-refuses" else DEFAULT_TIMEOUT[payload]
    if fault and (expect != "boot" or payload == "linux"):
        raise CaseError(f"{where}: fault= goes with the test payloads and expect=boot only")
    if fault.startswith("gpt-") and label != "gpt":  # LBA 1 and 2 are one size's
        raise CaseError(f"{where}: fault={fault} needs a GPT disk")
    return Case(fw, fe, sec, label, payload, expect, timeout, menu, fault)


def load(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            c = parse_line(text, f"{os.path.basename(path)} line {n}")
            if c:
                if any(o.name == c.name for o in cases):
                    raise CaseError(f"{os.path.basename(path)} line {n}: case {c.name} listed twice")
                cases.append(c)
    return cases
