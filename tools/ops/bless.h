/* SPDX-License-Identifier: BSD-2-Clause */
/* bless: the running boot is good, so its boot-counted /loader/entries file (or /EFI/Linux
 * unified kernel image) stops being counted (the Boot Loader Specification's "marked good"):
 * renamed to its name without the counter, keeping .conf or .efi, as systemd-bless-boot does. Which file: under UEFI the one LoaderBootCountPath names (the loader
 * counted it by renaming it); under BIOS the counted boot the boot state block records (stage2
 * counted it there), whose TRIES and BOOTED records then go in the same transaction. */
#ifndef ANYSECTOR_TOOLS_OPS_BLESS_H
#define ANYSECTOR_TOOLS_OPS_BLESS_H

#include "tools/ops/txn.h"

/* Adds the rename and the state block's change to t's plan; a boot that was not counted, or a
 * file already renamed, changes nothing (said, exit 0). Returns 0 or an exit code. */
int txn_bless(struct txn *t);

#endif
