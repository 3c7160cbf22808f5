#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""One writer at a time (tools/dev/lock.h): commands started together on one disk never lose an
update. Eight `add` at once, four `remove` or `set-default` against four `add`, on an image
file, on a 4Kn loop device and through a mounted ESP: every command that exits 0 has its change
in the final menu, every other exits 3 with the lock's sentence and changed nothing, and check
is clean. A udev-style probe (`flock -s` on the device, then blkid and a hash of the device)
during an install waits and sees only the disk after it; with --no-lock it sees the
half-written disk (so the probe can fail). A writer killed while it holds the lock leaves
nothing that blocks the next one. A record lock (an OFD lock as QEMU takes, a POSIX lock) makes
a writer exit 3 at once. The image cases need no root; loop devices need root (else SKIP). Run
by `make test-lock` (suite 54)."""
import fcntl
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import paths, tool  # noqa: E402
from lib.disk import Loop, sha256 as sha, sparse  # noqa: E402
from lib.live import esp_mounted  # noqa: E402
from lib.suite import Suite, have, need_loop  # noqa: E402

MIB = 1 << 20
N = 8
WAITING = "waiting for the lock held by PID "
LOCKED = "and still was after "        # the sentence of a wait that ran out (exit 3)
PAUSE = "ANYSECTOR_TEST_PAUSE_AFTER_WRITE"


def kernel(s, name="vmlinuz-lock"):
    k = s.path(name)
    with open(k, "wb") as f:
        f.write(b"MZ" + os.urandom(30000))
    return k


def layout(s, name, lss=512):
    img = s.path(name)
    sparse(img, 96 * MIB)
    s.anysector("partition", img, "--sector-size", lss, "--esp-size", "32M")
    return img


def start(args, env=None, pipes=False):
    """anysector (the ASan build) started, not waited for."""
    return subprocess.Popen([paths.ASAN_ANYSECTOR] + [str(a) for a in args], text=True,
                            errors="replace", env=env,
                            stdin=subprocess.PIPE if pipes else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run_together(s, commands):
    """Starts every command at once; returns [(args, exit code, output)] once all ended."""
    procs = [(args, start(args)) for args in commands]
    done = []
    for args, p in procs:
        try:
            out, err = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            s.fail("hung: $ anysector " + " ".join(map(str, args)))
        if tool.sanitizer_report(out + err):
            s.fail("sanitizer report: $ anysector %s\n%s" % (" ".join(map(str, args)), err))
        done.append((args, p.returncode, out + err))
    return done


def judge(s, what, results):
    """Each command exited 0, or 3 with the lock's sentence. Returns {args[0] + args[-1]: ok}:
    whether each one did its work."""
    ok = {}
    for args, rc, out in results:
        shown = "%s: $ anysector %s -> exit %d\n%s" % (what, " ".join(map(str, args)), rc,
                                                       out[-1500:])
        s.check(rc == 0 or (rc == 3 and LOCKED in out), shown)
        ok[(args[0], name_of(args))] = rc == 0
    waited = [out for _, _, out in results if WAITING in out]
    s.check(waited, "%s: no command waited for another's lock (%d commands at once)"
            % (what, len(results)))
    s.check(all("(anysector " in out for out in waited),
            "%s: a waiting line does not name the anysector command holding the lock:\n%s"
            % (what, "\n".join(waited)))
    return ok


def name_of(args):
    """The entry an add, remove or set-default command is about."""
    return args[args.index("--name") + 1] if "--name" in args else args[-1]


def menu(s, target):
    j = s.json("list", target)
    return [e["name"] for e in j.get("entries", [])], j.get("default")


def concurrent_cases(s, target, k, what):
    """The three races on target (an installed disk with at most one entry, none named e*, a*
    or b*), judged by the final menu, then check. (The menu holds 16 entries at most.)"""
    res = run_together(s, [("add", target, "--kernel", k, "--name", "e%d" % i)
                           for i in range(N)])
    ok = judge(s, what + ", %d adds" % N, res)
    names, _ = menu(s, target)
    for i in range(N):
        e = "e%d" % i
        s.check((e in names) == ok[("add", e)], "%s: entry %s %s the menu, but its add exited "
                "%s" % (what, e, "is in" if e in names else "is not in",
                        "0" if ok[("add", e)] else "3"))
    added = [n for n in names if n.startswith("e")]
    if not s.check(len(added) >= 2, "%s: only %s of the %d adds got through, too few for the "
                   "next races" % (what, added, N)):
        return
    gone, kept = added[:min(4, len(added) // 2)], added[min(4, len(added) // 2):][:4]
    # remove against add: a removed entry is gone exactly when its remove exited 0
    cmds = [("remove", target, e) for e in gone]
    cmds += [("add", target, "--kernel", k, "--name", "a%d" % i) for i in range(4)]
    ok = judge(s, what + ", removes against 4 adds", run_together(s, cmds))
    names, _ = menu(s, target)
    for (cmd, e), done in sorted(ok.items()):
        s.check((e in names) == (done == (cmd == "add")), "%s: after %s %s (exit %s) the menu "
                "holds %s" % (what, cmd, e, "0" if done else "3", names))
    # set-default against add: the default is one a set-default that exited 0 asked for
    _, before = menu(s, target)
    cmds = [("set-default", target, e) for e in kept]
    cmds += [("add", target, "--kernel", k, "--name", "b%d" % i) for i in range(4)]
    ok = judge(s, what + ", set-defaults against 4 adds", run_together(s, cmds))
    names, default = menu(s, target)
    set_ok = [e for (cmd, e), done in ok.items() if cmd == "set-default" and done]
    s.check(default in set_ok if set_ok else default == before, "%s: the default is %r; "
            "set-default exited 0 for %s" % (what, default, set_ok))
    for (cmd, e), done in sorted(ok.items()):
        if cmd == "add":
            s.check((e in names) == done, "%s: entry %s in the menu %s, its add exited %s"
                    % (what, e, names, "0" if done else "3"))
    s.anysector("check", target, rc=0)


def t_concurrent_image(s):
    """Eight adds at once on an image file, then removes and set-defaults against adds: no
    command that said it did its work lost it, the others exit 3 with the lock's sentence."""
    img = layout(s, "race.img")
    s.anysector("install", img)
    concurrent_cases(s, img, kernel(s), "image")


def t_concurrent_loop_4kn(s):
    """The same on a loop device with 4096-byte logical sectors (root)."""
    need_loop(("partx",))
    img = layout(s, "race-4kn.img", 4096)
    with Loop(img, 4096) as lo:
        s.anysector("install", lo.dev, "--backup", s.path("race-4kn.bak"))
        concurrent_cases(s, lo.dev, kernel(s), "4Kn loop device")


def t_concurrent_mounted_esp(s):
    """The same through a mounted ESP (declared in a mountinfo file, tests/lib/live.py): the
    changes go through the mount, under the device's lock and anysector.lock beside
    anysector.cfg. A program holding anysector.lock (flock(1)) keeps anysector out."""
    need_loop(("partx", "mcopy"))
    img = layout(s, "race-esp.img")
    k = kernel(s)
    with esp_mounted(s, img, k, "race-efi") as (lo, esp, mnt):
        concurrent_cases(s, lo.dev, k, "mounted ESP")
        lock = os.path.join(mnt, "anysector.lock")
        s.check(os.path.isfile(lock), "no anysector.lock beside anysector.cfg in the mount")
        # (its own process group: flock(1)'s command inherits the lock)
        holder = subprocess.Popen(["flock", lock, "sleep", "60"], start_new_session=True)
        try:
            time.sleep(0.3)
            before = open(os.path.join(mnt, "anysector.cfg")).read()
            s.anysector("add", lo.dev, "--kernel", k, "--name", "held", "--wait", "1", rc=3,
                        has=[WAITING + "%d (flock) on %s" % (holder.pid, lock), LOCKED])
            s.eq(open(os.path.join(mnt, "anysector.cfg")).read(), before,
                 "anysector.cfg after an add refused for the lock file")
        finally:
            os.killpg(holder.pid, signal.SIGKILL)
            holder.wait()
        s.anysector("add", lo.dev, "--kernel", k, "--name", "held", "--wait", "1",
                    lacks=[WAITING])


def t_concurrent_aliases(s):
    """An image and a loop device over it are one disk: four adds through the image file and four
    through the loop device at once, each waiting for the others, none lost (tools/dev/
    loop_alias.h: the lock is taken on every name, the image first)."""
    need_loop(("partx",))
    img = layout(s, "alias.img")
    s.anysector("install", img)
    k = kernel(s)
    with Loop(img, 512) as lo:
        cmds = [("add", img if i % 2 else lo.dev, "--kernel", k, "--name", "e%d" % i)
                for i in range(N)]
        ok = judge(s, "image and loop device", run_together(s, cmds))
        for target in (img, lo.dev):
            names, _ = menu(s, target)
            for (cmd, e), done in sorted(ok.items()):
                s.check((e in names) == done, "read through %s: entry %s %s the menu, its add "
                        "exited %s" % (target, e, "in" if e in names else "not in",
                                       "0" if done else "3"))
        s.anysector("check", lo.dev, rc=0)


def paused(s, args, k, env_extra=None):
    """anysector started with the pause hook after write k; returns the process once it says
    it paused (all its locks held), or None."""
    env = dict(os.environ, **{PAUSE: str(k)}, **(env_extra or {}))
    p = start(args, env=env, pipes=True)
    for line in p.stderr:
        if "paused after write %d" % k in line:
            return p
    s.fail("$ anysector %s never paused: exit %s" % (" ".join(map(str, args)), p.wait()))
    return None


def resume(s, p, rc=0):
    out, err = p.communicate("\n", timeout=120)
    s.check(p.returncode == rc and not tool.sanitizer_report(out + err),
            "the paused command exited %d, want %d\n%s" % (p.returncode, rc, out + err))


def probe_cmd(dev, wait=True):
    """udev's way in (a shared flock on the whole disk, held while it probes), then what blkid
    says of the disk and a hash of every byte of it."""
    return (["flock", "-s"] + ([] if wait else ["-n"]) +
            [dev, "sh", "-c", 'blkid -p -o export "$0"; sha256sum <"$0"', dev])


def probe_now(dev):
    return subprocess.run(probe_cmd(dev), capture_output=True, text=True, timeout=60).stdout


def t_udev_probe(s):
    """During an install on a loop device (paused after stage2 is written, LBA 0 not yet), a
    probe that takes udev's LOCK_SH|LOCK_NB is turned away, and one that waits for the lock
    sees the disk after the install, never between. The same probe against install --no-lock
    gets in and sees a disk that is neither before nor after: the probe can fail. Probes run
    while partition rewrites the table see the old table or the new one."""
    need_loop(("partx", "blkid", "flock"))
    img = layout(s, "probe.img", 4096)
    with Loop(img, 4096) as lo:
        before = probe_now(lo.dev)
        p = paused(s, ["install", lo.dev, "--backup", s.path("probe.bak")], 1)
        if not p:
            return
        r = subprocess.run(probe_cmd(lo.dev, wait=False), capture_output=True, text=True)
        s.eq(r.returncode, 1, "udev's LOCK_SH|LOCK_NB probe while install holds the disk")
        waiting = subprocess.Popen(probe_cmd(lo.dev), stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        s.check(waiting.poll() is None, "a probe waiting for the lock ran during the install")
        resume(s, p)
        seen = waiting.communicate(timeout=60)[0]
        after = probe_now(lo.dev)
        s.check(seen == after and after != before, "the waiting probe saw %r; before %r, "
                "after %r" % (seen, before, after))
        # the control: without the lock the probe sees the disk half written
        p = paused(s, ["install", lo.dev, "--no-lock", "--backup", s.path("probe2.bak")], 1)
        if not p:
            return
        r = subprocess.run(probe_cmd(lo.dev, wait=False), capture_output=True, text=True)
        resume(s, p)
        final = probe_now(lo.dev)
        s.check(r.returncode == 0 and r.stdout not in (after, final),
                "install --no-lock: the probe should get in and see neither state (exit %d): "
                "%r" % (r.returncode, r.stdout))
        # partition --force: every probe sees the whole old table or the whole new one
        old = probe_now(lo.dev)
        p = start(["partition", lo.dev, "--force", "--sector-size", "4096", "--esp-size",
                   "32M", "--backup", s.path("probe3.bak")])
        seen = set()
        while p.poll() is None:
            seen.add(probe_now(lo.dev))
        out, err = p.communicate()
        s.check(p.returncode == 0, "partition --force exit %d\n%s" % (p.returncode, out + err))
        new = probe_now(lo.dev)
        s.check(seen <= {old, new}, "probes during partition saw %d states other than the "
                "old and the new disk" % len(seen - {old, new}))


def killed_then_next(s, target, k, what, extra=()):
    """A writer killed (SIGKILL) while it holds the lock, then the next writer: it gets the lock
    at once, with no word of waiting."""
    p = paused(s, ["add", target, "--kernel", k, "--name", "killed"] + list(extra), 0)
    if not p:
        return
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=60)
    s.eq(p.returncode, -signal.SIGKILL, what + ": the writer was killed")
    s.anysector("add", target, "--kernel", k, "--name", "next", "--wait", "1",
                lacks=[WAITING], has=["entry 'next'"])
    s.anysector("list", target, "--wait", "0", has=["next"], lacks=["killed"])


def t_killed_writer(s):
    """A writer killed with SIGKILL while it holds the lock (paused before its first write)
    leaves no lock behind: on an image, a 4Kn loop device (its O_EXCL goes with the process)
    and through a mounted ESP (anysector.lock stays, unlocked)."""
    k = kernel(s)
    img = layout(s, "killed.img")
    s.anysector("install", img)
    killed_then_next(s, img, k, "image")
    if os.geteuid() != 0:
        return
    need_loop(("partx", "mcopy"))
    img = layout(s, "killed-4kn.img", 4096)
    with Loop(img, 4096) as lo:
        s.anysector("install", lo.dev, "--backup", s.path("killed-4kn.bak"))
        killed_then_next(s, lo.dev, k, "4Kn loop device")
    img = layout(s, "killed-esp.img")
    with esp_mounted(s, img, k, "killed-efi") as (lo, esp, mnt):
        killed_then_next(s, lo.dev, k, "mounted ESP")
        r = subprocess.run(["flock", "-n", os.path.join(mnt, "anysector.lock"), "true"])
        s.eq(r.returncode, 0, "flock -n of anysector.lock after the killed writer")


HOLD_RECORD_LOCK = r"""
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
if sys.argv[2] == "ofd":
    # struct flock: l_type, l_whence, l_start, l_len, l_pid; QEMU's shared lock on byte 100
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 100, 1, 0))
else:
    fcntl.lockf(fd, fcntl.LOCK_SH, 1, 201)
print("locked", flush=True)
time.sleep(120)
"""


def t_record_lock(s):
    """An image another process holds an OFD lock on (as QEMU does for a running virtual
    machine) or a POSIX lock on: a writer exits 3 at once naming the process, nothing written;
    readers and dry runs go on; --no-lock writes anyway. A real QEMU holding the image, when
    QEMU is installed."""
    img = layout(s, "held.img")
    s.anysector("install", img)
    k = kernel(s)
    kinds = [("ofd", "an OFD record lock"), ("posix", "a POSIX record lock")]
    if not hasattr(fcntl, "F_OFD_SETLK"):   # Python before 3.9
        kinds = kinds[1:]
    for kind, words in kinds:
        holder = subprocess.Popen([sys.executable, "-c", HOLD_RECORD_LOCK, img, kind],
                                  stdout=subprocess.PIPE, text=True)
        try:
            holder.stdout.readline()
            before = sha(img)
            s.anysector("add", img, "--kernel", k, "--name", kind, rc=3,
                        has=["is locked by PID %d (python" % holder.pid, words], lacks=[WAITING])
            s.eq(sha(img), before, kind + ": the refused add changed the image")
            s.anysector("check", img, rc=None, has=["check: 0 errors"])
            s.anysector("add", img, "--kernel", k, "--name", kind, "--dry-run")
            s.anysector("add", img, "--kernel", k, "--name", kind, "--no-lock")
        finally:
            holder.kill()
            holder.wait()
    qemu = "qemu-system-x86_64"
    if not have(qemu):
        return
    vm = subprocess.Popen([qemu, "-S", "-display", "none", "-serial", "none", "-monitor",
                           "none", "-drive", "file=%s,format=raw,if=virtio" % img],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):    # until QEMU has opened (and locked) the image
            time.sleep(0.1)
            with open("/proc/locks") as f:
                if ":%d " % os.stat(img).st_ino in f.read():
                    break
        s.anysector("add", img, "--kernel", k, "--name", "vm", rc=3,
                    has=["is locked by PID %d (%s)" % (vm.pid, qemu), "an OFD record lock"])
    finally:
        vm.kill()
        vm.wait()


def main():
    s = Suite("lock")
    return s.run([t_concurrent_image, t_concurrent_loop_4kn, t_concurrent_mounted_esp,
                  t_concurrent_aliases, t_udev_probe, t_killed_writer, t_record_lock])


if __name__ == "__main__":
    sys.exit(main())
