/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu as both loaders read it from their boot partition, in one sequence: the
 * configuration file (common/config.h), then the Boot Loader Specification's entries
 * (common/bls.h), then the checks on the whole menu. */
#ifndef ANYSECTOR_CFG_FAT_H
#define ANYSECTOR_CFG_FAT_H

#include "common/bls.h"
#include "common/cfg_lock.h"
#include "common/config.h"
#include "common/fat.h"
#include "common/measure.h"

/* Builds cfg from fs: the configuration file at path (no file there is an empty one, so the
 * menu is the BLS entries alone), parsed by cfg_parse_text; then bls_load_fat's entries; then
 * cfg_menu_check. buf holds CFG_FILE_MAX_BYTES: the file, then each BLS file in turn; bls is
 * bls_load_fat's scratch. m (NULL: none) is told each file's bytes as read, before they are
 * parsed: the configuration file and every BLS file (common/measure.h). Reports, naming path:
 *   cfg.open     the file cannot be opened (after the FAT layer's own reason)
 *   cfg.is_dir   path is a directory
 *   cfg.too_big  the file is larger than CFG_FILE_MAX_BYTES
 *   cfg.read     reading it failed (after the FAT layer's own reason)
 * and whatever the parsers and cfg_menu_check report. Returns 0 or an AS_* code: the first
 * failure's. */
int cfg_load_fat(struct fat_fs *fs, const char *path, struct cfg *cfg, char *buf,
		 struct bls_scratch *bls, struct measure *m, struct diag *d);

/* The same under a lock (common/cfg_lock.h, BOOTX64.EFI only): the file's SHA-256 must be one
 * lock takes (else cfg.locked_mismatch, AS_EDENIED, nothing parsed), and no Boot Loader
 * Specification entry is read: the lock covers anysector.cfg's bytes alone. The file is
 * measured into m as cfg_load_fat measures it. */
/* stage2's lock: the block of the first loader of cfg_lock_loaders on fs that has a
 * CFG_LOCK_SECTION (its PE headers read into buf, of cap >= CFG_LOCK_HEAD_BYTES bytes), into
 * *out. A block that does not parse counts as locked to nothing, as BOOTX64.EFI takes it. No
 * such loader: not locked. Returns whether a block was found. */
#define CFG_LOCK_HEAD_BYTES 4096u
bool cfg_lock_read_fat(struct fat_fs *fs, uint8_t *buf, struct cfg_lock *out);

int cfg_load_fat_locked(struct fat_fs *fs, const char *path, const struct cfg_lock *lock,
			struct cfg *cfg, char *buf, struct measure *m, struct diag *d);

#endif
