/* SPDX-License-Identifier: BSD-2-Clause */
/* install as a write plan: the boot stages onto a disk whose table is there. */
#ifndef ANYSECTOR_TOOLS_INSTALL_H
#define ANYSECTOR_TOOLS_INSTALL_H

#include "tools/boot/stages.h"
#include "tools/ops/txn.h"

/* Adds stage2, BOOTX64.EFI (signed, or behind shim) and stage1 (LBA 0, last) to the plan.
 * Returns 0 or an exit code. */
int txn_install(struct txn *t, const struct stages *s);

#endif
