# SPDX-License-Identifier: BSD-2-Clause
"""What the boot harnesses boot: the test payloads (tests/payload/), a deterministic initrd
whose size and CRC32 the payload must report, and for the real-Linux cases Debian's cloud
kernel with the initramfs of lib.initramfs."""
import glob
import os
import zlib

from lib import disk, initramfs, paths
from lib.results import CaseFailure

PAYLOAD_INITRD_BYTES = 6 * 1024 * 1024 + 12345   # >= 6 MiB and not a multiple of 4096
PAYLOAD_INITRD_SEED = 0x6A5EC7

# payload kind (tests/qemu/cases.py) -> the kernel file
KERNELS = {"bios-payload": paths.BIOS_PAYLOAD, "efi-payload": paths.EFI_PAYLOAD,
           "dual-payload": paths.DUAL_PAYLOAD}


def debian_kernel():
    """The newest /boot/vmlinuz-*-cloud-amd64, or None."""
    found = glob.glob("/boot/vmlinuz-*-cloud-amd64")

    def version(p):
        return [int(x) if x.isdigit() else x for x in
                os.path.basename(p).replace("-", ".").split(".")]
    return max(found, key=version) if found else None


class Inputs:
    """The files a boot case loads and what the guest must report about them. The initrds are
    written once under `root` ($BUILD/qemu) and rewritten only when their content changes."""

    def __init__(self, root, need_linux):
        os.makedirs(root, exist_ok=True)
        self.payload_initrd = os.path.join(root, "payload-initrd.bin")
        self.linux_initrd = os.path.join(root, "linux-initramfs.cpio.gz")
        data = disk.deterministic(PAYLOAD_INITRD_BYTES, PAYLOAD_INITRD_SEED)
        disk.write_if_changed(self.payload_initrd, data)
        self.initrd_size = len(data)
        self.initrd_crc = zlib.crc32(data)
        self.kernel = debian_kernel()
        self.linux_md5 = None
        if need_linux and os.path.exists("/bin/busybox"):
            disk.write_if_changed(self.linux_initrd, initramfs.build())
            self.linux_md5 = initramfs.filler_md5()

    def files_for(self, payload):
        """(kernel, initrd) for a payload kind; CaseFailure naming what is missing."""
        if payload == "linux":
            if not self.kernel:
                raise CaseFailure("no /boot/vmlinuz-*-cloud-amd64 (Debian package "
                                  "linux-image-cloud-amd64; run make deps)")
            if not self.linux_md5:
                raise CaseFailure("no /bin/busybox for the initramfs (Debian package "
                                  "busybox-static; run make deps)")
            return self.kernel, self.linux_initrd
        kernel = KERNELS[payload]
        if not os.path.exists(kernel):
            raise CaseFailure(f"test payload {kernel} is not built")
        return kernel, self.payload_initrd
