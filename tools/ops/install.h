/* SPDX-License-Identifier: BSD-2-Clause */
/* install as a write plan: the boot stages onto a disk whose table is there. */
#ifndef ANYSECTOR_TOOLS_INSTALL_H
#define ANYSECTOR_TOOLS_INSTALL_H

#include "tools/boot/stages.h"
#include "tools/ops/txn.h"

/* Adds stage2, BOOTX64.EFI (signed, or behind shim) and stage1 (LBA 0, last) to the plan.
 * Returns 0 or an exit code. */
int txn_install(struct txn *t, const struct stages *s);

/* What install would refuse on this disk (without --force), each as a warning in r ("install
 * would refuse it: ..."), found by install's own steps: stage2's region too small, data or
 * signatures that are not anysector's where stage1 and stage2 go. The stage2 placed is the one
 * installed, else the one install would find (stages_load), else the largest the legacy gap
 * holds. Writes nothing; a disk install would not plan on at all (damaged, no table or boot
 * partition) adds nothing: check reports that itself. */
void install_preview(struct hostdev *h, const struct disk_info *di, struct report *r);

#endif
