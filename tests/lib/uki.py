# SPDX-License-Identifier: BSD-2-Clause
"""Unified kernel images built the way Debian 12 allows (systemd 252 has no ukify): objcopy adds
.osrel, .cmdline, .uname, .ucode, .initrd and .linux to systemd-boot-efi's stub, each section's
virtual address computed from the end of the one before it, aligned to the stub's
SectionAlignment (no fixed offsets: the often-copied .linux at 0x2000000 and .initrd at 0x3000000
overlap once a kernel passes 16 MiB). Also: the PE facts the tests check against (`sections`),
and the two kinds of damage the loaders must refuse (`truncate`, `section_outside`)."""
import os
import shutil
import struct
import subprocess

STUB = "/usr/lib/systemd/boot/efi/linuxx64.efi.stub"
ORDER = (".osrel", ".cmdline", ".uname", ".ucode", ".initrd", ".linux")


def missing():
    """Why UKIs cannot be built here, or None."""
    if not os.path.exists(STUB):
        return f"no {STUB} (Debian package systemd-boot-efi)"
    if not shutil.which("objcopy"):
        return "no objcopy (Debian package binutils)"
    return None


def _pe(data):
    """(section alignment, [(name, vma, vsize, raw_size, raw_ptr, table offset)]) of a PE32+."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe:pe + 4] == b"PE\0\0", "not a PE image"
    nsec, = struct.unpack_from("<H", data, pe + 6)
    opt_size, = struct.unpack_from("<H", data, pe + 20)
    opt = pe + 24
    align, = struct.unpack_from("<I", data, opt + 32)
    table = opt + opt_size
    out = []
    for i in range(nsec):
        o = table + 40 * i
        name = data[o:o + 8].rstrip(b"\0").decode("latin-1")
        vsize, vma, raw, ptr = struct.unpack_from("<IIII", data, o + 8)
        out.append((name, vma, vsize, raw, ptr, o))
    return align, out


def sections(path):
    """{name: (file offset, size)} of a PE file, size being the virtual size when smaller."""
    with open(path, "rb") as f:
        data = f.read()
    _, secs = _pe(data)
    return {n: (ptr, min(vs, raw) if vs else raw) for n, _, vs, raw, ptr, _ in secs}


def build(out, kernel, cmdline, osrel, initrd=None, ucode=None, uname=None, stub=STUB):
    """Writes the UKI `out` from the stub and the given parts (bytes or a path; cmdline and osrel
    text). Returns {section: vma} as placed."""
    work = out + ".parts"
    os.makedirs(work, exist_ok=True)
    with open(stub, "rb") as f:
        align, secs = _pe(f.read())
    end = max(vma + max(vs, raw) for _, vma, vs, raw, _, _ in secs)
    parts = {".osrel": osrel.encode() if isinstance(osrel, str) else osrel,
             ".cmdline": cmdline.encode() if isinstance(cmdline, str) else cmdline,
             ".uname": uname.encode() if isinstance(uname, str) else uname,
             ".ucode": ucode, ".initrd": initrd, ".linux": kernel}
    args, placed = ["objcopy"], {}
    for name in ORDER:
        part = parts[name]
        if part is None:
            continue
        if isinstance(part, (bytes, bytearray)):
            path = os.path.join(work, name.lstrip("."))
            with open(path, "wb") as f:
                f.write(part)
        else:
            path = part
        vma = -(-end // align) * align
        placed[name] = vma
        end = vma + os.path.getsize(path)
        args += ["--add-section", f"{name}={path}", "--change-section-vma", f"{name}={vma:#x}"]
    try:
        subprocess.run(args + [stub, out], check=True, capture_output=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return placed


def truncate(src, dst, keep):
    """dst: the first `keep` bytes of src."""
    with open(src, "rb") as f:
        data = f.read(keep)
    with open(dst, "wb") as f:
        f.write(data)


def section_outside(src, dst, name=".linux"):
    """dst: src with the section `name`'s raw data pointer moved past the end of the file."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    _, secs = _pe(data)
    o = [s for s in secs if s[0] == name][0][5]
    struct.pack_into("<I", data, o + 20, len(data) + 0x10000)
    with open(dst, "wb") as f:
        f.write(data)
