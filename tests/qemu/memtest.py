#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""memtest86+ as a second real payload (make test-qemu-memtest), from Debian's memtest86+
package: /boot/memtest86+x64.bin through the Linux boot protocol under SeaBIOS (`add --kernel`)
and /boot/memtest86+x64.efi as an EFI application under OVMF (`add --efi`), both with
`console=ttyS0,115200` on the command line (memtest86+'s README: without it nothing goes to
the serial port). Each case asserts memtest86+'s banner on the serial console, then stops the
guest (the test runs forever). Skipped, with the reason, when the package is not installed."""
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lib import paths, qemu  # noqa: E402
from lib import serial  # noqa: E402
from lib.serial import Guest  # noqa: E402

MEMTEST = {"seabios": ("--kernel", "/boot/memtest86+x64.bin"),
           "ovmf": ("--efi", "/boot/memtest86+x64.efi")}
BANNER = re.compile(r"Memtest86\+ v\d+\.\d+")
CMDLINE = "console=ttyS0,115200"


def case(firmware, work):
    flag, path = MEMTEST[firmware]
    image = os.path.join(work, "disk.img")
    subprocess.run([paths.ANYSECTOR, "mkimage", image, "--size", "64M", "--label", "gpt",
                    "--sector-size", "4096", "--stages", paths.STAGES, flag, path,
                    "--cmdline", CMDLINE, "--timeout", "0"], check=True, capture_output=True)
    g = Guest(firmware, image, work)
    try:
        # memtest86+ draws its screen with cursor moves: look at the cleaned text
        deadline = time.time() + 150
        while time.time() < deadline and not BANNER.search(g.text()) and g.proc.poll() is None:
            g.pump(1)
    finally:
        g.close()
    if not BANNER.search(g.text()):
        return "no memtest86+ banner (\"Memtest86+ vN.NN\") on the serial console", g
    return None, g


def main():
    def missing(name):
        need = (paths.ANYSECTOR, MEMTEST[name.split("-")[0]][1])
        return [p for p in need if not os.path.exists(p)] + qemu.missing()
    cases = [(f"{fw}-nvme-4Kn-memtest86+", lambda work, fw=fw: case(fw, work))
             for fw in ("seabios", "ovmf")]
    return serial.run_cases("qemu-memtest", cases, missing,
                            skip_note="Debian package memtest86+; run make deps")


if __name__ == "__main__":
    sys.exit(main())
