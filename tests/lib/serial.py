"""A guest whose COM1 is a socket: the harness reads what the loaders print and types keys as
a terminal would (the boot menu's tests, tests/qemu/menu_keys.py and tests/qemu/chain.py)."""
import os
import socket
import subprocess
import time

from lib import console, qemu

ESC = b"\x1b"
UP, DOWN, RIGHT, LEFT = b"\x1b[A", b"\x1b[B", b"\x1b[C", b"\x1b[D"
HOME, END, DELETE = b"\x1b[H", b"\x1b[F", b"\x1b[3~"
HOME_VT, END_VT = b"\x1b[1~", b"\x1b[4~"
BACKSPACE = b"\x08"
WAIT = 90          # seconds for one prompt under TCG on a loaded host


class Guest:
    def __init__(self, firmware, image, work, extra=(), disk=("nvme", 4096, 4096)):
        """disk: the boot disk's front-end, logical and physical sector size."""
        self.gap = 0.3 if firmware == "seabios" else 1.5
        self.sock_path = os.path.join(work, "serial.sock")
        self.log = b""
        cmd = (qemu.base_args(os.path.join(work, "unused.log"))
               + qemu.firmware_args(firmware, os.path.join(work, "vars.fd"), None)
               + qemu.disk_args(disk[0], image, disk[1], disk[2]) + list(extra))
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
        return console.clean(self.log)

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
