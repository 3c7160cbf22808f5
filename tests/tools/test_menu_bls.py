#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Issue 29 through `list` and `check`: /loader/entries as the Boot Loader Specification defines
them, on image files (no root). Sort, then cut (a 20-version directory, 70 entries past the
64-entry cap with each one left out named by both commands), boot-counted variants (bad last,
warnings naming the real file), the one file-name rule, long fields, comment lines, titles that
tell duplicates apart, UTF-8 titles, and the one default rule (loader.conf's default naming
nothing, @saved). Entries are written oldest first, as the issue found them. The ASan+UBSan
anysector, placeholder stages; every outcome is the JSON, the text or the exit code.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import mtools  # noqa: E402
from lib.suite import ANYSECTOR, Suite  # noqa: E402

KERNEL = "/rescue/vmlinuz-6.1.0-test"
NAME_RULE = ": not NAME.conf of at most 255 characters A-Z a-z 0-9 + - _ .; left out"


def image(s, name):
    """A 32 MiB GPT image from mkimage with one anysector.cfg entry, 'rescue', and no default;
    returns (image, the boot partition's byte offset) with /loader/entries made."""
    img = s.path(name)
    if os.path.exists(img):
        os.unlink(img)
    k = s.path("vmlinuz-6.1.0-test")
    with open(k, "wb") as f:
        f.write(b"MZ" + bytes(range(256)) * 100)
    s.anysector("mkimage", img, "--size", "32M", "--label", "gpt", "--sector-size", "512",
                "--kernel", k, "--name", "rescue", "--cmdline", "single")
    j = s.json("info", img, rc=0)
    bp = [p for p in j.get("partitions", []) if p.get("boot_partition")]
    off = bp[0]["start"] * j["topology"]["logical_sector_size"] if bp else 0
    for d in ("/loader", "/loader/entries"):
        mtools.run(["mmd", "::" + d], img, off)
    return img, off


def put_entries(s, img, off, files):
    """Writes files ((name, text or bytes) pairs) into /loader/entries in the order given, one
    mcopy each, so the FAT directory lists them in that order."""
    src = s.path("entries.tmp")
    os.environ["LC_ALL"] = "C.UTF-8"      # mcopy writes a non-ASCII name's long name as given
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    for name, data in files:
        p = os.path.join(src, name)
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        r = mtools.run(["mcopy", "-o", p, "::/loader/entries/" + name], img, off)
        s.check(r.returncode == 0, "mcopy %s: %r" % (name, r.stderr))
    shutil.rmtree(src)


def put_file(s, img, off, path, text):
    src = s.path("file.tmp")
    with open(src, "w") as f:
        f.write(text)
    r = mtools.run(["mcopy", "-o", src, "::" + path], img, off)
    s.check(r.returncode == 0, "mcopy %s: %r" % (path, r.stderr))


def deb(n):
    return ("deb-6.1.0-%d.conf" % n,
            "title Debian\nversion 6.1.0-%d\nsort-key debian\nlinux %s\n" % (n, KERNEL))


def problems(j, code):
    return [p["message"] for p in j.get("problems", []) if p["code"] == code]


def t_sort_then_cut(s):
    """20 versions written oldest first: every one listed newest first, the newest the default
    (the issue saw 6.1.0-1..16 and 6.1.0-16). Then 70: the menu holds 64 (anysector.cfg's one
    among them), the 7 oldest are left out, and list and check name each, and no other."""
    img, off = image(s, "twenty.img")
    put_entries(s, img, off, [deb(n) for n in range(1, 21)])
    j = s.json("list", img, rc=0)
    s.eq([e.get("name") for e in j.get("entries", [])],
         ["rescue"] + ["deb-6.1.0-%d" % n for n in range(20, 0, -1)], "20 versions, newest first")
    s.eq(j.get("default"), "deb-6.1.0-20", "the newest kernel is the default")
    s.anysector("check", img, rc=0, has=["boot menu: 21 entries, default 'deb-6.1.0-20'"])
    put_entries(s, img, off, [deb(n) for n in range(21, 71)])
    j = s.json("list", img, rc=0)
    names = [e.get("name") for e in j.get("entries", [])]
    s.eq((len(names), names[1], names[-1]), (64, "deb-6.1.0-70", "deb-6.1.0-8"), "the cap")
    want = ["/loader/entries/deb-6.1.0-%d.conf left out: the menu is full of entries sorting "
            "before it" % n for n in range(1, 8)]
    s.eq(sorted(problems(j, "bls.left_out")), sorted(want), "list names each one left out")
    out, _ = s.anysector("check", img, rc=1, has=want + ["boot menu: 64 entries, default "
                                                         "'deb-6.1.0-70'"])
    s.eq(out.count("left out"), 7, "check names each left out once")


def t_boot_counted(s):
    """A bad variant written before the good one: both read, the good one first and the default
    (its name means it), the bad one last; a warning names the file with its counter."""
    img, off = image(s, "counted.img")
    put_entries(s, img, off, [
        ("foo+0-2.conf", "title foo BAD\nlinux %s\n" % KERNEL),
        ("foo.conf", "title foo GOOD\nlinux %s\n" % KERNEL),
        ("foo+3-1.conf", "title %s\nlinux %s\n" % ("t" * 300, KERNEL)),
        ("zed+1.conf", "title zed\nlinux %s\n" % KERNEL)])
    j = s.json("list", img, rc=0)
    got = [(e.get("name"), e.get("file")) for e in j.get("entries", [])]
    s.eq(got, [("rescue", "/anysector.cfg"), ("zed", "/loader/entries/zed+1.conf"),
               ("foo", "/loader/entries/foo.conf"), ("foo", "/loader/entries/foo+3-1.conf"),
               ("foo", "/loader/entries/foo+0-2.conf")], "variants in order, bad last")
    s.eq(j.get("default"), "zed", "the default: the first entry not marked bad")
    put_file(s, img, off, "/loader/loader.conf", "default foo\n")
    j = s.json("list", img, rc=0)
    d = [e.get("file") for e in j.get("entries", []) if e.get("default")]
    s.eq(d, ["/loader/entries/foo.conf"], "default foo: the good variant")
    s.eq(problems(j, "bls.bad_line"),
         ["/loader/entries/foo+3-1.conf line 1: title is cut to 255 bytes"], "the real file named")


def t_names_and_fields(s):
    """The name rule alike in list and check (a non-ASCII name and '.conf' refused, each with its
    sentence); long fields, a UUID machine-id, a 64-character name and a comment holding a
    control byte all listed whole; duplicates shown apart; an untitled entry shown 'Linux'; a
    title that is not UTF-8 shown with U+FFFD, --json valid UTF-8; @saved refused."""
    img, off = image(s, "names.img")
    title, version, key = "T" * 100, "6" * 70, "s" * 64
    uuid = "01234567-89ab-cdef-0123-456789abcdef"
    put_entries(s, img, off, [
        ("d\u00e9bian.conf", "title d\nlinux %s\n" % KERNEL),
        (".conf", "linux %s\n" % KERNEL),
        ("long.conf", "title %s\nversion %s\nsort-key %s\nmachine-id %s\nlinux %s\n"
         % (title, version, key, uuid, KERNEL)),
        ("n" * 64 + ".conf", "title long name\nlinux %s\n" % KERNEL),
        ("comment.conf", b"# a comment with \x01 and \x7f in it\ntitle commented\nlinux "
         + KERNEL.encode() + b"\n"),
        ("same1.conf", "title Same\nversion 1\nlinux %s\n" % KERNEL),
        ("same2.conf", "title Same\nversion 1\nlinux %s\n" % KERNEL),
        ("same3.conf", "title Same\nversion 2\nlinux %s\n" % KERNEL),
        ("untitled.conf", "linux %s\n" % KERNEL),
        ("latin1.conf", b"title caf\xe9\nlinux " + KERNEL.encode() + b"\n")])
    put_file(s, img, off, "/loader/loader.conf", "default @saved\n")
    raw = subprocess.run([ANYSECTOR, "list", img, "--json"], capture_output=True).stdout
    try:
        raw.decode("utf-8")
        valid = True
    except UnicodeDecodeError as e:
        valid = "--json is not UTF-8: %s" % e
    s.check(valid is True and b"caf\xe9" not in raw, "--json: %s" % valid)
    j = s.json("list", img, rc=0)
    e = {x.get("name"): x for x in j.get("entries", [])}
    s.eq(sorted(e), sorted(["rescue", "long", "n" * 64, "comment", "same1", "same2", "same3",
                            "untitled", "latin1"]), "every entry listed, no other")
    got = e.get("long", {})
    s.eq((got.get("title"), got.get("version"), got.get("sort_key"), got.get("machine_id")),
         (title, version, key, uuid), "long fields whole")
    s.eq([e.get(n, {}).get("menu_title") for n in ("same1", "same2", "same3", "untitled",
                                                     "latin1")],
         ["Same (1) (same1.conf)", "Same (1) (same2.conf)", "Same (2)", "Linux", "caf\ufffd"],
         "menu titles")
    bad = ["/loader/entries/d?bian.conf" + NAME_RULE, "/loader/entries/.conf" + NAME_RULE]
    s.eq(sorted(problems(j, "bls.name")), sorted(bad), "list: the name rule's sentences")
    s.eq(problems(j, "bls.saved"), ["/loader/loader.conf: default @saved is not supported; "
                                    "ignored"], "@saved refused")
    s.eq(j.get("default"), "long", "@saved: the default rule decides")
    s.check(any("latin1.conf line 1: title is not UTF-8" in m
                for m in problems(j, "bls.bad_line")), "no UTF-8 warning: %r" % j.get("problems"))
    s.anysector("check", img, rc=2, has=bad + ["latin1.conf line 1: title is not UTF-8"])


def t_default_rule(s):
    """A loader.conf default naming nothing: a warning naming what boots instead, the newest
    kernel (not anysector.cfg's first entry); an explicit default wins; list never prints
    '(null)' when the menu cannot be read."""
    img, off = image(s, "default.img")
    put_entries(s, img, off, [deb(n) for n in (9, 18)])
    put_file(s, img, off, "/loader/loader.conf", "default nomatch*\n")
    j = s.json("list", img, rc=0)
    s.eq(problems(j, "cfg.default"), ["/loader/loader.conf: default 'nomatch*' names no entry; "
                                      "2) deb-6.1.0-18 boots by default"], "loader.conf's miss")
    s.eq(j.get("default"), "deb-6.1.0-18", "the newest kernel")
    s.anysector("check", img, rc=1, has=["default 'nomatch*' names no entry"])
    put_file(s, img, off, "/loader/loader.conf", "default deb-6.1.0-9.conf\n")
    s.eq(s.json("list", img, rc=0).get("default"), "deb-6.1.0-9", "loader.conf's default wins")
    put_file(s, img, off, "/anysector.cfg", "default rescue\n" +
             mtools.read_text(img, off, "/anysector.cfg"))
    s.eq(s.json("list", img, rc=0).get("default"), "rescue", "anysector.cfg's default wins")
    put_file(s, img, off, "/anysector.cfg", "timeout x\n")
    s.anysector("list", img, rc=2, has=["timeout 'x'"], lacks=["(null)"])


def main():
    if not all(subprocess.run(["which", p], capture_output=True).returncode == 0
               for p in ("mcopy", "mkfs.fat")):
        print("tools-menu-bls: mtools and dosfstools are needed")
        return 1
    s = Suite("tools-menu-bls")
    return s.run([t_sort_then_cut, t_boot_counted, t_names_and_fields, t_default_rule])


if __name__ == "__main__":
    sys.exit(main())
