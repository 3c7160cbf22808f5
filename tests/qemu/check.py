"""Reading what a guest printed: the serial log cleaned of terminal escapes, the payload's
report line, the Linux marker, and the signs that a firmware or kernel gave up."""
import re

PAYLOAD_RE = re.compile(
    r'ANYSECTOR-PAYLOAD proto=(?P<proto>\S+) cmdline="(?P<cmdline>[^"]*)" '
    r'initrd_size=(?P<size>\d+) initrd_crc32=(?P<crc>[0-9a-f]{8})(?P<none> initrd=none)?')
PAYLOAD_ERROR_RE = re.compile(r"ANYSECTOR-PAYLOAD-ERROR [^\n]*")
LINUX_RE = re.compile(r"ANYSECTOR-LINUX-OK cmdline=\[(?P<cmdline>[^\]\n]*)\] filler_md5=(?P<md5>[0-9a-f]{32})")
ANSI_RE = re.compile(r"\x1b(\[[0-9;=?]*[A-Za-z]|[()][A-Z0-9]|[=>])")

# The loaders' boot menu (stage2/menu.c, efi/menu.c): its title, shown before any countdown, and
# one countdown line a second, "in 2 s", "in 1 s", on the serial console.
MENU_TITLE = "anysector boot menu"
COUNTDOWN_RE = {
    "seabios": re.compile(r"booting \d+\) in (\d+) s; press a key for the menu"),
    "ovmf": re.compile(r"Booting \S+ in (\d+) s; press any key for the menu\."),
}

# Signs, in the serial or debugcon log, that nothing more will come: (where, regex, sentence).
GIVE_UP = [
    ("debugcon", r"No bootable device", "SeaBIOS found no bootable device"),
    ("serial", r"(?m)^E[1-9]$", "stage1 stopped with an error code (see the README's list)"),
    ("serial", r"anysector: halted", "stage2 halted"),
    ("serial", r"Kernel panic", "the kernel panicked"),
    ("serial", r"UEFI Interactive Shell", "OVMF booted nothing and started the UEFI shell"),
    ("serial", r"No bootable option or device was found", "OVMF found no bootable option"),
]


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
