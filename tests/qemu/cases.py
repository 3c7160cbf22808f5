"""Boot cases: what one QEMU run is, and the case-list files (tests/qemu/cases/*.txt) that name
them.

A case-list line is

    FIRMWARE FRONTEND SECTORS LABEL PAYLOAD [expect=boot|seabios-refuses] [timeout=SECONDS]
                                            [menu=SECONDS]

    FIRMWARE  seabios | ovmf
    FRONTEND  ide | virtio-blk | virtio-scsi | nvme
    SECTORS   512n | 512e (512 logical, 4096 physical) | 4Kn (4096 both)
    LABEL     gpt | mbr
    PAYLOAD   bios-payload | efi-payload | dual-payload | linux
    timeout   the hang guard (default: DEFAULT_TIMEOUT for the payload)
    menu      the boot menu's countdown written into anysector.cfg (mkimage --timeout), default 0:
              most cases boot at once; the few with a countdown must show it on the serial line

'#' starts a comment. The case name is the columns joined by '-' (seabios-nvme-4Kn-gpt-bios-payload).
"""
import dataclasses
import os

FIRMWARES = ("seabios", "ovmf")
FRONTENDS = ("ide", "virtio-blk", "virtio-scsi", "nvme")
SECTORS = {"512n": (512, 512), "512e": (512, 4096), "4Kn": (4096, 4096)}
LABELS = ("gpt", "mbr")
PAYLOADS = ("bios-payload", "efi-payload", "dual-payload", "linux")
EXPECTS = ("boot", "seabios-refuses")

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

    @property
    def name(self):
        return "-".join((self.firmware, self.frontend, self.sectors, self.label, self.payload))

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
    expect, timeout, menu = "boot", 0, 0
    for opt in words[5:]:
        key, _, val = opt.partition("=")
        if key == "expect" and val in EXPECTS:
            expect = val
        elif key == "timeout" and val.isdigit() and int(val) > 0:
            timeout = int(val)
        elif key == "menu" and val.isdigit() and int(val) <= MENU_MAX:
            menu = int(val)
        else:
            raise CaseError(f"{where}: bad option {opt!r} (expect={'|'.join(EXPECTS)}, "
                            f"timeout=SECONDS, menu=0..{MENU_MAX})")
    if not timeout:
        timeout = REFUSE_TIMEOUT if expect == "seabios-refuses" else DEFAULT_TIMEOUT[payload]
    return Case(fw, fe, sec, label, payload, expect, timeout, menu)


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
