/* SPDX-License-Identifier: BSD-2-Clause */
/* check's second half, after the tables (tools/disk/inspect.h): the boot code and the boot
 * partition's files. */
#ifndef ANYSECTOR_TOOLS_CHECK_BOOT_H
#define ANYSECTOR_TOOLS_CHECK_BOOT_H

#include "tools/base/report.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/inspect.h"

/* Stage1 / stage2 / ESP contents (check): our boot code, its stage2, BOOTX64.EFI, anysector.cfg. */
void check_boot(struct hostdev *h, struct disk_info *di, struct report *r);

#endif
