# SPDX-License-Identifier: BSD-2-Clause
"""UEFI boot entries for the tests, written independently of tools/boot/loadopt.c: an
EFI_LOAD_OPTION with HD() + File() (UEFI 2.10, 3.1.3 and 10.3.5), efivarfs-style files (4 bytes
of attributes, then the data; what ANYSECTOR_TEST_EFIVARS points anysector at), and OVMF's
variable store: the authenticated-variable store inside OVMF_VARS*.fd, where variables are
appended (an old copy marked deleted), as the firmware's own variable driver does."""
import os
import struct

GLOBAL = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
GLOBAL_GUID = bytes.fromhex("61dfe48bca93d211aa0d00e098032b8c")   # as it lies on disk
NV_BS_RT = 7


def load_option(desc, number, start, size, signature, path, gpt=True, active=True):
    """The bytes of a Boot#### variable's data."""
    p = path.replace("/", "\\")
    if not p.startswith("\\"):
        p = "\\" + p
    hd = struct.pack("<BBHIQQ16sBB", 4, 1, 42, number, start, size, signature.ljust(16, b"\0"),
                     2 if gpt else 1, 2 if gpt else 1)
    fp = (p + "\0").encode("utf-16-le")
    node = struct.pack("<BBH", 4, 4, 4 + len(fp)) + fp
    dp = hd + node + b"\x7f\xff\x04\x00"
    return (struct.pack("<IH", 1 if active else 0, len(dp)) + (desc + "\0").encode("utf-16-le")
            + dp)


def parse_option(data):
    """(attributes, description, {hd fields}, file path) of a load option's bytes."""
    attr, dplen = struct.unpack_from("<IH", data, 0)
    end = 6
    while data[end:end + 2] != b"\0\0":
        end += 2
    desc = data[6:end].decode("utf-16-le")
    dp, at, hd, path = data[end + 2:end + 2 + dplen], 0, None, None
    while at + 4 <= len(dp):
        t, st, n = struct.unpack_from("<BBH", dp, at)
        if t == 0x7F:
            break
        if (t, st) == (4, 1):
            num, start, size, sig, fmt, stype = struct.unpack_from("<IQQ16sBB", dp, at + 4)
            hd = {"number": num, "start": start, "size": size, "signature": sig, "gpt": fmt == 2}
        elif (t, st) == (4, 4):
            path = dp[at + 4:at + n].decode("utf-16-le").rstrip("\0")
        at += n
    return attr, desc, hd, path


def var_file(d, name):
    return os.path.join(d, "%s-%s" % (name, GLOBAL))


def write_var(d, name, data, attr=NV_BS_RT):
    with open(var_file(d, name), "wb") as f:
        f.write(struct.pack("<I", attr) + data)


def read_var(d, name):
    """(attributes, data) or None."""
    try:
        with open(var_file(d, name), "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None
    return struct.unpack_from("<I", raw)[0], raw[4:]


def boot_order(ids):
    return b"".join(struct.pack("<H", i) for i in ids)


def read_boot_order(d):
    v = read_var(d, "BootOrder")
    return None if v is None else list(struct.unpack("<%dH" % (len(v[1]) // 2), v[1]))


# ---- OVMF's variable store (edk2 MdeModulePkg/Include/Guid/VariableFormat.h) ----

AUTH_STORE_GUID = bytes.fromhex("782cf3aa7b949a43a1802e144ec37792")  # aaf32c78-947b-439a-...
VAR_HEADER = struct.Struct("<HBBIQ16sIII16s")   # start id .. vendor GUID: 60 bytes
VAR_ADDED, VAR_DELETED = 0x3F, 0x3C


def _store(fd):
    """The offset of the variable store in the firmware volume and its size."""
    hdr_len = struct.unpack_from("<H", fd, 48)[0]        # EFI_FIRMWARE_VOLUME_HEADER
    store = hdr_len
    if fd[store:store + 16] != AUTH_STORE_GUID:
        raise ValueError("no authenticated variable store at byte %d" % store)
    return store, struct.unpack_from("<I", fd, store + 16)[0]


def _variables(fd, store, size):
    at = store + 28                                     # VARIABLE_STORE_HEADER
    while at + VAR_HEADER.size <= store + size:
        f = VAR_HEADER.unpack_from(fd, at)
        if f[0] != 0x55AA:
            return
        state, name_size, data_size, vendor = f[1], f[7], f[8], f[9]
        name_at = at + VAR_HEADER.size
        name = fd[name_at:name_at + name_size].decode("utf-16-le").rstrip("\0")
        yield at, state, name, vendor, name_at + name_size, data_size
        at = (name_at + name_size + data_size + 3) & ~3
    return


def ovmf_vars_set(path, variables):
    """Sets global variables {name: (attributes, data)} in the OVMF_VARS copy at path: each
    live copy of the name is marked deleted and the new one appended."""
    with open(path, "rb") as f:
        fd = bytearray(f.read())
    store, size = _store(fd)
    end = store + 28
    for at, state, name, vendor, data_at, data_size in _variables(fd, store, size):
        if name in variables and vendor == GLOBAL_GUID and state == VAR_ADDED:
            fd[at + 2] = VAR_DELETED
        end = (data_at + data_size + 3) & ~3
    for name, (attr, data) in variables.items():
        n = (name + "\0").encode("utf-16-le")
        rec = VAR_HEADER.pack(0x55AA, VAR_ADDED, 0, attr, 0, bytes(16), 0, len(n), len(data),
                              GLOBAL_GUID) + n + data
        if end + len(rec) > store + size:
            raise ValueError("the variable store is full")
        fd[end:end + len(rec)] = rec
        end = (end + len(rec) + 3) & ~3
    with open(path, "wb") as f:
        f.write(fd)


def ovmf_vars_get(path, name):
    """(attributes, data) of the live global variable name in an OVMF_VARS file, or None."""
    with open(path, "rb") as f:
        fd = f.read()
    store, size = _store(fd)
    found = None
    for at, state, n, vendor, data_at, data_size in _variables(fd, store, size):
        if n == name and vendor == GLOBAL_GUID and state == VAR_ADDED:
            found = (struct.unpack_from("<I", fd, at + 4)[0], fd[data_at:data_at + data_size])
    return found
