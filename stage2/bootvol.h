/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot volume: the partition the installer recorded in stage2's header, its FAT filesystem
 * and the configuration file on it. */
#ifndef ANYSECTOR_STAGE2_BOOTVOL_H
#define ANYSECTOR_STAGE2_BOOTVOL_H

#include "common/blockdev.h"
#include "common/bootinfo.h"
#include "common/cfg_lock.h"
#include "common/config.h"
#include "common/measure.h"
#include "common/fat.h"

/* Finds the partition `id` names on disk (GPT unique GUID, or MBR disk signature + number; with
 * no identity recorded, the ESP or the active FAT partition) and makes part a window of it.
 * Every failure is printed as a sentence. */
int bootvol_find(struct blockdev *disk, const struct stage2_identity *id, struct blockdev *part);

/* Partition `number` of the table bootvol_find read (its start, size and MBR type; 0xEE for a
 * GPT partition). Says so and returns AS_ENOENT when there is none. */
int bootvol_partition(unsigned number, uint64_t *first, uint64_t *sectors, uint8_t *mbr_type);

/* The menu: the configuration file at path on fs (when there is one), then the Boot Loader
 * Specification's entries, read as BOOTX64.EFI reads them (common/cfg_fat.h), each file
 * measured into m (NULL: none). When the UEFI loader on fs is locked (common/cfg_lock.h; not in
 * the legacy-gap build), the file must be the one it is locked to, and no BLS entry is read. */
int bootvol_config(struct fat_fs *fs, const char *path, struct cfg *cfg, struct measure *m);
/* That lock, as bootvol_config found it (not locked before it ran, or with no lock). */
const struct cfg_lock *bootvol_lock(void);

#endif
