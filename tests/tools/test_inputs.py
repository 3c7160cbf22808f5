#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Inputs are checked before anything is written (issue 28): --name is one portable file name
of at most 63 characters, refused rather than cut; titles and command lines the loaders would
read differently are refused; kernels, initrds and EFI files must be regular files (a FIFO is
refused at once, never read); every bad option value is exit 64 with the image's bytes
unchanged and no temporary file left; mkimage refuses before it makes anything. Run by
`make test-inputs` (suite 48)."""
import fcntl
import json
import os
import signal
import shlex
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import mtools, paths, tool  # noqa: E402
from lib.disk import sha256 as sha, sparse, write_at  # noqa: E402
from lib.suite import ANYSECTOR, Suite  # noqa: E402

USAGE = "Try 'anysector add --help'."


def base_image(s):
    """A GPT image with one entry, made once; each test works on its own copy."""
    img = s.path("base.img")
    if not os.path.exists(img):
        s.anysector("mkimage", img, "--size", "48M", "--esp-size", "32M", "--kernel",
                    kernel(s), "--name", "first")
    return img


def kernel(s):
    k = s.path("vmlinuz")
    if not os.path.exists(k):
        with open(k, "wb") as f:
            f.write(b"MZ" + bytes(4094) + os.urandom(60000))
    return k


def copy(s, name):
    img = s.path(name)
    shutil.copyfile(base_image(s), img)
    return img


def temp_files(s):
    """The installer's temporary files left in TMPDIR (the suite's work directory)."""
    return sorted(f for f in os.listdir(s.work) if f.startswith("anysector-"))


def refused(s, img, args, sentence, cmd="add"):
    """anysector CMD IMG args exits 64 with exactly `sentence` as its error line, the image's
    bytes unchanged and no temporary file left."""
    before = sha(img)
    _, err = s.anysector(cmd, img, *args, rc=64)
    s.eq(err, "anysector: error: %s\nTry 'anysector %s --help'.\n" % (sentence, cmd),
         "stderr of %s %s" % (cmd, args))
    s.eq(sha(img), before, "image after %s %s" % (cmd, args))
    s.eq(temp_files(s), [], "temporary files after %s %s" % (cmd, args))


def t_names(s):
    img = copy(s, "names.img")
    k = kernel(s)
    allowed = "A-Z and a-z, digits and . _ - +"
    for name, why in (
            ("", "--name is empty"),
            ("a" * 64, "--name is 64 bytes long; anysector.cfg holds at most 63 (a name is "
                       "never cut)"),
            ("../x", "--name ../x: '/' (byte 3) is not allowed: a name is one file name on the "
                     "ESP, of the letters " + allowed),
            ("EFI/Microsoft/Boot", "--name EFI/Microsoft/Boot: '/' (byte 4) is not allowed: a "
                                   "name is one file name on the ESP, of the letters " + allowed),
            ("d\u00e9bian", "--name d\u00e9bian: 0xC3 (byte 2) is not allowed: a name is one "
                            "file name on the ESP, of the letters " + allowed),
            ("a b", "--name a b: 0x20 (byte 2) is not allowed: a name is one file name on the "
                    "ESP, of the letters " + allowed),
            ("..", "--name ..: a name may not be '.' or '..' nor end in '.', which FAT drops"),
            ("x.", "--name x.: a name may not be '.' or '..' nor end in '.', which FAT drops"),
            ("CON", "--name CON: FAT keeps CON, PRN, AUX, NUL, COM1-9 and LPT1-9 for devices, "
                    "also before a '.'"),
            ("lpt1.x", "--name lpt1.x: FAT keeps CON, PRN, AUX, NUL, COM1-9 and LPT1-9 for "
                       "devices, also before a '.'")):
        refused(s, img, ["--kernel", k, "--name", name], why)
    # the longest name is taken whole, and a name of every allowed kind
    for name in ("b" * 63, "Ab9._-+z"):
        s.anysector("add", img, "--kernel", k, "--name", name, has=["entry '%s'" % name])
        menu = s.json("list", img)
        s.check(name in [e["name"] for e in menu.get("entries", [])],
                "list lacks entry %r" % name)
    s.eq(temp_files(s), [], "temporary files after add")


def t_titles_and_cmdlines(s):
    img = copy(s, "titles.img")
    k = kernel(s)
    for opt, value, why in (
            ("--title", "C# # x", "--title 'C# # x': the loaders read '#' at the start or after "
                                  "white space as the start of a comment, and would see 'C#'"),
            ("--title", "#1", "--title '#1': the loaders read '#' at the start or after white "
                              "space as the start of a comment, and would see ''"),
            ("--title", " x", "--title ' x' starts with white space, which the loaders drop; "
                              "give it without"),
            ("--cmdline", "quiet ", "--cmdline 'quiet ' ends with white space, which the "
                                    "loaders drop; give it without"),
            ("--title", "a\nb", "--title has the control character 0x0A at byte 2: "
                                "anysector.cfg holds one line per value"),
            ("--cmdline", "a\rb", "--cmdline has the control character 0x0D at byte 2: "
                                  "anysector.cfg holds one line per value"),
            ("--title", "", "--title is empty (leave it out and the menu shows the name)"),
            ("--title", "t" * 80, "--title is 80 bytes long; anysector.cfg holds at most 79"),
            ("--cmdline", "c" * 5000, "--cmdline is 5000 bytes long; anysector.cfg holds at "
                                      "most 1023")):
        refused(s, img, ["--kernel", k, opt, value], why)
    # what the rule lets through is what list reads back
    for n, (title, cmdline) in enumerate((("C#", "root=/dev/vda1 # kept"),
                                          ("caf\u00e9 \u20ac", "#x a #b"),
                                          ("t" * 79, "c" * 1023))):
        name = "ok%d" % n
        s.anysector("add", img, "--kernel", k, "--name", name, "--title", title,
                    "--cmdline", cmdline)
        entry = [e for e in s.json("list", img).get("entries", []) if e["name"] == name]
        s.eq([(e["title"], e["cmdline"]) for e in entry], [(title, cmdline)],
             "entry %s as the loaders read it" % name)


def t_files(s):
    img = copy(s, "files.img")
    k = kernel(s)
    fifo = s.path("fifo")
    os.mkfifo(fifo)
    d = s.path("dir")
    os.makedirs(d, exist_ok=True)
    for opt, path, why in (
            ("--kernel", d, "a directory, not a regular file"),
            ("--kernel", fifo, "a FIFO, not a regular file"),
            ("--kernel", "/dev/null", "a device, not a regular file"),
            ("--kernel", s.path("missing"), "No such file or directory"),
            ("--efi", fifo, "a FIFO, not a regular file"),
            ("--initrd", fifo, "a FIFO, not a regular file"),
            ("--initrd", d, "a directory, not a regular file")):
        args = ["--kernel", k, "--initrd", path] if opt == "--initrd" else [opt, path]
        refused(s, img, args, "%s %s: %s" % (opt, path, why))
    # unreadable: refused the same way (root reads everything: nothing to show there)
    if os.geteuid() != 0:
        locked = s.path("locked")
        shutil.copyfile(k, locked)
        os.chmod(locked, 0)
        refused(s, img, ["--kernel", locked], "--kernel %s: Permission denied" % locked)
    # mkimage: the same refusals before OUT is made
    out = s.path("fifo-out.img")
    refused_mkimage(s, out, ["--kernel", fifo], "--kernel %s: a FIFO, not a regular file" % fifo)


def refused_mkimage(s, out, args, sentence):
    """mkimage OUT exits 64 with the sentence; OUT is not made (or, when it was there,
    unchanged)."""
    before = sha(out) if os.path.exists(out) else None
    _, err = s.anysector("mkimage", out, "--size", "48M", *args, rc=64)
    s.eq(err, "anysector: error: %s\nTry 'anysector mkimage --help'.\n" % sentence,
         "stderr of mkimage %s" % (args,))
    s.eq(sha(out) if os.path.exists(out) else None, before, "OUT after mkimage %s" % (args,))
    s.eq(temp_files(s), [], "temporary files after mkimage %s" % (args,))


def t_mkimage_checks_first(s):
    k = kernel(s)
    out = s.path("mk.img")
    refused_mkimage(s, out, ["--kernel", k, "--cmdline", "c" * 5000],
                    "--cmdline is 5000 bytes long; anysector.cfg holds at most 1023")
    refused_mkimage(s, out, ["--kernel", k, "--name", "x", "--kernel", k, "--name", "X"],
                    "--name X is given to two entries")
    d = s.path("rootdir")
    os.makedirs(d, exist_ok=True)
    refused_mkimage(s, out, ["--kernel", k, "--cmdline", "c" * 980, "--root-dir", d],
                    "the command line of --kernel %s with --root-dir's root=PARTUUID=... added "
                    "is 1031 bytes; anysector.cfg holds at most 1023" % k)
    # an existing OUT stays as it was, --force or not
    with open(out, "wb") as f:
        f.write(b"precious" * 1000)
    refused_mkimage(s, out, ["--force", "--kernel", k, "--title", "a\tb "],
                    "--title 'a\tb ' ends with white space, which the loaders drop; give it "
                    "without")
    os.unlink(out)


def esp_offset(s, img):
    parts = s.json("info", img).get("partitions", [])
    esp = [p for p in parts if p.get("boot_partition")]
    return esp[0]["start"] * 512


def raw(s, *args, rc=0):
    """anysector's stdout and stderr as bytes (no decoding), its exit code asserted."""
    p = subprocess.run([ANYSECTOR] + [a if isinstance(a, bytes) else str(a) for a in args],
                       capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    s.check(not tool.sanitizer_report(p.stdout.decode("latin-1") + p.stderr.decode("latin-1")),
            "sanitizer report: %r" % p.stderr[-2000:])
    s.eq(p.returncode, rc, "exit code of %r" % (args,))
    return p.stdout, p.stderr


def utf8(s, data, what):
    """data decodes as UTF-8 (strictly); returns the text."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        s.fail("%s is not UTF-8: %s" % (what, e))
        return data.decode("latin-1")


def t_json_utf8(s):
    """Bytes that are not UTF-8 in a hand-written anysector.cfg (a Latin-1 title, a kernel path
    with 0xFF) and in a path on the command line: --json stays valid UTF-8 JSON with each such
    byte as the text \\xNN, and list's text and the messages say the same."""
    img = copy(s, "utf8.img")
    off = esp_offset(s, img)
    cfg = (b"timeout 3\n\nentry first\n  title caf\xe9 \xe2\x82\xac\n  kernel /first/vm\xfflinuz\n"
           b"  cmdline x=\xc3\n")
    src = s.path("anysector.cfg")
    with open(src, "wb") as f:
        f.write(cfg)
    r = mtools.run(["mcopy", "-o", src, "::/anysector.cfg"], img, off)
    s.eq(r.returncode, 0, "mcopy of anysector.cfg: %r" % r.stderr)
    out, _ = raw(s, "list", img, "--json", rc=0)
    doc = json.loads(utf8(s, out, "list --json"))
    entry = (doc.get("entries") or [{}])[0]
    s.eq((entry.get("title"), entry.get("kernel"), entry.get("cmdline")),
         ("caf\\xE9 \u20ac", "/first/vm\\xFFlinuz", "x=\\xC3"), "list --json entry")
    text, _ = raw(s, "list", img, rc=0)
    text = utf8(s, text, "list")
    for line in ("     title    caf\\xE9 \u20ac\n", "     kernel   /first/vm\\xFFlinuz\n",
                 "     cmdline  x=\\xC3\n"):
        s.check(line in text, "list lacks %r:\n%s" % (line, text))
    # a message naming a path that is not UTF-8: the same text on stderr and in --json
    bad = s.work.encode() + b"/no\xffne.img"
    _, err = raw(s, "info", bad, rc=2)
    want = "anysector: error: %s/no\\xFFne.img: No such file or directory\n" % s.work
    s.eq(utf8(s, err, "info's stderr"), want, "info's message")
    out, _ = raw(s, "info", "--json", bad, rc=2)
    doc = json.loads(utf8(s, out, "info --json"))
    s.eq([p["message"] for p in doc.get("problems", [])],
         ["%s/no\\xFFne.img: No such file or directory" % s.work], "info --json problems")
    s.eq(doc.get("target"), s.work + "/no\\xFFne.img", "info --json target")


def t_tool_reasons(s):
    """A program the installer runs that fails says why, even when it prints nothing (a fake
    mmd that exits 1 silently, as mtools does for CON; a fake mcopy killed by SIGKILL); a file
    whose copy would get a name FAT keeps for a device is refused before anything is done."""
    img = copy(s, "reasons.img")
    k = kernel(s)
    fake = s.path("fakebin")
    os.makedirs(fake, exist_ok=True)
    for prog, body in (("mmd", "exit 1"), ("mcopy", "kill -9 $$")):
        path = os.path.join(fake, prog)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n%s\n" % body)
        os.chmod(path, 0o755)
    real_path = os.environ["PATH"]
    before = sha(img)
    try:
        os.environ["PATH"] = fake + ":" + real_path
        _, err = s.anysector("add", img, "--kernel", k, "--name", "x", rc=2)
        s.check("anysector: error: creating a directory on the ESP (/x) failed: mmd exit 1 "
                "without a word of why\n" in err, "mmd's failure: %r" % err)
        os.unlink(os.path.join(fake, "mmd"))
        _, err = s.anysector("add", img, "--kernel", k, "--name", "y", rc=2)
        s.check("anysector: error: copying a file to the ESP (/y/vmlinuz) failed: mcopy killed "
                "by signal 9 (Killed)\n" in err, "mcopy's failure: %r" % err)
    finally:
        os.environ["PATH"] = real_path
    s.eq(sha(img), before, "image after the failed adds")
    s.eq(temp_files(s), [], "temporary files after the failed adds")
    aux = s.path("AUX")
    shutil.copyfile(k, aux)
    refused(s, img, ["--kernel", aux], "--kernel %s: its copy on the ESP would be called AUX, "
            "and FAT keeps CON, PRN, AUX, NUL, COM1-9 and LPT1-9 for devices; copy it under "
            "another name" % aux)


def t_stale_temp(s):
    """The installer's temporary files never outlive it: a run killed (SIGKILL) while it holds
    its copy of the ESP leaves anysector-esp-XXXXXX behind, a run alongside it leaves that file
    alone (it is locked), and the next run removes it. Files of another user, a file some
    process holds locked, and names that are not the installer's are kept."""
    img = copy(s, "stale.img")
    fake = s.path("slowbin")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "mmd"), "w") as f:
        f.write("#!/bin/sh\nexec sleep 60\n")
    os.chmod(os.path.join(fake, "mmd"), 0o755)
    env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"])
    p = subprocess.Popen([ANYSECTOR, "add", img, "--kernel", kernel(s), "--name", "slow"],
                         env=env, cwd=s.work, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(600):        # until it waits in the fake mmd with its ESP copy made
            if p.poll() is not None or any(t.startswith("anysector-esp-")
                                           for t in temp_files(s)):
                break
            time.sleep(0.05)
        time.sleep(0.2)
        live = temp_files(s)
        s.eq([t[:len("anysector-esp-")] for t in live], ["anysector-esp-"],
             "the running add's ESP copy")
        s.anysector("list", base_image(s))    # alongside: its locked file is not touched
        s.eq(temp_files(s), live, "temporary files while the add runs")
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    s.eq(temp_files(s), live, "what the killed add left")
    if live:
        s.check(os.path.getsize(s.path(live[0])) >= 32 << 20, "the ESP copy is the ESP's size")

    # beside it: names that are not the installer's, another user's file, a locked one
    keep = ["anysector-esp-ABC", "anysector-esp-ABCDEFG", "anysector-backup-x",
            "anysector-esp-ABCDEF.keep", "anysector-esp-lock"]
    for name in keep:
        open(s.path(name), "w").close()
    locked_name = "anysector-cfg-Lock01"
    held = open(s.path(locked_name), "w")
    fcntl.flock(held, fcntl.LOCK_EX)
    keep.append(locked_name)
    if os.geteuid() == 0:
        other = "anysector-put-Other1"
        open(s.path(other), "w").close()
        os.chown(s.path(other), 65534, 65534)
        keep.append(other)
    for stale in ("anysector-fat-Xy12zQ", "anysector-signed-000000", "anysector-ext4-aaaaaa"):
        open(s.path(stale), "w").close()
    try:
        s.anysector("info", s.path("nothing.img"), rc=2)
        s.eq(temp_files(s), sorted(keep), "temporary files after the next run")
    finally:
        held.close()
    for name in keep:
        os.unlink(s.path(name))


def problems(doc):
    return [(p["level"], p["code"], p["message"]) for p in doc.get("problems", [])]


def counted(items):
    e = sum(1 for p in items if p[0] == "error")
    w = sum(1 for p in items if p[0] == "warning")
    return "%u error%s, %u warning%s" % (e, "" if e == 1 else "s", w, "" if w == 1 else "s")


def grub_disk(s, name, label):
    """A disk as GRUB leaves it: its boot code in LBA 0 and its core.img where stage2 goes."""
    img = s.path(name)
    sparse(img, 16 << 20)
    s.anysector("partition", img, "--label", label, "--sector-size", "512")
    write_at(img, 0, b"\xeb\x63\x90" + b"GRUB boot code")
    off = 2048 * 512 if label == "gpt" else 512
    write_at(img, off + 1000, b"GRUB core.img was here")
    return img, off + 1000


def t_info_check_agree(s):
    """info and check find the same problems with the same severities (a broken primary GPT
    header CRC is an error in both) and count them alike; only the exit code differs."""
    clean = copy(s, "agree-clean.img")
    crc = copy(s, "agree-crc.img")
    write_at(crc, 512 + 16, b"\0")             # the primary header's CRC32 field
    blank = s.path("agree-blank.img")
    sparse(blank, 8 << 20)
    grub, _ = grub_disk(s, "agree-grub.img", "gpt")
    for img, rc in ((clean, 0), (crc, 2), (blank, 2), (grub, 1)):
        info = problems(s.json("info", img, rc=0))
        check = problems(s.json("check", img, rc=rc))
        s.eq(info, check, "info's and check's problems on %s" % os.path.basename(img))
        out, _ = s.anysector("check", img, rc=rc)
        s.check("\ncheck: %s\n" % counted(check) in out, "check's count on %s:\n%s" % (img, out))
        out, _ = s.anysector("info", img, rc=0)
        if any(p[0] != "info" for p in check):
            s.check("\n%s: see 'anysector check'\n" % counted(check) in out,
                    "info's count on %s:\n%s" % (img, out))
    levels = {c: lv for lv, c, _ in problems(s.json("info", crc))}
    s.eq(levels.get("gpt.header_crc"), "error", "info's level of gpt.header_crc")


def t_check_warns_install_refusal(s):
    """check warns about a disk install would refuse (GRUB's core.img where stage2 goes), with
    install's own sentence; install then refuses it, exit 3. A disk anysector installed has no
    such warning."""
    for label, where in (("gpt", "the BIOS boot partition (partition 1, LBA 2048..4095)"),
                         ("mbr", "the gap between the MBR and the first partition (LBA 1..2047)")):
        img, byte = grub_disk(s, "grub-%s.img" % label, label)
        refusal = ("%s holds data that is not anysector's (byte %d is 0x47): another boot "
                   "loader may live there; use --force to overwrite it (the backup keeps a "
                   "copy)" % (where, byte))
        flags = ["--sector-size", "512"] if label == "mbr" else []
        doc = s.json("check", img, *flags, rc=1)
        s.check(("warning", "install.would_refuse", "install would refuse it: " + refusal)
                in problems(doc), "%s: check's problems: %r" % (label, problems(doc)))
        before = sha(img)
        s.anysector("install", img, *flags, "--backup", img + ".b", rc=3,
                    has=["anysector: error: " + refusal])
        s.eq(sha(img), before, label + ": the refused install changed the image")
        s.anysector("install", img, *flags, "--force", "--backup", img + ".b")
        doc = s.json("check", img, *flags, rc=1)    # (warning: no anysector.cfg yet)
        s.eq([p for p in problems(doc) if p[1] == "install.would_refuse"], [],
             label + ": check after anysector's own install")
        os.unlink(img + ".b")


def t_restore_order(s):
    """Three adds, each with its backup: restoring the oldest first is refused, every changed
    range is named once, and the newest backup that saved those sectors is named as the one to
    restore first; restoring newest to oldest gives back the image before the first add."""
    img = copy(s, "order.img")
    k = kernel(s)
    original = sha(img)
    baks = [img + ".anysector-backup" + ("" if i == 0 else ".%d" % i) for i in range(3)]
    for i, name in enumerate(("one", "two", "three")):
        s.anysector("add", img, "--kernel", k, "--name", name, "--backup", baks[i])
    for newest in (2, 1):
        _, err = s.anysector("restore", img, baks[0], rc=3)
        lines = err.splitlines()
        changed = [ln for ln in lines if ln.endswith("changed since the backup was made")]
        s.check(changed, "restore of the oldest named no changed range:\n" + err)
        s.eq(len(changed), len(set(changed)), "each changed range said once")
        s.check(("anysector: error: %s is a newer backup of %s that saved those sectors: "
                 "restore it first (anysector restore %s %s), then this one"
                 % (baks[newest], img, img, baks[newest])) in lines,
                "restore of the oldest names %s first:\n%s" % (baks[newest], err))
        s.anysector("restore", img, baks[newest])
    s.anysector("restore", img, baks[0])
    s.eq(sha(img), original, "the image after restoring newest to oldest")
    for b in baks:
        os.unlink(b)


def t_restore_identity(s):
    """A backup goes back only onto its own disk: another image of the same size and the same
    installed bytes, with its own disk GUID, is refused with both GUIDs named (--force restores
    anyway); a version-1 backup (no identity) still restores."""
    a = copy(s, "ida.img")
    b = s.path("idb.img")
    s.anysector("mkimage", b, "--size", "48M", "--esp-size", "32M", "--kernel", kernel(s),
                "--name", "first")
    for img in (a, b):
        s.anysector("install", img, "--backup", img + ".bak")
    guid = {img: s.json("info", img)["gpt"]["disk_guid"] for img in (a, b)}
    before = sha(b)
    _, err = s.anysector("restore", b, a + ".bak", rc=3)
    s.check(("anysector: error: %s is not the disk %s was made from: it has disk GUID %s, the "
             "backup's had disk GUID %s (use --force to restore anyway)\n"
             % (b, a + ".bak", guid[b], guid[a])) in err, "restore onto another disk:\n" + err)
    s.eq(sha(b), before, "the other disk after the refused restore")
    s.anysector("restore", a, a + ".bak")
    s.anysector("restore", b, b + ".bak")
    for img in (a, b):
        os.unlink(img + ".bak")


def t_backup_name(s):
    """An image whose default backup name would be too long: install says so and how to name
    one, and installs with --backup."""
    img = s.path("L" * 245 + ".img")
    shutil.copyfile(base_image(s), img)
    before = sha(img)
    s.anysector("install", img, rc=2,
                has=["anysector: error: the backup file cannot be %s.anysector-backup: File name "
                     "too long; name one with --backup FILE\n" % img])
    s.eq(sha(img), before, "the image after the refused install")
    s.anysector("install", img, "--backup", s.path("short.bak"))
    os.unlink(img)
    os.unlink(s.path("short.bak"))


def origin(s, img, rc=0):
    """The line of info's text that says where the sector size came from."""
    out, _ = s.anysector("info", img, rc=rc)
    lines = out.splitlines()
    return lines[2].strip() if len(lines) > 2 else ""


def t_mbr_sector_size(s):
    """An image holding only an MBR needs no --sector-size when its contents tell the size: the
    FAT boot sector of its boot partition (every MBR image mkimage makes, 512 and 4096), else
    anysector's stage1 and stage2, else the one size its partitions fit; otherwise the sentence
    names the sizes that fit, exit 64."""
    k = kernel(s)
    for lss in (512, 4096):
        img = s.path("mbr%d.img" % lss)
        s.anysector("mkimage", img, "--size", "64M", "--label", "mbr", "--sector-size", lss,
                    "--kernel", k)
        s.eq(origin(s, img), "from the FAT boot sector of MBR partition 1, which declares %d "
             "bytes per sector; %d sectors" % (lss, (64 << 20) // lss), "info's origin, %d" % lss)
        s.eq(s.json("check", img).get("topology", {}).get("logical_sector_size"), lss,
             "check's sector size, %d" % lss)
        s.anysector("add", img, "--kernel", k, "--name", "second", has=["entry 'second'"])
        s.anysector("list", img, has=["second"])
    # 512: the FAT's boot sector gone, then stage1's magic too
    img = s.path("mbr512.img")
    write_at(img, 2048 * 512, bytes(512))
    s.eq(origin(s, img), "from anysector's stage1, whose stage2 lies on a 512-byte sector "
         "boundary before the first partition only at that size; 131072 sectors", "stage1's")
    write_at(img, 0x1A4, b"xxxx")
    s.eq(origin(s, img), "from the MBR's partitions, which fit the image only at 512-byte "
         "sectors; 131072 sectors", "the partitions'")
    # 4096 without its FAT: every size fits, nothing tells one
    img = s.path("mbr4096.img")
    write_at(img, 256 * 4096, bytes(4096))
    _, err = s.anysector("info", img, rc=64)
    s.eq(err, "anysector: error: %s holds an MBR partition table whose sector size the image "
         "does not tell: its partitions fit 512, 1024, 2048 or 4096-byte sectors, and neither a "
         "FAT boot sector on its boot partition nor anysector's boot code tells which; give "
         "--sector-size\n" % img, "info on an MBR image that tells nothing")
    s.anysector("info", img, "--sector-size", "4096")
    # cut short: a partition ends past the image at every size
    with open(img, "r+b") as f:
        f.truncate(1 << 20)
    _, err = s.anysector("check", img, rc=64)
    s.eq(err, "anysector: error: %s holds an MBR partition table that fits no sector size from "
         "512 to 4096 (a partition ends past the end of the image at every size: is it cut "
         "short?); give --sector-size to examine it\n" % img, "check of a cut MBR image")
    for lss in (512, 4096):
        os.unlink(s.path("mbr%d.img" % lss))


def t_long_messages(s):
    """A sentence is never cut: an error naming a 3,000-byte path comes out whole, on stderr
    and in --json."""
    longdir = s.path("d" * 200)
    path = os.path.join(*([longdir] + ["e" * 200] * 14), "missing.img")
    _, err = s.anysector("info", path, rc=2)
    s.eq(err, "anysector: error: %s: No such file or directory\n" % path, "info's message")
    doc = s.json("info", path, rc=2)
    s.eq([p["message"] for p in doc.get("problems", [])],
         ["%s: No such file or directory" % path], "info --json problems")


def man_examples():
    """The command lines of anysector(8)'s EXAMPLES, continuation lines joined."""
    with open(os.path.join(paths.ROOT, "tools", "anysector.8")) as f:
        text = f.read()
    block = text.split(".SH EXAMPLES\n", 1)[1].split("\n.SH ", 1)[0]
    block = block.replace("\\e\n", " ").replace("\\-", "-")
    return [shlex.split(line) for line in block.splitlines()
            if line.startswith("anysector ")]


def t_man_examples(s):
    """Every example of the man page that works on an image file runs as written, in order, in
    an empty directory holding a kernel and an initrd, and exits 0 (the check of an
    offset-by-one image among them: it once exited 64 on the 4096-byte image made above it)."""
    d = s.path("examples")
    os.makedirs(d, exist_ok=True)
    for f in ("vmlinuz", "initrd.img"):
        shutil.copyfile(kernel(s), os.path.join(d, f))
    examples = [a for a in man_examples() if a[2].endswith(".img") and "--root-dir" not in a]
    s.check(len(examples) >= 5, "too few image examples in the man page: %r" % examples)
    s.check(["anysector", "check", "w7.img", "--physical-size", "4096", "--align-offset",
             "3584"] in examples, "the offset-by-one check example is gone: %r" % examples)
    # lib.tool runs the installer in $TMPDIR
    tmpdir = os.environ["TMPDIR"]
    try:
        os.environ["TMPDIR"] = d
        for args in examples:
            s.anysector(*args[1:], rc=0)
    finally:
        os.environ["TMPDIR"] = tmpdir
    shutil.rmtree(d)


if __name__ == "__main__":
    s = Suite("inputs")
    sys.exit(s.run([t_names, t_titles_and_cmdlines, t_files, t_mkimage_checks_first,
                    t_json_utf8, t_tool_reasons, t_stale_temp, t_restore_order, t_restore_identity,
                    t_backup_name, t_mbr_sector_size, t_long_messages,
                    t_info_check_agree, t_check_warns_install_refusal, t_man_examples]))
