#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""What each object costs stage2 packed: the gap build's body (build/stage2-gap/body.bin: its
size is the one bound) compressed as pack.py does, once whole and once without each object's
code and read-only data (placed by the link map), largest cost first. This is the table docs/DESIGN.md "stage2's size budget"
keeps; run it with `make size-objects`.

usage: size_objects.py BODY MAP BUILD
BODY: the unpacked body; MAP: the link map (stage2.map); BUILD: the build directory, stripped
from the object names."""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pack  # noqa: E402

BODY_START = 0x20000    # linker.ld: where the body is linked; the head lies below it
SECTION_RE = re.compile(r"^ (\.(?:text|rodata|data)\S*)"
                        r"(?:\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+))?$")
CONTINUED_RE = re.compile(r"^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+\.o)$")


def object_ranges(map_lines, build):
    """{object: [(offset in the body, size)]} for the body's input sections."""
    ranges = collections.defaultdict(list)
    for i, line in enumerate(map_lines):
        m = SECTION_RE.match(line)
        if not m:
            continue
        if m.group(2):
            addr, size, obj = m.group(2), m.group(3), m.group(4)
        else:   # a long section name puts address, size and object on the next line
            n = CONTINUED_RE.match(map_lines[i + 1]) if i + 1 < len(map_lines) else None
            if not n:
                continue
            addr, size, obj = n.groups()
        addr, size = int(addr, 16), int(size, 16)
        if addr >= BODY_START and size:
            name = obj.replace(build.rstrip("/") + "/stage2/", "")
            ranges[name].append((addr - BODY_START, size))
    return ranges


def main():
    body_path, map_path, build = sys.argv[1:4]
    with open(body_path, "rb") as f:
        body = f.read()
    with open(map_path) as f:
        ranges = object_ranges(f.read().splitlines(), build)
    whole = len(pack.compress(body))
    rows = []
    for obj, spans in ranges.items():
        keep = bytearray(b"\1") * len(body)
        for at, size in spans:
            keep[at:at + size] = bytes(len(keep[at:at + size]))
        rest = bytes(b for b, k in zip(body, keep) if k)
        rows.append((whole - len(pack.compress(rest)), len(body) - len(rest), obj))
    print(f"body: {whole} bytes packed, {len(body)} unpacked (the x86 filter left out)")
    print(" packed unpacked  object")
    for packed, raw, obj in sorted(rows, reverse=True):
        print(f"{packed:7d} {raw:8d}  {obj}")


if __name__ == "__main__":
    main()
