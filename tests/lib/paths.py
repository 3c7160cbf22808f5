# SPDX-License-Identifier: BSD-2-Clause
"""Where things are: the repository, $BUILD (default "build", relative to the repository) and
the build products the harnesses use."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("BUILD") or "build")


def build(*parts):
    return os.path.join(BUILD, *parts)


ANYSECTOR = build("tools", "anysector")                 # the installer as shipped
ASAN_ANYSECTOR = build("asan", "tools", "anysector")    # the same under ASan+UBSan
STAGES = build("stages")                                # stage1.bin, stage2.bin, BOOTX64.EFI
BIOS_PAYLOAD = build("payload", "bios", "payload.bzImage")
EFI_PAYLOAD = build("payload", "efi", "payload.efi")
MOCKLOAD = build("payload", "efi", "mockload.efi")
DUAL_PAYLOAD = build("payload", "dual", "payload-dual.bzImage")
