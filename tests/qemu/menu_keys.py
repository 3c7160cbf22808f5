#!/usr/bin/env python3
"""The boot menu driven over the serial line (make test-qemu-menu): QEMU's COM1 is a socket this
harness reads the menu from and types keys into, as a terminal would, under SeaBIOS (stage2's
own decoder reads COM1) and OVMF (the firmware's terminal driver, then BOOTX64.EFI's decoder).

Each case makes an image with `anysector mkimage` (two entries, a 30-second countdown so only
keys can boot), waits for a prompt, sends keys, and asserts on what the payload reports: the
command line it received, which is how the edit is seen (the edited line, booted once) and that
the initrd arrived whole. Cases:
  edit     e at the countdown (the key that stops it counts), then End, text, Left, Backspace,
           Home, Delete, Enter: the payload gets exactly the edited line;
  escape   e, text, Esc (back to the menu, the edit dropped), Down, Up, Enter: the entry's own
           line; the second entry chosen by its digit boots its own line;
  editoff  with `editor off` in anysector.cfg, e says the editor is off; Enter boots the line
           unchanged.
A failing case prints the reason and the serial log's tail."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import zlib

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console as check, paths, qemu as qemu_cmd, results  # noqa: E402

ANYSECTOR = paths.ANYSECTOR
STAGES = paths.STAGES
PAYLOAD = {"seabios": paths.BIOS_PAYLOAD, "ovmf": paths.EFI_PAYLOAD}
CMDLINE = "root=/dev/sda1 ro quiet"
WAIT = 90          # seconds for one prompt under TCG on a loaded host

ESC = b"\x1b"
UP, DOWN, RIGHT, LEFT = b"\x1b[A", b"\x1b[B", b"\x1b[C", b"\x1b[D"
HOME, END, DELETE = b"\x1b[H", b"\x1b[F", b"\x1b[3~"
HOME_VT, END_VT = b"\x1b[1~", b"\x1b[4~"
BACKSPACE = b"\x08"


class Guest:
    def __init__(self, firmware, image, work, extra=()):
        self.gap = 0.3 if firmware == "seabios" else 1.5
        self.sock_path = os.path.join(work, "serial.sock")
        self.log = b""
        cmd = (qemu_cmd.base_args(os.path.join(work, "unused.log"))
               + qemu_cmd.firmware_args(firmware, os.path.join(work, "vars.fd"), None)
               + qemu_cmd.disk_args("nvme", image, 4096, 4096) + list(extra))
        # COM1 on a socket instead of the log file base_args names.
        i = cmd.index("-chardev")
        cmd[i + 1] = f"socket,id=ser0,path={self.sock_path},server=on,wait=on"
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.time() + 20
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(self.sock_path)
                break
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("QEMU did not open its serial socket: "
                                       + self.proc.stderr.read().decode(errors="replace"))
                time.sleep(0.1)
        self.sock.settimeout(0.2)

    def text(self):
        return check.clean(self.log)

    def wait_for(self, what, timeout=WAIT):
        """Reads until `what` (bytes) appears after the current mark; False on timeout."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if what in self.log[self.mark:]:
                self.mark = self.log.index(what, self.mark) + len(what)
                return True
            try:
                data = self.sock.recv(65536)
                if not data:
                    return False
                self.log += data
            except socket.timeout:
                if self.proc.poll() is not None:
                    return what in self.log[self.mark:]
        return False

    mark = 0

    def pump(self, seconds):
        """Reads what the guest prints for a while."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                data = self.sock.recv(65536)
                if not data:
                    return
                self.log += data
            except socket.timeout:
                pass

    def send(self, *keys):
        """Each key as a terminal sends it, then what the guest prints for a pause: OVMF's
        console is slow under TCG (a redrawn edit line takes a second or more), and a lone ESC
        needs the decoders' timeouts (0.2 s in ours, 2 s in OVMF's terminal driver)."""
        for k in keys:
            self.sock.sendall(k)
            self.pump(self.gap if k != ESC else 2.5 + self.gap)

    def close(self):
        try:
            self.proc.kill()
            self.proc.wait(10)
        except Exception:
            pass
        self.sock.close()


def make_image(firmware, work, editor):
    image = os.path.join(work, "disk.img")
    subprocess.run([ANYSECTOR, "mkimage", image, "--size", "64M", "--label", "gpt",
                    "--sector-size", "4096", "--stages", STAGES,
                    "--kernel", PAYLOAD[firmware], "--initrd", INITRD, "--cmdline", CMDLINE,
                    "--title", "first",
                    "--kernel", PAYLOAD[firmware], "--cmdline", "second=2", "--title", "second",
                    "--timeout", "30"], check=True, capture_output=True)
    if editor:
        # The editor key, put into the config with mtools.
        info = json.loads(subprocess.run([ANYSECTOR, "info", "--json", image], check=True,
                                         capture_output=True, text=True).stdout)
        esp = next(p for p in info["partitions"] if p.get("boot_partition"))
        at = f"{image}@@{esp['start'] * 4096}"
        cfg = subprocess.run(["mtype", "-i", at, "::/anysector.cfg"], check=True,
                             capture_output=True, text=True,
                             env=dict(os.environ, MTOOLS_SKIP_CHECK="1")).stdout
        path = os.path.join(work, "anysector.cfg")
        with open(path, "w") as f:
            f.write(f"editor {editor}\n" + cfg.replace("\r\n", "\n"))
        subprocess.run(["mcopy", "-o", "-i", at, path,
                        "::/anysector.cfg"], check=True, capture_output=True,
                       env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    return image


def payload_line(g):
    if not g.wait_for(b"ANYSECTOR-PAYLOAD"):
        return None
    g.wait_for(b"\n", 10)
    return check.PAYLOAD_RE.search(g.text())


def expect_boot(g, cmdline):
    m = payload_line(g)
    if not m:
        return "no payload report after the keys"
    if m["cmdline"] != cmdline:
        return f"the payload received [{m['cmdline']}], expected [{cmdline}]"
    if m["size"] != "0" and (int(m["size"]) != INITRD_SIZE or int(m["crc"], 16) != INITRD_CRC):
        return "the initrd did not arrive whole"
    return None


def case_edit(g):
    if not g.wait_for(b"press a key for the menu"):
        return "no countdown on the serial line"
    g.send(b"e")
    if not g.wait_for(b"command line: Enter boots it once"):
        return "e during the countdown did not open the editor"
    # End, " x=1", Left, Backspace ("x1"), Home, Delete x5 ("root="), ">" typed at the start
    g.send(END_VT, *[bytes([c]) for c in b" x=1"], LEFT, BACKSPACE, HOME, *[DELETE] * 5,
           b"k", RIGHT, HOME_VT, b"<")
    g.send(b"\r")
    return expect_boot(g, "<k/dev/sda1 ro quiet x1")


def case_escape(g):
    if not g.wait_for(b"press a key for the menu"):
        return "no countdown on the serial line"
    g.send(DOWN)
    if not g.wait_for(b"selected: 2) second"):
        return "Down during the countdown did not select entry 2"
    g.send(UP, b"e", b"z", b"z", ESC)
    if not g.wait_for(b"waiting for a key"):
        return "Esc in the editor did not go back to the menu"
    g.send(b"\r")
    return expect_boot(g, CMDLINE)


def case_digit(g):
    if not g.wait_for(b"press a key for the menu"):
        return "no countdown on the serial line"
    g.send(b"2")
    return expect_boot(g, "second=2")


def case_editoff(g):
    if not g.wait_for(b"press a key for the menu"):
        return "no countdown on the serial line"
    g.send(b"e")
    if not g.wait_for(b"editing is turned off (anysector.cfg: editor off)"):
        return "e with 'editor off' did not say the editor is off"
    g.send(b"x", LEFT, b"\r")      # keys that mean nothing at the menu, then Enter
    return expect_boot(g, CMDLINE)


CASES = [("edit", case_edit, None), ("escape", case_escape, None), ("digit", case_digit, None),
         ("editoff", case_editoff, "off")]

INITRD = paths.build("qemu", "menu-initrd.bin")
INITRD_DATA = bytes((i * 7) & 0xFF for i in range(12345))
INITRD_SIZE = len(INITRD_DATA)
INITRD_CRC = zlib.crc32(INITRD_DATA)


def main():
    os.makedirs(os.path.dirname(INITRD), exist_ok=True)
    with open(INITRD, "wb") as f:
        f.write(INITRD_DATA)
    missing = [p for p in [ANYSECTOR, *PAYLOAD.values()] if not os.path.exists(p)]
    missing += qemu_cmd.missing()
    npass = nfail = 0
    for firmware in ("seabios", "ovmf"):
        for name, fn, editor in CASES:
            label = f"{firmware}-nvme-4Kn-menu-{name}"
            start = time.time()
            why = f"missing: {', '.join(missing)}" if missing else None
            g = None
            if not why:
                with tempfile.TemporaryDirectory(dir=paths.build("qemu")) as work:
                    try:
                        g = Guest(firmware, make_image(firmware, work, editor), work)
                        why = fn(g)
                    except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
                        why = f"{type(e).__name__}: {e}"
                    finally:
                        if g:
                            if why and g.proc.poll() is not None:
                                why += f" (QEMU exited with status {g.proc.returncode})"
                            g.close()
            took = time.time() - start
            if why:
                nfail += 1
                print(f"FAIL  {took:5.1f}s  {label}\n    {why}")
                if g:
                    print("    serial log tail:\n" + "\n".join(
                        "      " + l for l in check.tail(g.text(), 15).splitlines()))
            else:
                npass += 1
                print(f"PASS  {took:5.1f}s  {label}")
    return results.finish("qemu-menu", npass, nfail)


if __name__ == "__main__":
    sys.exit(main())
