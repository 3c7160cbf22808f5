# SPDX-License-Identifier: BSD-2-Clause
"""Image files: reading and writing at an offset, sparse files, SHA-256 that skips holes,
deterministic content, images built from pieces (Image), loop devices over them (Loop)."""
import hashlib
import os
import random
import stat
import subprocess

from lib.results import Skip

MIB = 1 << 20


def read_at(path, off, n):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(n)


def write_at(path, off, data):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(data)


def sparse(path, size):
    """A new sparse file of size bytes; raises Skip when the filesystem cannot hold it."""
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        try:
            f.truncate(size)
        except OSError as e:
            raise Skip("cannot make a %d-byte sparse file here: %s" % (size, e))


def write_sparse(path, data, step=MIB):
    """Writes data leaving its all-zero steps as holes (the images are mostly empty)."""
    zero = bytes(step)
    with open(path, "wb") as f:
        f.truncate(len(data))
        for off in range(0, len(data), step):
            chunk = data[off:off + step]
            if chunk != zero[:len(chunk)]:
                f.seek(off)
                f.write(chunk)


def copy_sparse(src, dst):
    subprocess.run(["cp", "--sparse=always", src, dst], check=True)


def write_if_changed(path, data):
    """Writes data to path unless it already holds exactly that (keeps make-style times)."""
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def deterministic(n, seed):
    """n pseudo-random bytes, the same for the same seed on every run."""
    return random.Random(seed).randbytes(n)


def sha256(path):
    """A SHA-256 of the contents: equal contents give equal hashes, however the file's holes
    lie. Image files are read only where data is stored (SEEK_DATA/SEEK_HOLE), in 64 KiB blocks
    of a fixed grid, each nonzero block hashed with its offset, so a multi-TB sparse image
    hashes in milliseconds; block devices are read whole."""
    h = hashlib.sha256()
    if not stat.S_ISREG(os.stat(path).st_mode):
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(MIB), b""):
                h.update(chunk)
        return h.hexdigest()
    size = os.path.getsize(path)
    h.update(b"size %d" % size)
    grid = 1 << 16
    zero = bytes(grid)
    with open(path, "rb") as f:
        fd = f.fileno()
        off = 0                  # always on the grid
        while off < size:
            try:
                data = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:      # ENXIO: only a hole is left
                break
            end = os.lseek(fd, data, os.SEEK_HOLE)
            end = min(size, -(-end // grid) * grid)
            for block in range(data // grid * grid, end, grid):
                b = os.pread(fd, grid, block)
                if b != zero[:len(b)]:
                    h.update(b"@%d" % block)
                    h.update(b)
            off = end
    return h.hexdigest()


class Image:
    """A disk image being built: its size, its logical sector size and the pieces written into
    it (later ones win); write() puts it into a sparse file, so only the pieces take space."""

    def __init__(self, size, lss):
        self.size = size
        self.lss = lss
        self.pieces = []

    @property
    def sectors(self):
        return self.size // self.lss

    def put(self, off, data):
        self.pieces.append((off, bytes(data)))

    def put_lba(self, lba, data):
        self.put(lba * self.lss, data)

    def get(self, off, n):
        """The bytes [off, off+n) as the pieces so far make them."""
        out = bytearray(n)
        for poff, data in self.pieces:
            lo, hi = max(off, poff), min(off + n, poff + len(data))
            if lo < hi:
                out[lo - off:hi - off] = data[lo - poff:hi - poff]
        return out

    def write(self, path):
        """Writes the image sparse, cut to self.size (pieces past it are dropped: truncation)."""
        if os.path.exists(path):
            os.unlink(path)
        with open(path, "wb") as f:
            f.truncate(self.size)
            for off, data in self.pieces:
                if off >= self.size:
                    continue
                f.seek(off)
                f.write(data[:self.size - off])
        return path


class Loop:
    """A loop device over an image file with lss-byte sectors (root only; `losetup -f`, never
    a fixed device); partitions scanned with partx on request; always removed on leaving."""

    def __init__(self, image, lss):
        self.dev = subprocess.run(["losetup", "-f", "--show", "--sector-size", str(lss), image],
                                  capture_output=True, text=True, check=True).stdout.strip()
        self.name = os.path.basename(self.dev)

    def scan(self):
        subprocess.run(["partx", "-a", self.dev], capture_output=True)

    def unscan(self):
        subprocess.run(["partx", "-d", self.dev], capture_output=True)

    def close(self):
        self.unscan()
        subprocess.run(["losetup", "-d", self.dev], capture_output=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
