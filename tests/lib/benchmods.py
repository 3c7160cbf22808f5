# SPDX-License-Identifier: BSD-2-Clause
"""make bench's own modules (bench/) for a harness that checks the bench's machinery
(tests/qemu/readfloor.py): `floor, report = benchmods.load("floor", "report")`. They import
each other by bare name (`import disks`), so each is loaded by its file path, after the bench/
modules its own imports name, and kept in sys.modules under that name; bench/ never goes on
sys.path."""
import ast
import importlib.util
import os
import sys

from lib import paths

BENCH = os.path.join(paths.ROOT, "bench")


def _bench_imports(path):
    """The modules of bench/ that the file at path imports at its top level."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = [a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names]
    return [n for n in names if os.path.exists(os.path.join(BENCH, n + ".py"))]


def _one(name):
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(BENCH, name + ".py")
    for need in _bench_imports(path):
        _one(need)
    spec = importlib.util.spec_from_file_location(name, path)
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
