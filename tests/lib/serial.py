# SPDX-License-Identifier: BSD-2-Clause
"""A guest whose COM1 is a socket: the harness reads what the loaders print and types keys as
a terminal would (tests/qemu/menu_keys.py, chain.py, memtest.py, secboot.py), and run_cases,
those harnesses' one loop over their cases (two guests at a time)."""
import concurrent.futures
import os
import socket
import subprocess
import tempfile
import time

from lib import console, paths, qemu, results

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


CASE_ERRORS = (OSError, RuntimeError, subprocess.CalledProcessError)
TAIL_LINES = 15


def failure_text(e):
    """An exception that ended a case, as the case's reason (a failed command's stderr too)."""
    text = f"{type(e).__name__}: {e}"
    err = getattr(e, "stderr", None)
    if err:
        text += "\n" + (err.decode(errors="replace") if isinstance(err, bytes) else err)
    return text


JOBS = 2           # guests at a time: QEMU TCG with -smp 1 keeps one core busy; CI has two


def _run_case(name, case, missing, skip_note):
    """One case of run_cases: ("pass"|"fail"|"skip", the lines to print)."""
    gone = missing(name)
    if gone and skip_note:
        return "skip", f"SKIP         {name}: missing {', '.join(gone)} ({skip_note})"
    start = time.time()
    why, g = (f"missing: {', '.join(gone)}", None) if gone else (None, None)
    if not gone:
        with tempfile.TemporaryDirectory(dir=paths.build("qemu")) as work:
            try:
                why, g = case(work)
            except CASE_ERRORS as e:
                why = failure_text(e)
            finally:
                if g:
                    g.close()
    took = time.time() - start
    if not why:
        return "pass", f"PASS  {took:5.1f}s  {name}"
    text = f"FAIL  {took:5.1f}s  {name}\n    {why}"
    if g:
        text += "\n    serial log tail:\n" + "\n".join(
            "      " + line for line in console.tail(g.text(), TAIL_LINES).splitlines())
    return "fail", text


def run_cases(suite, cases, missing=lambda name: [], skip_note=None, jobs=JOBS):
    """Runs each (name, case) in a fresh temporary directory under $BUILD/qemu, jobs at a time
    (the cases share nothing but what their harness made before), and prints "PASS|FAIL|SKIP
    seconds name" as each ends. case(work) returns (why, guest): why is None when the case
    passed, else the reason; guest (a Guest, or None) is closed here, and a failure shows the
    tail of its serial text. An OSError, RuntimeError or CalledProcessError fails the case with
    its text. missing(name) lists the files or programs the case needs that are not there: the
    case then SKIPs with skip_note ("Debian package X; run make deps"), or FAILs when there is
    no note. Returns results.finish(suite, ...): 1 on any failure, else 0."""
    os.makedirs(paths.build("qemu"), exist_ok=True)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(_run_case, name, case, missing, skip_note) for name, case in cases]
        for fut in concurrent.futures.as_completed(futures):
            status, text = fut.result()
            counts[status] += 1
            print(text, flush=True)
    return results.finish(suite, counts["pass"], counts["fail"], counts["skip"])
