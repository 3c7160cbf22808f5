"""Shared helpers for the installer tests: run anysector, assert exit codes and messages, read
raw on-disk fields independently of our C code, count passes and failures.

Every test is a function; failures are collected, not raised, so one bad case does not hide the
others. The summary goes to stdout and, when RESULTS is set, to $RESULTS/<suite>."""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import traceback
import zlib

BUILD = os.environ.get("BUILD", "build")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANYSECTOR = os.path.join(ROOT, BUILD, "asan", "tools", "anysector")


class Suite:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.work = os.path.join(ROOT, BUILD, "tmp", name)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        os.environ["TMPDIR"] = self.work
        os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        self.stages = os.path.join(self.work, "stages")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/tools/mkstages.py"),
                        self.stages], check=True)
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
            except Skip as e:
                self.skipped += 1
                print("SKIP %s: %s" % (t.__name__, e))
                continue
            except Exception:
                self.fail("exception:\n" + traceback.format_exc())
            if self.failed == before:
                print("ok   %s (%.1fs)" % (t.__name__, time.time() - t0))
        total = "pass=%d fail=%d skip=%d" % (self.passed, self.failed, self.skipped)
        print("%s: %s" % (self.name, total))
        results = os.environ.get("RESULTS")
        if results:
            with open(os.path.join(results, self.name), "w") as f:
                f.write(total + "\n")
        if not self.failed:
            shutil.rmtree(self.work, ignore_errors=True)
        return 1 if self.failed else 0

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

    def anysector(self, *args, rc=0, has=(), lacks=(), stdin=None):
        """Runs anysector; asserts the exit code and that the output (stdout+stderr) contains
        every string of has and none of lacks. Returns (stdout, stderr)."""
        cmd = [ANYSECTOR] + [str(a) for a in args]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=120)
        except subprocess.TimeoutExpired:
            self.fail("hung (killed after 120 s): $ " + " ".join(cmd[1:]))
            return "", ""
        out = p.stdout + p.stderr
        shown = "$ %s\n%s" % (" ".join(cmd[1:]), out[-3000:])
        if "ERROR: AddressSanitizer" in out or "ERROR: LeakSanitizer" in out or \
                "runtime error:" in out:
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


class Skip(Exception):
    pass


def sparse(path, size):
    """A sparse file of size bytes; raises Skip when the filesystem cannot hold it."""
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        try:
            f.truncate(size)
        except OSError as e:
            raise Skip("cannot make a %d-byte sparse file here: %s" % (size, e))


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_at(path, off, n):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(n)


def write_at(path, off, data):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(data)


def gpt_header(path, lss, lba):
    """Decodes the GPT header at lba; also says whether its CRC is right."""
    raw = read_at(path, lba * lss, lss)
    (sig, rev, hsize, crc, _, my, alt, fu, lu) = struct.unpack_from("<8sIIIIQQQQ", raw, 0)
    (elba, nent, esize, ecrc) = struct.unpack_from("<QIII", raw, 72)
    z = bytearray(raw[:hsize])
    z[16:20] = b"\0\0\0\0"
    return dict(sig=sig, rev=rev, hsize=hsize, crc_ok=(zlib.crc32(bytes(z)) & 0xFFFFFFFF) == crc,
                my=my, alt=alt, first_usable=fu, last_usable=lu, entries_lba=elba,
                num_entries=nent, entry_size=esize, entries_crc=ecrc,
                disk_guid=raw[56:72])


def gpt_entries(path, lss, hdr):
    raw = read_at(path, hdr["entries_lba"] * lss, hdr["num_entries"] * hdr["entry_size"])
    out = []
    for i in range(hdr["num_entries"]):
        e = raw[i * hdr["entry_size"]:(i + 1) * hdr["entry_size"]]
        if e[:16] != bytes(16):
            first, last, attr = struct.unpack_from("<QQQ", e, 32)
            out.append(dict(number=i + 1, type=e[:16], unique=e[16:32], first=first, last=last))
    return out, (zlib.crc32(raw) & 0xFFFFFFFF) == hdr["entries_crc"]


def mbr_entries(path):
    raw = read_at(path, 0, 512)
    out = []
    for i in range(4):
        e = raw[446 + 16 * i:462 + 16 * i]
        status, typ = e[0], e[4]
        first, size = struct.unpack_from("<II", e, 8)
        if typ:
            out.append(dict(number=i + 1, status=status, type=typ, first=first, size=size,
                            chs_first=e[1:4], chs_last=e[5:8]))
    return out, raw


def rewrite_gpt_crcs(path, lss, lba):
    """Recomputes the header's array CRC and header CRC (after a deliberate field change)."""
    h = gpt_header(path, lss, lba)
    arr = read_at(path, h["entries_lba"] * lss, h["num_entries"] * h["entry_size"]) \
        if 0 < h["num_entries"] * h["entry_size"] < (1 << 24) else b""
    raw = bytearray(read_at(path, lba * lss, lss))
    struct.pack_into("<I", raw, 88, zlib.crc32(arr) & 0xFFFFFFFF)
    fix_header_crc(raw)
    write_at(path, lba * lss, bytes(raw))


def fix_header_crc(raw):
    hsize = struct.unpack_from("<I", raw, 12)[0]
    hsize = min(max(hsize, 92), len(raw))
    raw[16:20] = b"\0\0\0\0"
    struct.pack_into("<I", raw, 16, zlib.crc32(bytes(raw[:hsize])) & 0xFFFFFFFF)


def fat_bpb(path, off):
    """The FAT boot sector's key fields and the cluster count by the Microsoft formula."""
    b = read_at(path, off, 512)
    bps, spc, rsvd, nfats, rootent, tot16, _media, fatsz16 = struct.unpack_from("<HBHBHHBH", b, 11)
    hidden, tot32 = struct.unpack_from("<II", b, 28)
    fatsz = fatsz16 or struct.unpack_from("<I", b, 36)[0]
    tot = tot16 or tot32
    rootsec = (rootent * 32 + bps - 1) // bps
    data = tot - (rsvd + nfats * fatsz + rootsec)
    clusters = data // spc
    ftype = 12 if clusters < 4085 else 16 if clusters < 65525 else 32
    return dict(bps=bps, spc=spc, hidden=hidden, total=tot, clusters=clusters, type=ftype)


def have(prog):
    return shutil.which(prog) is not None


class Loop:
    """A loop device over an image (root only); partitions scanned with partx; always removed."""

    def __init__(self, image, lss):
        self.dev = subprocess.run(["losetup", "-f", "--show", "--sector-size", str(lss), image],
                                  capture_output=True, text=True, check=True).stdout.strip()
        self.name = os.path.basename(self.dev)

    def scan(self):
        subprocess.run(["partx", "-a", self.dev], capture_output=True)

    def unscan(self):
        subprocess.run(["partx", "-d", self.dev], capture_output=True)

    def close(self):
        self.unscan()
        subprocess.run(["losetup", "-d", self.dev], capture_output=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
