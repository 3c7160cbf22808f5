#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""One-step images: `mkimage --root-dir DIR` makes the Linux partition ext4 (4096-byte blocks,
sized to the partition) holding DIR, and adds the partition's root=PARTUUID= to every entry
whose command line has no root=. The files are read back with debugfs (and, as root, from a
mount of the kernel's own partition device, whose PARTUUID udev's blkid must agree with); the
PARTUUID is computed here from the raw GPT entry or the MBR's disk signature. Run by
`make test-rootdir` (suite 41)."""
import os
import stat
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import gpt, mbr, mtools  # noqa: E402
from lib import bootinfo as B  # noqa: E402
from lib.disk import Loop  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

MIB = 1 << 20
BLOCK = 4096


def make_tree(root):
    """A small tree with the kinds of file a root filesystem holds."""
    os.makedirs(os.path.join(root, "etc/deep/er"))
    os.makedirs(os.path.join(root, "boot"))
    with open(os.path.join(root, "etc/hostname"), "w") as f:
        f.write("anysector-test\n")
    big = os.urandom(3 * MIB + 123)
    with open(os.path.join(root, "etc/deep/er/blob"), "wb") as f:
        f.write(big)
    secret = os.path.join(root, "etc/shadow")
    with open(secret, "w") as f:
        f.write("root:*:19000:0:99999:7:::\n")
    os.chmod(secret, 0o640)
    os.symlink("../etc/hostname", os.path.join(root, "boot/link"))
    os.link(os.path.join(root, "etc/hostname"), os.path.join(root, "etc/hardlink"))
    return big


def kernel(s):
    k = s.path("vmlinuz-6.1.0-rootdir")
    if not os.path.exists(k):
        with open(k, "wb") as f:
            f.write(os.urandom(70000))
    return k


def debugfs(img, off, request):
    r = subprocess.run(["debugfs", "-R", request, "%s?offset=%d" % (img, off)],
                       capture_output=True)
    return r.returncode, r.stdout


def cfg_entries(text):
    """{entry name: cmdline or None} of an anysector.cfg."""
    out, name = {}, None
    for line in (text or "").splitlines():
        w = line.split(None, 1)
        if not w:
            continue
        if w[0] == "entry":
            name = w[1].strip()
            out[name] = None
        elif w[0] == "cmdline" and name:
            out[name] = w[1].strip() if len(w) > 1 else ""
    return out


def partuuid(img, label, lss):
    """(first LBA, sectors, PARTUUID) of the Linux partition, read from the raw table."""
    if label == "gpt":
        ents, ok = gpt.read_entries(img, lss, gpt.read_header(img, lss, 1))
        e = [e for e in ents if e["type"] == gpt.LINUX_TYPE][0]
        u = e["unique"]
        text = "%08x-%04x-%04x-%s-%s" % (struct.unpack_from("<I", u, 0)[0],
                                         struct.unpack_from("<H", u, 4)[0],
                                         struct.unpack_from("<H", u, 6)[0],
                                         u[8:10].hex(), u[10:16].hex())
        return e["first"], e["last"] - e["first"] + 1, text
    ents, raw = mbr.read_entries(img)
    sig = struct.unpack_from("<I", raw, B.MBR_DISK_SIG_OFF)[0]
    e = [e for e in ents if e["type"] == 0x83][0]
    return e["first"], e["size"], "%08x-%02x" % (sig, e["number"])


LAYOUTS = (("4Kn-gpt", "gpt", 4096, []), ("512e-mbr", "mbr", 512, ["--physical-size", "4096"]),
           ("512n-gpt", "gpt", 512, []))


def t_images(s):
    """Each layout: the ext4 has the files, its blocks fill the partition, each cmdline gets
    the right root= once, a given root= is kept."""
    tree = s.path("tree")
    big = make_tree(tree)
    k = kernel(s)
    for name, label, lss, extra in LAYOUTS:
        img = s.path(name + ".img")
        out, _ = s.anysector("mkimage", img, "--size", "96M", "--esp-size", "32M", "--label",
                             label, "--sector-size", lss, *extra, "--root-dir", tree,
                             "--kernel", k, "--name", "one", "--cmdline", "console=ttyS0 quiet",
                             "--kernel", k, "--name", "two", "--cmdline", "root=/dev/sda2 ro",
                             "--kernel", k, "--name", "three", has=["root filesystem ext4"])
        if not os.path.exists(img):
            continue
        first, sectors, uuid = partuuid(img, label, lss)
        arg = "root=PARTUUID=" + uuid
        s.check(arg in out, "%s: mkimage did not say %s: %r" % (name, arg, out))
        esp_first = 256 if lss == 4096 else 2048
        if label == "gpt":
            esp_first *= 2    # the BIOS boot partition comes first
        cfg = cfg_entries(mtools.read_text(img, esp_first * lss, "/anysector.cfg"))
        s.eq(cfg.get("one"), "console=ttyS0 quiet " + arg, name + ": entry one's cmdline")
        s.eq(cfg.get("two"), "root=/dev/sda2 ro", name + ": entry two's cmdline")
        s.eq(cfg.get("three"), arg, name + ": entry three's cmdline")

        off = first * lss
        rc, text = debugfs(img, off, "stats")
        stats = dict(line.split(":", 1) for line in text.decode().splitlines() if ":" in line)
        s.eq(stats.get("Block size", "").strip(), str(BLOCK), name + ": block size")
        s.eq(int(stats.get("Block count", "0")), sectors * lss // BLOCK, name + ": block count")
        for path, want in (("/etc/hostname", b"anysector-test\n"), ("/etc/deep/er/blob", big),
                           ("/etc/hardlink", b"anysector-test\n")):
            rc, got = debugfs(img, off, "cat " + path)
            s.check(rc == 0 and got == want, "%s: %s differs in the ext4 (%d bytes)" %
                    (name, path, len(got)))
        rc, got = debugfs(img, off, "stat /etc/shadow")
        s.check(b"Mode:  0640" in got, "%s: /etc/shadow lost its mode: %r" % (name, got[:200]))
        rc, got = debugfs(img, off, "stat /boot/link")
        s.check(b'Fast link dest: "../etc/hostname"' in got, "%s: symlink: %r" % (name, got[:300]))
        r = subprocess.run(["e2fsck", "-fn", "%s?offset=%d" % (img, off)], capture_output=True,
                           text=True)
        s.check(r.returncode == 0, "%s: e2fsck -fn exit %d: %s" % (name, r.returncode,
                                                                  r.stdout[-500:]))
        s.anysector("check", img, rc=None)


def t_kernel_agrees(s):
    """As root: the kernel's partition device for the image has the PARTUUID the cmdline names
    (blkid), and mounting it shows the tree."""
    if os.geteuid() != 0 or not have("losetup"):
        raise Skip("needs root for loop devices")
    for name, label, lss, _ in LAYOUTS[:2]:
        img = s.path(name + ".img")
        if not os.path.exists(img):
            raise Skip("t_images made no %s" % img)
        _, _, uuid = partuuid(img, label, lss)
        with Loop(img, lss) as lo:
            lo.scan()
            part = lo.dev + "p%d" % (3 if label == "gpt" else 2)
            r = subprocess.run(["blkid", "-p", "-o", "value", "-s", "PART_ENTRY_UUID", part],
                               capture_output=True, text=True)
            s.eq(r.stdout.strip(), uuid, name + ": blkid's PARTUUID of " + part)
            with tempfile.TemporaryDirectory(dir=s.work) as mnt:
                r = subprocess.run(["mount", "-o", "ro", part, mnt], capture_output=True,
                                   text=True)
                if s.check(r.returncode == 0, "%s: mount: %s" % (name, r.stderr)):
                    try:
                        got = open(os.path.join(mnt, "etc/hostname")).read()
                        s.eq(got, "anysector-test\n", name + ": /etc/hostname on the mount")
                        st = os.lstat(os.path.join(mnt, "boot/link"))
                        s.check(stat.S_ISLNK(st.st_mode), name + ": /boot/link is no symlink")
                    finally:
                        subprocess.run(["umount", mnt], capture_output=True)


def t_refusals(s):
    """Bad --root-dir uses: exit 64 before anything is made; a tree too large for the
    partition: exit 2 with mkfs.ext4's words; a cmdline that would overflow: exit 64; no image
    is left behind in any case."""
    k = kernel(s)
    tree = s.path("tree")
    img = s.path("bad.img")
    afile = s.path("afile")
    open(afile, "w").write("x")
    for args, rc, said in (
            (["--root-dir", s.path("nonexistent")], 64, "No such file or directory"),
            (["--root-dir", afile], 64, "not a directory"),
            (["--root-dir", tree, "--no-rest"], 64, "--no-rest"),
            (["--root-dir", tree, "--kernel", k, "--cmdline", "x" * 1000], 64,
             "the command line of --kernel %s with --root-dir's root=PARTUUID=... added is 1051 "
             "bytes; anysector.cfg holds at most 1023" % k)):
        s.anysector("mkimage", img, "--size", "96M", "--esp-size", "32M", *args, rc=rc,
                    has=[said])
        s.check(not os.path.exists(img), "an image was left after %s" % args)
    huge = s.path("huge")
    os.makedirs(huge)
    with open(os.path.join(huge, "big"), "wb") as f:
        f.write(os.urandom(40 * MIB))     # random: mkfs.ext4 -d stores zero blocks as holes
    s.anysector("mkimage", img, "--size", "64M", "--esp-size", "32M", "--root-dir", huge, rc=2,
                has=["mkfs.ext4", "failed", "was not made"])
    s.check(not os.path.exists(img), "an image was left after mkfs.ext4 failed")


if __name__ == "__main__":
    for prog in ("mkfs.ext4", "debugfs", "e2fsck", "mtype"):
        if not have(prog):
            print("rootdir: %s is missing (e2fsprogs, mtools)" % prog)
            sys.exit(1)
    sys.exit(Suite("rootdir").run([t_images, t_kernel_agrees, t_refusals]))
