/* SPDX-License-Identifier: BSD-2-Clause */
/* install's UEFI part: the loader at the firmware's fallback path \EFI\BOOT\BOOTX64.EFI, refused
 * there when that holds a program anysector did not write (unless --force); on a running UEFI
 * system whose firmware sees the target (and with --uefi-only) also into \EFI\anysector\ with a
 * firmware boot entry (Boot####, first in BootOrder, written after the disk through txn's
 * after_writes), the fallback path then written only where it is free or anysector's. */
#ifndef ANYSECTOR_TOOLS_INSTALL_EFI_H
#define ANYSECTOR_TOOLS_INSTALL_EFI_H

#include "tools/boot/stages.h"
#include "tools/ops/txn.h"

/* Adds the UEFI files to the plan and plans the boot entry. Returns 0 or an exit code. */
int txn_install_efi(struct txn *t, const struct stages *s);

#endif
