#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Installing beside Windows under UEFI (make test-qemu-beside). The disk is laid out as Windows
installs itself on GPT (tests/lib/windisk.py: ESP with \\EFI\\Microsoft\\Boot\\bootmgfw.efi, which
is the EFI test payload standing in for Windows' boot manager, also at the fallback path; MSR;
NTFS; no BIOS boot partition), and the OVMF variable store holds Windows' own firmware entry
Boot0000 "Windows Boot Manager" (HD(1)/\\EFI\\Microsoft\\Boot\\bootmgfw.efi, first in
BootOrder), as Windows' setup leaves it.
`anysector install --uefi-only` runs on the host against a directory of efivarfs-style files
holding those variables (ANYSECTOR_TEST_EFIVARS); the Boot#### and BootOrder it writes there
go into a copy of OVMF_VARS (tests/lib/efivars.py appends them to the variable store as the
firmware would); then `anysector add --efi /EFI/Microsoft/Boot/bootmgfw.efi --partition 1
--default --cmdline from-anysector`. Boot 1 (NVMe 512, no bootindex, so OVMF's own order rules):
OVMF starts anysector's entry ('BdsDxe: starting Boot0001 "anysector"'), whose menu starts the
"Windows" payload, which reports the command line from-anysector. Boot 2 (the variable store
boot 1 left, plus BootNext=0000): the firmware's own Windows entry still starts the payload
directly ('BdsDxe: starting Boot0000 "Windows Boot Manager"', no anysector menu, empty
LoadOptions). A failing case prints the reason and the serial log's tail."""
import os
import shutil
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import console, efivars, gpt, paths, qemu, serial, windisk  # noqa: E402
from lib.serial import Guest  # noqa: E402

LSS = 512
WINDOWS = "\\EFI\\Microsoft\\Boot\\bootmgfw.efi"


def anysector(*args, env=None):
    return subprocess.run([paths.ANYSECTOR, *args], check=True, capture_output=True, text=True,
                          env=dict(os.environ, ANYSECTOR_STAGES=paths.STAGES, **(env or {})))


def no_bootindex(disk_args):
    """qemu.disk_args without bootindex: with one, QEMU's boot order list would decide and OVMF
    would connect only the devices it names (docs/FIRMWARE.md)."""
    def args(*a, **kw):
        return [x.replace(",bootindex=1", "") for x in disk_args(*a, **kw)]
    return args


def boot(work, image, vars_file, until):
    """Boots image under OVMF with a copy of vars_file; returns (guest, the store it left)."""
    saved = qemu.OVMF_VARS, qemu.disk_args
    qemu.OVMF_VARS, qemu.disk_args = vars_file, no_bootindex(qemu.disk_args)
    try:
        g = Guest("ovmf", image, work, disk=("nvme", LSS, LSS))
    finally:
        qemu.OVMF_VARS, qemu.disk_args = saved
    try:
        g.wait_for(until.encode(), 150)
        g.pump(1)
    finally:
        g.close()
    return g, os.path.join(work, "vars.fd")


def case_windows_gpt(work):
    image = os.path.join(work, "win.img")
    esp_off, _ = windisk.make(image, paths.EFI_PAYLOAD, lss=LSS, work=work)
    ev = os.path.join(work, "efivars")
    os.makedirs(ev)
    esp_sectors = windisk.ESP_MIB * (1 << 20) // LSS
    efivars.write_var(ev, "Boot0000", efivars.load_option(
        "Windows Boot Manager", 1, esp_off // LSS, esp_sectors, gpt.part_guid(1), WINDOWS))
    efivars.write_var(ev, "BootOrder", efivars.boot_order([0]))
    out = anysector("install", "--uefi-only", image, env={"ANYSECTOR_TEST_EFIVARS": ev}).stdout
    if 'Boot0001 "anysector"' not in out:
        return f"install did not write Boot0001: {out}", None
    anysector("add", image, "--efi", WINDOWS.replace("\\", "/"), "--partition", "1", "--name",
              "windows", "--title", "Windows", "--cmdline", "from-anysector", "--default",
              "--timeout", "0")
    store = os.path.join(work, "vars-in.fd")
    shutil.copyfile(qemu.OVMF_VARS, store)
    efivars.ovmf_vars_set(store, {n: efivars.read_var(ev, n)
                                  for n in ("Boot0000", "Boot0001", "BootOrder")})
    g, left = boot(work, image, store, "ANYSECTOR-PAYLOAD")
    text = g.text()
    if 'BdsDxe: starting Boot0001 "anysector"' not in text:
        return "OVMF did not start anysector's entry Boot0001", g
    if console.MENU_TITLE not in text:
        return "anysector's menu is not on the serial console", g
    m = console.PAYLOAD_RE.search(text)
    if not m or m["cmdline"] != "from-anysector":
        return f"the Windows payload did not report from-anysector ({m and m['cmdline']})", g
    # boot 2: the firmware's own Windows entry, once, on the store boot 1 left
    store2 = os.path.join(work, "vars-next.fd")
    shutil.copyfile(left, store2)
    efivars.ovmf_vars_set(store2, {"BootNext": (efivars.NV_BS_RT, struct.pack("<H", 0))})
    g.close()
    g, _ = boot(work, image, store2, "ANYSECTOR-PAYLOAD")
    text = g.text()
    if 'BdsDxe: starting Boot0000 "Windows Boot Manager"' not in text:
        return "OVMF did not start the Windows entry Boot0000", g
    if console.MENU_TITLE in text:
        return "anysector's menu came up on the Windows entry", g
    m = console.PAYLOAD_RE.search(text)
    if not m or m["cmdline"] != "":
        return f"the Windows entry's payload did not report ({m and m['cmdline']})", g
    return None, g


CASES = [("ovmf-nvme-512-beside-windows", case_windows_gpt)]


def main():
    missing = [p for p in (paths.ANYSECTOR, paths.EFI_PAYLOAD,
                           os.path.join(paths.STAGES, "BOOTX64.EFI"))
               if not os.path.exists(p)] + qemu.missing()
    return serial.run_cases("qemu-beside", CASES, missing=lambda name: missing)


if __name__ == "__main__":
    sys.exit(main())
