/* SPDX-License-Identifier: BSD-2-Clause */
/* Booting one anysector.cfg entry: the kernel file is read into memory and handed to the
 * firmware's LoadImage (so the kernel's EFI stub runs), the command line goes into LoadOptions as
 * UCS-2, and the initrd(s) are served through LoadFile2 on a vendor media device path with
 * LINUX_EFI_INITRD_MEDIA_GUID, where the stub looks for them (docs/FIRMWARE.md "OVMF"). */
#ifndef ANYSECTOR_EFI_BOOT_H
#define ANYSECTOR_EFI_BOOT_H

#include "efi/bootvol.h"

/* Starts e with cmdline (its own, or one edited in the menu). Returns only when the boot failed,
 * after saying why through d. */
int boot_entry(struct boot_volume *v, const struct cfg_entry *e, const char *cmdline,
	       struct diag *d);

#endif
