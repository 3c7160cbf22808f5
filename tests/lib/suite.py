# SPDX-License-Identifier: BSD-2-Clause
"""The installer tests' runner: every test is a function given the Suite, which runs
anysector (the ASan+UBSan build) asserting exit codes and messages, and counts each assertion.
Failures are collected, not raised, so one bad case does not hide the others. The summary goes to
stdout and, through lib.results, to $RESULTS/<suite>.

    s = Suite("tools")
    def t_thing(s):
        s.anysector("check", img, rc=2, has=["gpt.header_crc"])
        s.eq(got, want, "what")
    sys.exit(s.run([t_thing]))

s.run(tests, jobs=2) runs the tests two at a time, each in a process of its own (os.environ and
the working directory are then the test's own) with its own work directory,
$BUILD/tmp/<suite>/<test> (s.path names a file there, TMPDIR points there), so tests must not
use each other's files. Each test's output is held and printed whole, in the list's order, so the
log reads as a serial run's and the counts are the same.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

from lib import paths, results, stages, tool
from lib.results import Skip

ANYSECTOR = paths.ASAN_ANYSECTOR


def _interrupted(signum, frame):
    """SIGTERM or SIGHUP (tests/run-suites.sh stopping the suite) unwinds like Ctrl-C, so every
    `with` and `finally` of the running test still detaches its loop devices and unmounts."""
    raise KeyboardInterrupt("signal %d" % signum)


class Suite:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.work = paths.build("tmp", name)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        os.environ["TMPDIR"] = self.work   # also where lib.tool runs the installer
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _interrupted)
        os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        self.stages = stages.write_placeholders(os.path.join(self.work, "stages"))
        os.environ["ANYSECTOR_STAGES"] = self.stages
        self.current = None
        self.cleanup = []    # files a test made outside the work directory (/dev/shm)

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, tests, jobs=1):
        """Runs the tests (jobs > 1: that many at a time, see the module's text); prints the
        summary line and returns the exit status (130 when interrupted)."""
        top = self.work
        if jobs > 1 and len(tests) > 1:
            rc = self._run_parallel(tests, jobs)
        else:
            rc = 130 if any(self._run_one(t) for t in tests) else 0
        if rc:
            return rc
        if not self.failed:
            shutil.rmtree(top, ignore_errors=True)
        return results.finish(self.name, self.passed, self.failed, self.skipped)

    def _run_one(self, t):
        """Runs one test, printing its ok, SKIP or STOP line; True when interrupted."""
        self.current = t.__name__
        before = self.failed
        t0 = time.time()
        try:
            t(self)
        except KeyboardInterrupt as e:
            # the test's `with` and `finally` blocks have run on the way here
            print("STOP %s: interrupted (%s); its files stay in %s"
                  % (t.__name__, e or "Ctrl-C", self.work))
            return True
        except Skip as e:
            self.skipped += 1
            print("SKIP %s: %s" % (t.__name__, e))
            return False
        except Exception:
            self.fail("exception:\n" + traceback.format_exc())
        finally:
            for p in self.cleanup:
                if os.path.exists(p):
                    os.unlink(p)
            self.cleanup = []
        if self.failed == before:
            print("ok   %s (%.1fs)" % (t.__name__, time.time() - t0))
        return False

    def _run_parallel(self, tests, jobs):
        """The tests `jobs` at a time, each in a child process (os.fork) with its own work
        directory and its output in a file, printed whole in the list's order; adds the
        children's counts. 0, or 130 when interrupted."""
        top = self.work
        waiting = list(enumerate(tests))
        running = {}             # pid: (index, test, output file)
        done = {}                # index: (test, output file, exit status)
        stopped = False
        try:
            while waiting and not stopped or running:
                while waiting and len(running) < jobs and not stopped:
                    i, t = waiting.pop(0)
                    out = os.path.join(top, "%s.out" % t.__name__)
                    running[self._fork(t, os.path.join(top, t.__name__), out)] = (i, t, out)
                pid, status = os.wait()
                if pid in running:
                    i, t, out = running.pop(pid)
                    done[i] = (t, out, os.waitstatus_to_exitcode(status))
                while done and min(done) < min([i for i, _, _ in running.values()]
                                               + [w[0] for w in waiting] + [len(tests)]):
                    stopped |= self._collect(*done.pop(min(done)))
        except KeyboardInterrupt:
            # the children got the same signal (one process group) and stop on their own
            stopped = True
            for pid, (i, t, out) in list(running.items()):
                done[i] = (t, out, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
            for i in sorted(done):
                self._collect(*done[i])
        return 130 if stopped or waiting else 0

    def _fork(self, t, work, out):
        """A child process running test t in work, its stdout and stderr into the file out, its
        counts as the file's last line; the child's pid."""
        os.makedirs(work, exist_ok=True)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid:
            return pid
        rc = 1
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            self.work = work
            os.environ["TMPDIR"] = work
            tempfile.tempdir = None
            self.passed = self.failed = self.skipped = 0
            rc = 130 if self._run_one(t) else 0
            print("COUNTS %d %d %d" % (self.passed, self.failed, self.skipped))
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)

    def _collect(self, t, out, rc):
        """Prints a child's output but its counts line and adds its counts; True when it was
        interrupted."""
        with open(out, errors="replace") as f:
            lines = f.read().rstrip("\n").split("\n")
        counts = lines.pop() if lines[-1].startswith("COUNTS ") else None
        text = "\n".join(lines).rstrip("\n")
        if text:
            print(text, flush=True)
        if counts:
            p, f, k = (int(x) for x in counts.split()[1:])
            self.passed += p
            self.failed += f
            self.skipped += k
        elif rc != 130:
            self.current = t.__name__
            self.fail("its process ended with status %d before its counts" % rc)
        return rc == 130

    def fail(self, msg):
        self.failed += 1
        print("FAIL %s: %s" % (self.current, msg))

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.fail(msg)
        return cond

    def eq(self, got, want, what):
        return self.check(got == want, "%s: got %r, want %r" % (what, got, want))

    def table_clean(self, dev, what, gpt=True):
        """The partition table's own validators find nothing: `sgdisk -v` (a GPT only) says
        "No problems found", `sfdisk --verify` exits 0 with "No errors detected"."""
        if gpt:
            r = subprocess.run(["sgdisk", "-v", dev], capture_output=True, text=True)
            self.check("No problems found" in r.stdout, what + ": sgdisk -v:\n" + r.stdout)
        r = subprocess.run(["sfdisk", "--verify", dev], capture_output=True, text=True)
        self.check(r.returncode == 0 and "No errors detected" in r.stdout,
                   what + ": sfdisk --verify:\n" + r.stdout + r.stderr)

    def fat_clean(self, path, what):
        """`fsck.fat -n` of the FAT at path (a partition device or a file) exits 0."""
        r = subprocess.run(["fsck.fat", "-n", path], capture_output=True, text=True)
        self.check(r.returncode == 0, what + ": fsck.fat -n:\n" + r.stdout + r.stderr)

    def anysector(self, *args, rc=0, has=(), lacks=(), stdin=None, prefix=(), env=None):
        """Runs anysector (under prefix, a wrapper such as lib.strace.command, when given; env:
        variables added to the environment); asserts the exit code (rc None: any) and that the
        output (stdout+stderr) contains every string of has and none of lacks. Returns
        (stdout, stderr)."""
        cmd = [str(a) for a in args]
        try:
            p = tool.run(cmd, binary=ANYSECTOR, stdin=stdin, timeout=120, prefix=prefix,
                         env=dict(os.environ, **env) if env else None)
        except subprocess.TimeoutExpired:
            self.fail("hung (killed after 120 s): $ " + " ".join(cmd))
            return "", ""
        out = p.stdout + p.stderr
        shown = "$ %s\n%s" % (" ".join(cmd), out[-3000:])
        if tool.sanitizer_report(out):
            self.fail("sanitizer report\n" + shown)
        if rc is not None:
            self.check(p.returncode == rc, "exit %d, want %d\n%s" % (p.returncode, rc, shown))
        for h in has:
            self.check(h in out, "output lacks %r\n%s" % (h, shown))
        for h in lacks:
            self.check(h not in out, "output has %r\n%s" % (h, shown))
        return p.stdout, p.stderr

    def json(self, *args, rc=0):
        out, _ = self.anysector(*args, "--json", rc=rc)
        try:
            return json.loads(out)
        except ValueError:
            self.fail("not JSON: %r" % out[:500])
            return {}


def have(prog):
    """The program is installed."""
    return shutil.which(prog) is not None


PEER_TOOLS = ("partx", "sfdisk", "sgdisk", "fsck.fat")


def need_loop(progs=PEER_TOOLS):
    """Skip unless loop devices can be made here (root, /dev/loop-control, losetup) and progs
    (by default the partition tools the loop tests compare with) are installed."""
    if os.geteuid() != 0:
        raise Skip("needs root for loop devices")
    for prog in ("losetup",) + tuple(progs):
        if not have(prog):
            raise Skip("%s is not installed" % prog)
    if not os.path.exists("/dev/loop-control"):
        raise Skip("no /dev/loop-control: loop devices unavailable")
