/* SPDX-License-Identifier: BSD-2-Clause */
/* Renaming a file of the boot partition through the firmware's own file system (as
 * systemd-boot counts a boot of a /loader/entries entry): the one change BOOTX64.EFI makes to a
 * file. Everything else it reads through common/, over the block device. */
#ifndef ANYSECTOR_EFI_RENAME_H
#define ANYSECTOR_EFI_RENAME_H

#include "efi/bootvol.h"

/* Renames dir/from to dir/to (names without a path; dir with '/' or '\\') on v's partition:
 * the file opened for writing, its EFI_FILE_INFO's name set, flushed. Returns 0, or AS_* after
 * saying why through d. */
int bootvol_rename(const struct boot_volume *v, const char *dir, const char *from, const char *to,
		   struct diag *d);

#endif
