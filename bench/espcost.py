# SPDX-License-Identifier: BSD-2-Clause
"""What `anysector add` costs against the size of the ESP (issue 31): the bench's kernel and 64 MiB
initrd added onto ESPs of 256 MiB, 1 GiB and 4 GiB of a loop device (a block device: no holes to
skip), against dd writing and fsyncing the same bytes to the same device; unmounted (a copy for
mtools, turned into journalled sector writes) and mounted (the files through the filesystem).
Caches are dropped before every timed command. Each sample records the wall time and the peak
RSS of the command and its children (mtools)."""
import contextlib
import json
import os
import subprocess
import time

import disks
from lib.disk import Loop

MiB = 1 << 20
SIZES = [256 * MiB, 1 << 30, 4 << 30]
TAIL = 128 * MiB          # unpartitioned space after the ESP, where dd writes
GOAL = 3.0                # add at most GOAL x dd's time, flat across the sizes


def case_name(size):
    return "esp-add-" + (f"{size >> 30}G" if size % (1 << 30) == 0 else f"{size >> 20}M")


CASES = [case_name(s) for s in SIZES]


class Dropper:
    """Drops the page cache before a timed command: every cache (/proc/sys/vm/drop_caches) where
    that is allowed, else the loop device's buffers (BLKFLSBUF) and the pages of the files
    involved (POSIX_FADV_DONTNEED). `how` says which, for the report."""

    def __init__(self, files):
        self.files = files
        try:
            self._all()
            self.how = "all page caches dropped (`echo 3 > /proc/sys/vm/drop_caches`)"
        except OSError:
            self.how = ("/proc/sys/vm/drop_caches is not writable here: the loop device's "
                        "buffers flushed (`blockdev --flushbufs`) and the pages of its backing "
                        "file, the kernel and the initrd dropped (`POSIX_FADV_DONTNEED`)")

    @staticmethod
    def _all():
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")

    def drop(self, dev):
        os.sync()
        if self.how.startswith("all"):
            self._all()
            return
        subprocess.run(["blockdev", "--flushbufs", dev], capture_output=True)
        for p in self.files:
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def timed(cmd, env=None, tmp="."):
    """Runs cmd; returns (seconds, peak RSS in bytes of it or any child it waited for, output).
    The RSS comes from GNU time (Debian package time) starting cmd: a child forked from this
    Python process would start out with the bench's own resident memory as its high-water mark.
    DiskError when it fails."""
    out_rss = os.path.join(tmp, "espcost-time.txt")
    wrap = ["/usr/bin/time", "-f", "%M", "-o", out_rss] if os.path.exists("/usr/bin/time") else []
    t0 = time.monotonic()
    p = subprocess.run(wrap + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    seconds = time.monotonic() - t0
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode:
        raise disks.DiskError(f"{' '.join(cmd[:2])} failed (exit {p.returncode}): "
                              f"{out.strip()[-400:]}")
    rss = 0
    if wrap:
        with open(out_rss) as f:
            rss = int(f.read().split()[-1]) * 1024
        os.unlink(out_rss)
    return seconds, rss, out


@contextlib.contextmanager
def mounted(part, tmp, env):
    """The ESP (partition node part) mounted on tmp/mnt; yields (env for anysector, how). Where
    vfat cannot be mounted (some containers), its files are copied (mcopy -s) into an ext4 on a
    second loop device, mounted there and declared to anysector as the ESP's vfat mount
    (ANYSECTOR_TEST_MOUNTINFO, tools/dev/mounts.h, as test-live-tools does): the files then go
    through a real filesystem on a block device all the same."""
    mnt = os.path.join(tmp, "mnt")
    os.makedirs(mnt, exist_ok=True)
    if not subprocess.run(["mount", "-t", "vfat", part, mnt], capture_output=True).returncode:
        try:
            yield env, "vfat"
        finally:
            subprocess.run(["umount", mnt], capture_output=True)
        return
    ext4 = os.path.join(tmp, "espcost-ext4.img")
    with open(ext4, "wb") as f:
        f.truncate(512 * MiB)
    disks.run(["mkfs.ext4", "-q", "-F", ext4])
    with Loop(ext4, 512) as lo:
        try:
            disks.run(["mount", lo.dev, mnt])
            disks.run(["mcopy", "-s", "-n", "-i", part, "::/*", mnt + "/"])
            with open("/sys/class/block/%s/dev" % os.path.basename(part)) as f:
                devno = f.read().strip()
            info = os.path.join(tmp, "mountinfo")
            with open("/proc/self/mountinfo") as f, open(info, "w") as o:
                o.write(f.read() + "999 1 %s / %s rw,relatime - vfat %s rw\n"
                        % (devno, os.path.abspath(mnt), part))
            yield dict(env, ANYSECTOR_TEST_MOUNTINFO=info), (
                "vfat cannot be mounted here: the ESP's files copied into ext4 on a second loop "
                "device, declared to anysector as the ESP's mount (ANYSECTOR_TEST_MOUNTINFO)")
        finally:
            subprocess.run(["umount", mnt], capture_output=True)
            os.unlink(ext4)


def esp_end(tool, dev):
    """The byte just after the boot partition and its number, from info --json."""
    j = json.loads(disks.run([tool, "info", dev, "--json"]))
    lss = j["topology"]["logical_sector_size"]
    p = [p for p in j["partitions"] if p.get("boot_partition")][0]
    return (p["start"] + p["sectors"]) * lss, p["number"]


def one_size(size, runs, tool, stages, kernel, initrd, tmp, log):
    """The samples of one ESP size: {"dd": [...], "add": [...], "mounted": [...]}, each a list
    of (seconds, rss)."""
    img = os.path.join(tmp, f"{case_name(size)}.img")
    payload = os.path.join(tmp, "espcost-payload.bin")
    with open(payload, "wb") as o:
        for p in (kernel, initrd):
            with open(p, "rb") as f:
                o.write(f.read())
    if os.path.exists(img):
        os.unlink(img)
    with open(img, "wb") as f:
        f.truncate(2 * MiB + size + TAIL)
    env = dict(os.environ, TMPDIR=os.path.abspath(tmp))
    disks.run([tool, "partition", img, "--esp-size", f"{size >> 20}M", "--no-rest"], env=env)
    disks.run([tool, "install", img, "--stages", stages, "--backup", img + ".bak"], env=env)
    os.unlink(img + ".bak")
    drop = Dropper([img, kernel, initrd, payload])
    how_mounted = ""
    out = {"dd": [], "add": [], "mounted": []}
    add = ["--kernel", kernel, "--initrd", initrd, "--name", "bench"]
    with Loop(img, 512) as lo:
        lo.scan()
        dev = lo.dev
        end, number = esp_end(tool, dev)
        bak = os.path.join(tmp, "espcost.bak")
        for r in range(runs):
            drop.drop(dev)
            s = timed(["dd", f"if={payload}", f"of={dev}", "bs=1M", f"seek={end}",
                       "oflag=seek_bytes", "conv=fsync,notrunc", "status=none"], tmp=tmp)
            out["dd"].append(s[:2])
            for key in ("add", "mounted"):
                with contextlib.ExitStack() as st:
                    e = env
                    if key == "mounted":
                        e, how_mounted = st.enter_context(mounted(f"{dev}p{number}", tmp, env))
                    drop.drop(dev)
                    s = timed([tool, "add", dev] + add + ["--backup", bak], env=e, tmp=tmp)
                    out[key].append(s[:2])
                    os.unlink(bak)
                    disks.run([tool, "remove", dev, "bench", "--force", "--backup", bak], env=e)
                    if os.path.exists(bak):
                        os.unlink(bak)
            log(f"  {case_name(size)} round {r + 1}/{runs}: dd {out['dd'][-1][0]:.2f} s, add "
                f"{out['add'][-1][0]:.2f} s ({out['add'][-1][1] >> 20} MiB RSS), mounted "
                f"{out['mounted'][-1][0]:.2f} s ({out['mounted'][-1][1] >> 20} MiB RSS)")
    os.unlink(img)
    os.unlink(payload)
    return out, drop.how + "; mounted: " + how_mounted


def run(cases, runs, build, kernel, initrd, tmp, log):
    """Measures the selected cases (names of CASES). Returns (rows, note): a row per size with
    the median seconds and the largest RSS of each kind, or (None, why) when nothing could be
    measured."""
    tool = os.path.join(build, "tools", "anysector")
    stages = os.path.join(build, "stages")
    if os.geteuid() != 0:
        return None, "not measured: loop devices need root"
    if not os.path.exists(tool):
        return None, f"not measured: {tool} is not built"
    rows, how = [], ""
    for size in SIZES:
        if case_name(size) not in cases:
            continue
        try:
            out, how = one_size(size, runs, tool, stages, kernel, initrd, tmp, log)
        except disks.DiskError as e:
            rows.append({"size": size, "error": str(e)})
            continue
        row = {"size": size}
        for k, v in out.items():
            secs = sorted(x[0] for x in v)
            row[k] = secs[len(secs) // 2]
            row[k + "_rss"] = max(x[1] for x in v)
        rows.append(row)
    return rows, how


def _goal(rows):
    ok = [r for r in rows if "error" not in r]
    if not ok:
        return None
    ratios = [r["add"] / r["dd"] for r in ok]
    return max(ratios) <= GOAL, ratios


def text(rows, note, payload):
    L = [f"ESP changes: add of {payload >> 20} MiB (kernel + initrd) onto a loop device's ESP; "
         + note]
    for r in rows or []:
        name = case_name(r["size"])
        if "error" in r:
            L.append(f"  {name}: failed: {r['error']}")
            continue
        L.append(f"  {name}: dd {r['dd']:.2f} s; add {r['add']:.2f} s ({r['add'] / r['dd']:.1f}x "
                 f"dd, peak RSS {r['add_rss'] >> 20} MiB); mounted {r['mounted']:.2f} s "
                 f"({r['mounted'] / r['dd']:.1f}x, peak RSS {r['mounted_rss'] >> 20} MiB)")
    return "\n".join(L)


def markdown(rows, note, payload, runs, head):
    """The report's section; head: the sentence saying which run it is (date, git, load)."""
    L = ["## ESP changes: add against the ESP's size\n", head + "\n"]
    L.append(f"`anysector add` of the kernel and the 64 MiB initrd ({payload} bytes together) "
             "onto the ESP of a loop device over a sparse image file (a block device: a copy "
             "cannot skip holes), ESPs of 256 MiB, 1 GiB and 4 GiB (FAT32 made by `anysector "
             "partition`). **dd**: `dd bs=1M conv=fsync` of the same bytes to the space after "
             "the ESP. **add**: the ESP unmounted (a sparse temporary copy for mtools, then the "
             "journal's backup, the sector writes and their read-back); **mounted**: the ESP "
             "mounted (vfat where it can be), the files written through the filesystem. Each "
             f"timed command starts with cold caches: {note}. Median of {runs} round"
             f"{'s' if runs != 1 else ''}; peak RSS of the command and its children (GNU time), "
             "the largest round. Goal: add at most 3 × dd, flat across the sizes.\n")
    if not rows:
        L.append(f"Not measured: {note}\n")
        return "\n".join(L)
    L.append("| ESP | dd s | add s | add / dd | add peak RSS | mounted s | mounted / dd | "
             "mounted peak RSS |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        name = case_name(r["size"])[len("esp-add-"):]
        if "error" in r:
            L.append(f"| {name} | failed: {r['error']} |||||||")
            continue
        L.append(f"| {name} | {r['dd']:.2f} | {r['add']:.2f} | {r['add'] / r['dd']:.1f} | "
                 f"{r['add_rss'] >> 20} MiB | {r['mounted']:.2f} | "
                 f"{r['mounted'] / r['dd']:.1f} | {r['mounted_rss'] >> 20} MiB |")
    g = _goal(rows)
    if g:
        L.append("\nGoal add ≤ 3 × dd: " + ("met" if g[0] else "**not met**") + " (ratios "
                 + ", ".join(f"{x:.1f}" for x in g[1]) + ").\n")
    return "\n".join(L)


def splice(results_md, section):
    """Puts section (markdown() of a run of every ESP case) into results_md in place of its own
    "## ESP changes" section, or at its end: these cases need no QEMU, so a run of only them
    keeps bench/RESULTS.md's section current without a full boot run."""
    with open(results_md) as f:
        text = f.read()
    head = section.split("\n", 1)[0]
    start = text.find(head)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + len(head))
        text = text[:start] + section.rstrip("\n") + "\n" + (text[nxt:] if nxt >= 0 else "")
    with open(results_md + ".tmp", "w") as f:
        f.write(text.rstrip("\n") + "\n")
    os.replace(results_md + ".tmp", results_md)
