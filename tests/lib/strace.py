# SPDX-License-Identifier: BSD-2-Clause
"""A program's system calls, in order: `command(trace)` is the strace prefix to run it under,
`parse(trace)` reads the trace back as `Call`s. strace prints every string and every fd's path as
\\xHH (-xx, -y), so no file name can confuse the parse; -f follows children."""
import collections
import os
import re

from lib import tool

# What the durable-write checks need: files made, written, synced, renamed, removed.
CALLS = ("openat", "open", "creat", "write", "pwrite64", "fsync", "fdatasync", "close", "rename",
         "renameat", "renameat2", "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir")

# One argument: a quoted string ("\x61..."), an fd with its path (3<\x2f...>) or anything else.
STR_RE = re.compile(r'"((?:\\x[0-9a-f]{2})*)"(\.\.\.)?')
FD_RE = re.compile(r"(-?\d+|AT_FDCWD)<((?:\\x[0-9a-f]{2})*)>")
LINE_RE = re.compile(r"^(\d+) +(\w+)\((.*)\) += (-?\d+|\?)(?:<((?:\\x[0-9a-f]{2})*)>)?")
HEX_RE = re.compile(r"\\x([0-9a-f]{2})")

# name: the call; args: per argument bytes (a string), Fd (an fd and its path) or str (as
# strace printed it); ret: the result (None when strace printed "?"); path: the path of a
# returned fd; cut: a string argument was longer than strace's -s and is incomplete.
Call = collections.namedtuple("Call", "index pid name args ret path cut")
Fd = collections.namedtuple("Fd", "fd path")


def command(trace, calls=CALLS, env=()):
    """The argv prefix running a program under strace into the file trace; env: NAME=VALUE
    strings set for the program only."""
    cmd = ["strace", "-f", "-q", "-y", "-xx", "-s", str(1 << 20), "-o", trace,
           "-e", "trace=" + ",".join("?" + c for c in calls)]  # "?": a call this arch lacks
    for e in env:
        cmd += ["-E", e]
    return cmd + ["--"]


def unhex(s):
    return bytes(int(h, 16) for h in HEX_RE.findall(s))


def text(s):
    return unhex(s).decode("utf-8", "surrogateescape")


def parse_args(raw):
    """The arguments as printed: hex strings and paths hold no ", ", so it separates them."""
    args, cut = [], False
    for a in raw.split(", ") if raw else []:
        m, f = STR_RE.fullmatch(a), FD_RE.fullmatch(a)
        if m:
            args.append(unhex(m.group(1)))
            cut = cut or m.group(2) is not None
        elif f:
            args.append(Fd(-100 if f.group(1) == "AT_FDCWD" else int(f.group(1)), text(f.group(2))))
        else:
            args.append(a)
    return args, cut


def parse(trace):
    """The calls of the trace file in the order they ran. A call another process interrupted
    (<unfinished ...> ... <... resumed>) is joined back into one. Lines that are no call (signals,
    exits) are left out."""
    calls, pending = [], {}
    with open(trace) as f:
        for line in f:
            line = line.rstrip("\n")
            pid, _, rest = line.partition(" ")
            rest = rest.lstrip()
            if rest.endswith("<unfinished ...>"):
                pending[pid] = rest[:-len("<unfinished ...>")].rstrip()
                continue
            m = re.match(r"<\.\.\. \w+ resumed>(.*)", rest)
            if m and pid in pending:
                rest = pending.pop(pid) + m.group(1)
            m = LINE_RE.match(pid + " " + rest)
            if not m:
                continue
            args, cut = parse_args(m.group(3))
            ret = None if m.group(4) == "?" else int(m.group(4))
            path = text(m.group(5)) if m.group(5) is not None else None
            calls.append(Call(len(calls), int(m.group(1)), m.group(2), args, ret, path, cut))
    return calls


# One change to the file system, from a call that succeeded: kind "create" (a new file opened),
# "write" (data at offset; offset None: at the file's position), "sync", "rename" (path, then
# dst), "remove" (a file or a directory) or "mkdir"; path and dst absolute.
Op = collections.namedtuple("Op", "index kind path dst offset data cut")


def _at(dirfd, p, cwd):
    p = p.decode("utf-8", "surrogateescape")
    if p.startswith("/"):
        return p
    return os.path.join(dirfd.path if isinstance(dirfd, Fd) and dirfd.fd != -100 else cwd, p)


def fs_ops(calls, cwd):
    """The file-system changes of calls that succeeded, in order; relative paths resolved against
    their directory fd or cwd (the program's working directory)."""
    ops = []

    def op(c, kind, path, dst=None, offset=None, data=None):
        ops.append(Op(c.index, kind, path, dst, offset, data, c.cut))

    for c in calls:
        a, n = c.args, c.name
        if c.ret is None or c.ret < 0:
            continue
        if n in ("openat", "open") and "O_CREAT" in str(a[-2 if n == "openat" else 1]) and c.path:
            op(c, "create", c.path)
        elif n == "creat" and c.path:
            op(c, "create", c.path)
        elif n in ("write", "pwrite64") and isinstance(a[0], Fd):
            op(c, "write", a[0].path, offset=int(a[3]) if n == "pwrite64" else None, data=a[1])
        elif n in ("fsync", "fdatasync") and isinstance(a[0], Fd):
            op(c, "sync", a[0].path)
        elif n == "rename":
            op(c, "rename", _at(None, a[0], cwd), _at(None, a[1], cwd))
        elif n in ("renameat", "renameat2"):
            op(c, "rename", _at(a[0], a[1], cwd), _at(a[2], a[3], cwd))
        elif n in ("unlink", "rmdir"):
            op(c, "remove", _at(None, a[0], cwd))
        elif n == "unlinkat":
            op(c, "remove", _at(a[0], a[1], cwd))
        elif n == "mkdir":
            op(c, "mkdir", _at(None, a[0], cwd))
        elif n == "mkdirat":
            op(c, "mkdir", _at(a[0], a[1], cwd))
    return ops


def traced(suite, *args, **kw):
    """suite.anysector(*args, **kw) (lib.suite) under strace: the file-system changes it made, in
    order (fs_ops); the trace is kept in the suite's work directory."""
    trace = suite.path("strace-%s.txt" % args[0])
    # LeakSanitizer cannot run under ptrace; the untraced runs keep checking for leaks
    suite.anysector(*args, prefix=command(trace, env=["ASAN_OPTIONS=detect_leaks=0"]), **kw)
    return fs_ops(parse(trace), tool.workdir())


def written(writes):
    """The bytes a file holds after writes ("write" ops from its creation on)."""
    buf, pos = bytearray(), 0
    for w in writes:
        off = pos if w.offset is None else w.offset
        buf[len(buf):off] = bytes(max(0, off - len(buf)))
        buf[off:off + len(w.data)] = w.data
        pos = off + len(w.data)
    return bytes(buf)


def synced_after(ops, path, index):
    """The first fsync of path after call index, or None."""
    return next((o for o in ops if o.kind == "sync" and o.path == path and o.index > index), None)
