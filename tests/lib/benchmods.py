# SPDX-License-Identifier: BSD-2-Clause
"""make bench's own modules (bench/) for a harness that checks the bench's machinery
(tests/qemu/readfloor.py): `floor, report = benchmods.load("floor", "report")`. They import
each other by bare name (`import disks`), so each is loaded by its file path, after the ones
it imports, and kept in sys.modules under that name; bench/ never goes on sys.path."""
import importlib.util
import os
import sys

from lib import paths

BENCH = os.path.join(paths.ROOT, "bench")
# what each module imports from bench/, loaded before it
NEEDS = {"floor": ("disks",), "report": ("floor",)}


def _one(name):
    if name in sys.modules:
        return sys.modules[name]
    for need in NEEDS.get(name, ()):
        _one(need)
    spec = importlib.util.spec_from_file_location(name, os.path.join(BENCH, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def load(*names):
    """The modules of bench/ named (without .py), in the order named."""
    return tuple(_one(n) for n in names)
