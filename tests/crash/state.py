# SPDX-License-Identifier: BSD-2-Clause
"""Crash cases of the installer's writes of the boot state block (docs/DESIGN.md "The boot state
block", issue 25), for tests/crash/crash.py. Host only: what a loader would do with a disk is
read through `anysector list --json` and `status --json`, which apply the block as the loaders
do (common/bootcount.c), so no boot is needed.

Each case is a disk P made by mkimage (its state block holding a state of its own, written the
way stage2 writes it) and one operation:
  once         set-default --once good, over a one-shot 'other' (one write: the copy that does
               not hold the state)
  bless-cfg    bless of a counted anysector.cfg entry ('tries 2', the block counting 1 left and
               the counted boot): anysector.cfg loses its tries line and the block its records,
               in one plan
  bless-file   bless of a counted /loader/entries file under BIOS: new+2.conf becomes new.conf
               and the block loses its records
  add-tries    add --tries 2 --default of an entry 'new' while the block still counts a removed
               entry of that name as failed (0 left): anysector.cfg gets the new entry, and the
               block forgets the old one's counts after it, so that the new one starts from 2
  install-state install over a stage2 that records no block (an older install): the block is
               written (two empty copies) before the stage2 that records it, LBA 0 last
  add-replace  add --replace --default of the entry 'new', whose directory /new exists, with a
               kernel and an initrd of other names: anysector.cfg's switch must come after the
               new files' entries in /new and before the old ones' deletion (it does not write
               the block; the boot state block's rules hold all the same)
For every K from 0 to the number of writes the operation's --dry-run announces, a copy of P gets
the operation stopped after write K (ANYSECTOR_TEST_CRASH_AFTER_WRITE), then
  - the copy of the block that held P's state is byte for byte P's (writers write the other);
  - `anysector check` exits 0 with no boot.state_copy or boot.state_damaged;
  - what the loaders would do (the menu's entries with their tries, which are failed, the
    one-shot, whether there is a block) is exactly P's or the complete operation's: anysector.cfg
    (or the file's name) and the block never disagree; K = 0 is P's, K = N the complete one;
  - recovery forward: the operation run again on a copy completes, and everything (also the
    counted boot bless takes and the block's records) is what the complete operation leaves;
  - recovery back: `anysector restore` with the journal gives P's SHA-256;
  - add-replace: the default entry's kernel and initrd, read with mtools, are byte for byte the
    old entry's files (previous state) or the new ones (complete): the default boots one or the
    other whole.
At the K right after the block's write, the same disk with that copy torn (the write
cut short before the last byte it changes) must make `check` exit 1 naming exactly that copy
(boot.state_copy, its CRC) and the other as holding the state, which is still P's; the loaders'
view is P's or the complete one, and the operation run again completes and clears the warning.
"""
import json
import os
import shutil
import struct
import subprocess
import time
import zlib

from lib import bootinfo as B
from lib import disk, mtools, paths, stages, tool
from lib import gpt, mbr

CRASH_ENV = "ANYSECTOR_TEST_CRASH_AFTER_WRITE"
CRASH_EXIT = 99
COPY = 4096

# name: (logical, physical, label, operation)
SCENARIOS = {
    "host-4Kn-gpt-once": (4096, 4096, "gpt", "once"),
    "host-512n-mbr-once": (512, 512, "mbr", "once"),
    "host-4Kn-gpt-bless-cfg": (4096, 4096, "gpt", "bless-cfg"),
    "host-512e-gpt-bless-file": (512, 4096, "gpt", "bless-file"),
    "host-512n-mbr-add-tries": (512, 512, "mbr", "add-tries"),
    "host-512e-gpt-install-state": (512, 4096, "gpt", "install-state"),
    "host-512n-mbr-add-replace": (512, 512, "mbr", "add-replace"),
    "host-4Kn-gpt-add-replace": (4096, 4096, "gpt", "add-replace"),
    "host-512e-gpt-remove": (512, 4096, "gpt", "remove"),
}

BOOTED_COUNTED_BIOS = (3, 1, 1)     # BSTATE_BOOTED, BSTATE_FW_BIOS, BSTATE_BOOTED_COUNTED
STALE = (2, "new", 0, 2)            # add-tries: the TRIES record of a removed entry 'new'

# add-replace: before tools/esp/esp_order.h's step 3b the root directory's sector that switches
# anysector.cfg went first among the adding ones, before /new's sector that adds the new kernel
# and deletes the old one: stopped in between, the default entry named a kernel not yet there.


class Failure(Exception):
    pass


def state_copy(seq, records):
    """A sealed copy of the block (common/bootstate.h): records [(type, name, a, b)]."""
    body = b"".join(bytes([t, len(n), a, b]) + n.encode() for t, n, a, b in records)
    c = bytearray(COPY)
    c[0:32] = b"ANYSTATE" + struct.pack("<IIQII", 1, COPY, seq, 0, 0)
    c[32:32 + len(body)] = body
    struct.pack_into("<I", c, 0x18, zlib.crc32(bytes(c)))
    return bytes(c)


def copy_valid(c):
    """Magic, CRC and sequence only: enough to tell which copy a test wrote holds the state."""
    if c[:8] != b"ANYSTATE":
        return False
    z = bytearray(c)
    z[0x18:0x1C] = bytes(4)
    return zlib.crc32(bytes(z)) == struct.unpack_from("<I", c, 0x18)[0]


def live_index(c0, c1):
    v0, v1 = copy_valid(c0), copy_valid(c1)
    if v0 and v1:
        return int(struct.unpack_from("<Q", c1, 0x10)[0] > struct.unpack_from("<Q", c0, 0x10)[0])
    return 0 if v0 else 1 if v1 else -1


def block_offset(img):
    """The boot state block's byte offset the installed stage2 records (0: none)."""
    _, s2 = stages.installed_stage2(img)
    return stages.stage2_field(s2, B.STAGE2_STATE_OFF) if stages.is_stage2(s2) else 0


def said(r):
    text = ((r.stderr or "") + (r.stdout or "")).strip().splitlines()
    return " | ".join(text[-6:]) or "(nothing)"


class StateScenario:
    def __init__(self, name, spec, root, keep):
        self.name = name
        self.logical, self.physical, self.label, self.op = spec
        self.keep = keep
        self.dir = os.path.join(root, name)
        self.prev = os.path.join(self.dir, "previous.img")
        self.kernel = os.path.join(self.dir, "k")
        self.topo = ["--sector-size", str(self.logical), "--physical-size", str(self.physical)]
        # no UEFI variables: bless and status read the BIOS state, whatever the host booted by
        self.env = dict(os.environ, ANYSECTOR_TEST_EFIVARS=os.path.join(self.dir, "no-efivars"))
        self.env.pop(CRASH_ENV, None)

    # ---- running the tool ----

    def run(self, args, k=None, binary=paths.ASAN_ANYSECTOR):
        """The operations run under ASan+UBSan; the many reads of the result (check, list,
        status) through the shipped build, which starts faster."""
        env = dict(self.env)
        if k is not None:
            env[CRASH_ENV] = str(k)
        return subprocess.run([binary] + [str(a) for a in args],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", env=env, timeout=120, cwd=tool.workdir())

    def must(self, args, what, binary=paths.ASAN_ANYSECTOR):
        r = self.run(args, binary=binary)
        if r.returncode:
            raise Failure(f"{what} failed (exit {r.returncode}): {said(r)}")
        return r

    def command(self, img, backup=None, dry_run=False):
        if self.op == "once":
            cmd = ["set-default", "--once", img, "good"]
        elif self.op.startswith("bless"):
            cmd = ["bless", img]
        elif self.op == "add-tries":
            cmd = ["add", img, "--kernel", self.kernel + "2", "--name", "new", "--tries", "2",
                   "--default"]
        elif self.op == "add-replace":
            cmd = ["add", img, "--kernel", self.kernel + "3", "--initrd", self.kernel + "3i",
                   "--name", "new", "--replace", "--default"]
        elif self.op == "remove":
            cmd = ["remove", img, "other"]
        else:
            cmd = ["install", img, "--stages", paths.STAGES]
        return cmd + self.topo + (["--dry-run"] if dry_run else ["--backup", backup])

    def check(self, img):
        """(exit status, {code: [messages]}) of `check --json`."""
        r = self.run(["check", "--json", img] + self.topo, binary=paths.ANYSECTOR)
        try:
            probs = json.loads(r.stdout).get("problems", [])
        except ValueError:
            raise Failure(f"check --json printed no JSON (exit {r.returncode}): {said(r)}")
        codes = {}
        for p in probs:
            codes.setdefault(p.get("code"), []).append(p.get("message", ""))
        return r.returncode, codes

    def view(self, img):
        """What the loaders would do with img: the menu's entries with their tries (the file's
        or the tries line, the block's, failed or not), the pending one-shot, a block or none."""
        lj = json.loads(self.must(["list", "--json", img] + self.topo, "list --json",
                                   binary=paths.ANYSECTOR).stdout)
        sj = json.loads(self.must(["status", "--json", img] + self.topo, "status --json",
                                  binary=paths.ANYSECTOR).stdout)
        entries = tuple(sorted((e.get("name"), e.get("file"), e.get("kernel"), e.get("default"),
                                e.get("tries_left"), e.get("tries_done"), e.get("bad"),
                                e.get("bios_tries_left"), e.get("bios_tries_done"))
                               for e in lj.get("entries", [])))
        return entries, sj.get("oneshot"), sj.get("state_block")

    def full(self, img):
        """view and what only the installer reads: the counted boot bless takes, the records."""
        sj = json.loads(self.must(["status", "--json", img] + self.topo, "status --json",
                                  binary=paths.ANYSECTOR).stdout)
        _, codes = self.check(img)
        held = [m.split("holds it: ", 1)[1] for m in codes.get("boot.state", [])
                if "holds it: " in m]
        return self.view(img), sj.get("booted"), sj.get("booted_counted"), held

    # ---- P ----

    def copies(self, img, off):
        data = disk.read_at(img, off, 2 * COPY)
        return data[:COPY], data[COPY:]

    def esp_offset(self, img):
        if self.label == "mbr":
            return mbr.read_entries(img)[0][0]["first"] * self.logical
        return gpt.find_partition(img, self.logical, gpt.ESP_TYPE)[0] * self.logical

    def make_previous(self):
        with open(self.kernel, "wb") as f:
            f.write(disk.deterministic(30000, self.name))
        self.must(["mkimage", self.prev, "--size", "32M", "--label",
                   self.label, "--stages", paths.STAGES, "--kernel", self.kernel, "--name",
                   "good"] + self.topo, "mkimage of the previous state")
        off = block_offset(self.prev)
        if not off:
            raise Failure("mkimage's stage2 records no boot state block")
        if self.op == "once":
            self.must(["add", self.prev, "--kernel", self.kernel, "--name", "other"] + self.topo
                      + ["--backup", self.prev + ".b"], "add other")
            self.must(["set-default", "--once", self.prev, "other"] + self.topo
                      + ["--backup", self.prev + ".b2"], "set-default --once other")
        elif self.op == "bless-cfg":
            self.must(["add", self.prev, "--kernel", self.kernel, "--name", "new", "--tries",
                       "2", "--default"] + self.topo + ["--backup", self.prev + ".b"],
                      "add --tries")
            # stage2 started new and counted it: 1 left, 1 done
            disk.write_at(self.prev, off + COPY, state_copy(1, [
                (2, "new", 1, 1), (BOOTED_COUNTED_BIOS[0], "new", 1, 1)]))
        elif self.op == "add-tries":
            with open(self.kernel + "2", "wb") as f:
                f.write(disk.deterministic(30000, self.name + "2"))
            # an entry 'new' used its tries up and was removed; no loader wrote the block since
            # (the good entry is not counted), so its counts are still there
            disk.write_at(self.prev, off + COPY, state_copy(3, [STALE]))
        elif self.op == "add-replace":
            for f in ("2", "2i", "3", "3i"):
                with open(self.kernel + f, "wb") as out:
                    out.write(disk.deterministic(30000 + 7000 * len(f), self.name + f))
            self.must(["add", self.prev, "--kernel", self.kernel + "2", "--initrd",
                       self.kernel + "2i", "--name", "new", "--default"] + self.topo
                      + ["--backup", self.prev + ".b"], "add new")
        elif self.op == "remove":
            # an entry with a kernel and initrd of its own, not the default: remove takes its
            # line out of anysector.cfg and its files off the ESP
            for f in ("2", "2i"):
                with open(self.kernel + f, "wb") as out:
                    out.write(disk.deterministic(30000 + 7000 * len(f), self.name + f))
            self.must(["add", self.prev, "--kernel", self.kernel + "2", "--initrd",
                       self.kernel + "2i", "--name", "other"] + self.topo
                      + ["--backup", self.prev + ".b"], "add other")
        elif self.op == "bless-file":
            ent = os.path.join(self.dir, "new.conf")
            with open(ent, "wb") as f:
                f.write(b"title New\nversion 2\nlinux /good/k\n")
            esp = self.esp_offset(self.prev)
            for cmd in (["mmd", "::/loader", "::/loader/entries"],
                        ["mcopy", ent, "::/loader/entries/new+2.conf"]):
                r = mtools.run(cmd, self.prev, esp)
                if r.returncode:
                    raise Failure(f"{cmd[0]} failed: {r.stderr.decode(errors='replace')}")
            disk.write_at(self.prev, off + COPY, state_copy(1, [
                (2, "new+2.conf", 1, 1), (3, "new+2.conf", 1, 1)]))
        elif self.op == "install-state":
            # an older install: stage2 records no block, and its place holds zeros
            at, s2 = stages.installed_stage2(self.prev)
            b = bytearray(s2)
            struct.pack_into("<I", b, B.STAGE2_STATE_OFF, 0)
            disk.write_at(self.prev, at, stages.reseal(bytes(b)))
            disk.write_at(self.prev, off, bytes(2 * COPY))
        for f in (self.prev + ".b", self.prev + ".b2"):
            if os.path.exists(f):
                os.unlink(f)

    def prepare(self):
        """Builds P and the complete operation's result; returns the number of writes."""
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.make_previous()
        self.prev_hash = disk.sha256(self.prev)
        rc, codes = self.check(self.prev)
        if rc:
            raise Failure(f"check of the previous state exits {rc}: {sorted(codes)}")
        self.off = block_offset(self.prev)
        self.prev_copies = self.copies(self.prev, self.off) if self.off else None
        self.live = live_index(*self.prev_copies) if self.off else -1
        self.old_view, self.old_full = self.view(self.prev), self.full(self.prev)
        r = self.run(self.command(self.prev, dry_run=True))
        last = [ln for ln in r.stdout.splitlines() if ln.startswith("dry run:")]
        if r.returncode or not last:
            raise Failure(f"--dry-run failed (exit {r.returncode}): {said(r)}")
        writes = [ln for ln in r.stdout.splitlines() if ln.startswith("write LBA")]
        # the K after which the block's copy is on the disk (0: the operation does not write it)
        self.block_k = next((i + 1 for i, ln in enumerate(writes)
                             if "boot state block, copy" in ln), 0)
        final = os.path.join(self.dir, "final.img")
        disk.copy_sparse(self.prev, final)
        self.must(self.command(final, final + ".backup"), "the complete operation")
        self.new_view, self.new_full = self.view(final), self.full(final)
        if self.new_view == self.old_view:
            raise Failure("the complete operation changes nothing the loaders see")
        self.mid_view = self.middle_view()
        fresh = [e for e in self.new_view[0] if e[0] == STALE[1]]
        if self.op == "add-tries" and (len(fresh) != 1 or fresh[0][6:] != (False, None, None)):
            raise Failure(f"the added entry does not start from its own tries: {fresh} (the "
                          "block still counts the removed entry of its name)")
        rc, codes = self.check(final)
        if rc:
            raise Failure(f"check after the complete operation exits {rc}: {sorted(codes)}")
        for f in (final, final + ".backup"):
            os.unlink(f)
        return int(last[-1].split()[2])

    def middle_view(self):
        """add-tries only: the one state between P and the complete add that is allowed, the new
        entry in anysector.cfg with what the block counted for the old one (so it is failed,
        and the loaders boot what they booted before) until the block's write; None for the
        others. The other order would give the old, failed entry fresh tries: the kernel
        that did not come up boots again."""
        if self.op != "add-tries":
            return None
        entries = tuple(e[:6] + (True, STALE[2], STALE[3]) if e[0] == STALE[1] else e
                        for e in self.new_view[0])
        return (entries,) + self.new_view[1:]

    # ---- one K ----

    def assert_previous_copy(self, img, what):
        """The copy that held P's state is P's, byte for byte."""
        if self.live < 0:
            return
        got = self.copies(img, self.off)
        if got[self.live] != self.prev_copies[self.live]:
            raise Failure(f"{what}: copy {self.live} of the boot state block, which held the "
                          "previous state, was written")
        if self.op not in ("once", "bless-cfg", "bless-file", "add-tries") and \
                got != self.prev_copies:
            raise Failure(f"{what}: the boot state block changed ({self.op} must not write it)")

    def assert_view(self, img, what):
        v = self.view(img)
        if v not in (self.old_view, self.new_view, self.mid_view):
            mid = f"\n      middle   {self.mid_view}" if self.mid_view else ""
            raise Failure(f"{what}: the loaders would see neither the previous state nor the "
                          f"complete one:\n      got      {v}\n      previous {self.old_view}"
                          f"\n      complete {self.new_view}{mid}")
        return "previous" if v == self.old_view else "complete" if v == self.new_view else \
            "middle (the new entry with the old one's counts)"

    def assert_default_files(self, img, state):
        """add-replace: the default entry's kernel and initrd on the ESP are the old entry's
        files, whole (previous state), or the new ones (complete)."""
        if self.op != "add-replace":
            return
        lj = json.loads(self.must(["list", "--json", img] + self.topo, "list --json",
                                   binary=paths.ANYSECTOR).stdout)
        dflt = [e for e in lj.get("entries", []) if e.get("default")]
        if len(dflt) != 1 or len(dflt[0].get("initrds", [])) != 1:
            raise Failure(f"the default entry is not one entry with one initrd: {dflt}")
        suffix = "2" if state == "previous" else "3"
        esp = self.esp_offset(img)
        for path, src in ((dflt[0]["kernel"], self.kernel + suffix),
                          (dflt[0]["initrds"][0], self.kernel + suffix + "i")):
            got = mtools.read(img, esp, path)
            with open(src, "rb") as f:
                want = f.read()
            if got != want:
                what = "cannot be read" if got is None else f"is {len(got)} bytes, not the file"
                raise Failure(f"the default entry's {path} {what} of the {state} state "
                              f"({os.path.basename(src)}, {len(want)} bytes)")

    def assert_forward(self, img, what):
        """The operation run again completes, with what the complete operation leaves."""
        again = img + ".again"
        disk.copy_sparse(img, again)
        if self.op == "remove" and self.view(again) == self.new_view:
            # the entry is gone from the menu: remove again has nothing to remove, says so and
            # writes nothing (the FAT clusters a crash left in use stay lost, as after any
            # crash on FAT: check and list see the complete state)
            try:
                before = disk.sha256(again)
                r = self.run(self.command(again, again + ".backup"))
                if r.returncode != 3 or "has no entry named 'other'" not in r.stderr:
                    raise Failure(f"{what}: remove again exits {r.returncode}, not 3 with \"no "
                                  f"entry named 'other'\": {said(r)}")
                if disk.sha256(again) != before:
                    raise Failure(f"{what}: remove again, refused, wrote to the disk")
            finally:
                for f in (again, again + ".backup"):
                    if os.path.exists(f):
                        os.unlink(f)
            return
        try:
            # add again: with --replace, since the entry may be in anysector.cfg already
            more = ["--replace"] if self.op == "add-tries" else []
            self.must(self.command(again, again + ".backup") + more, f"{what}: running it again")
            rc, codes = self.check(again)
            if rc:
                raise Failure(f"{what}: after running it again check exits {rc}: "
                              f"{sorted(codes)}")
            got = self.full(again)
            if got != self.new_full:
                raise Failure(f"{what}: run again it leaves\n      {got}\n      not the complete "
                              f"operation's\n      {self.new_full}")
        finally:
            for f in (again, again + ".backup"):
                if os.path.exists(f):
                    os.unlink(f)

    def torn(self, img, k):
        """img with the copy write k put there cut short before its last changed byte (the
        sequence number and the CRC always change, so the result is neither copy)."""
        t = img + ".torn"
        disk.copy_sparse(img, t)
        written = 1 - self.live
        at = self.off + written * COPY
        new, old = disk.read_at(t, at, COPY), self.prev_copies[written]
        cut = max(i for i in range(COPY) if new[i] != old[i])
        disk.write_at(t, at + cut, old[cut:])
        rc, codes = self.check(t)
        msgs = codes.get("boot.state_copy", [])
        want = f"copy {written} of the boot state block (byte {at}) is not whole: its CRC32"
        if rc != 1 or len(msgs) != 1 or want not in msgs[0] or \
                f"copy {self.live} holds the state" not in msgs[0] or "boot.state_damaged" in codes:
            raise Failure(f"torn copy {written}: check exits {rc} with {msgs}, not 1 naming "
                          f"exactly copy {written} as torn and copy {self.live} as holding the "
                          "state")
        self.assert_previous_copy(t, "torn")
        state = self.assert_view(t, "torn")
        self.assert_forward(t, "torn")
        os.unlink(t)
        return state

    def crash_at(self, k, n):
        img = os.path.join(self.dir, f"k{k}.img")
        backup = img + ".backup"
        for f in (img, backup):
            if os.path.exists(f):
                os.unlink(f)
        disk.copy_sparse(self.prev, img)
        t0 = time.monotonic()
        r = self.run(self.command(img, backup), k=k)
        dead = f"{CRASH_ENV}={k}: stopping dead after write {k} of {n}"
        if r.returncode != CRASH_EXIT or dead not in r.stderr:
            raise Failure(f"{self.op} with {CRASH_ENV}={k} ended with exit {r.returncode}, not "
                          f"{CRASH_EXIT} and \"{dead}\": {said(r)}")
        self.assert_previous_copy(img, "after the crash")
        rc, codes = self.check(img)
        if rc or "boot.state_copy" in codes or "boot.state_damaged" in codes:
            raise Failure(f"check exits {rc} after the crash: "
                          f"{[m for c in codes.values() for m in c][-3:]}")
        state = self.assert_view(img, "after the crash")
        self.assert_default_files(img, state)
        want = "previous" if k == 0 else "complete" if k == n else state
        if state != want:
            raise Failure(f"the loaders would see the {state} state, not the {want} one")
        if k == n and self.full(img) != self.new_full:
            raise Failure(f"the complete operation left {self.full(img)}, not {self.new_full}")
        self.assert_forward(img, "after the crash")
        note = f"loaders see the {state} state, " + (
            "remove again finds nothing to remove" if self.op == "remove" and
            state == "complete" else "run again completes")
        if self.live >= 0 and self.block_k and k == self.block_k:
            note += f"; torn copy named by check, loaders see the {self.torn(img, k)} state"
        r = self.run(["restore", img, backup])
        if r.returncode:
            raise Failure(f"restore failed (exit {r.returncode}): {said(r)}")
        if disk.sha256(img) != self.prev_hash:
            raise Failure("after restore the image differs from the previous state")
        if not self.keep:
            os.unlink(img)
            os.unlink(backup)
        return f"{note}, restored byte-identical", time.monotonic() - t0
