#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The boot menu driven over the serial line (make test-qemu-menu): QEMU's COM1 is a socket this
harness reads the menu from and types keys into, as a terminal would, under SeaBIOS (stage2's
own decoder reads COM1) and OVMF (the firmware's terminal driver, then BOOTX64.EFI's decoder).

Each case makes an image with `anysector mkimage` (two entries, a 30-second countdown so only
keys can boot), waits for a prompt, sends keys, and asserts on what the payload reports: the
command line it received, which is how the edit is seen (the edited line, booted once) and that
the initrd arrived whole. Cases:
  edit     e at the countdown (the key that stops it counts), then End, text, Left, Backspace,
           Home, Delete, DEL (0x7F: Backspace in stage2, Delete in OVMF's terminal), Enter: the
           payload gets exactly the edited line;
  escape   e, text, Esc (back to the menu, the edit dropped), Down, Up, Enter: the entry's own
           line; the second entry chosen by its digit boots its own line;
  editoff  with `editor off` in anysector.cfg, e says the editor is off; Enter boots the line
           unchanged;
  keyboard the edit typed on the PS/2 keyboard (QEMU's monitor `sendkey`) instead of the serial
           line: e, End, " x=1", Left, Backspace, Home, Delete x5, "k", Enter: the keyboard's
           keys (int 16h scan codes in stage2, the firmware's EFI_INPUT_KEY under OVMF) edit the
           same way.
A failing case prints the reason and the serial log's tail."""
import json
import os
import socket
import subprocess
import sys
import time
import zlib

sys.dont_write_bytecode = True    # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console as check, paths, qemu as qemu_cmd  # noqa: E402
from lib import serial  # noqa: E402
from lib.serial import (BACKSPACE, DELETE, DOWN, END_VT, ESC, HOME, HOME_VT, LEFT,  # noqa: E402
                        RIGHT, UP, Guest)

ANYSECTOR = paths.ANYSECTOR
STAGES = paths.STAGES
PAYLOAD = {"seabios": paths.BIOS_PAYLOAD, "ovmf": paths.EFI_PAYLOAD}
CMDLINE = "root=/dev/sda1 ro quiet"



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
    # DEL (0x7F), what many terminals send for Backspace: stage2's decoder makes it Backspace
    # (the "<" goes); OVMF's terminal driver makes it the Delete key (the "k" goes)
    g.send(b"\x7f", b"\r")
    return expect_boot(g, "k/dev/sda1 ro quiet x1" if g.firmware == "seabios"
                       else "</dev/sda1 ro quiet x1")


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


class Keyboard:
    """QEMU's human monitor on a socket: `sendkey` presses a key on the emulated keyboard."""

    def __init__(self, path, gap):
        self.gap = gap
        deadline = time.time() + 20
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError("QEMU did not open its monitor socket")
                time.sleep(0.1)
        self.sock.settimeout(0.2)

    def press(self, g, *names):
        for n in names:
            self.sock.sendall(f"sendkey {n}\n".encode())
            g.pump(g.gap)
            try:
                self.sock.recv(65536)    # the monitor's echo and prompt
            except socket.timeout:
                pass

    def close(self):
        self.sock.close()


def case_keyboard(g):
    if not g.wait_for(b"press a key for the menu"):
        return "no countdown on the serial line"
    kbd = Keyboard(g.monitor, g.gap)
    try:
        kbd.press(g, "e")
        if not g.wait_for(b"command line: Enter boots it once"):
            return "e on the keyboard during the countdown did not open the editor"
        kbd.press(g, "end", "spc", "x", "equal", "1", "left", "backspace", "home",
                  *["delete"] * 5, "k", "ret")
    finally:
        kbd.close()
    return expect_boot(g, "k/dev/sda1 ro quiet x1")


CASES = [("edit", case_edit, None), ("escape", case_escape, None), ("digit", case_digit, None),
         ("editoff", case_editoff, "off"), ("keyboard", case_keyboard, None)]

INITRD = paths.build("qemu", "menu-initrd.bin")
INITRD_DATA = bytes((i * 7) & 0xFF for i in range(12345))
INITRD_SIZE = len(INITRD_DATA)
INITRD_CRC = zlib.crc32(INITRD_DATA)


def menu_case(firmware, fn, editor):
    """The case as serial.run_cases runs it: fn(g) types at a guest of the menu's image."""
    def run(work):
        monitor = os.path.join(work, "monitor.sock")
        g = Guest(firmware, make_image(firmware, work, editor), work,
                  ["-monitor", f"unix:{monitor},server=on,wait=off"])
        g.monitor = monitor
        g.firmware = firmware
        try:
            why = fn(g)
        except serial.CASE_ERRORS as e:
            why = serial.failure_text(e)
        except BaseException:
            g.close()
            raise
        if why and g.proc.poll() is not None:
            why += f" (QEMU exited with status {g.proc.returncode})"
        return why, g
    return run


def main():
    os.makedirs(os.path.dirname(INITRD), exist_ok=True)
    with open(INITRD, "wb") as f:
        f.write(INITRD_DATA)
    missing = [p for p in [ANYSECTOR, *PAYLOAD.values()] if not os.path.exists(p)]
    missing += qemu_cmd.missing()
    cases = [(f"{firmware}-nvme-4Kn-menu-{name}", menu_case(firmware, fn, editor))
             for firmware in ("seabios", "ovmf") for name, fn, editor in CASES]
    return serial.run_cases("qemu-menu", cases, lambda name: missing)


if __name__ == "__main__":
    sys.exit(main())
