/* SPDX-License-Identifier: BSD-2-Clause */
/* check's look at a locked configuration (common/cfg_lock.h): whether anysector's loaders on
 * the boot partition hold the SHA-256 of anysector.cfg, and whether it is still that file. */
#ifndef ANYSECTOR_TOOLS_CHECK_LOCK_H
#define ANYSECTOR_TOOLS_CHECK_LOCK_H

#include <stdbool.h>

#include "common/fat.h"
#include "tools/base/report.h"

/* One info line: not locked, or locked and matching; a lock anysector.cfg no longer matches is
 * the loader's own sentence, an error (it boots nothing). With bios (the disk boots stage2 too)
 * a lock adds one info line, boot.lock_bios: what stage2 does with it. Returns true when a
 * loader is locked (the menu then is anysector.cfg alone, every file pinned). */
bool check_lock(struct fat_fs *fs, unsigned part, bool bios, struct report *r);

#endif
