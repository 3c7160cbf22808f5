# SPDX-License-Identifier: BSD-2-Clause
"""Sizes of the loaders' pieces: anysector's stage1, stage2 and BOOTX64.EFI against GRUB's boot.img
and a core.img for the same disk, and systemd-boot's EFI binary."""
import os
import re

import disks



def stage1_dap_off():
    """mbr.asm puts the DAP's first 4 bytes right before the patch block (common/bootinfo.h)."""
    hdr = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "bootinfo.h")
    with open(hdr) as f:
        m = re.search(r"#define\s+STAGE1_MAGIC_OFF\s+(0x[0-9A-Fa-f]+|\d+)", f.read())
    return int(m.group(1), 0) - 4


def stage1_code_bytes(build):
    """Bytes of stage1 code and data before its DAP head and patch block, from the NASM listing
    (the label code_end), as `make size` reports it; None without a listing."""
    lst = os.path.join(build, "stage1", "stage1.lst")
    try:
        with open(lst) as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"code_end:\s*\n\s*\d+\s+([0-9A-F]{8})", text)
    return int(m.group(1), 16) if m else None


def last_used_byte(path, limit=440):
    """1 + the offset of the last nonzero byte among the first limit bytes."""
    with open(path, "rb") as f:
        data = f.read(limit)
    return max((i + 1 for i, b in enumerate(data) if b), default=0)


def _size(path):
    return os.path.getsize(path) if os.path.exists(path) else None


def collect(build, label, layout, tmpdir):
    """[(what, bytes or None, note)]."""
    esp_num = disks.boot_partition(layout)["num"]
    stages = os.path.join(build, "stages")
    rows = []
    s1 = os.path.join(stages, "stage1.bin")
    code = stage1_code_bytes(build)
    if os.path.exists(s1) and code is not None:
        # past the code: padding, then from 0x1A0 the DAP head and the installer's patch block
        dap = stage1_dap_off()
        tail = 440 - dap
        rows.append(("anysector stage1 (MBR boot code)", code + tail,
                     f"used of 440 boot-code bytes: {code} code and data + {tail} DAP head and "
                     f"patch block; {dap - code} free"))
    elif os.path.exists(s1):
        rows.append(("anysector stage1 (MBR boot code)", last_used_byte(s1),
                     "of 440 boot-code bytes (last nonzero byte; no listing)"))
    else:
        rows.append(("anysector stage1 (MBR boot code)", None, "not built"))
    rows.append(("anysector stage2.bin", _size(os.path.join(stages, "stage2.bin")),
                 "BIOS boot partition / post-MBR gap; reads GPT, FAT, config, kernel, initrd"))
    rows.append(("anysector BOOTX64.EFI", _size(os.path.join(stages, "BOOTX64.EFI")), "UEFI"))

    boot_img = os.path.join(disks.GRUB_DIR, "boot.img")
    rows.append(("GRUB boot.img (MBR boot code)", last_used_byte(boot_img),
                 "of 440 boot-code bytes (last nonzero byte; the BPB gap at 0x03..0x59 counted)"))
    core = os.path.join(tmpdir, "size-core.img")
    try:
        disks.make_grub_core(core, label, esp_num)
        mods = disks.grub_modules(label)
        closure = disks.grub_module_closure(mods)
        rows.append(("GRUB core.img (grub-mkimage -O i386-pc)", _size(core),
                     f"modules {' '.join(mods)}, which pull in "
                     + " ".join(m for m in closure if m not in mods)
                     + f" ({len(closure)} in all; lzma-compressed)"))
        os.unlink(core)
    except disks.DiskError as e:
        rows.append(("GRUB core.img", None, str(e)))
    try:
        ext2 = disks.ext2_partition(layout)
        disks.make_grub_core(core, label, ext2["num"], "ext2", "/boot/grub")
        rows.append(("GRUB core.img for /boot on ext2", _size(core),
                     f"modules {' '.join(disks.grub_modules(label, 'ext2'))} and what they pull "
                     "in"))
        os.unlink(core)
    except disks.DiskError as e:
        rows.append(("GRUB core.img for /boot on ext2", None, str(e)))
    rows.append(("syslinux gptmbr.bin (MBR boot code)", last_used_byte(disks.SYSLINUX_GPTMBR),
                 "of 440 boot-code bytes (last nonzero byte)"))
    rows.append(("syslinux ldlinux.c32", _size(disks.SYSLINUX_LDLINUX_C32),
                 "on the ESP beside ldlinux.sys, both written by `syslinux --install`"))
    rows.append(("systemd-bootx64.efi", _size(disks.SDBOOT_EFI), "UEFI"))
    return rows
