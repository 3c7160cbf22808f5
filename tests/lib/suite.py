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
"""
import json
import os
import shutil
import signal
import subprocess
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

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, tests):
        for t in tests:
            self.current = t.__name__
            before = self.failed
            t0 = time.time()
            try:
                t(self)
            except KeyboardInterrupt as e:
                # the test's `with` and `finally` blocks have run on the way here
                print("STOP %s: interrupted (%s); its files stay in %s"
                      % (t.__name__, e or "Ctrl-C", self.work))
                return 130
            except Skip as e:
                self.skipped += 1
                print("SKIP %s: %s" % (t.__name__, e))
                continue
            except Exception:
                self.fail("exception:\n" + traceback.format_exc())
            if self.failed == before:
                print("ok   %s (%.1fs)" % (t.__name__, time.time() - t0))
        if not self.failed:
            shutil.rmtree(self.work, ignore_errors=True)
        return results.finish(self.name, self.passed, self.failed, self.skipped)

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
