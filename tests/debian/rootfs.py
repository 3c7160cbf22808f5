# SPDX-License-Identifier: BSD-2-Clause
"""The Debian 12 system test-debian boots: a root filesystem tree made by mmdebstrap from the
Debian archive apt uses, cached as a tarball under $BUILD/debian keyed by everything that goes
into it (package list, sources, mmdebstrap's arguments), so a second run costs only the
extraction; anysector's own .deb (make deb) and the test's guest files are put into a fresh
copy of it every run (they change with the tree, the Debian packages do not).

    tar, made = rootfs.tarball(rootfs.debian_sources(), rootfs.packages(deb), log)
    base, (package, update) = rootfs.kernel_release(tar), rootfs.second_kernel(tar)
    rootfs.make_tree(tar, tree, deb, log)
    ... mkimage --root-dir tree ...
    rootfs.put_file(img, offset, "/etc/default/anysector", local, log)
"""
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess

from lib import paths
from lib.results import CaseFailure

HERE = os.path.dirname(os.path.abspath(__file__))
GUEST = os.path.join(HERE, "guest")
CACHE = paths.build("debian")
SUITE = "bookworm"
SUITES = re.compile(r"^bookworm(-updates|-security)?$")   # Debian's own; not a third party's
# What the system needs beyond minbase: systemd as init, udev, Debian's generic kernel and the
# initramfs-tools that builds its initrd. anysector's own dependencies come from the .deb
# (packages()), so that dpkg -i of it needs nothing from the network. The kernel installed later
# in the guest is the cloud flavour of the same ABI: dpkg's version order (the hooks' "newest")
# puts 6.1.0-57-cloud-amd64 after 6.1.0-57-amd64, and its package is a quarter of the size.
# zstd: update-initramfs's default compressor, which apt would install as initramfs-tools's
# Recommends (mmdebstrap installs none; without it update-initramfs warns and uses gzip).
# systemd-boot: bootctl and systemd-bless-boot, systemd's side of the Boot Loader Interface (step
# bli). Its postinst installs systemd-boot only where `bootctl --print-esp-path` finds an ESP,
# which mmdebstrap's chroot has none of, and its kernel and initramfs hooks act only where
# `bootctl is-installed` (a non-empty /EFI/systemd/ on the ESP), which anysector's ESP never is;
# its systemd-boot-system-token.service has ConditionVirtualization=no. So it installs nothing
# and the ESP stays anysector's. dbus: systemd-logind, which `systemctl reboot
# --boot-loader-entry=` asks (without a bus systemctl says "Failed to connect to bus").
BASE_PACKAGES = ("systemd-sysv", "udev", "linux-image-amd64", "initramfs-tools", "zstd",
                 "systemd-boot", "dbus")
# The second kernel, the cloud flavour of the installed kernel's ABI, fetched into /root/kernel/
# by the chroot's own apt: its ABI is the tarball's by construction, and the host's apt lists
# play no part (the archive keeps only the newest ABI, so a later download could find none).
KERNEL_HOOK = ('--customize-hook=mkdir -p "$1/root/kernel" && '
               'v=$(basename "$1"/boot/vmlinuz-*-amd64) && v=${v#vmlinuz-} && '
               'chroot "$1" sh -c "cd /root/kernel && '
               'apt-get download linux-image-${v%-amd64}-cloud-amd64"')
MMDEBSTRAP_ARGS = ("--variant=minbase", "--format=tar", KERNEL_HOOK)
MMDEBSTRAP_TIMEOUT = 1800

# Units a TCG boot does not want: a getty on ttyS0 hangs the line up under the test's writer,
# the rest are timers that would start package or filesystem work in the middle of a test.
MASKED = ("serial-getty@ttyS0.service", "getty@tty1.service", "apt-daily.timer",
          "apt-daily-upgrade.timer", "dpkg-db-backup.timer", "e2scrub_all.timer",
          "e2scrub_reap.service", "fstrim.timer")
UNIT = "anysector-debtest.service"
# the units of GUEST and the target that wants each
UNITS = ((UNIT, "multi-user.target"), ("anysector-debtest-prebless.service", "basic.target"))
HOSTNAME = "anysector-debtest"
FSTAB = ("# the ESP as Debian's installer mounts it; the device timeout is for TCG on a busy host\n"
         "LABEL=ESP /boot/efi vfat umask=0077,x-systemd.device-timeout=600s 0 2\n")
# The initrd of the kernel installed in the guest: only the modules this machine needs
# (MODULES=dep), which is what makes update-initramfs fast under TCG. (The tree's own kernel got
# Debian's default, MODULES=most, in mmdebstrap's chroot, where dep cannot work.)
INITRAMFS_CONF_SET = {"MODULES": "dep"}


def run(cmd, what, timeout=600, log=None):
    """Runs cmd; CaseFailure naming `what` (and the output's tail) when it fails."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CaseFailure(f"{what}: still running after {timeout} s: {' '.join(cmd)}")
    if log:
        with open(log, "a") as f:
            f.write(f"$ {' '.join(cmd)}\n{p.stdout}{p.stderr}\n")
    if p.returncode:
        raise CaseFailure(f"{what} failed (exit {p.returncode}): {' '.join(cmd)}\n"
                          + (p.stdout + p.stderr)[-2000:])
    return p.stdout


def _stanzas(path):
    """The deb entries of one apt sources file as (uri, [suites], [components]), one-line
    (.list) or deb822 (.sources) format."""
    with open(path) as f:
        text = f.read()
    found = []
    if path.endswith(".list"):
        for line in text.split("\n"):
            line = re.sub(r"\[[^]]*\]", "", line.split("#")[0]).split()
            if len(line) >= 3 and line[0] == "deb":
                found.append((line[1], [line[2]], line[3:]))
        return found
    for block in re.split(r"\n\s*\n", text):
        fields = {}
        for line in block.split("\n"):
            m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
            if m and not line.startswith("#"):
                fields[m.group(1).lower()] = m.group(2).split()
        if "deb" in fields.get("types", []) and fields.get("enabled", ["yes"]) != ["no"]:
            for uri in fields.get("uris", []):
                found.append((uri, fields.get("suites", []), fields.get("components", [])))
    return found


def debian_sources():
    """The host's apt entries for Debian 12 (bookworm, -updates, -security: the archive apt uses)
    as one-line sources.list text for mmdebstrap, main only."""
    files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")
                                              + glob.glob("/etc/apt/sources.list.d/*.sources"))
    lines = []
    for path in files:
        if not os.path.exists(path):
            continue
        for uri, suites, comps in _stanzas(path):
            for s in suites:
                line = f"deb {uri} {s} main"
                if SUITES.match(s) and "main" in comps and line not in lines:
                    lines.append(line)
    if not any(ln.split()[2] == SUITE for ln in lines):
        raise CaseFailure("apt has no Debian bookworm entry in /etc/apt/sources.list or "
                          "/etc/apt/sources.list.d/ (mmdebstrap needs the archive apt uses)")
    return "\n".join(lines) + "\n"


def packages(deb):
    """BASE_PACKAGES and the Depends of anysector's .deb (the first of each alternative, no
    versions, no substitution variables left), sorted."""
    depends = run(["dpkg-deb", "-f", deb, "Depends"], "reading the package's Depends").strip()
    names = set(BASE_PACKAGES)
    for dep in filter(None, (d.strip() for d in depends.split(","))):
        names.add(re.split(r"[\s(:]", dep.split("|")[0].strip())[0])
    return sorted(names)


def tarball(sources, pkgs, log):
    """$BUILD/debian/rootfs-<key>.tar, made by mmdebstrap when not there yet (older ones are
    removed). The key is the hash of the sources, the packages and the arguments. One run at a
    time makes it (a lock beside it): the next waits and finds it made."""
    key = hashlib.sha256("\n".join([sources, " ".join(pkgs), " ".join(MMDEBSTRAP_ARGS)])
                         .encode()).hexdigest()[:16]
    out = os.path.join(CACHE, f"rootfs-{key}.tar")
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "rootfs.lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("debian: waiting for the root filesystem tarball another run is making "
                  "(make test's background job test-debian-prepare)", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(out):
            return out, False
        return _make_tarball(out, sources, pkgs, log), True


def _make_tarball(out, sources, pkgs, log):
    """mmdebstrap's tarball at out, made through out.part (a killed run leaves no tarball)."""
    for old in glob.glob(os.path.join(CACHE, "rootfs-*.tar*")):
        os.unlink(old)
    src = os.path.join(CACHE, "sources.list")
    with open(src, "w") as f:
        f.write(sources)
    part = out + ".part"
    run(["mmdebstrap", *MMDEBSTRAP_ARGS, "--include=" + ",".join(pkgs), SUITE, part, src],
        "mmdebstrap", MMDEBSTRAP_TIMEOUT, log)
    os.rename(part, out)
    return out


def kernel_release(tar):
    """The release (uname -r) of the one kernel in the tarball, e.g. 6.1.0-57-amd64."""
    names = run(["tar", "-tf", tar, "--wildcards", "./boot/vmlinuz-*"],
                "listing the tarball's kernels").split()
    if len(names) != 1:
        raise CaseFailure(f"want one kernel in {tar}'s /boot, found {len(names)}: {names}")
    return os.path.basename(names[0])[len("vmlinuz-"):]


def second_kernel(tar):
    """The second kernel's package in the tarball's /root/kernel/: (package, release), e.g.
    (linux-image-6.1.0-57-cloud-amd64, 6.1.0-57-cloud-amd64)."""
    names = run(["tar", "-tf", tar, "--wildcards", "./root/kernel/*.deb"],
                "listing the tarball's /root/kernel").split()
    if len(names) != 1:
        raise CaseFailure(f"want one package in {tar}'s /root/kernel, found {len(names)}: {names}")
    package = os.path.basename(names[0]).split("_")[0]
    return package, package[len("linux-image-"):]


def _write(tree, path, text, mode=0o644):
    full = os.path.join(tree, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    os.chmod(full, mode)


def _set_conf(tree, path, values):
    """Sets KEY=value lines of a shell-style configuration file (replaced where present,
    appended where not)."""
    full = os.path.join(tree, path.lstrip("/"))
    with open(full) as f:
        lines = f.read().split("\n")
    for key, value in values.items():
        new = f"{key}={value}"
        hits = [i for i, ln in enumerate(lines) if re.match(rf"^\s*{key}=", ln)]
        if hits:
            lines[hits[0]] = new
        else:
            lines.insert(len(lines) - 1 if lines and lines[-1] == "" else len(lines), new)
    with open(full, "w") as f:
        f.write("\n".join(lines))


def make_tree(tar, tree, deb, log):
    """A fresh tree from the tarball (the second kernel's package is in its /root/kernel/) with
    anysector's .deb installed (dpkg -i in a chroot) and the test's guest setup (GUEST's script
    and units, fstab, hostname, root without a password, masked units, timeouts,
    initramfs.conf)."""
    if os.path.exists(tree):
        shutil.rmtree(tree)
    os.makedirs(tree)
    run(["tar", "-C", tree, "--numeric-owner", "-xpf", tar], "unpacking the root filesystem",
        log=log)
    shutil.copy(deb, os.path.join(tree, "tmp", "anysector.deb"))
    run(["chroot", tree, "dpkg", "-i", "/tmp/anysector.deb"], "dpkg -i anysector.deb in the "
        "tree", log=log)
    os.unlink(os.path.join(tree, "tmp", "anysector.deb"))

    _write(tree, "/etc/hostname", HOSTNAME + "\n")
    _write(tree, "/etc/fstab", FSTAB)
    os.makedirs(os.path.join(tree, "boot", "efi"), exist_ok=True)
    shadow = os.path.join(tree, "etc", "shadow")
    with open(shadow) as f:
        text = f.read()
    with open(shadow, "w") as f:
        f.write(re.sub(r"(?m)^root:[^:]*:", "root::", text))
    systemd = os.path.join(tree, "etc", "systemd", "system")
    for unit in MASKED:
        os.symlink("/dev/null", os.path.join(systemd, unit))
    # A udev coldplug or a device under TCG on a loaded host can take longer than systemd's
    # 90 s defaults; the test's hang guards are the host's, not systemd's.
    _write(tree, "/etc/systemd/system.conf.d/anysector-debtest.conf",
           "[Manager]\nDefaultDeviceTimeoutSec=600s\nDefaultTimeoutStartSec=600s\n")
    _set_conf(tree, "/etc/initramfs-tools/initramfs.conf", INITRAMFS_CONF_SET)
    shutil.copy(os.path.join(GUEST, "anysector-debtest"),
                os.path.join(tree, "usr", "local", "sbin", "anysector-debtest"))
    os.chmod(os.path.join(tree, "usr", "local", "sbin", "anysector-debtest"), 0o755)
    for unit, target in UNITS:
        shutil.copy(os.path.join(GUEST, unit), os.path.join(systemd, unit))
        wants = os.path.join(systemd, f"{target}.wants")
        os.makedirs(wants, exist_ok=True)
        os.symlink(f"/etc/systemd/system/{unit}", os.path.join(wants, unit))


def config_text(tree, values):
    """The package's /etc/default/anysector from the tree with values (KEY: value) set."""
    with open(os.path.join(tree, "etc", "default", "anysector")) as f:
        text = f.read()
    for key, value in values.items():
        text, n = re.subn(rf"(?m)^{key}=.*$", lambda _: f"{key}={value}", text)
        if not n:
            text += f"{key}={value}\n"
    return text


def config_value(tree, key):
    """A value set in the tree's /etc/default/anysector (quotes removed), or None."""
    with open(os.path.join(tree, "etc", "default", "anysector")) as f:
        m = re.search(rf"(?m)^{key}=(.*)$", f.read())
    return m.group(1).strip().strip('"') if m else None


def put_file(img, offset, path, local, log):
    """Replaces the file `path` in the ext4 filesystem at byte `offset` of the image with the
    bytes of `local` (debugfs -w: no mount, no loop device) and reads it back."""
    fs = f"{img}?offset={offset}"
    where, name = os.path.split(path)
    p = subprocess.run(["debugfs", "-w", "-f", "-", fs], input=f"cd {where}\nrm {name}\n"
                       f"write {local} {name}\n", capture_output=True, text=True, timeout=120)
    if log:
        with open(log, "a") as f:
            f.write(f"$ debugfs -w {fs}: write {local} {path}\n{p.stdout}{p.stderr}\n")
    back = run(["debugfs", "-R", f"cat {path}", fs], f"reading {path} back with debugfs")
    with open(local) as f:
        if back != f.read():
            raise CaseFailure(f"debugfs did not write {path} into {img} at byte {offset}:\n"
                              + (p.stdout + p.stderr)[-1500:])
