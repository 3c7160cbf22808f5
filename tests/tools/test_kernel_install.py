#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The kernel-install plugin (hooks/90-anysector.install) against a disk image made by
`anysector mkimage` (ASan+UBSan build, placeholder stages), no root: every layout and
environment case of kernel-install(8)'s plugin interface, with the plugin run as kernel-install
runs it (arguments, KERNEL_INSTALL_* in the environment) and, where Debian's own kernel-install
is there, run by it.

- layout=other and layout=bls with $BOOT elsewhere: add makes the entry TOKEN-VERSION (kernel
  and initrds copied, command line from KERNEL_INSTALL_CONF_ROOT/cmdline, title from
  os-release's PRETTY_NAME), the default only when it is the newest of the plugin's entries;
  remove takes it away and, when it was the default, makes the newest one left the default;
  exit 0;
- layout=bls with $BOOT anysector's boot partition: add exits 77 (90-loaderentry.install would
  write the same kernel there as a /loader/entries file); remove exits 0;
- KERNEL_INSTALL_ENTRY_TOKEN names the entry; without it KERNEL_INSTALL_MACHINE_ID; when the
  token is the machine ID the command line gets systemd.machine_id= as 90-loaderentry's does;
- initrds from the arguments then KERNEL_INSTALL_STAGING_AREA/initrd*, in that order;
- a unified kernel image (layout=uki, or a file with .osrel) goes to /EFI/Linux as an uki entry;
- a kernel that is /boot/vmlinuz-VERSION while anysector's Debian hooks are installed is left to
  them (the image unchanged; still 77 where 90-loaderentry would add it);
- not configured, a chroot, the disk absent, another command: exit 0 with one sentence (none for
  another command), the image unchanged; a failing anysector: the sentence and exit 0, or 1 with
  ANYSECTOR_STRICT=yes;
- Debian's kernel-install add/remove with KERNEL_INSTALL_PLUGINS naming this plugin and
  90-loaderentry.install: with layout=bls on anysector's boot partition no /loader/entries
  file appears (77 stopped it), with layout=other the entry comes and goes;
- `make install` puts the plugin in PREFIX/lib/kernel/install.d, mode 755; shellcheck.
Outcomes: `anysector list --json`, the ESP's files read back with mtools, the image's SHA-256,
exit codes and stderr. Run by `make test-kernel-install` (suite 57)."""
import os
import shutil
import stat
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import mtools, paths, tool, uki  # noqa: E402
from lib.disk import sha256  # noqa: E402
from lib.results import Skip  # noqa: E402
from lib.suite import Suite, have  # noqa: E402

PLUGIN = os.path.join(paths.ROOT, "hooks", "90-anysector.install")
LOADERENTRY = "/usr/lib/kernel/install.d/90-loaderentry.install"
MID = "0123456789abcdef0123456789abcdef"
TOKEN = "testos"
CMDLINE = "root=PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4 rw console=ttyS0"
PRETTY = "Test OS 1 (plugin)"


class World:
    """A fake system: the config, a $BOOT directory, kernel-install's configuration root (its
    cmdline), os-release, a staging area, a fake /boot and hooks directory, the disk image with
    the user's own entry 'mine'."""

    def __init__(self, s, name):
        self.s = s
        self.dir = s.path(name)
        shutil.rmtree(self.dir, ignore_errors=True)
        for d in ("boot_root", "conf", "staging", "boot", "hooks", "files"):
            os.makedirs(os.path.join(self.dir, d))
        self.boot_root = os.path.join(self.dir, "boot_root")
        self.conf = os.path.join(self.dir, "conf")
        self.staging = os.path.join(self.dir, "staging")
        self.config = os.path.join(self.dir, "default")
        self.osrel = os.path.join(self.dir, "os-release")
        with open(os.path.join(self.conf, "cmdline"), "w") as f:
            f.write(CMDLINE + "\n")
        with open(self.osrel, "w") as f:
            f.write('NAME="Test OS"\nPRETTY_NAME="%s"\nID=testos\n' % PRETTY)
        self.img = os.path.join(self.dir, "disk.img")
        user = self.file("vmlinuz-user", b"MZ" + b"user kernel" * 1000)
        s.anysector("mkimage", self.img, "--size", "48M", "--label", "gpt", "--kernel", user,
                    "--name", "mine", "--cmdline", "root=/dev/user")
        j = s.json("info", self.img)
        bp = [p for p in j.get("partitions", []) if p.get("boot_partition")]
        self.esp = bp[0]["start"] * j["topology"]["logical_sector_size"] if bp else 0
        self.configure()

    def file(self, name, data):
        p = os.path.join(self.dir, "files", name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def kernel(self, version):
        return (self.file("vmlinuz-" + version, b"MZ" + version.encode() * 3000),
                self.file("initrd.img-" + version, b"\x1f\x8b" + version.encode() * 5000))

    def configure(self, disk=None, **extra):
        values = {"ANYSECTOR_DISK": self.img if disk is None else disk}
        values.update(extra)
        with open(self.config, "w") as f:
            f.writelines("%s=%s\n" % kv for kv in values.items())

    def env(self, layout="other", **extra):
        e = dict(os.environ, ANYSECTOR_CONFIG=self.config, ANYSECTOR_BIN=paths.ASAN_ANYSECTOR,
                 ANYSECTOR_ISCHROOT="false", ANYSECTOR_BOOT_DIR=os.path.join(self.dir, "boot"),
                 ANYSECTOR_HOOKS_DIR=os.path.join(self.dir, "hooks"),
                 ANYSECTOR_OS_RELEASE=self.osrel, KERNEL_INSTALL_LAYOUT=layout,
                 KERNEL_INSTALL_BOOT_ROOT=self.boot_root, KERNEL_INSTALL_ENTRY_TOKEN=TOKEN,
                 KERNEL_INSTALL_MACHINE_ID=MID, KERNEL_INSTALL_CONF_ROOT=self.conf,
                 KERNEL_INSTALL_STAGING_AREA=self.staging, KERNEL_INSTALL_VERBOSE="0")
        e.update(extra)
        return {k: v for k, v in e.items() if v is not None}

    def run(self, *args, rc=0, env=None, prog=PLUGIN):
        p = subprocess.run([prog] + list(args), capture_output=True, text=True,
                           env=env or self.env(), stdin=subprocess.DEVNULL, timeout=300,
                           cwd=tool.workdir())
        out = p.stdout + p.stderr
        self.s.check(not tool.sanitizer_report(out), "sanitizer report:\n" + out[-3000:])
        self.s.eq(p.returncode, rc, "%s %s exit status (output:\n%s)" %
                  (os.path.basename(prog), " ".join(args), out[-3000:]))
        return p

    def add(self, version, *extra, rc=0, env=None):
        k, i = self.kernel(version)
        entry_dir = os.path.join(self.boot_root, TOKEN, version)
        return self.run("add", version, entry_dir, k, i, *extra, rc=rc, env=env)

    def remove(self, version, rc=0, env=None):
        return self.run("remove", version, os.path.join(self.boot_root, TOKEN, version), rc=rc,
                        env=env)

    def entries(self):
        return {e["name"]: e for e in self.s.json("list", self.img).get("entries", [])}

    def default(self):
        return self.s.json("list", self.img).get("default")


def t_layout_other(s):
    w = World(s, "other")
    w.add("6.1.0-1")
    e = w.entries()
    name = TOKEN + "-6.1.0-1"
    s.eq(sorted(e), sorted(["mine", name]), "entries after add")
    got = e.get(name, {})
    s.eq((got.get("title"), got.get("cmdline"), got.get("kernel"), got.get("initrds")),
         ("%s 6.1.0-1" % PRETTY, CMDLINE, "/%s/vmlinuz-6.1.0-1" % name,
          ["/%s/initrd.img-6.1.0-1" % name]), "the entry")
    k, i = w.kernel("6.1.0-1")
    s.eq(mtools.read(w.img, w.esp, "/%s/vmlinuz-6.1.0-1" % name), open(k, "rb").read(),
         "the kernel on the ESP")
    s.eq(w.default(), name, "default after the first add")
    w.add("6.1.0-3")
    s.eq(w.default(), TOKEN + "-6.1.0-3", "the newest is the default")
    w.add("6.1.0-2")
    s.eq(w.default(), TOKEN + "-6.1.0-3", "an older kernel does not take the default")
    w.remove("6.1.0-3")
    s.eq((sorted(w.entries()), w.default()),
         (sorted(["mine", TOKEN + "-6.1.0-1", TOKEN + "-6.1.0-2"]), TOKEN + "-6.1.0-2"),
         "after removing the default: the newest left is the default")
    s.check(mtools.read(w.img, w.esp, "/%s-6.1.0-3/vmlinuz-6.1.0-3" % TOKEN) is None,
            "the removed kernel's file left the ESP")
    w.remove("6.1.0-1")
    s.eq(w.default(), TOKEN + "-6.1.0-2", "removing another entry keeps the default")
    before = sha256(w.img)
    w.remove("6.1.0-9")
    s.eq(sha256(w.img), before, "removing a kernel without an entry changes nothing")


def t_waits(s):
    """Every anysector command the plugin runs waits for the disk's lock without a limit
    (--wait infinity): kernel-install runs from package managers that must not fail because
    another anysector holds the lock for more than the default 10 s. A wrapper logs each
    call's arguments."""
    w = World(s, "waits")
    log = os.path.join(w.dir, "calls")
    wrapper = w.file("anysector", b'#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n'
                     % (log.encode(), paths.ASAN_ANYSECTOR.encode()))
    os.chmod(wrapper, 0o755)
    w.add("6.1.0-1", env=w.env(ANYSECTOR_BIN=wrapper))
    w.add("6.1.0-2", env=w.env(ANYSECTOR_BIN=wrapper))
    w.remove("6.1.0-2", env=w.env(ANYSECTOR_BIN=wrapper))
    with open(log) as f:
        calls = f.read().splitlines()
    s.eq(sorted(set(c.split()[0] for c in calls)), ["add", "list", "remove", "set-default"],
         "the commands the plugin ran")
    for c in calls:
        s.check(" --wait infinity " in " %s " % c, "anysector %s: no --wait infinity" % c)


def t_layout_bls(s):
    w = World(s, "bls")
    # $BOOT elsewhere (/boot on ext4, say): the plugin adds, 90-loaderentry may run after it
    w.add("6.1.0-1", env=w.env("bls"))
    s.check(TOKEN + "-6.1.0-1" in w.entries(), "layout=bls, $BOOT elsewhere: the entry")
    # $BOOT is the boot partition anysector installed (its files there): 77 stops
    # 90-loaderentry from adding the kernel again as a /loader/entries file
    with open(os.path.join(w.boot_root, "anysector.cfg"), "w") as f:
        f.write("# the ESP, mounted\n")
    w.add("6.1.0-2", env=w.env("bls"), rc=77)
    s.check(TOKEN + "-6.1.0-2" in w.entries(), "layout=bls on the ESP: the entry")
    w.remove("6.1.0-2", env=w.env("bls"), rc=0)
    s.check(TOKEN + "-6.1.0-2" not in w.entries(), "layout=bls on the ESP: removed")
    os.unlink(os.path.join(w.boot_root, "anysector.cfg"))
    with open(os.path.join(w.boot_root, "anysector.own"), "w") as f:
        f.write("")
    w.add("6.1.0-3", env=w.env("bls"), rc=77)
    w.add("6.1.0-4", env=w.env("other"), rc=0)


def t_token(s):
    w = World(s, "token")
    w.add("6.1.0-1", env=w.env(KERNEL_INSTALL_ENTRY_TOKEN=None))
    e = w.entries().get(MID + "-6.1.0-1", {})
    s.eq(e.get("cmdline"), CMDLINE + " systemd.machine_id=" + MID,
         "the machine ID as token: the entry named by it, its command line tells the ID")
    w.add("6.1.0-2", env=w.env(KERNEL_INSTALL_ENTRY_TOKEN=MID))
    s.eq(w.entries().get(MID + "-6.1.0-2", {}).get("cmdline"),
         CMDLINE + " systemd.machine_id=" + MID, "the token given equal to the machine ID")
    w.add("6.1.0-3", env=w.env(KERNEL_INSTALL_ENTRY_TOKEN="other"))
    s.eq(w.entries().get("other-6.1.0-3", {}).get("cmdline"), CMDLINE,
         "another token: no systemd.machine_id=")
    # no kernel-install configuration root: the plugin's own ANYSECTOR_CMDLINE
    w.configure(ANYSECTOR_CMDLINE='"root=/dev/anysector"')
    w.add("6.1.0-4", env=w.env(KERNEL_INSTALL_CONF_ROOT=w.staging))
    s.eq(w.entries().get(TOKEN + "-6.1.0-4", {}).get("cmdline"), "root=/dev/anysector",
         "ANYSECTOR_CMDLINE when kernel-install has none")
    w.configure()
    w.run("add", "6.1.0-5", "/x", "/nonexistent", env=w.env(KERNEL_INSTALL_ENTRY_TOKEN=None,
                                                            KERNEL_INSTALL_MACHINE_ID=None))
    s.check(not any(n.endswith("6.1.0-5") for n in w.entries()), "no token: nothing added")


def t_initrds(s):
    w = World(s, "initrds")
    extra = w.file("extra.img", b"extra" * 100)
    staged = os.path.join(w.staging, "initrd-microcode")
    with open(staged, "wb") as f:
        f.write(b"ucode" * 100)
    w.add("6.1.0-1", extra)
    name = TOKEN + "-6.1.0-1"
    s.eq(w.entries().get(name, {}).get("initrds"),
         ["/%s/initrd.img-6.1.0-1" % name, "/%s/extra.img" % name,
          "/%s/initrd-microcode" % name], "the initrds: arguments, then the staging area's")


def t_uki(s):
    why = uki.missing()
    if why:
        raise Skip(why)
    w = World(s, "uki")
    u = w.file("linux.efi", b"")
    uki.build(u, paths.BIOS_PAYLOAD, "console=ttyS0 uki\n",
              'PRETTY_NAME="UKI OS"\nVERSION_ID=1\nID=ukios\n', initrd=os.urandom(3000))
    w.run("add", "6.1.0-7", "/x", u)
    e = w.entries().get(TOKEN + "-6.1.0-7", {})
    s.eq((e.get("kind"), e.get("kernel"), e.get("cmdline"), e.get("title")),
         ("uki", "/EFI/Linux/%s-6.1.0-7.efi" % TOKEN, "console=ttyS0 uki", "UKI OS"),
         "a unified kernel image as an uki entry")
    w.run("add", "6.1.0-8", "/x", u, env=w.env("uki"))
    s.check(TOKEN + "-6.1.0-8" in w.entries(), "layout=uki")
    w.remove("6.1.0-7")
    s.check(mtools.read(w.img, w.esp, "/EFI/Linux/%s-6.1.0-7.efi" % TOKEN) is None,
            "the removed UKI left /EFI/Linux")


def t_hooks_own(s):
    w = World(s, "hooks-own")
    with open(os.path.join(w.dir, "hooks", "zz-anysector"), "w") as f:
        f.write("#!/bin/sh\n")
    with open(os.path.join(w.dir, "boot", "vmlinuz-6.1.0-5"), "wb") as f:
        f.write(b"MZ")
    before = sha256(w.img)
    p = w.add("6.1.0-5")
    s.check("anysector's Debian hooks keep" in p.stderr, "the sentence: %r" % p.stderr)
    s.eq(sha256(w.img), before, "a kernel the hooks own: the image unchanged")
    with open(os.path.join(w.boot_root, "anysector.cfg"), "w") as f:
        f.write("\n")
    w.add("6.1.0-5", env=w.env("bls"), rc=77)
    s.eq(sha256(w.img), before, "and 77 where 90-loaderentry would add it as a second entry")
    w.add("6.1.0-6")
    s.check(TOKEN + "-6.1.0-6" in w.entries(), "a kernel outside /boot is the plugin's")


def t_not_configured(s):
    w = World(s, "unconfigured")
    before = sha256(w.img)
    for what, env, config, said in (
            ("no disk", None, {"disk": ""}, "ANYSECTOR_DISK is not set"),
            ("chroot", {"ANYSECTOR_ISCHROOT": "true"}, {}, "this is a chroot"),
            ("disk absent", None, {"disk": w.img + ".gone"}, "is absent")):
        w.configure(**config)
        p = w.add("6.1.0-1", env=w.env(**(env or {})))
        s.check(said in p.stderr and len(p.stderr.strip().splitlines()) == 1,
                "%s: one sentence (%r)" % (what, p.stderr))
        p = w.remove("6.1.0-1", env=w.env(**(env or {})))
    w.configure()
    p = w.run("inspect", "6.1.0-1")
    s.eq(p.stderr, "", "another command: nothing said")
    s.eq(sha256(w.img), before, "the image unchanged")


def t_failures(s):
    w = World(s, "failures")
    before = sha256(w.img)
    p = w.run("add", "6.1.0-1", "/x", os.path.join(w.dir, "missing"))
    s.check("the kernel" in p.stderr and "is not a file" in p.stderr, repr(p.stderr))
    fake = w.file("anysector-fails", b"#!/bin/sh\n[ \"$1\" = list ] && exec " +
                  paths.ASAN_ANYSECTOR.encode() + b" \"$@\"\necho nope >&2; exit 2\n")
    os.chmod(fake, 0o755)
    p = w.add("6.1.0-1", env=w.env(ANYSECTOR_BIN=fake))
    s.check("was not updated for kernel-install add 6.1.0-1" in p.stderr and "nope" in p.stderr,
            "a failing add: %r" % p.stderr)
    w.configure(ANYSECTOR_STRICT="yes")
    w.add("6.1.0-1", env=w.env(ANYSECTOR_BIN=fake), rc=1)
    s.eq(sha256(w.img), before, "the image unchanged")


def kernel_install(w, command, *args, layout):
    """Debian's kernel-install running this plugin and 90-loaderentry.install only."""
    conf = os.path.join(w.dir, "ki-conf")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "install.conf"), "w") as f:
        f.write("layout=%s\n" % layout)
    for n, v in (("cmdline", CMDLINE), ("entry-token", TOKEN)):
        with open(os.path.join(conf, n), "w") as f:
            f.write(v + "\n")
    env = w.env(layout, KERNEL_INSTALL_CONF_ROOT=conf, BOOT_ROOT=w.boot_root,
                KERNEL_INSTALL_PLUGINS=PLUGIN + " " + LOADERENTRY, MACHINE_ID=MID,
                KERNEL_INSTALL_LAYOUT=None, KERNEL_INSTALL_BOOT_ROOT=None,
                KERNEL_INSTALL_ENTRY_TOKEN=None, KERNEL_INSTALL_MACHINE_ID=None,
                KERNEL_INSTALL_STAGING_AREA=None)
    return w.run(command, *args, env=env, prog="kernel-install")


def t_kernel_install(s):
    if not have("kernel-install") or not os.path.exists(LOADERENTRY):
        raise Skip("Debian's kernel-install (package systemd) is not installed")
    w = World(s, "kernel-install")
    with open(os.path.join(w.boot_root, "anysector.cfg"), "w") as f:
        f.write("\n")
    os.makedirs(os.path.join(w.boot_root, "loader", "entries"))
    k, i = w.kernel("6.1.0-11")
    kernel_install(w, "add", "6.1.0-11", k, i, layout="bls")
    s.check(TOKEN + "-6.1.0-11" in w.entries(), "kernel-install add (bls): the entry")
    s.eq(os.listdir(os.path.join(w.boot_root, "loader", "entries")), [],
         "kernel-install add (bls on the ESP): 77 kept 90-loaderentry from writing an entry")
    kernel_install(w, "remove", "6.1.0-11", layout="bls")
    s.check(TOKEN + "-6.1.0-11" not in w.entries(), "kernel-install remove: the entry is gone")
    os.unlink(os.path.join(w.boot_root, "anysector.cfg"))
    k, i = w.kernel("6.1.0-12")
    kernel_install(w, "add", "6.1.0-12", k, i, layout="other")
    s.eq(w.default(), TOKEN + "-6.1.0-12", "kernel-install add (other): the entry, the default")
    kernel_install(w, "remove", "6.1.0-12", layout="other")
    s.check(TOKEN + "-6.1.0-12" not in w.entries(), "kernel-install remove (other)")


def t_install_path(s):
    dest = s.path("destdir")
    p = subprocess.run(["make", "--no-print-directory", "-C", paths.ROOT, "install-plugin",
                        "DESTDIR=" + dest, "PREFIX=/usr"], capture_output=True, text=True)
    s.eq(p.returncode, 0, "make install-plugin (%s)" % p.stderr)
    f = os.path.join(dest, "usr/lib/kernel/install.d/90-anysector.install")
    s.check(os.path.exists(f) and stat.S_IMODE(os.stat(f).st_mode) == 0o755,
            "the plugin at PREFIX/lib/kernel/install.d, mode 755")
    if not have("shellcheck"):
        s.fail("shellcheck is not installed (tools/deps.sh lists it)")
        return
    p = subprocess.run(["shellcheck", "-s", "sh", PLUGIN], capture_output=True, text=True)
    s.eq(p.returncode, 0, "shellcheck 90-anysector.install:\n" + p.stdout)


if __name__ == "__main__":
    s = Suite("kernel-install")
    sys.exit(s.run([t_layout_other, t_layout_bls, t_token, t_initrds, t_uki, t_hooks_own,
                    t_waits, t_not_configured, t_failures, t_kernel_install, t_install_path],
                   jobs=2))
