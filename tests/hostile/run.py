#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Runs the hostile-input corpus (corpus.py) against the ASan+UBSan anysector: for every damaged
image and every command that applies, the exit code, the sentence naming what is wrong and where,
no sanitizer report, no backup file left by a refused write, and the image's SHA-256 unchanged.
Run by `make test-hostile` (suite 45).

usage: run.py [--show] [NAME...]   --show prints every command's output; NAMEs pick cases."""
import json
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import corpus  # noqa: E402
from lib import paths, results, stages, tool  # noqa: E402
from lib.disk import Loop, sha256 as sha  # noqa: E402

ANYSECTOR = paths.ASAN_ANYSECTOR
WORK = paths.build("tmp", "hostile")

# Exit codes the tree still gives where a fix is known to be pending: (commands, the output that
# identifies the path, the code it still gives, why). A run that gets this code there counts as
# an expected failure (skip), one that already gets the right code passes. Empty: nothing pends.
PENDING = []

class Results:
    def __init__(self, show):
        self.show = show
        self.lock = threading.Lock()
        self.passed = self.failed = self.skipped = 0
        self.lines = []

    def add(self, name, fails, xfails, counts):
        """counts: (runs passed, runs failed, runs failing as expected)."""
        with self.lock:
            self.passed += counts[0]
            self.failed += counts[1]
            self.skipped += counts[2]
            for f in fails:
                self.lines.append("FAIL %s: %s" % (name, f))
            for x in xfails:
                self.lines.append("XFAIL %s: %s" % (name, x))
            if not fails:
                self.lines.append("ok   %s (%d runs)" % (name, sum(counts)))


def command(cmd, img, flags, name):
    """The full argument list for one run."""
    args = [ANYSECTOR, cmd, img] + flags
    if cmd == "json":
        args = [ANYSECTOR, "check", img, "--json"] + flags
    elif cmd == "install":
        args += ["--backup", os.path.join(WORK, name + ".bak")]
    elif cmd == "add":
        args += ["--kernel", os.path.join(WORK, "kernel"), "--backup",
                 os.path.join(WORK, name + ".bak")]
    return args


def run_one(args, want_rc, has, label, res, fails, xfails):
    """Runs anysector once; appends what is wrong to fails / xfails."""
    try:
        p = tool.run(args[1:], binary=args[0], timeout=60)
    except subprocess.TimeoutExpired:
        fails.append("%s: hung (killed after 60 s)" % label)
        return
    cmd = args[1]
    # A refusing writer must say why on stderr; check/info print their problem list (and a
    # writer its plan) on stdout.
    writer = cmd in ("install", "add", "partition", "mkimage")
    text = p.stderr if writer and want_rc else p.stdout + p.stderr
    shown = "$ %s\n%s" % (" ".join(os.path.basename(a) if a.startswith(WORK) else a
                                    for a in args[1:]), (p.stdout + p.stderr)[-2500:])
    if res.show:
        print(shown + "[exit %d]\n" % p.returncode)
    if tool.sanitizer_report(p.stdout + p.stderr):
        fails.append("%s: sanitizer report\n%s" % (label, shown))
    if p.returncode != want_rc:
        for cmds, marker, got, why in PENDING:
            if cmd in cmds and marker in text and p.returncode == got and want_rc == 2:
                xfails.append("%s: exit %d, want %d: %s" % (label, got, want_rc, why))
                break
        else:
            fails.append("%s: exit %d, want %d\n%s" % (label, p.returncode, want_rc, shown))
    if args[1:2] == ["check"] and "--json" in args:
        try:
            j = json.loads(p.stdout)
            if j.get("status") != p.returncode:
                fails.append("%s: JSON status %r, exit %d" % (label, j.get("status"), p.returncode))
            if want_rc == 2 and not j.get("damage"):
                fails.append("%s: no \"damage\" in the JSON\n%s" % (label, shown))
        except ValueError:
            fails.append("%s: not JSON\n%s" % (label, shown))
    missing = [h for h in has if h not in text]
    if missing:
        fails.append("%s: output lacks %r\n%s" % (label, missing, shown))


def run_case(case, res, loop_lss=None):
    name, what, build, runs = case
    img = os.path.join(WORK, name + ".img")
    try:
        image = build(WORK)
        try:
            image.write(img)
        except OSError:  # ext4 stops at 16 TiB; tmpfs holds any sparse size
            if not os.path.isdir("/dev/shm"):
                raise
            img = os.path.join("/dev/shm", "anysector-hostile-%d-%s.img" % (os.getpid(), name))
            image.write(img)
    except OSError as e:  # no filesystem here can hold a multi-TB sparse file
        with res.lock:
            res.skipped += len(runs)
            res.lines.append("SKIP %s: cannot make the image here: %s" % (name, e))
        if os.path.exists(img):
            os.unlink(img)
        return
    except Exception as e:  # a broken builder fails its case, not the suite
        with res.lock:
            res.failed += len(runs)
            res.lines.append("FAIL %s: building the image: %r" % (name, e))
        return
    if loop_lss is None:
        run_target(name, what, img, runs, res)
        os.unlink(img)
        return
    try:
        loop = Loop(img, loop_lss)
    except subprocess.CalledProcessError as e:
        with res.lock:
            res.failed += 1
            res.lines.append("FAIL %s: losetup: %s" % (name, e.stderr.strip()))
        return
    with loop:
        run_target(name, what, loop.dev, runs, res)
    os.unlink(img)


def run_target(name, what, img, runs, res):
    """Runs every command of a case against img (a file or a device)."""
    fails, xfails = [], []
    before = sha(img)
    counts = [0, 0, 0]
    for run in runs:
        cmd, flags, want_rc, has = run[:4]
        pending = run[4] if len(run) > 4 else None   # why this run may still fail (a request)
        args = command(cmd, img, [f.replace("{img}", img) for f in flags], name)
        label = ("%s %s" % (cmd, " ".join(flags))).strip()
        nf, nx = len(fails), len(xfails)
        run_one(args, want_rc, has, label, res, fails, xfails)
        if sha(img) != before:
            fails.append("%s: the image changed (%s)" % (label, what))
            before = sha(img)
        if os.path.exists(os.path.join(WORK, name + ".bak")) and want_rc:
            fails.append("%s: a refused write left its backup file" % label)
            os.unlink(os.path.join(WORK, name + ".bak"))
        if pending and len(fails) > nf:
            del fails[nf:]
            xfails.append("%s: fails as expected: %s" % (label, pending))
        counts[1 if len(fails) > nf else 2 if len(xfails) > nx else 0] += 1
    res.add(name, fails, xfails, counts)


def run_mkimage(case, res):
    name, flags, want_rc, has = case
    fails, xfails = [], []
    out = os.path.join(WORK, name + ".img")
    run_one([ANYSECTOR, "mkimage", out] + flags, want_rc, has, "mkimage " + " ".join(flags), res,
            fails, xfails)
    if want_rc and os.path.exists(out):
        fails.append("a failed mkimage left %s behind" % out)
    res.add(name, fails, xfails,
            [not fails and not xfails, bool(fails), bool(xfails and not fails)])


def main(argv):
    show = "--show" in argv
    names = [a for a in argv if not a.startswith("--")]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    os.environ["TMPDIR"] = WORK
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    os.environ["ANYSECTOR_STAGES"] = stages.write_placeholders(os.path.join(WORK, "stages"))
    with open(os.path.join(WORK, "kernel"), "wb") as f:
        f.write(b"MZ" + bytes(4000))
    res = Results(show)
    cases = [c for c in corpus.CASES if not names or c[0] in names]
    mk = [c for c in corpus.MKIMAGE_RUNS if not names or c[0] in names]
    loops = [c for c in corpus.LOOP_CASES if not names or c[0] in names]
    with ThreadPoolExecutor(max_workers=1 if show else 2) as pool:
        for f in [pool.submit(run_case, c, res) for c in cases] + \
                 [pool.submit(run_mkimage, c, res) for c in mk]:
            f.result()
    # Loop devices one at a time (root only; without it each is a SKIP with the reason).
    why = "needs root" if os.geteuid() else None if shutil.which("losetup") else "no losetup"
    for name, what, build, lss, runs in loops:
        if why:
            res.skipped += len(runs)
            res.lines.append("SKIP %s: %s" % (name, why))
        else:
            run_case((name, what, build, runs), res, loop_lss=lss)
    for line in sorted(res.lines, key=lambda s: s.split(" ", 1)[1]):
        print(line)
    if not res.failed:
        shutil.rmtree(WORK, ignore_errors=True)
    return results.finish("hostile", res.passed, res.failed, res.skipped,
                          label="hostile: %d images, %d mkimage runs, %d loop devices" % (
                              len(cases), len(mk), len(loops)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
