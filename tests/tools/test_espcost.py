#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""What a change to an unmounted ESP costs (issue 31): add, install and remove on an image file
whose ESP holds no holes (its free clusters filled, as a block device reads) read from the disk
only the FAT metadata, the directories and what they change, and write to the temporary copy only
that much; the files they leave stay whole, and fsck.fat finds the result clean. Run by
`make test-esp-cost` (suite 55)."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib.disk import read_at, sha256, sparse, write_at  # noqa: E402
from lib.fat import Fat  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

MIB = 1 << 20
MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")

# one traced call with its fd's path (strace -y) and its result: "pid name(fd<path>, ...) = n"
CALL_RE = re.compile(r"^\d+ +(pread64|read|pwrite64|write)\((\d+)<([^>]*)>, .*\) += (-?\d+)")


def esp_place(s, img, lss):
    """(byte offset, byte size) of the boot partition, from info --json."""
    j = s.json("info", img, "--sector-size", lss)
    esp = [p for p in j.get("partitions", []) if p.get("boot_partition")]
    s.eq(len(esp), 1, "%s: boot partitions" % img)
    return esp[0]["start"] * lss, esp[0]["sectors"] * lss


def fill_free(img, off, size):
    """Writes a pattern into every free cluster of the FAT at off: the ESP then holds no holes,
    as on a block device, where a whole copy reads every byte. Returns the metadata's size
    (everything before the first data cluster)."""
    fs = Fat(bytearray(read_at(img, off, size)), 0)
    c, end = 2, fs.clusters + 2
    while c < end:
        if fs.get(c):
            c += 1
            continue
        run = c
        while run < end and not fs.get(run):
            run += 1
        write_at(img, off + fs.cluster_off(c), b"\x5a" * ((run - c) * fs.cluster_bytes))
        c = run
    return fs.data_off


def traced_io(s, img, *args, **kw):
    """Runs anysector under strace (following mtools); returns (bytes read from img, bytes
    written to the ESP's temporary copies)."""
    trace = s.path("io-%s.txt" % args[0])
    prefix = ["strace", "-f", "-q", "-y", "-s", "0", "-o", trace, "-e",
              "trace=pread64,read,pwrite64,write", "-E", "ASAN_OPTIONS=detect_leaks=0", "--"]
    s.anysector(*args, prefix=prefix, **kw)
    got, temp = 0, 0
    with open(trace) as f:
        for line in f:
            m = CALL_RE.match(line)
            if not m or int(m.group(4)) <= 0:
                continue
            if m.group(1).startswith("pread") or m.group(1) == "read":
                got += int(m.group(4)) if m.group(3) == img else 0
            elif os.path.basename(m.group(3)).startswith("anysector-esp-"):
                temp += int(m.group(4))
    return got, temp


def same_file(s, img, off, path, src, what):
    out = s.path("back")
    r = subprocess.run(["mcopy", "-n", "-i", "%s@@%d" % (img, off), "::" + path, out],
                       capture_output=True, env=MTOOLS_ENV)
    s.check(r.returncode == 0 and open(out, "rb").read() == open(src, "rb").read(),
            "%s: %s differs on the ESP" % (what, path))


def fat_clean(s, img, off, size, what):
    part = s.path("esp.part")
    with open(img, "rb") as f, open(part, "wb") as o:
        f.seek(off)
        o.write(f.read(size))
    s.fat_clean(part, what)
    os.unlink(part)


def t_reads_what_it_changes(s):
    """add (a 1 MiB kernel and a 2 MiB initrd), install again (BOOTX64.EFI replaced through a
    temporary name) and remove on a 64 MiB ESP without holes: each reads from the image at most
    the metadata plus four times what it writes plus 2 MiB (the journal's backup and the
    read-back are passes over the written bytes), never the whole ESP, and writes no more than
    that to its temporary copy. add, whose new files go into clusters free on the disk, reads
    at most twice the metadata (the copy's, the FATs compared) plus twice what it writes plus
    1 MiB: the diff does not read the old bytes of those clusters, only the journal's backup
    does. Probe: with the whole copy (esp_sparse_build failing) each reads 64 MiB and fails;
    with the diff comparing those clusters with the disk (a third pass) add reads 11.4 MB at
    512-byte sectors (bound 9.4) and 8.1 MB at 4096 (bound 7.5) and fails."""
    if not have("strace"):
        raise Skip("strace is not installed")
    for lss in (512, 4096):
        what = "%d-byte sectors" % lss
        img = os.path.realpath(s.path("cost-%d.img" % lss))  # strace's fd paths are real
        sparse(img, 80 * MIB)
        s.anysector("partition", img, "--sector-size", lss, "--esp-size", "64M", "--no-rest")
        s.anysector("install", img, "--sector-size", lss, "--backup", img + ".bak")
        k0, k1, i1 = s.path("vmlinuz-old"), s.path("vmlinuz-new"), s.path("initrd-new")
        for f, n in ((k0, 300000), (k1, MIB), (i1, 2 * MIB)):
            open(f, "wb").write(os.urandom(n))
        s.anysector("add", img, "--sector-size", lss, "--kernel", k0, "--name", "old")
        off, size = esp_place(s, img, lss)
        meta = fill_free(img, off, size)
        bound = meta + 4 * 3 * MIB + 2 * MIB
        got, temp = traced_io(s, img, "add", img, "--sector-size", lss, "--kernel", k1,
                              "--initrd", i1, "--name", "new")
        print("DBG", what, got, meta, got - meta)
        s.check(got <= bound, "%s: add read %d bytes of the image, more than %d (metadata %d "
                "and the new files'); the ESP is %d" % (what, got, bound, meta, size))
        add_bound = 2 * meta + 2 * 3 * MIB + MIB
        s.check(got <= add_bound, "%s: add read %d bytes of the image, more than %d (twice the "
                "metadata %d and twice the new files': the journal's backup and the read-back; "
                "the diff reads no old bytes of the clusters it fills)"
                % (what, got, add_bound, meta))
        s.check(temp <= bound, "%s: add wrote %d bytes to its temporary copy, more than %d"
                % (what, temp, bound))
        same_file(s, img, off, "/old/vmlinuz-old", k0, what)
        same_file(s, img, off, "/new/vmlinuz-new", k1, what)
        same_file(s, img, off, "/new/initrd-new", i1, what)
        fat_clean(s, img, off, size, what + ", after add")
        for op in (["install"], ["remove", "old"]):
            got, temp = traced_io(s, img, op[0], img, *op[1:], "--sector-size", lss)
            s.check(got <= bound and temp <= bound, "%s: %s read %d bytes of the image and "
                    "wrote %d to its copy, more than %d" % (what, op[0], got, temp, bound))
        same_file(s, img, off, "/new/initrd-new", i1, what + ", after remove")
        out, _ = s.anysector("list", img, "--sector-size", lss)
        s.check("/new/" in out and "/old/" not in out, "%s: list after remove:\n%s" % (what, out))
        s.anysector("check", img, "--sector-size", lss, rc=0)
        fat_clean(s, img, off, size, what + ", after remove")


def in_tmpfs(s, size):
    """The prefix running anysector in a mount namespace of its own with TMPDIR a tmpfs of size
    bytes (Skip where mount namespaces cannot be made)."""
    d = s.path("tmpfs")
    os.makedirs(d, exist_ok=True)
    user = [] if os.geteuid() == 0 else ["-r"]
    script = 'mount -t tmpfs -o size=%d tmpfs "$0" && TMPDIR="$0" exec "$@"' % size
    prefix = ["unshare", "-m"] + user + ["sh", "-c", script, d]
    if not have("unshare") or subprocess.run(prefix + ["true"], capture_output=True).returncode:
        raise Skip("no mount namespace with a tmpfs here (unshare -m)")
    return prefix, d


def t_temp_space(s):
    """TMPDIR holds the metadata and the new files, not the ESP: on a 64 MiB ESP without holes,
    add of 8 MiB fails in a 4 MiB tmpfs with the one sentence naming TMPDIR and the size needed
    (exit 2, the image unchanged, no backup file) and succeeds in a 16 MiB one. Probe: without the
    check, mcopy fails on the full tmpfs ('esp.mtools'); with the whole copy, the 16 MiB tmpfs
    is too small."""
    prefix, d = in_tmpfs(s, 4 * MIB)
    img = s.path("space.img")
    sparse(img, 80 * MIB)
    s.anysector("partition", img, "--esp-size", "64M", "--no-rest")
    s.anysector("install", img, "--backup", img + ".bak")
    off, size = esp_place(s, img, 512)
    meta = fill_free(img, off, size)
    k, i = s.path("vmlinuz-space"), s.path("initrd-space")
    for f, n in ((k, 100000), (i, 8 * MIB)):
        open(f, "wb").write(os.urandom(n))
    before = sha256(img)
    out, err = s.anysector("add", img, "--kernel", k, "--initrd", i, "--backup", img + ".b1",
                           prefix=prefix, rc=2,
                           has=["TMPDIR (%s) has 4.0 MiB free, but changing partition 2 needs "
                                % d, "set TMPDIR to a directory with more room"])
    m = re.search(r"needs ([0-9.]+) MiB there \(([0-9.]+) (KiB|MiB) for its FAT metadata and "
                  r"directories and ([0-9.]+) MiB for the new files\)", out + err)
    if s.check(m, "the sentence's sizes:\n" + out + err):
        need, new = float(m.group(1)) * MIB, float(m.group(4)) * MIB
        s.check(8 * MIB < new < 10 * MIB and need < new + meta + MIB,
                "needs %d (new files %d), metadata %d" % (need, new, meta))
    s.eq(sha256(img), before, "the refused add changed the image")
    s.check(not os.path.exists(img + ".b1"), "the refused add left a backup file")
    prefix, d = in_tmpfs(s, 16 * MIB)
    s.anysector("add", img, "--kernel", k, "--initrd", i, "--name", "space", prefix=prefix)
    same_file(s, img, off, "/space/initrd-space", i, "added through a 16 MiB TMPDIR")


def main():
    s = Suite("esp-cost")
    return s.run([t_reads_what_it_changes, t_temp_space])


if __name__ == "__main__":
    sys.exit(main())
