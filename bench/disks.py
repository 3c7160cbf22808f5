# SPDX-License-Identifier: BSD-2-Clause
"""Disk images for the benchmarks, built without mounting anything (vfat cannot be mounted here).

Every image of one sector size starts from one *base* disk: GPT (BIOS boot partition + FAT ESP) or
MBR (one active FAT partition), holding the kernel and initrd. anysector's base comes from
`anysector mkimage`; when that is not available a base with the same layout is written here. The
peer images are copies of a base with only the loader swapped, so both loaders read the same
kernel and initrd from the same partition table and file system:
  GRUB (BIOS): a grub-mkimage core.img and boot.img installed by grub-bios-setup on a loop device
  (core.img into the BIOS boot partition (GPT) or the post-MBR gap (MBR)), /grub/grub.cfg by
  mtools;
  GRUB on ext2: the same, but GRUB reads /boot from an ext2 file system in the disk's third
  partition (the layout Debian's installer makes), made by mke2fs -d with the same kernel and
  initrd;
  syslinux (BIOS): the syslinux installer (mtools) on the ESP, gptmbr.bin in LBA 0 and the ESP
  marked legacy-BIOS-bootable (sgdisk), /syslinux.cfg by mtools;
  systemd-boot: \\EFI\\BOOT\\BOOTX64.EFI replaced, /loader/loader.conf and an entry added by mtools;
  GRUB (UEFI, large initrds only): \\EFI\\BOOT\\BOOTX64.EFI a grub-mkimage x86_64-efi image reading
  /grub/grub.cfg on the ESP;
  the firmware floor (UEFI): \\EFI\\BOOT\\BOOTX64.EFI replaced by the test payload, which prints
  one line at once (how long the firmware takes to start any loader from this disk).
"""
import binascii
import contextlib
import os
import re
import shutil
import struct
import subprocess
import uuid

MiB = 1 << 20
GPT_ENTRIES = 128
GPT_ENTRY_SIZE = 128
ESP_TYPE = uuid.UUID("C12A7328-F81F-11D2-BA4B-00A0C93EC93B")
BIOS_BOOT_TYPE = uuid.UUID("21686148-6449-6E6F-744E-656564454649")
LINUX_FS_TYPE = uuid.UUID("0FC63DAF-8483-4772-8E79-3D69D8477DE4")
# Fixed identities keep the fallback base byte-reproducible.
DISK_GUID = uuid.UUID("5be0c0de-0000-4000-8000-000000000001")
PART_GUIDS = [uuid.UUID("5be0c0de-0000-4000-8000-00000000001%d" % i) for i in range(4)]

GRUB_DIR = "/usr/lib/grub/i386-pc"
GRUB_EFI_DIR = "/usr/lib/grub/x86_64-efi"
GRUB_SETUP = os.path.join(GRUB_DIR, "grub-bios-setup")
SDBOOT_EFI = "/usr/lib/systemd/boot/efi/systemd-bootx64.efi"
SYSLINUX_GPTMBR = "/usr/lib/SYSLINUX/gptmbr.bin"
SYSLINUX_LDLINUX_C32 = "/usr/lib/syslinux/modules/bios/ldlinux.c32"
MBR_BOOT_CODE = 440          # bytes of LBA 0 that are boot code (the disk signature follows)
LEGACY_BIOS_BOOTABLE = 2     # GPT attribute bit that gptmbr.bin looks for

MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


class DiskError(Exception):
    pass


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, env=kw.pop("env", MTOOLS_ENV), **kw)
    if r.returncode != 0:
        lines = (r.stderr.strip() or r.stdout.strip()).splitlines()
        # the first error names the cause; later lines tend to be consequences
        first = next((ln for ln in lines if "error" in ln.lower()),
                     lines[-1] if lines else "no output")
        raise DiskError(f"{os.path.basename(cmd[0])} {cmd[1] if len(cmd) > 1 else ''} failed "
                        f"(exit {r.returncode}): {first.strip()}")
    return r.stdout


# ---- partition tables -----------------------------------------------------------------------

def _mbr_record(flag, ptype, first, count):
    # CHS fields are unused by everything here; FE FF FF is the "use LBA" convention.
    return struct.pack("<B3sB3sII", flag, b"\xfe\xff\xff", ptype, b"\xfe\xff\xff", first, count)


def _write_mbr_table(f, records):
    f.seek(0x1BE)
    for r in records + [b"\0" * 16] * (4 - len(records)):
        f.write(r)
    f.write(b"\x55\xaa")


def write_gpt(path, lss, size, parts):
    """parts: [(type_uuid, first_lba, last_lba, name)]; writes a fresh GPT (backup first)."""
    n = size // lss
    array_sectors = GPT_ENTRIES * GPT_ENTRY_SIZE // lss
    first_usable, last_usable = 2 + array_sectors, n - 2 - array_sectors
    array = bytearray(GPT_ENTRIES * GPT_ENTRY_SIZE)
    for i, (ptype, first, last, name) in enumerate(parts):
        if not first_usable <= first <= last <= last_usable:
            raise DiskError(f"partition {i + 1}: LBAs {first}..{last} outside "
                            f"{first_usable}..{last_usable}")
        struct.pack_into("<16s16sQQQ72s", array, i * GPT_ENTRY_SIZE, ptype.bytes_le,
                         PART_GUIDS[i].bytes_le, first, last, 0, name.encode("utf-16-le"))
    array_crc = binascii.crc32(array)

    def header(my, alt, array_lba):
        h = bytearray(struct.pack("<8sIIIIQQQQ16sQIII", b"EFI PART", 0x10000, 92, 0, 0, my, alt,
                                  first_usable, last_usable, DISK_GUID.bytes_le, array_lba,
                                  GPT_ENTRIES, GPT_ENTRY_SIZE, array_crc))
        struct.pack_into("<I", h, 16, binascii.crc32(h))
        return bytes(h)

    with open(path, "r+b") as f:
        f.seek((n - 1 - array_sectors) * lss)
        f.write(array)
        f.seek((n - 1) * lss)
        f.write(header(n - 1, 1, n - 1 - array_sectors).ljust(lss, b"\0"))
        f.seek(2 * lss)
        f.write(array)
        f.seek(lss)
        f.write(header(1, n - 1, 2).ljust(lss, b"\0"))
        _write_mbr_table(f, [_mbr_record(0, 0xEE, 1, min(n - 1, 0xFFFFFFFF))])


def read_layout(path, lss=None):
    """Returns {lss, label, parts: [{num, type, first, last}]} for a GPT (sector size detected)
    or an MBR (sector size from lss, 512 if not given)."""
    with open(path, "rb") as f:
        head = f.read(8192)
        for cand in ([lss] if lss else [512, 1024, 2048, 4096]):
            h = head[cand:cand + 92]
            if len(h) < 92 or h[:8] != b"EFI PART":
                continue
            hsize = struct.unpack_from("<I", h, 12)[0]
            hb = bytearray(head[cand:cand + hsize])
            crc = struct.unpack_from("<I", hb, 16)[0]
            struct.pack_into("<I", hb, 16, 0)
            my = struct.unpack_from("<Q", h, 24)[0]
            if binascii.crc32(hb) != crc or my != 1:
                continue
            array_lba, count, esize = struct.unpack_from("<QII", h, 72)
            f.seek(array_lba * cand)
            array = f.read(count * esize)
            parts = []
            for i in range(count):
                e = array[i * esize:(i + 1) * esize]
                t = uuid.UUID(bytes_le=e[:16])
                if t.int == 0:
                    continue
                first, last = struct.unpack_from("<QQ", e, 32)
                parts.append({"num": i + 1, "type": t, "first": first, "last": last})
            return {"lss": cand, "label": "gpt", "parts": parts}
        mbr = head[:512]
        if mbr[510:512] != b"\x55\xaa":
            raise DiskError(f"{path}: neither a valid GPT nor an MBR signature")
        parts = []
        for i in range(4):
            flag, ptype, first, count = struct.unpack_from("<B3xB3xII", mbr, 0x1BE + 16 * i)
            if ptype and count:
                parts.append({"num": i + 1, "type": ptype, "first": first,
                              "last": first + count - 1, "active": flag == 0x80})
        return {"lss": lss or 512, "label": "mbr", "parts": parts}


def boot_partition(layout):
    """The FAT partition both loaders read: the ESP on GPT, the first partition on MBR."""
    if layout["label"] == "gpt":
        for p in layout["parts"]:
            if p["type"] == ESP_TYPE:
                return p
        raise DiskError("GPT has no EFI system partition")
    if not layout["parts"]:
        raise DiskError("MBR has no partition")
    return layout["parts"][0]


def bios_boot_partition(layout):
    for p in layout["parts"]:
        if layout["label"] == "gpt" and p["type"] == BIOS_BOOT_TYPE:
            return p
    return None


# ---- FAT through mtools ----------------------------------------------------------------------

class Fat:
    """mtools on the FAT inside a disk image, addressed by byte offset."""

    def __init__(self, image, offset):
        self.spec = f"{image}@@{offset}"

    def put(self, src, dst):
        run(["mcopy", "-o", "-i", self.spec, src, "::" + dst])

    def put_text(self, text, dst, tmpdir):
        tmp = os.path.join(tmpdir, "mtools-" + os.path.basename(dst))
        with open(tmp, "w") as f:
            f.write(text)
        self.put(tmp, dst)
        os.unlink(tmp)

    def get_text(self, src):
        return run(["mtype", "-i", self.spec, "::" + src])

    def exists(self, path):
        return subprocess.run(["mdir", "-b", "-i", self.spec, "::" + path], capture_output=True,
                              env=MTOOLS_ENV, stdin=subprocess.DEVNULL).returncode == 0

    def mkdirs(self, path):
        parts = [p for p in path.split("/") if p]
        for i in range(len(parts)):
            d = "/" + "/".join(parts[:i + 1])
            if not self.exists(d):
                run(["mmd", "-i", self.spec, "::" + d])


def fat_of(image, layout):
    p = boot_partition(layout)
    return Fat(image, p["first"] * layout["lss"])


def _mkfs_into(image, lss, first, count, tmpdir):
    """Formats FAT16 over LBAs first..first+count-1 of image (written beside it, then spliced)."""
    esp = os.path.join(tmpdir, "esp.tmp")
    with open(esp, "wb") as f:
        f.truncate(count * lss)
    cmd = ["mkfs.fat", "-F", "16", "-S", str(lss), "-h", str(first), "-i", "5BE0C0DE",
           "-n", "BENCH"]
    if lss >= 4096:
        cmd += ["-s", "1"]   # FAT16 needs < 65,525 clusters; one sector per cluster fits
    run(cmd + [esp])
    run(["dd", f"if={esp}", f"of={image}", "bs=1M", f"seek={first * lss}", "oflag=seek_bytes",
         "conv=notrunc,sparse", "status=none"])
    os.unlink(esp)


# ---- bases -----------------------------------------------------------------------------------

def make_base(image, lss, size, label, kernel, initrd, tmpdir, esp_size):
    """The loader-less base disk (used when `anysector mkimage` is not available): on GPT a
    BIOS boot partition, an ESP of esp_size bytes and a third partition with the rest."""
    with open(image, "wb") as f:
        f.truncate(size)
    n = size // lss
    if label == "gpt":
        bb_first, bb_count = MiB // lss, MiB // lss
        esp_first = 2 * MiB // lss
        esp_last = esp_first + esp_size // lss - 1
        write_gpt(image, lss, size,
                  [(BIOS_BOOT_TYPE, bb_first, bb_first + bb_count - 1, "BIOS boot"),
                   (ESP_TYPE, esp_first, esp_last, "EFI system"),
                   (LINUX_FS_TYPE, esp_last + 1, (size - MiB) // lss - 1, "boot")])
    else:
        esp_first, esp_last = MiB // lss, n - 1
        with open(image, "r+b") as f:
            _write_mbr_table(f, [_mbr_record(0x80, 0x0E, esp_first, esp_last - esp_first + 1)])
    _mkfs_into(image, lss, esp_first, esp_last - esp_first + 1, tmpdir)
    layout = read_layout(image, lss)
    fat = fat_of(image, layout)
    fat.put(kernel, "/vmlinuz")
    fat.put(initrd, "/initrd.img")
    return {"kernel": "/vmlinuz", "initrd": "/initrd.img"}


def copy_image(src, dst):
    run(["cp", "--sparse=always", src, dst])


def anysector_cfg_paths(cfg_text):
    """kernel and initrd paths of the default (else first) entry of an anysector.cfg."""
    default, entries, cur = None, {}, None
    for line in cfg_text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, _, val = line.partition(" ")
        val = val.strip()
        if key == "default":
            default = val
        elif key == "entry":
            cur = entries.setdefault(val, {"order": len(entries)})
        elif cur is not None and key in ("kernel", "initrd"):
            cur[key] = val
    if not entries:
        raise DiskError("anysector.cfg has no entry")
    e = entries.get(default) or min(entries.values(), key=lambda x: x["order"])
    if "kernel" not in e:
        raise DiskError("anysector.cfg: the default entry has no kernel")
    return {"kernel": e["kernel"], "initrd": e.get("initrd")}


def make_anysector(tool, stages, image, lss, pss, size, label, kernel, initrd, cmdline, tmpdir,
                   esp_size=None, pin=False):
    """`anysector mkimage` with `--timeout 0` (no menu wait); on GPT the space after an ESP of
    esp_size bytes becomes a third partition (where the ext2 peers put /boot); pin: the entry
    carries the files' SHA-256 (`--pin`), which the loaders check as they read. Returns the
    file paths."""
    if os.path.exists(image):
        os.unlink(image)
    esp = ["--esp-size", f"{esp_size // 1024}K"] if esp_size and label == "gpt" else []
    run([tool, "mkimage", image, "--size", str(size), "--label", label, "--sector-size", str(lss),
         "--physical-size", str(pss), "--stages", stages, "--timeout", "0", "--kernel", kernel,
         "--initrd", initrd, "--cmdline", cmdline] + esp + (["--pin"] if pin else []),
        env=dict(os.environ, TMPDIR=os.path.abspath(tmpdir)))   # its scratch files: ours
    layout = read_layout(image, lss)
    cfg = fat_of(image, layout).get_text("/anysector.cfg")
    if not re.search(r"^\s*timeout\s+0\s*$", cfg, re.M):
        raise DiskError("anysector.cfg made by mkimage --timeout 0 has no 'timeout 0' line")
    return anysector_cfg_paths(cfg)


# ---- peers -----------------------------------------------------------------------------------

def grub_modules(label, fs="fat"):
    """What core.img needs for this disk: the BIOS disk driver, the partition map, the file
    system /boot is on, `linux`, and `normal`, which reads $prefix/grub.cfg (linux.mod depends
    on it anyway). Nothing else is loaded from disk at boot."""
    return ["biosdisk", "part_gpt" if label == "gpt" else "part_msdos", fs, "normal", "linux"]


def grub_module_closure(modules):
    """modules plus everything moddep.lst says they pull in, sorted."""
    deps = {}
    with open(os.path.join(GRUB_DIR, "moddep.lst")) as f:
        for line in f:
            name, _, rest = line.partition(":")
            deps[name.strip()] = rest.split()
    seen, todo = set(), list(modules)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(deps.get(m, []))
    return sorted(seen)


def make_grub_core(out, label, part_num, fs="fat", grub_dir="/grub"):
    """grub-mkimage -O i386-pc core.img (lzma-compressed, as grub-install makes it)."""
    prefix = f"(hd0,{'gpt' if label == 'gpt' else 'msdos'}{part_num}){grub_dir}"
    run(["grub-mkimage", "-O", "i386-pc", "-d", GRUB_DIR, "-p", prefix, "-o", out]
        + grub_modules(label, fs))
    return out


@contextlib.contextmanager
def loop_device(path, lss=None):
    """A loop device over path (with that logical sector size), detached on the way out."""
    cmd = ["losetup", "-f", "--show"] + (["--sector-size", str(lss)] if lss else []) + [path]
    dev = run(cmd).strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], capture_output=True)


@contextlib.contextmanager
def grub_setup_dir(tmpdir):
    """A directory on a block device for grub-bios-setup's -d: it insists on resolving that
    directory to a GRUB disk, which an overlay or tmpfs is not. A 4 MiB ext2 on a loop device."""
    img = os.path.join(tmpdir, "grub-setup.ext2")
    mnt = os.path.join(tmpdir, "grub-setup.mnt")
    with open(img, "wb") as f:
        f.truncate(4 * MiB)
    run(["mkfs.ext2", "-q", "-F", img])
    os.makedirs(mnt, exist_ok=True)
    with loop_device(img) as dev:
        run(["mount", dev, mnt])
        try:
            yield mnt
        finally:
            subprocess.run(["umount", mnt], capture_output=True)
    os.unlink(img)


def grub_cfg(paths, cmdline):
    return ("set timeout=0\nset default=0\n"
            "menuentry \"bench\" {\n"
            f"\tlinux {paths['kernel']} {cmdline}\n"
            + (f"\tinitrd {paths['initrd']}\n" if paths.get("initrd") else "")
            + "}\n")


def grub_install(image, layout, part_num, tmpdir, fs="fat", grub_dir="/grub"):
    """What grub-install does for BIOS: a grub-mkimage core.img, then grub-bios-setup on a loop
    device with the disk's logical sector size (it writes boot.img into LBA 0 and embeds
    core.img in the BIOS boot partition or the post-MBR gap)."""
    if os.geteuid() != 0:
        raise DiskError("grub-bios-setup works on a loop device: run the bench as root")
    with grub_setup_dir(tmpdir) as d:
        make_grub_core(os.path.join(d, "core.img"), layout["label"], part_num, fs, grub_dir)
        shutil.copyfile(os.path.join(GRUB_DIR, "boot.img"), os.path.join(d, "boot.img"))
        with loop_device(image, layout["lss"]) as dev:
            run([GRUB_SETUP, "-d", d, dev])


def make_grub(base, image, paths, cmdline, tmpdir):
    """GRUB 2 for BIOS on a copy of base reading the ESP (FAT): grub_install, then
    /grub/grub.cfg on the ESP. Done on 4Kn too: whether that boots is measured."""
    layout = read_layout(base)
    esp = boot_partition(layout)
    copy_image(base, image)
    grub_install(image, layout, esp["num"], tmpdir)
    fat = fat_of(image, layout)
    fat.mkdirs("/grub")
    fat.put_text(grub_cfg(paths, cmdline), "/grub/grub.cfg", tmpdir)


def ext2_partition(layout):
    """The partition after the ESP (GPT only), where the ext2 peers keep /boot."""
    if layout["label"] != "gpt":
        raise DiskError("the ext2 layout needs GPT (a third partition after the ESP)")
    esp = boot_partition(layout)
    later = [p for p in layout["parts"] if p["first"] > esp["last"]]
    if not later:
        raise DiskError("no partition after the ESP for /boot on ext2")
    return min(later, key=lambda p: p["first"])


def make_ext2_boot(image, layout, kernel, initrd, files, tmpdir):
    """Formats the partition after the ESP as ext2 holding /boot/vmlinuz, /boot/initrd.img and
    files ({path: text}), by mke2fs -d (nothing is mounted). Blocks of 4 KiB: GRUB's best case
    (fewer indirect blocks than 1 KiB) and a valid file system on 4Kn too."""
    part = ext2_partition(layout)
    lss = layout["lss"]
    root = os.path.join(tmpdir, "ext2-root")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "boot"))
    shutil.copyfile(kernel, os.path.join(root, "boot", "vmlinuz"))
    shutil.copyfile(initrd, os.path.join(root, "boot", "initrd.img"))
    for path, text in files.items():
        dst = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(text)
    fs = os.path.join(tmpdir, "ext2.tmp")
    with open(fs, "wb") as f:
        f.truncate((part["last"] - part["first"] + 1) * lss)
    run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", "4096", "-L", "boot", "-d", root, fs])
    run(["dd", f"if={fs}", f"of={image}", "bs=1M", f"seek={part['first'] * lss}",
         "oflag=seek_bytes", "conv=notrunc,sparse", "status=none"])
    os.unlink(fs)
    shutil.rmtree(root)
    return part


def make_grub_ext2(base, image, kernel, initrd, cmdline, tmpdir):
    """GRUB 2 for BIOS on a copy of base reading /boot from ext2 (make_ext2_boot): core.img
    with the ext2 module and $prefix (hd0,gptN)/boot/grub, grub.cfg in that directory."""
    layout = read_layout(base)
    copy_image(base, image)
    paths = {"kernel": "/boot/vmlinuz", "initrd": "/boot/initrd.img"}
    part = make_ext2_boot(image, layout, kernel, initrd,
                          {"/boot/grub/grub.cfg": grub_cfg(paths, cmdline)}, tmpdir)
    grub_install(image, layout, part["num"], tmpdir, fs="ext2", grub_dir="/boot/grub")


def make_syslinux(base, image, paths, cmdline, tmpdir):
    """syslinux for BIOS on a copy of base reading the ESP (FAT), as its manual says for a GPT
    disk: `syslinux --install` through mtools on the ESP (its boot sector, ldlinux.sys and
    ldlinux.c32), gptmbr.bin as LBA 0's boot code, the ESP's legacy-BIOS-bootable attribute,
    and /syslinux.cfg. Done on 4Kn too: whether that boots is measured."""
    layout = read_layout(base)
    if layout["label"] != "gpt":
        raise DiskError("the syslinux peer is set up for GPT disks only")
    esp = boot_partition(layout)
    copy_image(base, image)
    run(["syslinux", "--install", "--offset", str(esp["first"] * layout["lss"]), image])
    with open(SYSLINUX_GPTMBR, "rb") as f:
        code = f.read(MBR_BOOT_CODE)
    with open(image, "r+b") as f:
        f.write(code)
    run(["sgdisk", "-A", f"{esp['num']}:set:{LEGACY_BIOS_BOOTABLE}", image])
    cfg = ("DEFAULT bench\nPROMPT 0\nTIMEOUT 0\n"
           "LABEL bench\n"
           f"  LINUX {paths['kernel']}\n"
           + (f"  INITRD {paths['initrd']}\n" if paths.get("initrd") else "")
           + f"  APPEND {cmdline}\n")
    fat_of(image, layout).put_text(cfg, "/syslinux.cfg", tmpdir)


def make_grub_efi(base, image, paths, cmdline, tmpdir):
    """GRUB 2 for UEFI as the removable-media loader on a copy of base: a grub-mkimage -O
    x86_64-efi image with part_gpt fat normal linux as \\EFI\\BOOT\\BOOTX64.EFI, its prefix /grub
    on the device it was loaded from, and /grub/grub.cfg (the same menu entry as under BIOS)."""
    layout = read_layout(base)
    if layout["label"] != "gpt":
        raise DiskError("GRUB for UEFI is set up on an EFI system partition (GPT) only")
    if not os.path.isdir(GRUB_EFI_DIR):
        raise DiskError(f"{GRUB_EFI_DIR} is missing (Debian package grub-efi-amd64-bin)")
    copy_image(base, image)
    core = os.path.join(tmpdir, "grubx64.efi")
    run(["grub-mkimage", "-O", "x86_64-efi", "-d", GRUB_EFI_DIR, "-p", "/grub", "-o", core,
         "part_gpt", "fat", "normal", "linux"])
    fat = fat_of(image, layout)
    fat.mkdirs("/EFI/BOOT")
    fat.put(core, "/EFI/BOOT/BOOTX64.EFI")
    fat.mkdirs("/grub")
    fat.put_text(grub_cfg(paths, cmdline), "/grub/grub.cfg", tmpdir)
    os.unlink(core)


def make_efi_floor(base, image, app):
    """The UEFI floor on a copy of base: \\EFI\\BOOT\\BOOTX64.EFI replaced by app, a trivial
    application that prints one line as soon as it runs."""
    layout = read_layout(base)
    if layout["label"] != "gpt":
        raise DiskError("the UEFI floor needs an EFI system partition (GPT)")
    if not os.path.exists(app):
        raise DiskError(f"{app} is not built")
    copy_image(base, image)
    fat = fat_of(image, layout)
    fat.mkdirs("/EFI/BOOT")
    fat.put(app, "/EFI/BOOT/BOOTX64.EFI")


def make_sdboot(base, image, paths, cmdline, tmpdir):
    """systemd-boot as the removable-media loader on a copy of base (GPT only)."""
    layout = read_layout(base)
    if layout["label"] != "gpt":
        raise DiskError("systemd-boot needs an EFI system partition (GPT)")
    copy_image(base, image)
    fat = fat_of(image, layout)
    fat.mkdirs("/EFI/BOOT")
    fat.put(SDBOOT_EFI, "/EFI/BOOT/BOOTX64.EFI")
    fat.mkdirs("/loader/entries")
    fat.put_text("timeout 0\ndefault bench.conf\neditor no\n", "/loader/loader.conf", tmpdir)
    entry = ("title bench\n"
             f"linux {paths['kernel']}\n"
             + (f"initrd {paths['initrd']}\n" if paths.get("initrd") else "")
             + f"options {cmdline}\n")
    fat.put_text(entry, "/loader/entries/bench.conf", tmpdir)
