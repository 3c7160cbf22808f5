# SPDX-License-Identifier: BSD-2-Clause
"""Reading what a guest printed on its serial line: the log cleaned of terminal escapes, the
test payload's report line, the Linux marker, the loaders' menu and disk sentences, the signs
that a firmware, loader or kernel gave up, and the checks that judge them (each returns None
when the log is right, else the sentence saying why not)."""
import re

PAYLOAD_RE = re.compile(
    r'ANYSECTOR-PAYLOAD proto=(?P<proto>\S+) cmdline="(?P<cmdline>[^"]*)" '
    r'initrd_size=(?P<size>\d+) initrd_crc32=(?P<crc>[0-9a-f]{8})(?P<none> initrd=none)?')
PAYLOAD_ERROR_RE = re.compile(r"ANYSECTOR-PAYLOAD-ERROR [^\n]*")
LINUX_RE = re.compile(r"ANYSECTOR-LINUX-OK cmdline=\[(?P<cmdline>[^\]\n]*)\] filler_md5=(?P<md5>[0-9a-f]{32})")
ANSI_RE = re.compile(r"\x1b(\[[0-9;=?]*[A-Za-z]|[()][A-Z0-9]|[=>])")

# The loaders' boot menu (common/menu_draw.c, the same text under both firmwares): its title,
# shown before any countdown, and one countdown line a second, "in 2 s", "in 1 s".
MENU_TITLE = "anysector boot menu"
_COUNTDOWN = re.compile(r"booting \d+\) in (\d+) s; press a key for the menu")
COUNTDOWN_RE = {"seabios": _COUNTDOWN, "ovmf": _COUNTDOWN}

# Signs, in the serial or debugcon log, that nothing more will come: (where, regex, sentence).
GIVE_UP = [
    ("debugcon", r"No bootable device", "SeaBIOS found no bootable device"),
    ("serial", r"(?m)^E[1-9]$", "stage1 stopped with an error code (docs/GUIDE.md \"When a boot fails\" lists them)"),
    ("serial", r"anysector: halted", "stage2 halted"),
    ("serial", r"Kernel panic", "the kernel panicked"),
    ("serial", r"UEFI Interactive Shell", "OVMF booted nothing and started the UEFI shell"),
    ("serial", r"No bootable option or device was found", "OVMF found no bootable option"),
] + [
    # A loader that could not boot its entry waits at its menu for a key, never retrying by
    # itself (stage2/main.c, efi/menu.c): nothing more comes without a key.
    ("serial", r"booting \d+\) failed: [^\n]*\n(?:[^\n]*\n)*?waiting for a key: ",
     "the loader could not boot the entry and waits at its menu for a key"),
    ("serial", r"Press any key to return to the menu\.",
     "BOOTX64.EFI could not boot the entry and waits for a key"),
]
WAITING_AT_MENU = tuple(sentence for _, _, sentence in GIVE_UP[-2:])

# What the loaders print about disk errors (stage2/disk.c, efi/blockio.c, efi/bootvol.c,
# common/gpt_read.c) and stage2's count of int 13h reads (the line make bench parses).
RETRY_RE = re.compile(r"LBA (?P<lba>\d+)\+(?P<count>\d+) read on try (?P<try>\d+), after [^\n]*")
READ_ERROR_RE = re.compile(r"reading (?P<path>\S+) failed: (?:disk 0x[0-9a-f]+|the disk) cannot "
                           r"read LBA (?P<lba>\d+)[^\n]*")
BACKUP_GPT_RE = re.compile(r"warning: primary GPT header at LBA 1 is invalid \([^)\n]*\); using "
                           r"the backup GPT header at LBA (?P<lba>\d+)")
GAVE_UP_SECTOR_RE = re.compile(r"disk 0x[0-9a-f]{2}: cannot read LBA (?P<lba>\d+) \(\d+-byte "
                               r"sectors\): BIOS int 13h error 0x[0-9a-f]{2} after (?P<tries>\d+) "
                               r"tries")
INT13_COUNTS_RE = re.compile(r"(?m)^disk 0x(?P<drive>[0-9a-f]{2}): (?P<calls>\d+) int 13h AH=42h "
                             r"calls, (?P<bytes>\d+) bytes read\nstarting the kernel: ")


def clean(raw):
    text = raw.decode("latin-1")
    text = ANSI_RE.sub("", text)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_log(path):
    try:
        with open(path, "rb") as f:
            return clean(f.read())
    except FileNotFoundError:
        return ""


def tail(text, lines=25):
    kept = [ln for ln in text.split("\n") if ln.strip()]
    return "\n".join(kept[-lines:])


def escape_cmdline(s):
    """The payloads' escaping: printable ASCII as is; '"', '\\', control and 0x7F..0xFF as
    \\xHH; wider characters (EFI only) as \\uHHHH."""
    out = []
    for ch in s:
        c = ord(ch)
        if 0x20 <= c <= 0x7E and ch not in '"\\':
            out.append(ch)
        elif c <= 0xFF:
            out.append(f"\\x{c:02x}")
        else:
            out.append(f"\\u{c:04x}")
    return "".join(out)


def gave_up(serial, debugcon):
    """The first give-up sentence found, or None."""
    for where, pattern, sentence in GIVE_UP:
        text = debugcon if where == "debugcon" else serial
        if re.search(pattern, text):
            return sentence
    return None


def payload_reported(serial):
    return bool(PAYLOAD_RE.search(serial) or PAYLOAD_ERROR_RE.search(serial))


def check_payload(serial, proto, cmdline, size, crc):
    """None when the serial log holds exactly one payload line with these values, else why not."""
    err = PAYLOAD_ERROR_RE.search(serial)
    if err:
        return f"the payload refused what it was given: {err.group(0).strip()}"
    found = list(PAYLOAD_RE.finditer(serial))
    if not found:
        return "no ANYSECTOR-PAYLOAD line on the serial console"
    if len(found) > 1:
        return f"{len(found)} ANYSECTOR-PAYLOAD lines (the payload ran more than once)"
    m = found[0]
    problems = []
    if m["proto"] != proto:
        problems.append(f"proto={m['proto']}, expected {proto}")
    if m["cmdline"] != escape_cmdline(cmdline):
        problems.append(f'cmdline="{m["cmdline"]}", expected "{escape_cmdline(cmdline)}"')
    if m["none"]:
        problems.append("the payload found no initrd (nothing serves LINUX_EFI_INITRD_MEDIA_GUID)")
    if int(m["size"]) != size:
        problems.append(f"initrd_size={m['size']}, expected {size}")
    if m["crc"] != f"{crc:08x}":
        problems.append(f"initrd_crc32={m['crc']}, expected {crc:08x}")
    return "; ".join(problems) or None


def check_menu(serial, firmware, seconds):
    """None when the loader showed its menu and counted down from seconds to 1 (no countdown at
    all for 0, the timeout the case's anysector.cfg was written with), else why not."""
    if MENU_TITLE not in serial:
        return f"the loader's menu (\"{MENU_TITLE}\") is not on the serial console"
    shown = []
    for m in COUNTDOWN_RE[firmware].finditer(serial):
        if not shown or shown[-1] != int(m[1]):     # a redrawn line is the same second
            shown.append(int(m[1]))
    want = list(range(seconds, 0, -1))
    if shown == want:
        return None
    said = ", ".join(f"{s} s" for s in shown) or "nothing"
    return (f"the menu was written with timeout {seconds}, so the countdown should show "
            f"{', '.join(f'{s} s' for s in want) or 'nothing'}; it showed {said}")


def check_linux(serial, token, md5):
    m = LINUX_RE.search(serial)
    if not m:
        return "no ANYSECTOR-LINUX-OK line from the initramfs's /init"
    problems = []
    if token not in m["cmdline"].split():
        problems.append(f"/proc/cmdline is [{m['cmdline']}], without {token}")
    if m["md5"] != md5:
        problems.append(f"the initramfs filler's md5 is {m['md5']}, expected {md5}")
    return "; ".join(problems) or None


def check_int13_counts(serial, min_bytes):
    """None when stage2 printed its AH=42h count line just before "starting the kernel", once,
    with at least min_bytes read (what the kernel and initrd files hold), else why not."""
    found = list(INT13_COUNTS_RE.finditer(serial))
    if len(found) != 1:
        return (f"{len(found) or 'no'} \"disk 0x..: N int 13h AH=42h calls, B bytes read\" "
                "line(s) right before \"starting the kernel\", expected exactly one")
    m = found[0]
    if int(m["calls"]) < 1 or int(m["bytes"]) < min_bytes:
        return (f"stage2 counted {m['calls']} AH=42h calls and {m['bytes']} bytes; the kernel and "
                f"initrd alone are {min_bytes} bytes")
    return None


def check_retry(serial, bad_lba):
    """None when a loader said it read a range holding bad_lba again after an error."""
    lines = list(RETRY_RE.finditer(serial))
    for m in lines:
        if int(m["lba"]) <= bad_lba < int(m["lba"]) + int(m["count"]) and int(m["try"]) > 1:
            return None
    said = "; ".join(m.group(0) for m in lines) or "none"
    return (f"no line says LBA {bad_lba} was read on a later try, so the injected error did not "
            f"happen or was not retried (retry lines: {said})")


def check_sector_reads(serial, bad_lba, reads):
    """None when stage2 gave up on bad_lba "after N tries" and the disk saw N or N + 1 reads of
    it: the tries it tells, and at most one read-ahead that met the sector first (the first
    failed read-ahead turns read-ahead off; retrying is common/blockdev.c's alone). reads:
    qemu.read_trace_count over the whole boot."""
    m = next((m for m in GAVE_UP_SECTOR_RE.finditer(serial) if int(m["lba"]) == bad_lba), None)
    if not m:
        return f"no \"disk 0x..: cannot read LBA {bad_lba} ... after N tries\" line from stage2"
    tries = int(m["tries"])
    if not tries <= reads <= tries + 1:
        return (f"the disk saw {reads} reads of LBA {bad_lba}; stage2 said {tries} tries, so "
                f"{tries} or {tries + 1} (one read-ahead) were expected")
    return None


def check_backup_gpt(serial, backup_lba):
    m = BACKUP_GPT_RE.search(serial)
    if not m:
        return "no warning that the primary GPT is unusable and the backup is used"
    if int(m["lba"]) != backup_lba:
        return f"the loader used a backup GPT header at LBA {m['lba']}, expected {backup_lba}"
    return None


def check_read_error(serial, debugcon, file_name, bad_lba):
    """None when the loader named the unreadable file and LBA in one sentence, never started
    the payload and waits at its menu; else why not."""
    if payload_reported(serial):
        return "the payload ran although its file could not be read"
    m = READ_ERROR_RE.search(serial)
    if not m:
        return (f"no \"reading ... failed: ... cannot read LBA {bad_lba}\" sentence naming "
                f"{file_name}")
    problems = []
    if m["path"].replace("\\", "/").rsplit("/", 1)[-1].lower() != file_name.lower():
        problems.append(f"the sentence names {m['path']}, expected a path ending in {file_name}")
    if int(m["lba"]) != bad_lba:
        problems.append(f"the sentence names LBA {m['lba']}, expected {bad_lba}")
    if gave_up(serial, debugcon) not in WAITING_AT_MENU:
        problems.append("the loader does not say it waits at its menu for a key")
    return "; ".join(problems) or None


def check_ovmf_no_partitions(serial):
    """None when OVMF gave up on the disk as measured with an unreadable primary GPT: its
    shell started, its mapping table has the disk (BLK) but no partition (HD node), and our
    loader never ran; else why not (OVMF changed: the case should then boot from the backup)."""
    if payload_reported(serial) or MENU_TITLE in serial:
        return ("BOOTX64.EFI ran: OVMF now boots this disk, so the case should expect the "
                "backup GPT (fault outcome backup-gpt)")
    shell = serial.find("UEFI Interactive Shell")
    if shell < 0:
        return "OVMF neither started BOOTX64.EFI nor its shell"
    mapping = serial[shell:]
    if "BLK0" not in mapping:
        return "the shell's mapping table does not list the disk"
    if "/HD(" in mapping:
        return "the shell's mapping table lists partitions, yet OVMF did not start BOOTX64.EFI"
    return None
