#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The layers of tools/ (docs/DESIGN.md "The map of tools/"), checked from the sources.

tools/ is split into folders, each a layer; each folder's README.md has one line
"May include: `tools/base/`, ..." naming the folders below it that its files may use (or
"May include: nothing in tools/"). A unit is x.c with its x.h (a header alone is a unit too).
Unit A uses unit B when a file of A includes B's header, or names a function or variable that
B's .c defines (so a prototype declared in some other header still counts). Three rules:

  1. every use goes down: to the unit's own folder or to one its README allows;
  2. no cycle: no two units use each other, directly or through other units;
  3. nothing is exported for nobody: a function or variable a .c file defines without `static`
     is named by another file of tools/ or of tests/ (else it is static, or dead).

Usage: check_layers.py [ROOT]   prints one line per problem; exit 1 when there is one.
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'^\s*#\s*include\s*"(tools/[^"]+)\.h"', re.M)
MAY = re.compile(r"^May include:(.*)$", re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case"}


def strip(text):
    """The C text without comments, string and character literals (kept as "")."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: "" if m.group(0)[0] == "/" else '""', text, flags=re.S)


def top_level(code):
    """The text at brace depth 0 (bodies replaced by {}), preprocessor lines dropped."""
    code = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", code, flags=re.M)
    out, depth = [], 0
    for ch in code:
        if ch == "{":
            if depth == 0:
                out.append("{}")
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def exported(code):
    """Functions and variables a .c file defines for other files (without static)."""
    out = set()
    for m in re.finditer(r"([^;]*?)(;|\{\})", top_level(code), re.S):
        stmt, end = m.group(1).strip(), m.group(2)
        words = stmt.split()
        if not words or words[0] in ("static", "extern", "typedef") or "static" in words[:3]:
            continue
        if end == "{}" and not stmt.endswith("="):
            f = re.search(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*"
                          r"(?:__attribute__\s*\(\(.*\)\)\s*)?$", stmt, re.S)
            if f:
                out.add(f.group(1))  # a function body; else a struct, enum or union
            continue
        lhs = stmt.split("=")[0]
        if "(" in lhs or re.fullmatch(r"(struct|enum|union)\s+\w+\s*", lhs):
            continue  # a prototype, a function pointer, a type declaration
        v = re.search(r"\b(\w+)\s*(?:\[[^\]]*\]\s*)*$", lhs)
        if v and len(lhs.split()) >= 2 and v.group(1) not in KEYWORDS:
            out.add(v.group(1))
    return out


def load(root):
    tools = os.path.join(root, "tools")
    folders = sorted(d for d in os.listdir(tools)
                     if os.path.isdir(os.path.join(tools, d)))
    files = {}
    for d in folders:
        for f in sorted(os.listdir(os.path.join(tools, d))):
            if f.endswith((".c", ".h")):
                rel = "/".join(("tools", d, f))
                files[rel] = open(os.path.join(root, rel), encoding="utf-8").read()
    return folders, files


def allowed_map(root, folders, problems):
    allowed = {}
    for d in folders:
        readme = os.path.join(root, "tools", d, "README.md")
        try:
            m = MAY.search(open(readme, encoding="utf-8").read())
        except OSError:
            m = None
        if not m:
            problems.append(f"{readme_name(d)}: no 'May include:' line (what this layer may use)")
            allowed[d] = set()
            continue
        allowed[d] = set(re.findall(r"tools/(\w+)/", m.group(1)))
        for a in sorted(allowed[d] - set(folders)):
            problems.append(f"{readme_name(d)}: may include {folder_name(a)}, which does not exist")
    return allowed


def folder_name(d):
    return "tools/" + d + "/"


def readme_name(d):
    return folder_name(d) + "README.md"


def unit_of(path):
    return path[:-2]


def graph(files):
    """unit -> {used unit: why}, and symbol -> defining unit."""
    defined, code = {}, {}
    for path, text in files.items():
        code[path] = strip(text)
        if path.endswith(".c"):
            for name in exported(code[path]):
                defined[name] = path
    uses = {}
    for path, text in files.items():
        u = unit_of(path)
        edges = uses.setdefault(u, {})
        for inc in INCLUDE.findall(text):
            if inc != u:
                edges.setdefault(inc, f"{path} includes {inc}.h")
        for name in set(IDENT.findall(code[path])):
            at = defined.get(name)
            if at and unit_of(at) != u:
                edges.setdefault(unit_of(at), f"{path} uses {name} ({at})")
    return uses, defined, code


def cycles(uses):
    """Strongly connected groups of more than one unit (Tarjan), each as a list."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in uses.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(uses):
        if v not in index:
            visit(v)
    return out


def cycle_path(uses, group):
    """One closed path through a group: a -> b -> ... -> a, with why each step holds."""
    members, start = set(group), group[0]
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(uses.get(v, {})):
            if w == start:
                steps, x = [uses[v][w]], v
                while prev[x] is not None:
                    steps.append(uses[prev[x]][x])
                    x = prev[x]
                return list(reversed(steps))
            if w in members and w not in prev:
                prev[w] = v
                todo.append(w)
    return []


def unused_exports(root, files, defined, code):
    """Exported names no other file of tools/ or tests/ names."""
    others = {}
    for base, _, names in os.walk(os.path.join(root, "tests")):
        for f in names:
            if f.endswith((".c", ".h")):
                p = os.path.join(base, f)
                others[p] = strip(open(p, encoding="utf-8").read())
    seen = {}
    for path, text in list(code.items()) + list(others.items()):
        for name in set(IDENT.findall(text)):
            seen.setdefault(name, set()).add(path)
    out = []
    for name, at in sorted(defined.items()):
        header = at[:-2] + ".h"
        users = seen.get(name, set()) - {at, header}
        if name != "main" and not users:
            out.append(f"{at}: {name} is exported but no other file uses it (make it static, "
                       "or remove it if nothing calls it)")
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    folders, files = load(root)
    allowed = allowed_map(root, folders, problems)
    uses, defined, code = graph(files)
    for u in sorted(uses):
        for v, why in sorted(uses[u].items()):
            fu, fv = u.split("/")[1], v.split("/")[1]
            if fu != fv and fv not in allowed.get(fu, set()):
                problems.append(f"layer: {why}: {folder_name(fu)} may not use {folder_name(fv)} "
                                f"({readme_name(fu)})")
    for group in cycles(uses):
        problems.append("cycle: " + " -> ".join(cycle_path(uses, group))
                        + f" (units {', '.join(group)})")
    problems += unused_exports(root, files, defined, code)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
