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

/* One try of e counted as the Boot Loader Specification says (e a /loader/entries entry with a
 * boot counter; nothing otherwise): its file renamed to bootcount_bls_next's name, that path
 * told to the running system (LoaderBootCountPath, for systemd-bless-boot) and a console line
 * naming both. A rename that fails is said (through d) and the boot goes on. */
void bootvol_count_try(const struct boot_volume *v, const struct cfg_entry *e, struct diag *d);

#endif
