/* SPDX-License-Identifier: BSD-2-Clause */
/* check: which firmware paths start anysector on a disk. The fallback path
 * \EFI\BOOT\BOOTX64.EFI, anysector's own directory \EFI\anysector\, and, on a running UEFI
 * system whose firmware sees the disk (tools/dev/efivars.h), each Boot#### entry that points at
 * the disk's boot partition, in BootOrder's order; a program counts as anysector when its .sbat
 * names anysector, or it is shim and the grubx64.efi beside it does. */
#ifndef ANYSECTOR_TOOLS_OPS_FWPATH_H
#define ANYSECTOR_TOOLS_OPS_FWPATH_H

#include "common/fat.h"
#include "tools/base/report.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/inspect.h"

/* Reports one line per path found (boot.firmware_entry, boot.efi_own) and the summary
 * boot.firmware_paths (a warning when anysector's loader is on the partition but no path
 * starts it). fs is the boot partition bp's FAT. */
void check_firmware_paths(const struct hostdev *h, const struct disk_info *di,
			  const struct part_info *bp, struct fat_fs *fs, struct report *r);

#endif
