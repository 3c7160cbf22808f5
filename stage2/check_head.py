#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Checks that stage2's head calls nothing in the compressed body before unpacking it: every
direct call or jump in .head must land inside .head, except the one hand-over to stage2_main.

usage: check_head.py ELF"""
import re
import subprocess
import sys

ALLOWED = {"stage2_main"}


def main():
    elf = sys.argv[1]
    hdr = subprocess.run(["objdump", "-h", elf], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^\s*\d+\s+\.head\s+([0-9a-f]+)\s+([0-9a-f]+)", hdr, re.M)
    if not m:
        sys.exit(f"check_head.py: {elf} has no .head section")
    size, start = int(m.group(1), 16), int(m.group(2), 16)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".head", elf], check=True,
                         capture_output=True, text=True).stdout
    bad = []
    for line in dis.splitlines():
        c = re.search(r"\b(call|j[a-z]+)\s+([0-9a-f]+)\s+<([^>+]+)", line)
        if not c:
            continue
        target, name = int(c.group(2), 16), c.group(3)
        if not start <= target < start + size and name not in ALLOWED:
            bad.append(line.strip())
    if bad:
        sys.exit("check_head.py: stage2's head reaches into the compressed body:\n  " + "\n  ".join(bad))


if __name__ == "__main__":
    main()
