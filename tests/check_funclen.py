#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Functions of common/ and tools/ are at most 100 lines (docs/DESIGN.md "The map of tools/").

A function's length is its body: from the line of its opening brace to the line of its closing
brace, both counted (the sources put each on a line of its own, at column 0). A function may be
longer only when the comment right above it says why it is one piece, in a sentence that
starts "One piece:" (a format engine whose cases share one state, a size budget).

Usage: check_funclen.py [ROOT] [--all]   prints one line per function too long (with --all,
every function over the limit, allowed or not); exit 1 when one is too long without a reason.
"""
import os
import re
import sys

LIMIT = 100
DIRS = ("common", "tools")
MARK = "One piece:"


def functions(path):
    """(name, first body line, length, comment above) of each function defined in path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line != "{" or i == 0:
            continue
        # the signature: the lines above up to a blank line, a comment end or a ';' / '}' line
        j = i - 1
        while j > 0 and lines[j - 1].strip() and not lines[j - 1].rstrip().endswith(("*/", ";", "}")) \
                and not lines[j - 1].startswith("#"):
            j -= 1
        sig = " ".join(lines[j:i])
        m = re.search(r"(\w+)\s*\(", sig)
        if not m or re.match(r"\s*(struct|enum|union)\b[^(]*$", sig):
            continue
        k = i + 1
        while k < len(lines) and lines[k] != "}":
            k += 1
        c, comment = j - 1, []
        if c >= 0 and lines[c].rstrip().endswith("*/"):
            while c >= 0:
                comment.insert(0, lines[c])
                if lines[c].lstrip().startswith("/*"):
                    break
                c -= 1
        out.append((m.group(1), i + 1, k - i + 1, " ".join(comment)))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_all = "--all" in sys.argv
    root = args[0] if args else "."
    bad = 0
    for d in DIRS:
        for base, _, names in sorted(os.walk(os.path.join(root, d))):
            for f in sorted(names):
                if not f.endswith(".c"):
                    continue
                path = os.path.join(base, f)
                rel = os.path.relpath(path, root)
                for name, line, length, comment in functions(path):
                    if length <= LIMIT:
                        continue
                    allowed = MARK in " ".join(comment.split())
                    if not allowed:
                        bad += 1
                        print(f"{rel}:{line}: {name} is {length} lines (at most {LIMIT}; a longer "
                              f"one needs a comment above it saying \"{MARK}\" why)")
                    elif show_all:
                        print(f"{rel}:{line}: {name} is {length} lines (one piece)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
