# SPDX-License-Identifier: BSD-2-Clause
"""A running system's mounted ESP, for the harnesses that change a disk through it
(test-live-tools, test-lock). vfat cannot be mounted on every test machine, so the mount is
declared in a mountinfo file that anysector reads instead of /proc/self/mountinfo
(ANYSECTOR_TEST_MOUNTINFO, tools/dev/mounts.h), and its mount point is a plain directory
holding a copy of the ESP's files."""
import contextlib
import os
import shutil

from lib import mtools
from lib.disk import Loop

MOUNTINFO = "ANYSECTOR_TEST_MOUNTINFO"


def declare_mounted(s, lo, part, mnt, opts="rw,relatime"):
    """A mountinfo file: the real one plus part mounted on the plain directory mnt as vfat."""
    with open("/sys/class/block/%s/dev" % os.path.basename(part)) as f:
        devno = f.read().strip()
    path = s.path("mountinfo")
    with open("/proc/self/mountinfo") as f:
        real = f.read()
    with open(path, "w") as f:
        f.write(real + "999 1 %s / %s %s - vfat %s rw\n" % (devno, mnt, opts, part))
    os.environ[MOUNTINFO] = path


@contextlib.contextmanager
def esp_mounted(s, img, k, name, lss=512):
    """img (lss-byte sectors) installed with an entry "first" (kernel k), its ESP behind a loop
    device and declared mounted on the plain directory name (a copy of its files); yields
    (loop, esp node, mount)."""
    s.anysector("install", img, "--backup", s.path(name + "-first.bak"))
    s.anysector("add", img, "--kernel", k, "--name", "first")
    with Loop(img, lss) as lo:
        lo.scan()
        esp = lo.dev + "p2"
        mnt = os.path.realpath(s.path(name))  # as the kernel names it in strace's fd paths
        shutil.rmtree(mnt, ignore_errors=True)
        os.makedirs(mnt)
        r = mtools.run(["mcopy", "-s", "-n", "::/*", mnt + "/"], esp, 0)
        s.check(r.returncode == 0, "mcopy -s: %r" % r.stderr)
        declare_mounted(s, lo, esp, mnt)
        try:
            yield lo, esp, mnt
        finally:
            os.environ.pop(MOUNTINFO, None)
