# SPDX-License-Identifier: BSD-2-Clause
"""Files on a FAT file system inside an image, through mtools (Debian package mtools), at a byte
offset ("IMAGE@@OFFSET"), without mtools' geometry check."""
import os
import subprocess


def run(args, image, offset=0, **kw):
    """Runs an mtools command (args[0]: mcopy, mtype, mmd, mdir...) on the file system at
    `offset` of image; returns the CompletedProcess (output as bytes unless text= is given)."""
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    return subprocess.run([args[0], "-i", f"{image}@@{offset}"] + list(args[1:]), env=env,
                          capture_output=True, **kw)


def read(image, offset, path):
    """The bytes of the file at path ("/EFI/BOOT/BOOTX64.EFI"), or None when it cannot be read."""
    r = run(["mtype", f"::{path}"], image, offset)
    return None if r.returncode else r.stdout


def read_text(image, offset, path):
    data = read(image, offset, path)
    return None if data is None else data.decode("latin-1")
