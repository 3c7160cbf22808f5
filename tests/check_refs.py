#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every file of the tree that a comment, a doc or a message names must be in the tree
(tests/check-hygiene.sh rule 4). The design notes and firmware facts live in docs/, never in a
file only one machine had, and a renamed script leaves no stale pointer behind.

usage: check_refs.py FILE...  (run from the top of the tree; prints one line per bad reference
and exits 1 when there is one)

What counts as a reference: a word that looks like a path, `dir/.../name` whose first part is a
top-level entry of the tree (tests/fuzz/fuzz_fat.c) or a directory beside the naming file
(cases/faults.txt in tests/qemu/README.md; in .md files only: elsewhere such words are paths at
run time), and any `NAME.md`. It is found when it exists
relative to the top of the tree or to the naming file's directory. {a,b} is expanded and
<name> is a wildcard. Not references: build outputs ($BUILD/..., a program or object named after
its source: stage2/unpack.o), "stage1/stage2" (two parts, "or"), absolute
paths (/EFI/BOOT/...), URLs, and paths relative to something else at run time (../stages next
to the executable). A path that leaves the tree through ../shared/ always counts, and fails.

A section of a document is named two ways, and both must be a heading of that document (so a
moved or renamed section leaves no stale pointer): a quoted title after the file's name,
`docs/FIRMWARE.md "OVMF"` or `README "..."` (README.md; the quote may follow an opening
parenthesis or bracket, and names the heading's start, backticks ignored), and, in .md files,
a link's anchor, `[x](DESIGN.md#alignment)` or `[x](#alignment)` (GitHub's heading slugs).
"""
import glob
import os
import re
import sys

# (file, path) pairs that name something other than a file of this tree; each with its reason.
ALLOW = {
    # a FAT path looked up case-insensitively, not the efi/ directory
    ("tests/unit/test_fat.c", "efi/boot/bootx64.efi"),
    # the name of the built EFI stage in `make size`'s line ($BUILD/efi/BOOTX64.EFI)
    ("efi/efi.mk", "efi/BOOTX64.EFI"),
    # dpkg-buildpackage's own build directory, removed by debian/clean
    ("debian/clean", "debian/build/"),
}
SOURCE_EXTS = (".c", ".asm", ".py", ".sh")

PATH = re.compile(r"(?<![A-Za-z0-9_.$/\\-])((?:\.\./)*[A-Za-z0-9_{},.<>-]+(?:/[A-Za-z0-9_{},.*<>-]+)+/?)")
MD = re.compile(r"(?<![A-Za-z0-9_.$/\\-])[A-Za-z0-9_{},-]+\.md(?![A-Za-z0-9_])(?!\.[A-Za-z0-9_])")
SECTION = re.compile(r"(?<![A-Za-z0-9_.$/\\-])((?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.md|README)"
                     r"'?s? [(\[]?\"([^\"]+)\"")
ANCHOR = re.compile(r"\]\(((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.md)?#([^)\s]+)\)")


def expand(tok):
    m = re.search(r"\{([^{}]*)\}", tok)
    if not m:
        return [tok]
    return [x for alt in m.group(1).split(",")
            for x in expand(tok[:m.start()] + alt + tok[m.end():])]


def exists(name):
    if "<" in name or "*" in name:
        return bool(glob.glob(re.sub(r"<[^<>/]*>", "*", name)))
    return os.path.exists(name)


def built_from_source(name):
    """A program or object named after its source: stage2/unpack.o."""
    stem = name[:-2] if name.endswith(".o") else name
    return any(os.path.isfile(stem + ext) for ext in SOURCE_EXTS)


def headings(doc, _cache={}):
    """(titles, slugs) of a markdown file's headings: titles without backticks, in lower case;
    slugs as GitHub makes them (a repeated one gets -1, -2, ...)."""
    if doc not in _cache:
        titles, slugs, seen = [], set(), {}
        for line in open(doc, encoding="utf-8").read().splitlines():
            m = re.match(r"#{1,6} +(.*?) *#*$", line)
            if not m:
                continue
            title = m.group(1).replace("`", "").strip().lower()
            titles.append(title)
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            slugs.add(slug if n == 0 else f"{slug}-{n}")
        _cache[doc] = (titles, slugs)
    return _cache[doc]


def find_doc(name, base):
    """The markdown file a reference names: README is README.md; beside the naming file, else
    from the top of the tree."""
    name = "README.md" if name == "README" else name
    for cand in (os.path.join(base, name), name):
        if os.path.isfile(cand):
            return cand
    return None


def check_sections(path, base, n, line):
    for doc, title in SECTION.findall(line):
        target = find_doc(doc, base)
        if target is None:
            continue  # the file itself is the path check's business
        want = title.replace("`", "").strip().lower()
        if not any(t.startswith(want) for t in headings(target)[0]):
            yield f"{path}:{n}: {doc} has no section \"{title}\""
    if not path.endswith(".md"):
        return
    for doc, anchor in ANCHOR.findall(line):
        target = find_doc(doc, base) if doc else path
        if target and anchor.lower() not in headings(target)[1]:
            yield f"{path}:{n}: {doc or os.path.basename(path)} has no heading #{anchor}"


def check(path, tops):
    if os.path.normpath(path) == "tests/check_refs.py":
        return  # its examples and ALLOW name what is not in the tree on purpose
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        return
    base = os.path.dirname(path)
    for n, line in enumerate(text.splitlines(), 1):
        yield from check_sections(path, base, n, line)
        toks = [t.rstrip(".,:;") for t in PATH.findall(line)] + MD.findall(line)
        for tok in toks:
            parts = tok.split("/")
            if "../shared/" in tok + "/":
                yield f"{path}:{n}: {tok} (outside the tree)"
                continue
            if tok.startswith("../") or (tok.startswith("./") and not tok.endswith(".md")):
                continue  # relative to something at run time, or to the current directory
            if "/" in tok:
                beside = path.endswith(".md") and bool(base) \
                    and os.path.isdir(os.path.join(base, parts[0]))
                if parts[0] not in tops and not beside:
                    continue
                if len(parts) > 1 and parts[0] in tops and parts[1] in tops:
                    continue  # "stage1/stage2": one or the other
            for name in expand(tok):
                name = name[2:] if name.startswith("./") else name
                here = os.path.join(base, name)
                if (path, name) in ALLOW or exists(name) or exists(here) \
                        or built_from_source(name) or built_from_source(here):
                    continue
                yield f"{path}:{n}: {name}"


def main(files):
    build = os.path.normpath(os.environ.get("BUILD", "build")).split("/")[0]
    tops = {e for e in os.listdir(".")
            if os.path.isdir(e) and not e.startswith(".") and e != build}
    bad = [b for f in files for b in check(f, tops)]
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
