# SPDX-License-Identifier: BSD-2-Clause
"""Running the installer (`anysector`) from a test: its output, a sanitizer report found in it,
and the mkimage command line the boot harnesses build their disks with."""
import os
import subprocess
import tempfile

from lib import paths

# What ASan, LSan and UBSan print when they find something (the ASan build exits nonzero too,
# but a report is a failure whatever the exit status).
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def sanitizer_report(output):
    return any(m in output for m in SANITIZER_MARKERS)


def workdir():
    """The directory the installer runs in: $TMPDIR (a Suite's work directory, or the one
    tests/run-suites.sh gives each suite), else the system's. Never the source tree: install
    writes its default backup file of a block device (./anysector-backup-DEV) there."""
    d = os.environ.get("TMPDIR")
    return d if d and os.path.isdir(d) else tempfile.gettempdir()


def run(args, binary=paths.ASAN_ANYSECTOR, env=None, stdin=None, timeout=120, prefix=()):
    """Runs `prefix... binary args...` (prefix: a wrapper such as lib.strace.command) with text
    output, in workdir(); subprocess.TimeoutExpired after timeout s."""
    return subprocess.run(list(prefix) + [binary] + [str(a) for a in args], capture_output=True,
                          text=True, errors="replace", input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, env=env,
                          timeout=timeout, cwd=workdir())


def mkimage_command(out, size, label, logical, physical, stages, kernel, initrd=None,
                    cmdline=None, menu=None, binary=paths.ANYSECTOR, extra=()):
    """`anysector mkimage` of a disk image: label gpt|mbr, logical/physical sector sizes (the
    physical size is given only when it differs), the stages directory, one entry; menu: the
    boot menu's countdown in seconds (--timeout). Label any: one GPT image for every sector size
    (--sector-size any; the sizes are then the disk's, not the image's)."""
    if label == "any":
        cmd = [binary, "mkimage", out, "--size", size, "--label", "gpt", "--sector-size", "any"]
    else:
        cmd = [binary, "mkimage", out, "--size", size, "--label", label, "--sector-size",
               str(logical)]
        if physical != logical:
            cmd += ["--physical-size", str(physical)]
    cmd += ["--stages", stages, "--kernel", kernel]
    if initrd:
        cmd += ["--initrd", initrd]
    if cmdline is not None:
        cmd += ["--cmdline", cmdline]
    if menu is not None:
        cmd += ["--timeout", str(menu)]
    return cmd + list(extra)
