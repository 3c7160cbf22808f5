#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The Debian kernel hooks (hooks/) against a fake /boot (a temp directory, ANYSECTOR_BOOT_DIR) and
a disk image made by `anysector mkimage` (ASan+UBSan build, placeholder stages), no root:
anysector-update's entries per kept kernel, the newest the default in dpkg's version order, removed
kernels' entries and ESP files gone, the user's own entry kept, ANYSECTOR_PIN's sha256 lines equal
to sha256sum's (none by default), a second run changing no byte of the image; the hook wrapper's
DEB_MAINT_PARAMS rules and a kernel package's run-parts; the sentences and exit codes when
unconfigured, the disk absent, in a chroot, anysector failing; what `make install-hooks`
(debian/rules) puts where, and the .deb's files, modes and conffiles (built once per tree, about a
minute); shellcheck on the scripts. Outcomes: `anysector list --json`, the ESP's files read back
with mtools, the image's SHA-256, exit codes and stderr.
"""
import os
import shutil
import stat
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import keys, mtools, paths, tool  # noqa: E402
from lib.disk import sha256  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

HOOKS = os.path.join(paths.ROOT, "hooks")
UPDATE = os.path.join(HOOKS, "anysector-update")
OLD, NEW, NEWER = "6.1.0-9-amd64", "6.1.0-10-amd64", "6.1.0-10-amd64+b1"
CMDLINE = "root=PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4 rw console=ttyS0"


class World:
    """One fake system: /boot, the config file, the state directory, the disk image with the
    user's own entry 'mine' (made by mkimage), and the ESP's byte offset."""

    def __init__(self, s, name, lock=None):
        self.s = s
        self.dir = s.path(name)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.boot = os.path.join(self.dir, "boot")
        os.makedirs(self.boot)
        self.config = os.path.join(self.dir, "default")
        self.state = os.path.join(self.dir, "state")
        self.img = os.path.join(self.dir, "disk.img")
        user_kernel = os.path.join(self.dir, "vmlinuz-user")
        with open(user_kernel, "wb") as f:
            f.write(b"MZ" + b"user kernel" * 1000)
        # lock: (key, cert) for a locked menu (the real loader: a placeholder has no lock block)
        locking = ["--stages", paths.STAGES, "--lock-config", "--sign-key", lock[0],
                   "--sign-cert", lock[1]] if lock else []
        s.anysector("mkimage", self.img, "--size", "48M", "--label", "gpt", "--kernel",
                    user_kernel, "--name", "mine", "--cmdline", "root=/dev/user", *locking)
        j = s.json("info", self.img)
        bp = [p for p in j.get("partitions", []) if p.get("boot_partition")]
        self.esp = bp[0]["start"] * j["topology"]["logical_sector_size"] if bp else 0
        self.configure()

    def configure(self, disk=None, **extra):
        """Writes the config: the packaged file with the disk and command line filled in."""
        values = {"ANYSECTOR_DISK": self.img if disk is None else disk,
                  "ANYSECTOR_CMDLINE": '"%s"' % CMDLINE}
        values.update(extra)
        lines = []
        with open(os.path.join(HOOKS, "default")) as f:
            for line in f:
                key = line.split("=", 1)[0]
                if key in values:
                    line = "%s=%s\n" % (key, values.pop(key))
                lines.append(line)
        lines += ["%s=%s\n" % kv for kv in values.items()]
        with open(self.config, "w") as f:
            f.writelines(lines)

    def install_kernel(self, version, initrd=True, salt=b"", size=None):
        """A kernel package's files: distinct bytes per version (and per salt); size: a kernel
        of that many random bytes."""
        with open(os.path.join(self.boot, "vmlinuz-" + version), "wb") as f:
            f.write(b"MZ" + (os.urandom(size) if size else (version.encode() + salt) * 3000))
        if initrd:
            self.write_initrd(version, salt)

    def write_initrd(self, version, salt=b""):
        with open(os.path.join(self.boot, "initrd.img-" + version), "wb") as f:
            f.write(b"\x1f\x8b" + (b"initrd " + version.encode() + salt) * 5000)

    def remove_kernel(self, version):
        for f in ("vmlinuz-", "initrd.img-"):
            p = os.path.join(self.boot, f + version)
            if os.path.exists(p):
                os.unlink(p)

    def env(self, **extra):
        e = dict(os.environ, ANYSECTOR_CONFIG=self.config, ANYSECTOR_BOOT_DIR=self.boot,
                 ANYSECTOR_STATE_DIR=self.state, ANYSECTOR_BIN=paths.ASAN_ANYSECTOR,
                 ANYSECTOR_ISCHROOT="false",
                 PATH=HOOKS + os.pathsep + os.environ.get("PATH", ""))
        e.pop("DEB_MAINT_PARAMS", None)
        e.update(extra)
        return e

    def run(self, *args, rc=0, prog=UPDATE, env=None):
        """Runs anysector-update (or a hook); asserts the exit code and no sanitizer report."""
        p = subprocess.run([prog] + list(args), capture_output=True, text=True,
                           env=env or self.env(), stdin=subprocess.DEVNULL, timeout=300,
                           cwd=tool.workdir())
        out = p.stdout + p.stderr
        self.s.check(not tool.sanitizer_report(out), "sanitizer report:\n" + out[-3000:])
        self.s.eq(p.returncode, rc, "%s %s exit status (output:\n%s)" %
                  (os.path.basename(prog), " ".join(args), out[-3000:]))
        return p

    def menu(self):
        return self.s.json("list", self.img)

    def names(self):
        return [e["name"] for e in self.menu().get("entries", [])]

    def esp_file(self, path):
        return mtools.read(self.img, self.esp, path)

    def esp_dir(self, path):
        """The names in a directory of the ESP, or None when it does not exist."""
        r = mtools.run(["mdir", "-b", "::" + path], self.img, self.esp, text=True)
        if r.returncode:
            return None
        return sorted(os.path.basename(x.rstrip("/")) for x in r.stdout.split())


def read(path):
    with open(path, "rb") as f:
        return f.read()


def expect_kernels(s, w, versions, default):
    """The menu holds 'mine' and exactly one entry per version, its files on the ESP the same
    bytes as in /boot, its command line and title as configured; default is the default."""
    m = w.menu()
    s.eq(sorted(e["name"] for e in m.get("entries", [])),
         sorted(["mine"] + ["debian-" + v for v in versions]), "menu entries")
    s.eq(m.get("default"), default, "default entry")
    for e in m.get("entries", []):
        if e["name"] == "mine":
            s.eq((e["kernel"], e["cmdline"]), ("/mine/vmlinuz-user", "root=/dev/user"),
                 "the user's entry")
            s.check(w.esp_file("/mine/vmlinuz-user") is not None, "the user's kernel is on the ESP")
            continue
        v = e["name"][len("debian-"):]
        s.eq((e["title"], e["cmdline"], e["source"]),
             ("Debian GNU/Linux " + v, CMDLINE, "anysector.cfg"), "entry %s" % e["name"])
        s.eq(e["kernel"], "/debian-%s/vmlinuz-%s" % (v, v), "entry %s kernel" % e["name"])
        s.eq(e["initrds"], ["/debian-%s/initrd.img-%s" % (v, v)], "entry %s initrd" % e["name"])
        s.check(w.esp_file(e["kernel"]) == read(os.path.join(w.boot, "vmlinuz-" + v)),
                "%s on the ESP is /boot's vmlinuz-%s" % (e["kernel"], v))
        s.check(w.esp_file(e["initrds"][0]) == read(os.path.join(w.boot, "initrd.img-" + v)),
                "%s on the ESP is /boot's initrd.img-%s" % (e["initrds"][0], v))


def idempotent(s, w, what):
    """A second run changes no byte of the image and prints nothing."""
    before = sha256(w.img)
    p = w.run()
    s.eq(sha256(w.img), before, "image SHA-256 after a second run (%s)" % what)
    s.eq((p.stdout, p.stderr), ("", ""), "second run's output (%s)" % what)


def gone(s, w, version):
    """Its directory (kernel and initrd) has left the ESP."""
    s.eq(w.esp_dir("/debian-" + version), None, "/debian-%s on the ESP" % version)
    s.check("DEBIAN-" + version.upper() not in (n.upper() for n in w.esp_dir("/") or []),
            "/ of the ESP still lists debian-%s: %r" % (version, w.esp_dir("/")))


def t_kernel_lifecycle(s):
    """First kernel, a newer one (10 > 9 only in version order), KEEP=1, removal, re-install."""
    w = World(s, "life")
    w.install_kernel(OLD)
    w.run()
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    idempotent(s, w, "first kernel")

    w.install_kernel(NEW)
    w.run()
    expect_kernels(s, w, [OLD, NEW], "debian-" + NEW)
    idempotent(s, w, "second kernel")

    w.configure(ANYSECTOR_KEEP=1)
    w.run()
    expect_kernels(s, w, [NEW], "debian-" + NEW)
    gone(s, w, OLD)
    idempotent(s, w, "KEEP=1")

    w.configure(ANYSECTOR_KEEP=2)
    w.run()
    expect_kernels(s, w, [OLD, NEW], "debian-" + NEW)
    w.remove_kernel(NEW)
    w.run()
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    gone(s, w, NEW)
    idempotent(s, w, "newest removed")

    # a third kernel, newer by its Debian revision suffix, with KEEP=2: the oldest leaves
    w.install_kernel(NEW)
    w.install_kernel(NEWER)
    w.run()
    expect_kernels(s, w, [NEW, NEWER], "debian-" + NEWER)
    gone(s, w, OLD)


def t_new_initrd(s):
    """update-initramfs -u, a reinstalled kernel of the same version, a new command line: the
    entry is replaced with the new bytes; --force replaces an up-to-date one."""
    w = World(s, "initrd")
    w.install_kernel(OLD)
    w.run()
    w.write_initrd(OLD, salt=b" regenerated")
    w.run()
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    w.install_kernel(OLD, salt=b" rebuilt")
    w.run()
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    idempotent(s, w, "new initrd")
    w.configure(ANYSECTOR_CMDLINE='"root=/dev/vda1 ro"')
    w.run()
    s.eq([e["cmdline"] for e in w.menu()["entries"] if e["name"] != "mine"], ["root=/dev/vda1 ro"],
         "command line after the config changed")
    before = sha256(w.img)
    w.run("--force")
    s.check(sha256(w.img) != before, "--force rewrote the entry")
    shutil.rmtree(w.state)
    w.run()
    s.eq(w.names(), ["mine", "debian-" + OLD], "menu after the state was lost")
    # --dry-run: anysector prints the writes of a newer kernel's entry, nothing changes
    w.install_kernel(NEW)
    before, state = sha256(w.img), read(os.path.join(w.state, "update.state"))
    p = w.run("--dry-run")
    s.check("would add or replace entry 'debian-%s'" % NEW in p.stdout and
            "would make 'debian-%s' the default" % NEW in p.stdout and "write LBA" in p.stdout,
            "--dry-run output: %r" % p.stdout)
    s.eq((sha256(w.img), read(os.path.join(w.state, "update.state"))), (before, state),
         "image SHA-256 and state after --dry-run")


def sha256sum(path):
    return subprocess.run(["sha256sum", path], check=True, capture_output=True,
                          text=True).stdout.split()[0]


def pins(w):
    """Each hooks' entry's (kernel_sha256, initrd_sha256) from list --json."""
    return {e["name"]: (e["kernel_sha256"], e["initrd_sha256"])
            for e in w.menu()["entries"] if e["name"] != "mine"}


def t_pin(s):
    """ANYSECTOR_PIN: no (the default) writes no sha256 lines; yes rewrites the entries with
    sha256 lines equal to sha256sum of /boot's kernel and initrd, re-pins a new initrd, and no
    takes the pins away again; anything else is refused."""
    w = World(s, "pin")
    w.install_kernel(OLD)
    w.run()
    cfg = lambda: (w.esp_file("/anysector.cfg") or b"").decode()  # noqa: E731
    s.check("sha256" not in cfg(), "config without ANYSECTOR_PIN: %r" % cfg())
    s.eq(pins(w), {"debian-" + OLD: (None, [None])}, "pins without ANYSECTOR_PIN")

    def pinned(what):
        k, i = (os.path.join(w.boot, f + OLD) for f in ("vmlinuz-", "initrd.img-"))
        hk, hi = sha256sum(k), sha256sum(i)
        s.eq(pins(w), {"debian-" + OLD: (hk, [hi])}, "pins (%s)" % what)
        s.check("  sha256  %s\n" % hk in cfg() and "  sha256  %s\n" % hi in cfg(),
                "config (%s): %r" % (what, cfg()))
        s.anysector("check", w.img, rc=0, lacks=["SHA-256"])

    w.configure(ANYSECTOR_PIN="yes")
    w.run()
    pinned("ANYSECTOR_PIN=yes")
    idempotent(s, w, "pinned")
    w.write_initrd(OLD, salt=b" regenerated")
    w.run()
    pinned("a new initrd")
    w.configure(ANYSECTOR_PIN="no")
    w.run()
    s.check("sha256" not in cfg(), "config after ANYSECTOR_PIN=no: %r" % cfg())
    w.configure(ANYSECTOR_PIN="maybe")
    p = w.run(rc=2)
    s.check("ANYSECTOR_PIN in %s is 'maybe', not yes or no" % w.config in p.stderr,
            "stderr: %r" % p.stderr)


def t_locked(s):
    """A locked menu (mkimage --lock-config): with ANYSECTOR_SIGN_KEY and ANYSECTOR_SIGN_CERT the
    hooks add the kernel's entry pinned and check finds the loader locked to the new
    anysector.cfg, a second run writes nothing; without them the run fails with anysector's
    refusal and the image is unchanged; one of the two alone is refused."""
    key, cert = keys.snakeoil(s.work)
    w = World(s, "locked", lock=(key, cert))
    w.install_kernel(OLD)
    w.configure(ANYSECTOR_SIGN_KEY=key, ANYSECTOR_SIGN_CERT=cert)
    w.run()
    s.eq(sorted(w.names()), sorted(["mine", "debian-" + OLD]), "entries of the locked menu")
    k, i = (os.path.join(w.boot, f + OLD) for f in ("vmlinuz-", "initrd.img-"))
    s.eq(pins(w).get("debian-" + OLD), (sha256sum(k), [sha256sum(i)]), "the hook entry's pins")
    s.anysector("check", w.img, has=["and anysector.cfg matches"], lacks=["\nerror "])
    idempotent(s, w, "locked")
    w.install_kernel(NEW)
    w.configure()
    before = sha256(w.img)
    p = w.run(rc=2)
    s.check("give --sign-key and --sign-cert" in p.stderr, "stderr without a key: %r" % p.stderr)
    s.eq(sha256(w.img), before, "image after a run without the key")
    w.configure(ANYSECTOR_SIGN_KEY=key)
    p = w.run(rc=2)
    s.check("ANYSECTOR_SIGN_KEY and ANYSECTOR_SIGN_CERT in %s go together" % w.config in p.stderr,
            "stderr with a key alone: %r" % p.stderr)


def t_adopts_prefixed_entry(s):
    """An entry made beforehand under the hook's name (mkimage --name debian-VERSION, as an
    image build would) becomes the hook's: replaced once, then left alone, removed with its
    kernel."""
    w = World(s, "adopt")
    w.install_kernel(OLD)
    s.anysector("add", w.img, "--kernel", os.path.join(w.boot, "vmlinuz-" + OLD), "--initrd",
                os.path.join(w.boot, "initrd.img-" + OLD), "--name", "debian-" + OLD,
                "--cmdline", "root=/dev/sda2")
    w.run()
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    idempotent(s, w, "adopted entry")
    w.install_kernel(NEW)
    w.configure(ANYSECTOR_KEEP=1)
    w.run()
    expect_kernels(s, w, [NEW], "debian-" + NEW)
    gone(s, w, OLD)


def t_waits_for_initrd(s):
    """The kernel's postinst.d can run before its initrd exists: the kernel waits, with a line,
    and the older kernel stays the default; the initramfs hook's run then adds it."""
    w = World(s, "wait")
    w.install_kernel(OLD)
    w.run()
    w.install_kernel(NEW, initrd=False)
    p = w.run()
    s.check("initrd.img-%s yet" % NEW in p.stderr, "no line about the missing initrd: %r"
            % p.stderr)
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    w.write_initrd(NEW)
    w.run()
    expect_kernels(s, w, [OLD, NEW], "debian-" + NEW)


def t_full_esp(s):
    """A third kernel that does not fit beside two (16 MiB kernels, a 45 MiB ESP): the add
    fails, the entry of the kernel no longer kept goes first, the add is tried again; with
    KEEP=1 (no kept kernel with an entry meanwhile) the menu stays as it was, with the
    sentence."""
    w = World(s, "full")
    for v in (OLD, NEW):
        w.install_kernel(v, size=16 << 20)
    w.run()
    expect_kernels(s, w, [OLD, NEW], "debian-" + NEW)
    w.install_kernel(NEWER, size=16 << 20)
    p = w.run()
    s.check("adding entry 'debian-%s' failed; the entries of kernels no longer kept go first"
            % NEWER in p.stderr, "no line about the retry: %r" % p.stderr[-2000:])
    expect_kernels(s, w, [NEW, NEWER], "debian-" + NEWER)
    gone(s, w, OLD)
    idempotent(s, w, "after the retry")
    # KEEP=1: no kept kernel has an entry to boot meanwhile, so nothing is removed to make room
    w.configure(ANYSECTOR_KEEP=1)
    w.install_kernel("6.1.0-11-amd64", size=16 << 20)
    before = sha256(w.img)
    p = w.run(rc=2)
    last = p.stderr.splitlines()[-1] if p.stderr else ""
    s.check(last.startswith(FAILED % w.img) and "6.1.0-11-amd64" in last and
            last.endswith(BY_HAND), "KEEP=1 on a full ESP: last stderr line %r" % last)
    s.eq(sha256(w.img), before, "image SHA-256 when the only kept kernel does not fit")


def t_user_entries(s):
    """Entries the hook does not own survive every run, even one named like a version; a
    default the user chose stays with ANYSECTOR_DEFAULT=keep unless its entry goes; no kernel
    leaves the menu alone."""
    w = World(s, "user")
    s.anysector("add", w.img, "--kernel", os.path.join(w.dir, "vmlinuz-user"), "--name", NEW,
                "--cmdline", "x", "--initrd", os.path.join(w.dir, "vmlinuz-user"))
    w.install_kernel(OLD)
    w.configure(ANYSECTOR_DEFAULT="keep")
    w.run()
    s.eq(w.names(), ["mine", NEW, "debian-" + OLD], "menu with the user's entries")
    s.eq(w.menu().get("default"), "mine", "mkimage's default with ANYSECTOR_DEFAULT=keep")
    s.anysector("set-default", w.img, NEW)
    w.install_kernel(NEW)
    w.run()
    s.eq(w.menu().get("default"), NEW, "the user's default with ANYSECTOR_DEFAULT=keep")
    # a default on an entry about to go moves to the newest kernel, not to the first entry
    s.anysector("set-default", w.img, "debian-" + OLD)
    w.configure(ANYSECTOR_DEFAULT="keep", ANYSECTOR_KEEP=1)
    w.run()
    s.eq(w.names(), ["mine", NEW, "debian-" + NEW], "menu with KEEP=1")
    s.eq(w.menu().get("default"), "debian-" + NEW, "default after its entry went (keep)")
    w.remove_kernel(OLD)
    w.remove_kernel(NEW)
    before = sha256(w.img)
    p = w.run()
    s.check(p.stderr.startswith("anysector: no kernel"), "no line about no kernel: %r" % p.stderr)
    s.eq(sha256(w.img), before, "image SHA-256 with no kernel installed")
    s.eq(w.names(), ["mine", NEW, "debian-" + NEW], "menu with no kernel")


def one_line(s, p, starts, has, what):
    lines = p.stderr.splitlines()
    s.eq(len(lines), 1, "%s: stderr lines (%r)" % (what, p.stderr))
    s.check(p.stderr.startswith(starts) and all(h in p.stderr for h in has),
            "%s: stderr %r, want %r ... %r" % (what, p.stderr, starts, has))


def t_not_configured(s):
    """No disk set, the disk absent, a hook in a chroot: exit 0, one line on stderr, nothing
    written."""
    w = World(s, "unconf")
    w.install_kernel(OLD)
    before = sha256(w.img)
    w.configure(disk="")
    one_line(s, w.run(), "anysector: ANYSECTOR_DISK is not set", ["anysector-update"], "no disk")
    os.unlink(w.config)
    one_line(s, w.run(), "anysector: ANYSECTOR_DISK is not set", [], "no config file")
    w.configure(disk=os.path.join(w.dir, "absent"))
    one_line(s, w.run(), "anysector: %s (ANYSECTOR_DISK) is absent" % os.path.join(w.dir, "absent"),
             ["anysector-update"], "disk absent")
    w.configure()
    hook = install_hook(s, w, "postinst.d")
    one_line(s, w.run(OLD, prog=hook, env=w.env(ANYSECTOR_ISCHROOT="true")),
             "anysector: this is a chroot", ["anysector-update"], "hook in a chroot")
    s.eq(sha256(w.img), before, "image SHA-256 when not configured")


FAILED = "anysector: the boot menu on %s was not updated"
BY_HAND = "run 'anysector-update' as root."


def t_failures(s):
    """anysector failing (a disk that is no disk; a bad config): anysector-update exits 2 and a
    hook 0, each after the sentence; ANYSECTOR_STRICT=yes makes the hook fail too."""
    w = World(s, "fail")
    w.install_kernel(OLD)
    junk = os.path.join(w.dir, "junk.img")
    with open(junk, "wb") as f:
        f.truncate(8 << 20)
    w.configure(disk=junk)
    hook = install_hook(s, w, "postinst.d")
    for prog, args, rc in ((UPDATE, [], 2), (hook, [OLD, "/boot/vmlinuz-" + OLD], 0)):
        p = w.run(*args, prog=prog, rc=rc)
        last = p.stderr.splitlines()[-1] if p.stderr else ""
        s.check(last.startswith(FAILED % junk) and last.endswith(BY_HAND) and
                "no boot partition" in last, "%s: last stderr line %r" % (prog, last))
    p = w.run(OLD, prog=hook)
    s.check("after kernel %s was installed" % OLD in p.stderr, "hook sentence: %r" % p.stderr)
    w.configure(disk=junk, ANYSECTOR_STRICT="yes")
    w.run(OLD, prog=hook, rc=2)
    w.configure(ANYSECTOR_KEEP="many")
    p = w.run(rc=2)
    one_line(s, p, FAILED % w.img, ["ANYSECTOR_KEEP", BY_HAND], "bad KEEP")
    w.configure(ANYSECTOR_CMDLINE="")
    one_line(s, w.run(rc=2), FAILED % w.img, ["ANYSECTOR_CMDLINE", BY_HAND], "no cmdline")
    w.configure(ANYSECTOR_TITLE='"unterminated')
    one_line(s, w.run(rc=2), "anysector: the boot menu was not updated",
             ["could not be read as a shell fragment", BY_HAND], "config syntax error")
    w.configure()
    p = w.run(rc=2, env=w.env(ANYSECTOR_BIN=os.path.join(w.dir, "no-such-anysector")))
    one_line(s, p, FAILED % w.img, ["is not installed", BY_HAND], "no installer")
    s.eq(w.names(), ["mine"], "menu after the failures")


def install_hook(s, w, where):
    """zz-anysector copied to DIR/where/ (the hook tells its role from its directory)."""
    d = os.path.join(w.dir, "hooks", where)
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, "zz-anysector")
    shutil.copy(os.path.join(HOOKS, "zz-anysector"), dst)
    return dst


def t_hook_modes(s):
    """The hooks run on postinst configure, postrm remove, every post-update (and without
    DEB_MAINT_PARAMS), never on upgrade, purge or abort; the run they start updates the menu."""
    w = World(s, "modes")
    w.configure(disk="")
    cases = [("postinst.d", "'configure' '6.1.76-1'", True), ("postinst.d", None, True),
             ("postinst.d", "'abort-upgrade' '6.1.76-1'", False),
             ("postrm.d", "'remove'", True), ("postrm.d", "'upgrade' '6.1.76-1'", False),
             ("postrm.d", "'purge'", False), ("postrm.d", "", True),
             ("post-update.d", "'upgrade' '6.1.76-1'", True)]
    for where, params, runs in cases:
        hook = install_hook(s, w, where)
        env = w.env() if params is None else w.env(DEB_MAINT_PARAMS=params)
        p = w.run(OLD, "/boot/vmlinuz-" + OLD, prog=hook, env=env)
        s.eq(p.stderr.startswith("anysector: ANYSECTOR_DISK is not set"), runs,
             "%s with DEB_MAINT_PARAMS=%r ran anysector-update (stderr %r)" % (where, params,
                                                                               p.stderr))
    w.configure()
    w.install_kernel(OLD)
    w.run(OLD, os.path.join(w.boot, "initrd.img-" + OLD), prog=install_hook(s, w, "post-update.d"))
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    w.remove_kernel(OLD)
    w.install_kernel(NEW)
    w.run(NEW, "/boot/vmlinuz-" + NEW, prog=install_hook(s, w, "postinst.d"),
          env=w.env(DEB_MAINT_PARAMS="'configure' '6.1.76-1'"))
    expect_kernels(s, w, [NEW], "debian-" + NEW)
    gone(s, w, OLD)
    # the package removed, its conffiles left: nothing runs
    p = w.run(NEW, prog=install_hook(s, w, "postrm.d"), env=w.env(PATH="/usr/bin:/bin"))
    s.eq(p.stderr, "", "hook without anysector-update")


FAKE_INITRAMFS_TOOLS = r"""#!/bin/sh
# initramfs-tools' kernel hook as far as the order matters: on configure it makes the initrd
# and runs the post-update.d hooks, on remove it deletes the initrd
set -e
eval set -- "$DEB_MAINT_PARAMS" '"$@"'
mode=$1
shift $(($# - 2))
case $0:$mode in
*/postinst.d/*:configure)
	printf 'initrd %s %s
' "$1" "$SALT" >"$ANYSECTOR_BOOT_DIR/initrd.img-$1"
	run-parts --arg="$1" --arg="$ANYSECTOR_BOOT_DIR/initrd.img-$1" "$HOOK_ROOT/post-update.d" ;;
*/postrm.d/*:remove) rm -f "$ANYSECTOR_BOOT_DIR/initrd.img-$1" ;;
esac
"""


def complaints(p):
    """stderr's lines from the hooks, but anysector's warnings that the test kernels are no real
    kernels and run-parts --report's names of the scripts that printed something."""
    return [x for x in p.stderr.splitlines()
            if not x.startswith("anysector: warning:") and not x.endswith(":")]


def t_run_parts(s):
    """A kernel package's postinst and postrm as Debian's linux-image scripts run them
    (run-parts --exit-on-error with DEB_MAINT_PARAMS="$*", unquoted), beside a stand-in for
    initramfs-tools' hook that makes the initrd and runs post-update.d first: the new kernel's
    entry holds the initrd made in that run; the upgrade's postrm changes nothing; remove
    takes the entry and its files away."""
    w = World(s, "runparts")
    root = os.path.join(w.dir, "hooks")
    for where in ("postinst.d", "postrm.d"):
        install_hook(s, w, where)
        fake = os.path.join(root, where, "initramfs-tools")
        with open(fake, "w") as f:
            f.write(FAKE_INITRAMFS_TOOLS)
        os.chmod(fake, 0o755)
    install_hook(s, w, "post-update.d")

    def package(script, version, params, salt="1"):
        env = w.env(DEB_MAINT_PARAMS=params, HOOK_ROOT=root, SALT=salt)
        image = os.path.join(w.boot, "vmlinuz-" + version)
        return w.run("--report", "--exit-on-error", "--arg=" + version, "--arg=" + image,
                     os.path.join(root, script), prog="run-parts", env=env)

    for v in (OLD, NEW):
        w.install_kernel(v, initrd=False)
        p = package("postinst.d", v, "configure 6.1.76-1")
        s.eq(complaints(p), [], "postinst of %s: complaints" % v)
    expect_kernels(s, w, [OLD, NEW], "debian-" + NEW)
    s.check(w.esp_file("/debian-%s/initrd.img-%s" % (NEW, NEW)).startswith(b"initrd " + NEW.encode()),
            "the entry's initrd is the one the initramfs hook made")
    before = sha256(w.img)
    s.eq(package("postrm.d", NEW, "upgrade 6.1.76-2").stderr, "", "postrm upgrade: stderr")
    s.eq(sha256(w.img), before, "image SHA-256 after postrm upgrade")
    package("postinst.d", NEW, "configure 6.1.76-1", salt="2")
    s.check(w.esp_file("/debian-%s/initrd.img-%s" % (NEW, NEW)).endswith(b" 2\n"),
            "the reinstalled kernel's entry holds its new initrd")
    # dpkg has removed the kernel; the postrm's initramfs-tools hook deletes the initrd
    os.unlink(os.path.join(w.boot, "vmlinuz-" + NEW))
    s.eq(complaints(package("postrm.d", NEW, "remove")), [], "postrm remove: complaints")
    s.check(not os.path.exists(os.path.join(w.boot, "initrd.img-" + NEW)), "initrd deleted")
    expect_kernels(s, w, [OLD], "debian-" + OLD)
    gone(s, w, NEW)
    s.eq(package("postrm.d", NEW, "purge").stderr, "", "postrm purge: stderr")


def t_package_paths(s):
    """`make install-hooks` (what debian/rules runs into the package) puts each file at its path
    with its mode; debian/rules runs it; the package depends on jq."""
    dest = s.path("destdir")
    p = subprocess.run(["make", "--no-print-directory", "-C", paths.ROOT, "install-hooks",
                        "DESTDIR=" + dest, "PREFIX=/usr"], capture_output=True, text=True)
    s.eq(p.returncode, 0, "make install-hooks (%s)" % p.stderr)
    want = {"usr/sbin/anysector-update": 0o755,
            "usr/share/man/man8/anysector-update.8": 0o644,
            "etc/default/anysector": 0o644,
            "etc/kernel/postinst.d/zz-anysector": 0o755,
            "etc/kernel/postrm.d/zz-anysector": 0o755,
            "etc/initramfs/post-update.d/zz-anysector": 0o755}
    got = {}
    for top, _, files in os.walk(dest):
        for f in files:
            full = os.path.join(top, f)
            got[os.path.relpath(full, dest)] = stat.S_IMODE(os.stat(full).st_mode)
    s.eq(got, want, "installed files and modes")
    with open(os.path.join(paths.ROOT, "debian", "rules")) as f:
        s.check("install-hooks" in f.read(), "debian/rules does not run make install-hooks")
    with open(os.path.join(paths.ROOT, "debian", "control")) as f:
        s.check("jq," in f.read(), "debian/control's Depends lacks jq")


PACKAGED = {"./usr/sbin/anysector-update": "-rwxr-xr-x",
            "./usr/lib/kernel/install.d/90-anysector.install": "-rwxr-xr-x",
            "./usr/share/man/man8/anysector-update.8.gz": "-rw-r--r--",
            "./etc/default/anysector": "-rw-r--r--",
            "./etc/kernel/postinst.d/zz-anysector": "-rwxr-xr-x",
            "./etc/kernel/postrm.d/zz-anysector": "-rwxr-xr-x",
            "./etc/initramfs/post-update.d/zz-anysector": "-rwxr-xr-x"}


def t_package_deb(s):
    """The .deb itself (tools/mkdeb.sh --if-changed: built once per tree, shared with the
    Debian-system tests and `make deb`): the hooks at their paths with their modes, owned by
    root (the kernel-install plugin too), the /etc files conffiles, jq among the
    dependencies."""
    p = subprocess.run([os.path.join(paths.ROOT, "tools", "mkdeb.sh"), "--no-lintian",
                        "--if-changed", paths.BUILD], capture_output=True, text=True,
                       timeout=3600)
    if not s.check(p.returncode == 0, "mkdeb.sh failed:\n" + (p.stdout + p.stderr)[-3000:]):
        return
    deb = p.stdout.split()[-1]
    listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
    got = {}
    for line in listing.splitlines():
        f = line.split()
        if f and f[-1] in PACKAGED:
            got[f[-1]] = (f[0], f[1])
    s.eq(got, {k: (v, "root/root") for k, v in PACKAGED.items()}, "the package's hook files")
    ctl = s.path("deb-control")
    subprocess.run(["dpkg-deb", "-e", deb, ctl], check=True)
    with open(os.path.join(ctl, "conffiles")) as f:
        conffiles = sorted(f.read().split())
    s.eq(conffiles, sorted(k[1:] for k in PACKAGED if k.startswith("./etc/")), "conffiles")
    depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True,
                             text=True).stdout
    s.check("jq" in [d.strip().split()[0] for d in depends.split(",") if d.strip()],
            "Depends lacks jq: %r" % depends)


def t_shellcheck(s):
    if not have("shellcheck"):
        s.fail("shellcheck is not installed (tools/deps.sh lists it)")
        return
    # the config file only sets variables (SC2034: unused here)
    for name, skip in (("anysector-update", []), ("zz-anysector", []),
                       ("default", ["-e", "SC2034"])):
        p = subprocess.run(["shellcheck", "-s", "sh"] + skip + [os.path.join(HOOKS, name)],
                           capture_output=True, text=True)
        s.eq(p.returncode, 0, "shellcheck %s:\n%s" % (name, p.stdout))


if __name__ == "__main__":
    # two at a time, t_package_deb (the package build when the tree changed) first
    sys.exit(Suite("hooks").run([
        t_package_deb, t_kernel_lifecycle, t_new_initrd, t_waits_for_initrd,
        t_adopts_prefixed_entry, t_full_esp, t_user_entries, t_pin, t_locked, t_not_configured,
        t_failures, t_hook_modes, t_run_parts, t_package_paths, t_shellcheck], jobs=2))
